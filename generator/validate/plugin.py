"""Validate: does a plugin folder import and hold a conversation, with no key and no network?

Two checks in a fresh process (``generator.validate.smoke``), in the sandbox (``confined.py``,
``runtime.sandbox``) unless this process was started with ``--no-sandbox`` (``confinement.py``):
an import check (the plugin is discovered and its graph built, which imports the agent), then an
offline smoke test (the first turn and one message, with every chat model replaced by a scripted
reply). Dummy provider keys are set for both. The report says pass or fail with the traceback
and, when a module is missing, which requirement provides it and how to approve it; a failure is
diagnosed (``diagnosis.py``: which kind, why, the fix), and a network error in the smoke test
after the import check passed is a warning, not a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from generator.dependencies.additions import added_sites
from generator.dependencies.environment import read_requirements, requirement_for_module
from generator.errors import AgentImportError
from generator.validate import confinement, warm
from generator.validate.confined import check_env, check_spec
from generator.validate.diagnosis import (
    Diagnosis,
    diagnose,
    left_for_review,
    own_module_file,
    own_module_fix,
)
from generator.validate.processes import end_tree
from generator.validate.smoke import CheckName, CheckResult, CheckResults
from runtime import sandbox
from runtime.contract.layout import REQUIREMENTS_FILE, SOURCE_FOLDER
from runtime.isolated.envs import ENVS_DIR_ENV

CHECKS: tuple[CheckName, ...] = ("import", "turns")
CHECK_TIMEOUT_S = 120.0
#: Set for the checks, on top of the caller's environment: nothing writes into the plugin folder.
CHECK_ENV = {"PYTHONDONTWRITEBYTECODE": "1"}
#: What a report says of checks run with ``--no-sandbox``.
UNCONFINED = (
    f"no sandbox ({sandbox.NO_SANDBOX_OPTION}): the agent's code ran with your user's files, "
    "network and environment variables"
)


class MissingDependency(BaseModel):
    """A module the agent imports that the validating interpreter does not have."""

    model_config = ConfigDict(extra="forbid")

    module: str
    requirement: str | None = Field(description="The requirements.txt line providing it, if any.")
    hint: str


class Report(BaseModel):
    """The outcome of validating one plugin folder."""

    model_config = ConfigDict(extra="forbid")

    plugin_id: str
    folder: str
    python: str = Field(description="The interpreter the checks ran with.")
    sandbox: str = Field(description="What confined the agent's code (``UNCONFINED``: nothing).")
    checks: list[CheckResult]
    missing: MissingDependency | None = None
    diagnosis: Diagnosis | None = Field(
        default=None, description="Why a check failed and the fix (a warning when it passed)."
    )

    @property
    def ok(self) -> bool:
        """Every check ran and passed, or failed with nothing worse than a warning."""
        warned = self.diagnosis is not None and self.diagnosis.severity == "warning"
        return len(self.checks) == len(CHECKS) and (warned or all(c.ok for c in self.checks))

    def reviewing(self, names: Sequence[str]) -> Report:
        """This report, where a turn stopping on a field the import left for review (``names``)
        is a warning: the value belongs in the plugin's pull request."""
        diagnosis = left_for_review(self.diagnosis, names, self.plugin_id)
        return self.model_copy(update={"diagnosis": diagnosis})

    def describe(self, *, tracebacks: bool = True) -> str:
        """A human-readable report: the outcome and, if it failed, the diagnosis first; then
        one line per check, with what a client received or why not."""
        outcome = "passed" if self.ok else "FAILED"
        lines = [f"validate {self.plugin_id}: {outcome}"]
        if self.diagnosis is not None:
            headline, *rest = self.diagnosis.lines()
            warned = " with a warning" if self.diagnosis.severity == "warning" else ""
            lines = [f"validate {self.plugin_id}: {outcome}{warned}: {headline}"]
            lines += [f"  {line}" for line in rest]
        for check in self.checks:
            status = "ok" if check.ok else "FAILED"
            lines.append(f"  {check.name:<7}{status:<7}{check.seconds:5.2f} s  {check.summary}")
            lines += [f"           {line}" for line in check.transcript]
        if self.missing is not None:
            lines.append(f"  missing dependency: {self.missing.hint}")
        lines.append(f"  {self.sandbox}")
        failed = next((c for c in self.checks if not c.ok and c.traceback), None)
        if tracebacks and failed is not None and failed.traceback:
            lines += ["", failed.traceback.rstrip()]
        return "\n".join(lines)


def validate(
    plugin_dir: Path,
    *,
    python: Path | None = None,
    timeout: float = CHECK_TIMEOUT_S,
    env: dict[str, str] | None = None,
    sandboxed: bool | None = None,
) -> Report:
    """Run the checks on ``plugin_dir`` with ``python`` (default: this interpreter), ``env`` set
    for them (where an isolated plugin's environment was built), in a sandbox unless not
    ``sandboxed`` (default: ``confinement.enabled()``; unconfined, with this process's
    environment). ``AgentImportError`` if no sandbox can be made: nothing ran."""
    if sandboxed is None:
        sandboxed = confinement.enabled()
    folder = plugin_dir.resolve()
    interpreter = str(python or sys.executable)
    if sandboxed and (why := sandbox.unavailable()):
        raise AgentImportError(why)
    extra = {**CHECK_ENV, **(env or {})}
    checks, confined = _run(folder, interpreter, timeout, extra, sandboxed=sandboxed)
    module = next((c.missing_module for c in checks if c.missing_module), None)
    installed = (
        python is not None or ENVS_DIR_ENV in extra
    )  # approved: a validation env, or its own
    return Report(
        plugin_id=folder.name,
        folder=str(folder),
        python=interpreter,
        sandbox=confined.describe() if confined else UNCONFINED,
        checks=checks,
        missing=_missing(module, folder, approved=installed) if module else None,
        diagnosis=diagnose(checks, folder, python=interpreter),
    )


def _run(
    folder: Path, python: str, timeout: float, extra: dict[str, str], *, sandboxed: bool
) -> tuple[list[CheckResult], sandbox.Spec | None]:
    """Both checks in one fresh process (``generator.validate.smoke``), from an empty folder: a
    fork of the warm interpreter (``warm.py``) when it is this interpreter or a validation
    environment that only adds to it (``additions.py``), else a new one; in a sandbox when
    ``sandboxed`` (``confined.py``)."""
    with tempfile.TemporaryDirectory(prefix="agent-import-validate-") as tmp:
        scratch = Path(tmp)
        out, output = scratch / "results.json", scratch / warm.OUTPUT_FILE
        sites = [] if Path(python) == Path(sys.executable) else added_sites(Path(python))
        spec = None
        if sandboxed:
            env = check_env(folder, os.environ, extra)
            spec = check_spec(folder, out, python=python, sites=sites or [], env=env)
        else:
            env = {**os.environ, **extra}
        try:
            finished = _forked(folder, scratch, out, timeout, env, sites, spec)
        except warm.Unavailable:
            finished = _cold(folder, python, scratch, out, timeout, env, spec)
        if (failed := scratch / warm.SANDBOX_FAILED_FILE).is_file():
            raise AgentImportError(failed.read_text(encoding="utf-8").strip())
        if out.is_file() and (written := out.read_text(encoding="utf-8")):
            return CheckResults.validate_json(written), spec
        stderr = output.read_text(errors="replace") if output.is_file() else ""
    summary = (
        "the check process ended before reporting" if finished else f"timed out after {timeout:g} s"
    )
    traceback = "\n".join(stderr.strip().splitlines()[-20:]) or None
    return [CheckResult(name="import", ok=False, summary=summary, traceback=traceback)], spec


def _forked(
    folder: Path,
    scratch: Path,
    out: Path,
    timeout: float,
    env: dict[str, str],
    sites: list[str] | None,
    spec: sandbox.Spec | None,
) -> bool:
    """The checks in a fork of the warm interpreter (a validation environment's site-packages
    first, when it only adds to this one); False on the time limit."""
    interpreter = warm.start() if sites is not None else None
    if sites is None or interpreter is None:
        raise warm.Unavailable("the checks need another interpreter")
    request = warm.Request(
        folder=str(folder),
        out=str(out),
        scratch=str(scratch),
        env=env,
        sites=sites,
        sandbox=spec.to_json() if spec else None,
    )
    return interpreter.check(request, timeout=timeout)


def _cold(
    folder: Path,
    python: str,
    scratch: Path,
    out: Path,
    timeout: float,
    env: dict[str, str],
    spec: sandbox.Spec | None,
) -> bool:
    """The checks in a new interpreter, its output in the scratch folder; False on the limit.
    It imports ``runtime`` and ``generator`` from where this process does, as the warm one does.

    The interpreter (or the sandbox's keeper) leads its own process group, so the limit ends
    whatever the agent started too, as in the warm interpreter's forks."""
    command = [python, "-m", "generator.validate.smoke", str(folder), str(out)]
    log = scratch / warm.OUTPUT_FILE
    with log.open("w", encoding="utf-8") as output:
        child = subprocess.Popen(
            sandbox.command(spec, command) if spec else command,
            stdout=output,
            stderr=output,
            env=warm.with_packages(env),
            cwd=scratch,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            end_tree(child)
            return False
        except BaseException:  # Ctrl-C: nothing the check started may keep running
            end_tree(child)
            raise
    if spec is not None and child.returncode == sandbox.SETUP_FAILED:
        lines = log.read_text(errors="replace").strip().splitlines()
        if lines and lines[-1].startswith("sandbox: "):
            raise AgentImportError(lines[-1].removeprefix("sandbox: "))
    return True


def _missing(module: str, folder: Path, *, approved: bool) -> MissingDependency:
    """What a module nothing installed provides asks for. ``approved``: the requirements were
    installed into a validation environment already, so the fix is a requirement, not a flag."""
    if own := own_module_file(module, folder / SOURCE_FOLDER):
        hint = (
            f"module {module!r} is the agent's own file {own}, not importable as a top-level "
            f"module (LangGraph's server would not find it either): {own_module_fix(module)}"
        )
        return MissingDependency(module=module, requirement=None, hint=hint)
    requirement = requirement_for_module(module, read_requirements(folder / REQUIREMENTS_FILE))
    where = f"the requirement {requirement!r} in" if requirement else "a requirement missing from"
    listed = f"{folder.name}/{REQUIREMENTS_FILE}"
    if approved:
        fix = (
            f"its requirements were installed, and none provides it: add the distribution that "
            f"does to {listed} (its name may differ from the module's)"
            if requirement is None
            else f"{requirement!r} was installed and does not provide it: check its version"
        )
        return MissingDependency(
            module=module,
            requirement=requirement,
            hint=f"module {module!r} is not installed; {fix}",
        )
    hint = (
        f"module {module!r} is not installed ({where} {listed}); approve the requirements with "
        "--approve-deps to install them into an isolated validation environment "
        f"(.agent-import/envs/{folder.name}), never the runtime's"
    )
    return MissingDependency(module=module, requirement=requirement, hint=hint)
