"""Before an import is accepted: do its requirements fit with everything already installed?

All plugins share the runtime's environment, so a plugin's requirements are resolved together
with the runtime's own and every existing plugin's (``uv pip install --dry-run`` against the
runtime's interpreter: what is installed and satisfies a requirement is kept, nothing is
written). A conflict refuses the import with one line naming the packages and versions, and
who asked: the runtime, else the one other plugin, the plugin's requirements conflict with on
their own (resolved again with each), so that many plugins' pins do not hide the cause. When
the package index cannot be reached, the check says so and is skipped: it never blocks an
offline import whose requirements are all installed.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from generator.dependencies.environment import read_requirements
from generator.dependencies.runtime_packages import runtime_requirements
from generator.errors import AgentImportError
from generator.validate.processes import Finished, run_tree
from runtime.contract.layout import PLUGINS_FOLDER, REQUIREMENTS_LOCK
from runtime.isolated.envs import find_uv

RESOLVE_TIMEOUT_S = 120.0
#: Who asked for the runtime's own requirements, in a conflict's owners.
RUNTIME_OWNER = "the runtime"
#: uv's words when the index (or a URL requirement) cannot be reached.
_UNREACHABLE = re.compile(
    r"failed to fetch|error sending request|dns error|connection refused|network is unreachable|"
    r"timed out|offline mode",
    re.IGNORECASE,
)
#: A package the resolution would install, as uv lists it: `` + name==1.0``.
_PLANNED = re.compile(r"^\s*\+\s*([A-Za-z0-9][A-Za-z0-9._-]*)==", re.MULTILINE)


class RequirementsConflict(AgentImportError):
    """The requirements cannot share one environment; ``owners`` are the ``(who, requirement)``
    pairs the resolver's reason names (who: a plugin id or ``the runtime``)."""

    def __init__(self, message: str, *, owners: list[tuple[str, str]]) -> None:
        super().__init__(message)
        self.owners = owners


def check_conflicts(
    root: Path,
    plugin_id: str,
    requirements: list[str],
    *,
    local_packages: list[str],
    timeout: float = RESOLVE_TIMEOUT_S,
) -> str:
    """Raise ``AgentImportError`` (one line) if ``requirements`` cannot be installed together
    with the runtime's and the other plugins', or if the resolution would fetch one of the
    repository's ``local_packages`` from the index; else a note for the import's output."""
    if not requirements:
        return "no requirements to resolve"
    others = _sharing(root, plugin_id)
    combined = _lines(plugin_id, requirements, others)
    done = _dry_run(
        combined, "resolving the requirements with the runtime's and every plugin's", timeout
    )
    if done.returncode == 0:
        fetched = {canonicalize_name(name) for name in _PLANNED.findall(done.stderr + done.stdout)}
        confused = sorted(fetched & {canonicalize_name(name) for name in local_packages})
        if confused:
            raise AgentImportError(
                f"{', '.join(confused)} would be installed from the package index, but the "
                "agent's repository has a local package of that name: refused (a public project "
                "of the same name is not the agent's code)"
            )
        return f"resolved with the runtime's and other plugins' in {done.seconds:.1f} s"
    reason = explanation(done.stderr)
    if _unreachable(done):
        return f"conflict check skipped: the package index is not reachable ({reason})"
    if others:
        _raise_narrowest(plugin_id, requirements, others, timeout)
    raise _conflict(plugin_id, combined, reason)


def _raise_narrowest(
    plugin_id: str, requirements: list[str], others: dict[str, list[str]], timeout: float
) -> None:
    """Raise the conflict of the plugin's requirements with the runtime's alone, else with the
    first other plugin's they cannot share with: with many plugins together, uv's reason can
    name other plugins' pins of a shared dependency instead of the real cause. Return when only
    several of them together conflict."""
    alone: dict[str, list[str]] = {}
    groups = [(RUNTIME_OWNER, alone), *((f"plugin {o}", {o: r}) for o, r in others.items())]
    for who, theirs in groups:
        lines = _lines(plugin_id, requirements, theirs)
        done = _dry_run(lines, f"finding what conflicts: the requirements with {who}'s", timeout)
        if done.returncode != 0 and not _unreachable(done):
            raise _conflict(plugin_id, lines, explanation(done.stderr))


def _dry_run(lines: list[str], what: str, timeout: float) -> Finished:
    """``uv pip install --dry-run`` of ``lines`` against the runtime's interpreter, with the
    runtime's requirements as constraints."""
    with tempfile.TemporaryDirectory(prefix="agent-import-resolve-") as scratch:
        wanted = Path(scratch) / "requirements.txt"
        wanted.write_text("\n".join(lines) + "\n", "utf-8")
        limits = Path(scratch) / "runtime.txt"
        limits.write_text("\n".join(runtime_requirements()) + "\n", "utf-8")
        dry_run = ["pip", "install", "--dry-run", "--python", sys.executable]
        return run_tree(
            [*find_uv(), *dry_run, "-r", str(wanted), "-c", str(limits)],
            what=what,
            timeout=timeout,
        )


def _unreachable(done: Finished) -> bool:
    return bool(_UNREACHABLE.search(done.stderr)) and "No solution found" not in done.stderr


def _conflict(plugin_id: str, lines: list[str], reason: str) -> RequirementsConflict:
    """The one-line refusal, with who asked for each package uv's ``reason`` names."""
    owners = _owners(
        [*lines, *(f"{line}  # {RUNTIME_OWNER}" for line in runtime_requirements())], reason
    )
    return RequirementsConflict(
        f"the requirements of {plugin_id!r} conflict with the runtime's or another plugin's: "
        + reason
        + (f" ({'; '.join(f'{who} requires {spec}' for who, spec in owners)})" if owners else ""),
        owners=owners,
    )


def _sharing(root: Path, plugin_id: str) -> dict[str, list[str]]:
    """Every other sharing plugin's requirements, by id (a plugin with its own environment, a
    ``requirements.lock``, shares nothing)."""
    plugins = root / PLUGINS_FOLDER
    return {
        other.parent.name: read_requirements(other)
        for other in (sorted(plugins.glob("*/requirements.txt")) if plugins.is_dir() else [])
        if other.parent.name != plugin_id and not (other.parent / REQUIREMENTS_LOCK).is_file()
    }


def _lines(plugin_id: str, requirements: list[str], others: dict[str, list[str]]) -> list[str]:
    """The plugin's requirements and ``others``', each line saying whose it is."""
    owned = [(plugin_id, requirements), *others.items()]
    return [f"{line}  # {who}" for who, lines in owned for line in lines]


def explanation(stderr: str) -> str:
    """uv's reason in one line: the resolver's derivation, without its decorations."""
    text = re.split(r"No solution found when resolving dependencies:?", stderr, maxsplit=1)[-1]
    kept = [line for line in text.splitlines() if not line.startswith("Using Python")]
    plain = re.sub(r"[\u00d7╰─▶│]|\b(?:error|cause|Caused by):", " ", " ".join(kept))
    return " ".join(plain.split()) or "uv gave no reason"


def _owners(lines: list[str], reason: str) -> list[tuple[str, str]]:
    """Who asked for the packages the reason names: ``[("new", "alpha"), ("other", "gamma")]``."""
    named = []
    for line in lines:
        spec, _, owner = line.partition("  # ")
        try:
            name = Requirement(spec).name
        except InvalidRequirement:
            continue
        if re.search(rf"\b{re.escape(name)}\b", reason, re.IGNORECASE):
            named.append((owner, spec))
    return named
