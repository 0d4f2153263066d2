"""``update_plugin`` end to end: real git repositories, real Copier, real subprocess validation.

Each test imports a structured agent into a fresh runtime repository and commits it, then changes
the agent upstream, the plugin by hand, or the template, and updates.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from plugin_repo import (
    ImportedPlugin,
    commit_all,
    counter_agent,
    git,
    only_index,
    pyproject,
    tree,
    wheel,
)

from generator.design import DesignOptions, design
from generator.errors import AgentImportError
from generator.inspect import inspect_source
from generator.models import Source
from generator.pipeline.steps import Step
from generator.pipeline.update import UpdateOptions, update_plugin
from generator.render.claim import Claim, ClaimHeld
from generator.render.screen_files import blob_id
from generator.render.staging import Staging
from generator.render.template_repo import replayed_from
from runtime.contract.layout import PLUGINS_FOLDER

PLUGIN = ImportedPlugin.plugin_id
OFFLINE = DesignOptions(offline=True, use_cache=False)


def with_vowels() -> dict[str, str]:
    """The upstream change: a new state field, and a new node that fills it."""
    graph = textwrap.dedent(counter_agent("unused")["graph.py"])
    for old, new in (
        ("    letters: int\n", "    letters: int\n    vowels: int\n"),
        (
            "\n\ndef judge",
            "\n\ndef vowels(state: CountState) -> CountState:\n"
            '    return {"vowels": sum(c in "aeiou" for c in state.get("sentence", "").lower())}'
            "\n\n\ndef judge",
        ),
        (
            'builder.add_node("judge"',
            'builder.add_node("vowels", vowels)\nbuilder.add_node("judge"',
        ),
        (
            'builder.add_edge("count", "judge")',
            'builder.add_edge("count", "vowels")\nbuilder.add_edge("vowels", "judge")',
        ),
    ):
        assert old in graph
        graph = graph.replace(old, new)
    return {"graph.py": graph}


VOWELS = with_vowels()


@pytest.fixture
def setup(tmp_path: Path) -> ImportedPlugin:
    return ImportedPlugin(tmp_path, package="counter_update")


def worktree(repo: Path) -> dict[str, bytes]:
    """Every file of the repository's working tree (git's own files change as it reads; the
    template's repository is a local cache)."""
    return {
        name: data
        for name, data in tree(repo).items()
        if not name.startswith((".git/", ".agent-import/"))
    }


def component(screen: dict[str, Any], component_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in screen["components"] if c["id"] == component_id)
    return found


def bound_fields(screen: dict[str, Any]) -> set[str]:
    """The agent state fields a screen shows (``/state/<field>`` bindings)."""
    text = json.dumps(screen)
    return {part.split('"')[0] for part in text.split('"/state/')[1:]}


def test_an_upstream_change_keeps_the_hand_edit_and_shows_the_new_field(
    setup: ImportedPlugin,
) -> None:
    setup.edit_screen("result", "title", text="Your sentence, counted")
    before = setup.head()
    commit = setup.change_upstream(VOWELS)

    result = setup.update()

    assert result.status == "updated" and result.validation and result.validation.ok
    result_screen = setup.screen("result")
    assert component(result_screen, "title")["text"] == "Your sentence, counted"
    assert "vowels" in bound_fields(result_screen)
    assert json.loads((setup.plugin / "agent.json").read_text())["result_fields"] == [
        "letters",
        "vowels",
        "words",
    ]
    answers = setup.answers()
    assert answers["source_commit"] == commit
    assert "vowels" in [node["name"] for node in answers["agent_shape"]["nodes"]]
    assert "def vowels" in (setup.plugin / "src" / "graph.py").read_text()
    assert result.changes.fields_added == ["vowels"] and result.changes.nodes_added == ["vowels"]
    assert "result" in result.changes.screens_redesigned
    assert result.changes.screens_hand_edited == ["result"]
    assert setup.head() == before  # a diff in the working tree, nothing committed
    assert f"runtime/plugins/{PLUGIN}/screens/result.json" in result.files


def test_a_hand_edit_of_agent_json_stays_beside_the_new_values(setup: ImportedPlugin) -> None:
    setup.edit_agent(inputs={"verdict": "not judged yet"})
    setup.change_upstream(VOWELS)

    result = setup.update()

    assert result.status == "updated" and result.validation and result.validation.ok
    agent = setup.plugin / "agent.json"
    spec = json.loads(agent.read_text())
    assert spec["inputs"] == {"verdict": "not judged yet"}
    assert spec["result_fields"] == ["letters", "vowels", "words"]
    # The answers record agent.json as generated, the base of the next merge: not the edit.
    generated = json.dumps({**spec, "inputs": {}}, indent=2, sort_keys=True) + "\n"
    assert setup.answers()["agent_file"] == blob_id(generated)


def test_agent_json_changed_on_both_sides_is_a_conflict_named_by_key(
    setup: ImportedPlugin,
) -> None:
    setup.edit_agent(result_fields=["words"])
    setup.change_upstream(VOWELS)

    result = setup.update()

    file = f"runtime/plugins/{PLUGIN}/agent.json"
    assert result.status == "conflicts"
    assert [(c.file, c.property) for c in result.conflicts] == [(file, "result_fields")]
    assert git(setup.repo, "diff", "--name-only", "--diff-filter=U").splitlines() == [file]
    text = (setup.repo / file).read_text()
    assert "<<<<<<< before updating" in text and '"vowels"' in text


def test_a_generated_screen_git_no_longer_has_merges_as_conflicts_never_over_a_hand_edit(
    setup: ImportedPlugin,
) -> None:
    setup.edit_screen("result", "title", text="Your sentence, counted")
    answers_file = setup.plugin / ".copier-answers.yml"
    generated = setup.answers()["screens"]["result"]
    answers_file.write_text(answers_file.read_text().replace(generated, "deadbeef" * 5))
    commit_all(setup.repo, "as after a squash: the generated result screen is in no commit")
    setup.change_upstream(VOWELS)

    result = setup.update()

    file = f"runtime/plugins/{PLUGIN}/screens/result.json"
    assert result.status == "conflicts"
    assert {c.file for c in result.conflicts} == {file}
    assert ("title", "text") in [(c.component_id, c.property) for c in result.conflicts]
    assert "Your sentence, counted" in (setup.repo / file).read_text()


def test_an_unchanged_state_keeps_the_screens_and_updates_the_rest(setup: ImportedPlugin) -> None:
    screens = {name: setup.screen(name) for name in ("welcome", "result")}
    graph = (setup.agent / "graph.py").read_text()
    commit = setup.change_upstream({"graph.py": graph.replace("> 5", "> 6"), "NOTES.md": "x\n"})

    result = setup.update(design_options=DesignOptions(offline=False, use_cache=False))

    assert result.status == "updated"
    assert {name: setup.screen(name) for name in screens} == screens
    assert result.changes.screens_redesigned == [] and not result.changes.agent_changed
    assert setup.answers()["source_commit"] == commit
    assert (setup.plugin / "src" / "NOTES.md").is_file()
    assert "State fields and nodes: unchanged" in result.message


def test_an_update_with_nothing_new_is_up_to_date_and_writes_nothing(setup: ImportedPlugin) -> None:
    before = worktree(setup.repo)

    result = setup.update()

    assert result.status == "up_to_date" and result.files == []
    assert worktree(setup.repo) == before


def test_branch_makes_one_commit_with_the_summary(setup: ImportedPlugin) -> None:
    setup.edit_screen("result", "title", text="Your sentence, counted")
    before = setup.head()
    commit = setup.change_upstream(VOWELS)

    result = setup.update(branch="update/counter")

    log = git(setup.repo, "log", "--format=%H", f"{before}..update/counter").splitlines()
    assert log == [result.commit]
    assert git(setup.repo, "branch", "--show-current") == "update/counter"
    assert git(setup.repo, "log", "-1", "--format=%B").strip() == result.message.strip()
    assert git(setup.repo, "status", "--porcelain") == ""
    changed = git(setup.repo, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert changed and all(name.startswith(f"runtime/plugins/{PLUGIN}/") for name in changed)
    assert git(setup.repo, "rev-parse", "main") == before
    lines = result.message.splitlines()
    assert lines[0] == f"Update plugin {PLUGIN}: upstream {before_commit(setup)}..{commit[:12]}"
    assert "State fields added: vowels" in lines and "Nodes added: vowels" in lines
    assert "Hand edits merged in screens: result" in lines


def test_the_plugin_is_claimed_from_the_first_step_to_the_commit(setup: ImportedPlugin) -> None:
    setup.change_upstream(VOWELS)
    plugins = setup.repo / PLUGINS_FOLDER
    claimed: list[str] = []

    def progress(step: Step) -> None:  # a forced import of the same plugin, after every step
        try:
            Staging(plugins, PLUGIN, force=True).close()
        except ClaimHeld:
            claimed.append(step.name)

    options = UpdateOptions(plugin_id=PLUGIN, branch="update/counter", design_options=OFFLINE)
    result = update_plugin(options, root=setup.repo, progress=progress)

    assert result.status == "updated"
    assert claimed == [step.name for step in result.steps] and claimed[-1] == "commit"
    assert not list(plugins.glob(".*"))  # the claim is gone with the update


def test_an_update_is_refused_while_the_plugin_is_claimed(setup: ImportedPlugin) -> None:
    before = worktree(setup.repo)

    with Claim(setup.repo / PLUGINS_FOLDER, PLUGIN), pytest.raises(ClaimHeld):
        setup.update()

    assert worktree(setup.repo) == before


def before_commit(setup: ImportedPlugin) -> str:
    """The upstream commit of the first import (the agent repository's first commit)."""
    return git(setup.agent, "rev-list", "--max-parents=0", "HEAD")[:12]


def conflicting_design(setup: ImportedPlugin, tmp_path: Path, title: str) -> Path:
    """A design file for the changed agent whose result title is ``title``."""
    source = Source(url=str(setup.agent), path=str(setup.agent))
    designed = design(inspect_source(source), plugin_id=PLUGIN, options=OFFLINE)
    data = designed.model_dump(mode="json")
    component(data["result"], "title")["text"] = title
    path = tmp_path / "design.json"
    path.write_text(json.dumps(data))
    return path


def test_the_same_property_changed_on_both_sides_is_a_conflict_and_nothing_is_committed(
    setup: ImportedPlugin, tmp_path: Path
) -> None:
    setup.edit_screen("result", "title", text="Ours")
    before = setup.head()
    setup.change_upstream(VOWELS)
    design_file = conflicting_design(setup, tmp_path, "Theirs")

    result = setup.update(design_file=design_file, branch="update/counter")

    file = f"runtime/plugins/{PLUGIN}/screens/result.json"
    assert result.status == "conflicts" and result.commit is None
    assert [(c.file, c.component_id, c.property) for c in result.conflicts] == [
        (file, "title", "text")
    ]
    assert setup.head() == before
    assert git(setup.repo, "branch", "--list", "update/counter") == ""
    assert git(setup.repo, "diff", "--name-only", "--diff-filter=U").splitlines() == [file]
    text = (setup.repo / file).read_text()
    assert "<<<<<<< before updating" in text and '"text": "Ours"' in text
    assert '"text": "Theirs"' in text and "vowels" in text


def test_conflicting_lines_in_a_rendered_file_are_reported(setup: ImportedPlugin) -> None:
    readme = setup.plugin / "README.md"
    lines = readme.read_text().splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.startswith("| Commit |"))
    lines[row] = "| Commit | pinned by hand |\n"
    readme.write_text("".join(lines))
    commit_all(setup.repo, "hand edit of the README")
    setup.change_upstream(VOWELS)

    result = setup.update()

    assert result.status == "conflicts"
    assert [c.file for c in result.conflicts] == [f"runtime/plugins/{PLUGIN}/README.md"]
    assert "<<<<<<< before updating" in readme.read_text()


def test_template_only_rerenders_with_the_new_template_and_keeps_hand_edits(
    setup: ImportedPlugin,
) -> None:
    setup.edit_screen("result", "title", text="Your sentence, counted")
    template = setup.repo / "copier-template" / "README.md.jinja"
    template.write_text(template.read_text() + "\nReviewed by the platform team.\n")
    template_commit = commit_all(setup.repo, "template: a footer")
    upstream = setup.answers()["source_commit"]
    setup.change_upstream(VOWELS)  # ignored: the agent is not fetched

    result = setup.update(template_only=True)

    assert result.status == "updated"
    assert (setup.plugin / "README.md").read_text().endswith("Reviewed by the platform team.\n")
    assert component(setup.screen("result"), "title")["text"] == "Your sentence, counted"
    answers = setup.answers()
    recorded = replayed_from(setup.repo, answers["_commit"], current=template_commit)
    assert recorded == template_commit and answers["source_commit"] == upstream
    assert result.changes.template[1] == template_commit
    assert result.message.splitlines()[0].startswith(f"Update plugin {PLUGIN}: template ")


def test_copiers_git_never_runs_the_fsmonitor_command_of_the_users_repository(
    setup: ImportedPlugin, tmp_path: Path
) -> None:
    """Copier runs git in the user's repository (``copier update``'s merge) with no
    ``core.fsmonitor``; the generator's own git there keeps the user's settings. The command
    writes the name git commits as: Copier's git commits as Copier, the generator's as the tests'
    identity."""
    ran = tmp_path / "ran"
    script = tmp_path / "fsmonitor.sh"
    script.write_text(f'#!/bin/sh\necho "$GIT_AUTHOR_NAME" >> {ran}\nexit 1\n')
    script.chmod(0o755)
    git(setup.repo, "config", "core.fsmonitor", str(script))
    template = setup.repo / "copier-template" / "README.md.jinja"
    template.write_text(template.read_text() + "\nReviewed by the platform team.\n")
    commit_all(setup.repo, "template: a footer")

    result = setup.update(template_only=True)

    assert result.status == "updated", result.message
    assert set(ran.read_text().split()) == {"Test"}


def test_a_plugin_imported_on_one_clone_updates_on_a_fresh_clone(
    setup: ImportedPlugin, tmp_path: Path
) -> None:
    imported_with = setup.answers()["_commit"]
    colleague = tmp_path / "colleague"
    git(tmp_path, "clone", "--quiet", str(setup.repo), str(colleague))
    assert not (colleague / ".agent-import").exists()
    template = colleague / "copier-template" / "README.md.jinja"
    template.write_text(template.read_text() + "\nReviewed by the platform team.\n")
    template_commit = commit_all(colleague, "template: a footer")
    setup.repo = colleague
    setup.plugin = colleague / PLUGINS_FOLDER / PLUGIN

    result = setup.update(template_only=True)

    assert result.status == "updated", result.message
    first_template = git(colleague, "rev-list", "--max-parents=0", "HEAD")
    assert result.changes.template == (first_template, template_commit)
    assert replayed_from(colleague, imported_with, current=template_commit) == first_template
    assert (setup.plugin / "README.md").read_text().endswith("Reviewed by the platform team.\n")


def test_a_failure_while_rendering_restores_the_folder(
    setup: ImportedPlugin, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup.change_upstream(VOWELS)
    before = worktree(setup.repo)

    def broken(*args: object, **kwargs: object) -> None:
        raise AgentImportError("injected failure while rendering")

    monkeypatch.setattr("generator.pipeline.update.shutil.move", broken)  # after Copier has written
    with pytest.raises(AgentImportError, match="injected failure"):
        setup.update()

    assert worktree(setup.repo) == before
    assert git(setup.repo, "status", "--porcelain") == ""


def test_an_update_that_fails_its_checks_writes_nothing(setup: ImportedPlugin) -> None:
    """Staged in a worktree: the plugin's folder changes only once the update has passed."""
    graph = VOWELS["graph.py"].replace(
        "def vowels(", "import no_such_module_for_sure\n\n\ndef vowels("
    )
    setup.change_upstream({"graph.py": graph})
    before = worktree(setup.repo)
    config = (setup.repo / ".git" / "config").read_text()

    result = setup.update()

    assert result.status == "invalid" and result.validation is not None
    assert (setup.repo / ".git" / "config").read_text() == config  # a sparse staging, no setting
    assert result.validation.checks[0].missing_module == "no_such_module_for_sure"
    assert worktree(setup.repo) == before
    assert git(setup.repo, "status", "--porcelain") == ""
    assert len(git(setup.repo, "worktree", "list").splitlines()) == 1  # the staging one is gone


def test_conflicts_are_written_as_unmerged_and_the_staging_worktree_is_gone(
    setup: ImportedPlugin, tmp_path: Path
) -> None:
    setup.edit_screen("result", "title", text="Ours")
    setup.change_upstream(VOWELS)

    result = setup.update(design_file=conflicting_design(setup, tmp_path, "Theirs"))

    assert result.status == "conflicts"
    status = git(setup.repo, "status", "--porcelain").splitlines()
    assert f"UU runtime/plugins/{PLUGIN}/screens/result.json" in status
    assert "def vowels" in (setup.plugin / "src" / "graph.py").read_text()  # the rest, too
    assert len(git(setup.repo, "worktree", "list").splitlines()) == 1


#: The upstream change: the agent needs a package it names only when it is imported.
NEEDS_A_PACKAGE = {
    "graph.py": VOWELS["graph.py"].replace(
        "def vowels(",
        "try:\n    import vowel_counter  # noqa: F401\nexcept ImportError as exc:\n"
        "    raise ImportError('counting vowels needs: pip install vowel-counter') from exc\n\n\n"
        "def vowels(",
    )
}


@pytest.mark.slow
def test_a_requirement_the_new_upstream_needs_is_installed_once_approved(
    setup: ImportedPlugin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    wheel(index, "vowel-counter", "vowel_counter")
    only_index(index, monkeypatch)
    setup.change_upstream(NEEDS_A_PACKAGE)
    before = worktree(setup.repo)

    refused = setup.update()

    assert refused.status == "invalid" and refused.validation is not None
    assert "vowel-counter" in refused.validation.describe() and "--approve-deps" in (
        refused.validation.describe()
    )
    assert worktree(setup.repo) == before

    result = setup.update(approve_deps=True)

    assert result.status == "updated", result.validation and result.validation.describe()
    requirements = (setup.plugin / "requirements.txt").read_text().splitlines()
    assert "vowel-counter" in requirements
    assert result.changes.requirements_added == ["vowel-counter"]


@pytest.mark.slow
def test_an_approved_requirement_that_conflicts_with_the_runtime_is_refused_as_an_import_is(
    setup: ImportedPlugin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only_index(tmp_path / "index", monkeypatch)
    setup.change_upstream({"pyproject.toml": pyproject("counter_update", "langgraph<0.3")})
    before = worktree(setup.repo)

    with pytest.raises(
        AgentImportError, match=r"counter requires langgraph<0\.3; the runtime requires"
    ):
        setup.update(approve_deps=True)

    assert worktree(setup.repo) == before


Refusal = Callable[[ImportedPlugin], dict[str, Any]]


def dirty(setup: ImportedPlugin) -> dict[str, Any]:
    (setup.plugin / "notes.txt").write_text("not committed\n")
    return {}


def unknown(setup: ImportedPlugin) -> dict[str, Any]:
    return {"plugin_id": "nope"}


def hand_written(setup: ImportedPlugin) -> dict[str, Any]:
    folder = setup.repo / PLUGINS_FOLDER / "manual"
    folder.mkdir()
    (folder / "__init__.py").write_text('PLUGIN_ID = "manual"\n')
    commit_all(setup.repo, "a hand-written plugin")
    return {"plugin_id": "manual"}


def unresolved(setup: ImportedPlugin) -> dict[str, Any]:
    screen = setup.plugin / "screens" / "result.json"
    screen.write_text("<<<<<<< before updating\n" + screen.read_text())
    commit_all(setup.repo, "a conflict committed by mistake")
    return {}


def existing_branch(setup: ImportedPlugin) -> dict[str, Any]:
    git(setup.repo, "branch", "taken")
    return {"branch": "taken"}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (dirty, rf"runtime/plugins/{PLUGIN} has uncommitted changes \(.*notes.txt\): commit"),
        (unknown, r"unknown plugin 'nope' \(plugins: counter\)"),
        (hand_written, r"plugin 'manual' was not imported by agent-import \(no .copier-answers"),
        (existing_branch, r"branch 'taken' already exists"),
        (
            unresolved,
            rf"plugins/{PLUGIN}/screens/result.json:1: not valid JSON \(Expecting value\)",
        ),
    ],
    ids=["dirty", "unknown", "not-imported", "existing-branch", "unresolved-conflict"],
)
def test_refusals_name_the_problem_and_change_nothing(
    setup: ImportedPlugin, make: Refusal, message: str
) -> None:
    overrides = make(setup)
    setup.change_upstream(VOWELS)
    before = worktree(setup.repo)

    with pytest.raises(AgentImportError, match=message):
        setup.update(**overrides)

    assert worktree(setup.repo) == before
