"""What the runtime's environment gives every plugin: its declared requirements and the
distributions they bring in, extras left out.

Both the inspector (is an imported module already provided?) and the conflict check (what must
a plugin's requirements fit with?) ask this, so the answer does not depend on whatever else
happens to be installed next to the runtime (a developer's extras, another plugin's packages).
"""

from __future__ import annotations

from functools import cache
from importlib import metadata

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

#: The distribution whose requirements are the runtime's own (runtime/pyproject.toml).
RUNTIME_DISTRIBUTION = "a2ui-runtime"


def runtime_requirements() -> list[str]:
    """The runtime's declared requirements (its distribution's metadata), extras left out."""
    return [str(r) for r in _requirements(RUNTIME_DISTRIBUTION)]


@cache
def provided_distributions() -> frozenset[str]:
    """Canonical names of the runtime's requirements and everything they require."""
    closure: set[str] = set()
    queue = [r.name for r in _requirements(RUNTIME_DISTRIBUTION)]
    while queue:
        name = canonicalize_name(queue.pop())
        if name not in closure:
            closure.add(name)
            queue += [r.name for r in _requirements(name)]
    return frozenset(closure)


@cache
def provided_modules() -> frozenset[str]:
    """Top-level modules of the runtime's requirements and everything they require."""
    return frozenset(
        module for name in provided_distributions() for module in _top_level_modules(name)
    )


def _top_level_modules(distribution: str) -> set[str]:
    """The modules a distribution installs, as ``packages_distributions`` finds them (declared
    in ``top_level.txt``, else its ``.py`` files' top folders), read for this one alone: the
    standard function reads every installed distribution's metadata, most of a second."""
    try:
        found = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return set()
    declared = (found.read_text("top_level.txt") or "").split()
    if declared:
        return set(declared)
    files = [f for f in found.files or [] if f.suffix == ".py"]
    return {f.parts[0] if len(f.parts) > 1 else f.stem for f in files}


def _requirements(distribution: str) -> list[Requirement]:
    try:
        declared = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return []
    kept = []
    for line in declared:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.marker is None or "extra" not in str(requirement.marker):
            kept.append(requirement)
    return kept
