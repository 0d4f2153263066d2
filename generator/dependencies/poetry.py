"""Poetry dependency constraints translated to PEP 508 requirements.

Poetry writes ``langchain-openai = "^0.2"``, ``pytz = "*"`` or tables such as
``{version = "^0.3", extras = ["inmem"], markers = "...", python = "^3.10"}``; pip and uv only
understand PEP 508. Each constraint becomes one requirement line, or a ``Local`` folder (a
``path`` dependency, vendored and never fetched by name), or an ``Untranslatable`` reason the
inspector lists as a warning: nothing is dropped without a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement

_VERSION = re.compile(r"^\d+(\.\d+)*([.-]?(a|b|rc|post|dev)\.?\d*)*$")
_OPERATOR = re.compile(r"^(===|==|!=|<=|>=|~=|<|>)\s*(.+)$")
#: Table keys that change nothing about what gets installed.
_IGNORED_KEYS = frozenset({"optional", "allow-prereleases", "allows-prereleases", "develop"})


@dataclass(frozen=True)
class Local:
    """A ``path`` dependency: a folder of the repository, relative to the pyproject's folder."""

    path: str


@dataclass(frozen=True)
class Untranslatable:
    reason: str


def translate(name: str, constraint: object) -> str | Local | Untranslatable:
    """The PEP 508 requirement for ``name = constraint`` as Poetry reads it."""
    if isinstance(constraint, str):
        specifier = version_specifier(constraint)
        if isinstance(specifier, Untranslatable):
            return specifier
        return _checked(f"{name}{specifier}")
    if isinstance(constraint, dict):
        return _table(name, constraint)
    if isinstance(constraint, list):
        return Untranslatable("several constraints chosen by markers (a list) are not supported")
    return Untranslatable(f"unsupported constraint {constraint!r}")


def version_specifier(constraint: str) -> str | Untranslatable:
    """``^1.2`` -> ``>=1.2,<2.0``; ``~1.2.3`` -> ``>=1.2.3,<1.3.0``; ``*`` -> ``""``."""
    if "||" in constraint or re.search(r"(?<!,)\s\|\s", constraint):
        return Untranslatable(f"alternatives ({constraint!r}) cannot be written in PEP 508")
    parts = [part.strip() for part in re.split(r",|\s+(?=[<>=!~^])", constraint) if part.strip()]
    clauses: list[str] = []
    for part in parts:
        clause = _clause(part)
        if clause is None:
            return Untranslatable(f"{constraint!r} is not a Poetry version constraint")
        clauses += clause
    return ",".join(clauses)


def python_marker(constraint: str) -> str | Untranslatable:
    """A ``python = "^3.10"`` restriction as an environment marker."""
    specifier = version_specifier(constraint)
    if isinstance(specifier, Untranslatable) or not specifier:
        return specifier
    matched = (_OPERATOR.match(clause) for clause in specifier.split(","))
    return " and ".join(f'python_version {m.group(1)} "{m.group(2)}"' for m in matched if m)


def _clause(part: str) -> list[str] | None:
    if part == "*":
        return []
    if part.startswith("^"):
        return _caret(part[1:].strip())
    if part.startswith("~") and not part.startswith("~="):
        return _tilde(part[1:].strip())
    operator = _OPERATOR.match(part)
    if operator:
        return [f"{operator.group(1)}{operator.group(2).strip()}"]
    if part.endswith(".*") and _VERSION.match(part[:-2]):
        return [f"=={part}"]
    return [f"=={part}"] if _VERSION.match(part) else None


def _release(version: str) -> list[int] | None:
    numbers = re.match(r"^\d+(\.\d+)*", version)
    return [int(n) for n in numbers.group(0).split(".")] if numbers else None


def _caret(version: str) -> list[str] | None:
    """``^`` allows changes that do not modify the left-most non-zero digit."""
    release = _release(version)
    if release is None or not _VERSION.match(version):
        return None
    index = next((i for i, n in enumerate(release) if n != 0), len(release) - 1)
    upper = [*release[:index], release[index] + 1]
    return [f">={version}", f"<{_dotted(upper, len(release))}"]


def _tilde(version: str) -> list[str] | None:
    """``~1.2.3`` allows patch changes; ``~1`` allows minor changes."""
    release = _release(version)
    if release is None or not _VERSION.match(version):
        return None
    index = 0 if len(release) == 1 else 1
    upper = [*release[:index], release[index] + 1]
    return [f">={version}", f"<{_dotted(upper, len(release))}"]


def _dotted(numbers: list[int], length: int) -> str:
    padded = numbers + [0] * (max(length, 2) - len(numbers))
    return ".".join(map(str, padded))


def _table(name: str, table: dict[str, object]) -> str | Local | Untranslatable:
    if isinstance(table.get("path"), str):
        return Local(str(table["path"]))
    extras = table.get("extras", [])
    if not isinstance(extras, list) or not all(isinstance(e, str) for e in extras):
        return Untranslatable("extras must be a list of names")
    head = f"{name}[{','.join(extras)}]" if extras else name
    unknown = set(table) - _IGNORED_KEYS - {
        "version", "extras", "markers", "python", "git", "branch", "rev", "tag", "url",
        "subdirectory", "platform",
    }  # fmt: skip
    if unknown:
        return Untranslatable(f"unsupported keys {', '.join(sorted(unknown))}")
    if isinstance(table.get("git"), str):
        ref = next((str(table[k]) for k in ("rev", "tag", "branch") if k in table), None)
        body = f"{head} @ git+{table['git']}" + (f"@{ref}" if ref else "")
        if "subdirectory" in table:
            body += f"#subdirectory={table['subdirectory']}"
    elif isinstance(table.get("url"), str):
        body = f"{head} @ {table['url']}"
    else:
        specifier = version_specifier(str(table.get("version", "*")))
        if isinstance(specifier, Untranslatable):
            return specifier
        body = f"{head}{specifier}"
    markers = [str(table["markers"])] if "markers" in table else []
    if "python" in table:
        python = python_marker(str(table["python"]))
        if isinstance(python, Untranslatable):
            return python
        markers += [python] if python else []
    if "platform" in table:
        markers.append(f'sys_platform == "{table["platform"]}"')
    if markers:
        joined = " and ".join(f"({m})" if len(markers) > 1 else m for m in markers)
        body += f" ; {joined}"
    return _checked(body)


def _checked(line: str) -> str | Untranslatable:
    try:
        Requirement(line)
    except InvalidRequirement as exc:
        return Untranslatable(f"not a valid requirement once translated ({exc})")
    return line
