"""A failed validation's ImportError hints become proposed requirements (never the repository's
own projects), and without approval the failure says which one to approve and how."""

from __future__ import annotations

import sys
from pathlib import Path

from plugin_repo import write_files

from generator.dependencies.distributions import HINT_ORIGIN
from generator.validate.diagnosis import diagnose
from generator.validate.hints import hinted_requirements, in_dry_run, unapproved
from generator.validate.plugin import UNCONFINED, MissingDependency, Report
from generator.validate.smoke import CheckResult


def hint(module: str, command: str) -> str:
    """A LangChain-style message for a missing optional package."""
    return (
        f"ImportError: Could not import {module} python package. "
        f"Please install it with `{command}`."
    )


TRACEBACK = f"""Traceback (most recent call last):
  File "tools.py", line 9, in search
    from ddgs import DDGS
ModuleNotFoundError: No module named 'ddgs'

The above exception was the direct cause of the following exception:

{hint("ddgs", "pip install -U ddgs")}
{hint("wikipedia", "pip install wikipedia")}
{hint("desk_tools", "pip install desk-tools")}
RuntimeError: the docs say: pip install unrelated-thing
"""


def report(*checks: CheckResult) -> Report:
    return Report(
        plugin_id="desk",
        folder="/tmp/desk",
        python="python",
        sandbox=UNCONFINED,
        checks=list(checks),
    )


def test_each_hint_of_a_failed_check_is_proposed_once_never_a_local_name() -> None:
    failed = report(
        CheckResult(name="import", ok=True),
        CheckResult(
            name="turns", ok=False, summary=hint("ddgs", "pip install -U ddgs"), traceback=TRACEBACK
        ),
    )

    hinted = hinted_requirements(failed, local={"desk-tools"})

    assert [(d.spec, d.origin, d.proposed_for) for d in hinted] == [
        ("ddgs", HINT_ORIGIN, "ddgs (`pip install ddgs` in the turns check)"),
        ("wikipedia", HINT_ORIGIN, "wikipedia (`pip install wikipedia` in the turns check)"),
    ]  # desk-tools is the repository's own; "the docs say" is no ImportError


def test_a_hint_to_install_langgraphs_server_is_never_proposed() -> None:
    """``langgraph dev``'s packages are what the runtime replaces: a hint naming them is no
    requirement; one beside them naming a tool's package still is."""
    message = (
        "ImportError: Could not import langgraph_api. Please install it with "
        '`pip install -U "langgraph-cli[inmem]" langgraph-api wikipedia`.'
    )
    failed = report(CheckResult(name="turns", ok=False, summary=message))

    assert [d.spec for d in hinted_requirements(failed)] == ["wikipedia"]


def test_a_passed_check_has_no_hints() -> None:
    passed = report(CheckResult(name="import", ok=True, summary=TRACEBACK))

    assert hinted_requirements(passed) == []


def test_unapproved_names_the_requirement_and_the_flag() -> None:
    failed = report(CheckResult(name="turns", ok=False, traceback=TRACEBACK))

    missing = unapproved(failed, hinted_requirements(failed)).missing

    assert missing is not None
    assert (missing.module, missing.requirement) == ("ddgs", "ddgs")
    assert missing.hint.startswith("the agent asks for 'ddgs', 'wikipedia', 'desk-tools' when")
    assert "approve it with --approve-deps" in missing.hint


def test_a_dry_run_names_the_import_not_the_flag_it_was_given() -> None:
    failed = report(CheckResult(name="turns", ok=False, traceback=TRACEBACK))

    missing = unapproved(failed, hinted_requirements(failed), dry_run=True).missing

    assert missing is not None
    assert "--approve-deps to add" not in missing.hint
    assert "a dry run installs nothing: import without --dry-run (with --approve-deps)" in (
        missing.hint
    )


def test_a_missing_module_in_a_dry_run_is_fixed_by_the_import_itself(tmp_path: Path) -> None:
    folder = tmp_path / "desk"
    write_files(folder, {"requirements.txt": "ddgs\n"})
    failed = CheckResult(
        name="import",
        ok=False,
        summary="ModuleNotFoundError: No module named 'ddgs'",
        missing_module="ddgs",
    )
    checked = Report(
        plugin_id="desk",
        folder=str(folder),
        python="python",
        sandbox=UNCONFINED,
        checks=[failed],
        missing=MissingDependency(
            module="ddgs",
            requirement="ddgs",
            hint="module 'ddgs' is not installed; approve the requirements with --approve-deps",
        ),
        diagnosis=diagnose([failed], folder, python=sys.executable),
    )

    dry = in_dry_run(checked)

    assert dry.missing is not None and dry.diagnosis is not None
    assert dry.missing.hint == (
        "module 'ddgs' is not installed; a dry run installs nothing: import without --dry-run "
        "to install the approved requirements"
    )
    assert "--approve-deps" not in dry.diagnosis.fix
    assert dry.diagnosis.fix.startswith("import again without --dry-run to install")


def test_a_module_still_missing_where_the_plugin_is_checked_proposes_its_distribution(
    tmp_path: Path,
) -> None:
    """The runtime provides ``langgraph.checkpoint.postgres`` (so the inspection proposed
    nothing), but an environment of its own lacks it: its usual distribution is proposed, never
    for a file of the agent's own."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "prompts.py").write_text("")
    failed = CheckResult(name="import", ok=False, summary="ModuleNotFoundError")

    def missing(module: str) -> Report:
        return Report(
            plugin_id="calc",
            folder=str(tmp_path),
            python="python",
            sandbox=UNCONFINED,
            checks=[failed],
            missing=MissingDependency(module=module, requirement=None, hint="not installed"),
        )

    proposed = hinted_requirements(missing("langgraph.checkpoint.postgres.aio"))

    assert [(d.spec, d.origin) for d in proposed] == [
        ("langgraph-checkpoint-postgres", "usual distribution name")
    ]
    assert hinted_requirements(missing("prompts")) == []
    crashed = CheckResult(
        name="turns",
        ok=False,
        summary="the calc worker exited (code 1): ModuleNotFoundError: No module named "
        "'langgraph.checkpoint.sqlite'",
    )
    in_worker = Report(
        plugin_id="calc",
        folder=str(tmp_path),
        python="python",
        sandbox=UNCONFINED,
        checks=[crashed],
    )
    assert [d.spec for d in hinted_requirements(in_worker)] == ["langgraph-checkpoint-sqlite"]
