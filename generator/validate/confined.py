"""What the checks' sandbox is given: the interpreter, the code that checks, a copy of the plugin.

The checks run an agent nobody has reviewed, so they run in ``runtime.sandbox``: no network,
no process but their own, and a file system holding only, read-only, the interpreters (this one,
a validation environment's, an isolated plugin's environment for its worker) and the
``runtime`` and ``generator`` packages (the runtime's own plugins hidden); writable, a
throwaway copy of the plugin at the plugin's own path, in the sandbox's bounded memory (an
agent that writes beside itself works, the plugin folder stays byte for byte as it was), a
private ``/tmp`` it runs from, and the one file the checks write their results to.

Its variables are only what Python needs, a private ``HOME`` and temp folder, and dummies for
the credentials the plugin's ``agent.json`` ``env`` names; never a value of the caller's: a dry
run or a preview hands an agent no token, database URL or key of the user's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import generator
import runtime
import runtime.plugins
from generator.validate.smoke import agent_env, is_credential
from runtime import sandbox
from runtime.isolated.envs import ENVS_DIR_ENV

#: Variables of the caller's environment the checks keep: what finds programs and reads text.
BASICS = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
#: What a credential the agent names holds in the checks.
DUMMY = "offline-dummy"


def check_env(folder: Path, base: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """The checks' variables: ``BASICS`` of ``base``, a private home, ``extra`` (set by the
    validation itself), and a dummy for each credential ``agent.json`` names. No other value of
    the caller's: the agent chooses the names it reads (the inspector lists them from its code),
    so a name would fetch a database URL or a token as easily as a setting."""
    env = {name: base[name] for name in BASICS if name in base}
    env |= {"HOME": sandbox.HOME, "TMPDIR": "/tmp", **extra}
    env |= {name: DUMMY for name in agent_env(folder) if is_credential(name)}
    return env


def check_spec(
    folder: Path, results: Path, *, python: str, sites: Iterable[str], env: Mapping[str, str]
) -> sandbox.Spec:
    """The sandbox of a check of ``folder`` run with ``python`` (``sites`` first on its path),
    which writes what it found to ``results`` (made here, empty, the one host file it may
    write) and runs from a private ``/tmp``. It shows the ``runtime`` and ``generator`` this
    process imports, which the check interpreter imports too (``warm.package_roots``)."""
    results.touch()
    sandbox.hand_over(results)
    readable = [*sandbox.this_interpreter(), *sandbox.interpreter_paths(python), *sites]
    readable += [_package(runtime), _package(generator)]
    if env.get(ENVS_DIR_ENV):  # an isolated plugin: its worker's environment and interpreter
        readable += _environments(Path(env[ENVS_DIR_ENV]))
    binds = [sandbox.Bind(path) for path in dict.fromkeys(readable) if os.path.exists(path)]
    binds += [sandbox.Bind(str(results), writable=True), sandbox.Bind(str(folder), copy=True)]
    return sandbox.Spec(binds=tuple(binds), hidden=(_package(runtime.plugins),), cwd="/tmp")


def _package(module: object) -> str:
    return str(Path(getattr(module, "__file__", "") or "").resolve().parent)


def _environments(root: Path) -> list[str]:
    """Every environment under ``root`` and the installation each was made from."""
    found = [str(root)] if root.is_dir() else []
    for python in root.glob("*/*/bin/python"):
        found += sandbox.interpreter_paths(python)
    return found
