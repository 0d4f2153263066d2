"""A validation environment that only adds to the runtime's: fast to fill, checked in a fork.

uv sees only a validation environment's own site-packages, not the runtime's it is linked to,
so installing the agent's requirements there copies LangGraph, LangChain, pydantic and the rest
again (forty-odd packages for one missing requirement) without bytecode, and the checks then
need a new interpreter that compiles all of it from source: ten seconds where the checks take
one. Instead the agent's requirements are resolved against the runtime's interpreter, as the
conflict check does (``uv pip install --dry-run``, the runtime's requirements as constraints):
what uv would add is exactly what the environment lacks. Those pins alone are installed
(``--no-deps``); when the resolution would replace an installed version, the whole set is
installed as before.

An environment that holds only distributions the runtime lacks (``added_sites``) is the
runtime's environment plus its site-packages in front: the warm interpreter's fork, with those
folders first on ``sys.path`` (``warm.py``), runs the checks as the environment's interpreter
would, with everything the runtime has already imported and compiled.
"""

from __future__ import annotations

import platform
import re
import sysconfig
import tempfile
from importlib import metadata
from pathlib import Path

from packaging.utils import canonicalize_name

from generator.dependencies.runtime_packages import runtime_requirements
from generator.validate.processes import run_tree

#: What the resolution would do, as uv lists it: `` + name==1.0`` or `` + name @ URL`` (added),
#: `` - name==0.9`` (removed); the pin as it is installed again.
_CHANGE = re.compile(r"^\s*([+-])\s*([A-Za-z0-9][A-Za-z0-9._-]*(?:==| @ )\S+)", re.MULTILINE)
#: A validation environment's interpreter says its version here (``uv venv`` writes it).
_VERSION = re.compile(r"^version_info\s*=\s*(\S+)", re.MULTILINE)


def planned_additions(
    uv: list[str], python: str, requirements_file: Path, *, timeout: float
) -> list[str] | None:
    """The ``name==version`` (or ``name @ URL``) pins uv would add to ``python``'s environment for
    ``requirements_file``; None when it would also replace or remove one (or cannot resolve:
    the full install then says why)."""
    with tempfile.TemporaryDirectory(prefix="agent-import-plan-") as scratch:
        limits = Path(scratch) / "runtime.txt"
        limits.write_text("\n".join(runtime_requirements()) + "\n", "utf-8")
        dry_run = ["pip", "install", "--dry-run", "--python", python]
        done = run_tree(
            [*uv, *dry_run, "-r", str(requirements_file), "-c", str(limits)],
            what="resolving what the validation environment lacks",
            timeout=timeout,
        )
    changes = _CHANGE.findall(done.stderr + done.stdout)
    if done.returncode != 0 or any(sign == "-" for sign, _ in changes):
        return None
    return [pin for _, pin in changes]


def added_sites(python: Path) -> list[str] | None:
    """The site-packages folders of the validation environment whose interpreter is ``python``,
    when the warm interpreter (this Python) can stand in for it: the same Python version, and
    every distribution in it one this environment lacks; else None."""
    env = python.parent.parent
    config = env / "pyvenv.cfg"
    if not config.is_file():
        return None
    version = _VERSION.search(config.read_text("utf-8", errors="replace"))
    if version is None or version.group(1) != platform.python_version():
        return None
    paths = {"base": str(env), "platbase": str(env)}
    sites = [
        site
        for site in dict.fromkeys(
            sysconfig.get_path(kind, "venv", vars=paths) for kind in ("purelib", "platlib")
        )
        if Path(site).is_dir()
    ]
    for distribution in metadata.distributions(path=sites):
        name = distribution.metadata["Name"]
        if name is None or _installed_here(name):
            return None
    return sites


def _installed_here(name: str) -> bool:
    try:
        metadata.distribution(canonicalize_name(name))
    except metadata.PackageNotFoundError:
        return False
    return True
