"""Requirements an agent names only when it runs: an ImportError's ``pip install X`` hint.

Tools often import their package when first called and say what to install when it is missing
("Could not import wikipedia python package. Please install it with `pip install
wikipedia`."): no static reading finds those. A failed validation's messages are read for such
hints; each names a requirement that is proposed like an undeclared import (``proposed_for``
quotes the hint), as is the usual distribution of a module still missing where the plugin is
checked (one the runtime provides, so not proposed at inspection, in an environment of its
own). Each is approved with ``--approve-deps`` and then installed before one more validation.
A name of the repository's own projects is never proposed, nor LangGraph's server
(``generator/dependencies/server_packages.py``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from generator.dependencies.distributions import (
    HINT_ORIGIN,
    USUAL_NAME,
    distribution,
    module_of,
    needs_more_parts,
    pip_install_specs,
)
from generator.dependencies.isolation import is_isolated
from generator.dependencies.server_packages import is_server_package
from generator.models import Dependency
from generator.validate.diagnosis import APPROVE_AGAIN, own_module_file
from generator.validate.plugin import MissingDependency, Report
from runtime.contract.layout import REQUIREMENTS_FILE, REQUIREMENTS_LOCK, SOURCE_FOLDER

#: Why a dry run's failure names the import rather than --approve-deps.
DRY_RUN = "a dry run installs nothing"

#: A line that reports a missing package: the exception's name or its usual words.
_MISSING = re.compile(
    r"ImportError|ModuleNotFoundError|could not import|not installed|please install", re.I
)
_NO_MODULE = re.compile(r"No module named ['\"]([\w.]+)['\"]")
_MODULE = re.compile(r"(?:[Cc]ould not import|No module named)\s+['\"`]?([\w.-]+)")


def hinted_requirements(report: Report, local: Collection[str] = ()) -> list[Dependency]:
    """A proposed requirement for each ``pip install`` hint of the failed checks' messages,
    once each; none of the repository's own projects (``local``, canonical names), nor
    LangGraph's server packages."""
    found: dict[str, Dependency] = {}
    for check in report.checks:
        if check.ok:
            continue
        for line in f"{check.summary}\n{check.traceback or ''}".splitlines():
            if not _MISSING.search(line):
                continue
            for spec in pip_install_specs(line):
                name = canonicalize_name(Requirement(spec).name)
                if name not in local and name not in found and not is_server_package(name):
                    found[name] = Dependency(
                        name=name,
                        spec=spec,
                        origin=HINT_ORIGIN,
                        proposed_for=f"{_module(line) or name} (`pip install {spec}` "
                        f"in the {check.name} check)",
                    )
    for module in _missing_modules(report):
        usual = distribution(module_of(module))
        if usual not in local and usual not in found and not is_server_package(usual):
            found[usual] = Dependency(
                name=usual,
                spec=usual,
                origin=USUAL_NAME,
                proposed_for=f"{module} (ModuleNotFoundError where the plugin is checked)",
            )
    return list(found.values())


def _missing_modules(report: Report) -> list[str]:
    """The modules the failed checks could not import (in process, or in an isolated worker,
    whose error is its text), less the agent's own files and a namespace's bare top (``google``
    names no project)."""
    modules = [report.missing.module] if report.missing and not report.missing.requirement else []
    for check in report.checks:
        if not check.ok:
            modules += _NO_MODULE.findall(f"{check.summary}\n{check.traceback or ''}")
    src = Path(report.folder) / SOURCE_FOLDER
    return [
        module
        for module in dict.fromkeys(modules)
        if own_module_file(module, src) is None and not needs_more_parts(module)
    ]


def unapproved(report: Report, hinted: list[Dependency], *, dry_run: bool = False) -> Report:
    """``report`` saying which hinted requirement to approve, and how; for a dry run (which
    installs nothing, approved or not), that the import itself would add it."""
    plugin_id = report.plugin_id
    specs = ", ".join(repr(d.spec) for d in hinted)
    into = (
        f"lock it in {plugin_id}/{REQUIREMENTS_LOCK} and install it into the plugin's "
        "environment of its own"
        if is_isolated(Path(report.folder))
        else f"install it into an isolated validation environment "
        f"(.agent-import/envs/{plugin_id}), never the runtime's"
    )
    how = (
        f"{DRY_RUN}: import without --dry-run (with --approve-deps)"
        if dry_run
        else "approve it with --approve-deps"
    )
    hint = (
        f"the agent asks for {specs} when it runs (`pip install` in its ImportError); "
        f"{how} to add it to {plugin_id}/{REQUIREMENTS_FILE} and {into}"
    )
    module = (hinted[0].proposed_for or hinted[0].name).partition(" ")[0]
    missing = MissingDependency(module=module, requirement=hinted[0].spec, hint=hint)
    return report.model_copy(update={"missing": missing})


def in_dry_run(report: Report) -> Report:
    """``report`` of a dry run with --approve-deps: a missing package's fix is the import
    itself, not the flag it was given (a dry run installs nothing)."""
    update: dict[str, object] = {}
    if (missing := report.missing) is not None:
        kept = missing.hint.partition("; approve")[0]
        hint = f"{kept}; {DRY_RUN}: import without --dry-run to install the approved requirements"
        update["missing"] = missing.model_copy(update={"hint": hint})
    if (diagnosis := report.diagnosis) is not None and diagnosis.kind == "missing_package":
        fix = diagnosis.fix.replace(APPROVE_AGAIN, "import again without --dry-run")
        update["diagnosis"] = diagnosis.model_copy(update={"fix": f"{fix} ({DRY_RUN})"})
    return report.model_copy(update=update)


def _module(line: str) -> str | None:
    found = _MODULE.search(line)
    return found.group(1) if found else None
