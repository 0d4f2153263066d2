"""``import_agent`` end to end: real git repositories, real Copier, real subprocess validation,
and a conversation over ``/ws?agent=<id>`` on a real uvicorn started after the import."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from plugin_repo import (
    agent_repo,
    counter_agent,
    echo_agent,
    factory_agent,
    git,
    options,
    runtime_repo,
    tree,
)

from generator.errors import AgentImportError
from generator.pipeline import importer
from generator.pipeline.importer import ImportResult, ValidationFailed, import_agent
from generator.pipeline.steps import Step
from generator.render.claim import Claim, ClaimHeld
from runtime.a2ui import validate_message
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return runtime_repo(tmp_path / "runtime-repo")


@contextmanager
def connected(repo: Path, plugin_id: str) -> Iterator[RuntimeClient]:
    """A new runtime (as after a restart) over the repo's plugins, and a client of one plugin."""
    settings = Settings(port=0, plugins_dir=repo / PLUGINS_FOLDER, log_level="WARNING")
    with (
        serve_in_thread(create_app(settings, callbacks=[]), settings) as address,
        RuntimeClient(address, agent=plugin_id) as client,
    ):
        yield client


def heard(frames: list[dict[str, Any]]) -> dict[str, str]:
    """The voice line and final transcript of a turn; every A2UI message must be valid."""
    for frame in frames:
        if frame["type"] == "server.a2ui.patch":
            assert validate_message(frame["payload"]) == []
    kinds = {"server.voice.say": "voice", "server.transcript.final": "text"}
    return {kinds[f["type"]]: f["payload"]["text"] for f in frames if f["type"] in kinds}


def shown(client: RuntimeClient, plugin_id: str) -> dict[str, Any]:
    """The data model of the plugin's surface."""
    data: dict[str, Any] = client.surfaces[plugin_id].data
    return data


def test_wrapper_import_renders_validates_and_converses_after_restart(
    repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_wrapped"))
    result = import_agent(options(agent, "echo"), root=repo)

    plugin = repo / PLUGINS_FOLDER / "echo"
    assert result.strategy == "wrapper" and result.validation.ok
    assert {"plugin.py", "agent.json", "screens/result.json", "src/graph.py", "src/LICENSE"} <= set(
        result.files
    )
    assert not (plugin / "src" / ".git").exists()
    assert not list((repo / PLUGINS_FOLDER).glob(".agent-import-staging-*"))
    with connected(repo, "echo") as client:
        welcome = heard(client.receive_turn())
        assert welcome["voice"].startswith("Hello")
        first = heard(client.say("hello there"))
        assert first["text"] == "Question 1: you said hello there."
        second = heard(client.say("and again"))
        assert second["voice"] == "Question 2: you said and again."
        assert shown(client, "echo")["answer"] == "Question 2: you said and again."
        assert shown(client, "echo")["question"] == "and again"


def test_answers_file_records_the_import_and_resolves_for_copier_update(
    repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_answers"))
    import_agent(options(agent, "recorded"), root=repo)

    plugin = repo / PLUGINS_FOLDER / "recorded"
    answers = yaml.safe_load((plugin / ".copier-answers.yml").read_text())
    head = (agent / ".git" / "refs" / "heads" / "main").read_text().strip()
    assert answers["_src_path"] == ".agent-import/template"
    assert (repo / answers["_src_path"] / "copier.yml").is_file()
    assert git(repo / answers["_src_path"], "rev-parse", answers["_commit"])
    assert answers["source_url"] == str(agent) and answers["source_commit"] == head
    assert answers["strategy"] == "wrapper"
    assert len(answers["inspection_digest"]) == 64
    assert answers["design_provenance"]["mode"] == "fallback"
    screen = (plugin / "screens" / "welcome.json").read_text()
    assert json.loads(screen)["voice_text"] and screen.count("\n") > 10  # one property a line
    # The screens are recorded as the files git will store, not repeated in the answers.
    files = sorted((plugin / "screens").glob("*.json"))
    assert answers["screens"] == {p.stem: git(repo, "hash-object", str(p)) for p in files}
    assert "components" not in (plugin / ".copier-answers.yml").read_text()
    assert not (plugin / "test_smoke.py").exists()


def test_each_value_is_recorded_once(repo: Path, tmp_path: Path) -> None:
    """agent.json is the one record of how the plugin runs its agent, the answers the one of
    the strategy: the answers record agent.json as generated by its git blob id only."""
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_once"))
    import_agent(options(agent, "once"), root=repo)

    plugin = repo / PLUGINS_FOLDER / "once"
    answers = yaml.safe_load((plugin / ".copier-answers.yml").read_text())
    spec = json.loads((plugin / "agent.json").read_text())
    manifest = (plugin / "__init__.py").read_text()
    assert spec["graph_id"] == "agent" and answers["strategy"] == "wrapper"
    assert set(spec) & set(answers) == set()
    assert "strategy" not in spec and "STRATEGY" not in manifest
    assert answers["agent_file"] == git(repo, "hash-object", str(plugin / "agent.json"))


def test_the_answers_and_the_vendored_source_are_marked_generated(
    repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_generated"))
    import_agent(options(agent, "marked"), root=repo)
    plugin = f"{PLUGINS_FOLDER.as_posix()}/marked"
    paths = [
        ".copier-answers.yml",
        "src/graph.py",
        "src/echo_generated/replies.py",
        "screens/welcome.json",
        "plugin.py",
        "README.md",
    ]

    attributes = git(
        repo, "check-attr", "linguist-generated", "--", *(f"{plugin}/{p}" for p in paths)
    )

    marked = {
        line.split(": ")[0].removeprefix(f"{plugin}/"): line.split(": ")[-1]
        for line in attributes.splitlines()
    }
    assert marked == {
        ".copier-answers.yml": "true",
        "src/graph.py": "true",
        "src/echo_generated/replies.py": "true",
        "screens/welcome.json": "unspecified",
        "plugin.py": "unspecified",
        "README.md": "unspecified",
    }


def test_subgraph_import_maps_fields_and_shows_them(repo: Path, tmp_path: Path) -> None:
    agent = agent_repo(tmp_path / "counter", counter_agent("counter_pkg"))
    result = import_agent(options(agent, "counter"), root=repo)

    assert result.strategy == "subgraph"
    with connected(repo, "counter") as client:
        client.receive_turn()
        said = heard(client.say("one two three"))
        assert said["text"] == "A short sentence of 3 words."
        state = shown(client, "counter")["state"]
        assert state["words"] == 3 and state["letters"] == 11


def test_port_import_renders_shells_and_a_checklist(repo: Path, tmp_path: Path) -> None:
    agent = agent_repo(tmp_path / "counter", counter_agent("counter_port"))
    result = import_agent(options(agent, "ported", strategy="port"), root=repo)

    plugin = repo / PLUGINS_FOLDER / "ported"
    assert {"PORTING.md", "respond.py"} <= set(result.files)
    checklist = (plugin / "PORTING.md").read_text()
    assert "- [ ] `count`" in checklist and "- [ ] `words`: `int`" in checklist
    warning = result.validation.diagnosis  # the shell ran, never the agent: not "passed"
    assert warning is not None and (warning.kind, warning.severity) == ("not_run", "warning")
    assert result.validation.describe().startswith(
        "validate ported: passed with a warning: the agent was not run: imported as a port"
    )
    with connected(repo, "ported") as client:
        client.receive_turn()
        assert "cannot answer" in heard(client.say("hello"))["text"]


@pytest.mark.parametrize("kind", ["sync", "sync_config", "async_runtime", "async_context"])
def test_factory_exports_are_called_like_langgraph_server(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    agent = agent_repo(tmp_path / kind, factory_agent(f"factory_{kind}", kind))
    import_agent(options(agent, f"made_{kind}", strategy="wrapper"), root=repo)

    with connected(repo, f"made_{kind}") as client:
        client.receive_turn()
        assert heard(client.say("hi"))["text"] == f"made by a {kind} factory"


def test_an_agent_that_raises_shows_the_error_screen_and_can_retry(
    repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_raises"))
    import_agent(options(agent, "fragile"), root=repo)

    with connected(repo, "fragile") as client:
        client.receive_turn()
        failed = client.say("boom")
        assert not any(f["type"] == "server.audit.event" for f in failed)
        assert shown(client, "fragile")["error"]
        assert heard(failed)["voice"] == "Sorry, I couldn't finish that. Shall I try again?"
        heard(client.say("fine now"))
        # the failed turn left the agent's conversation as it was: "boom" is not in it
        assert shown(client, "fragile")["answer"] == "Question 1: you said fine now."


def test_an_agent_that_always_raises_is_refused_with_its_traceback(
    repo: Path, tmp_path: Path
) -> None:
    files = echo_agent("echo_always")
    files["echo_always/replies.py"] = "def reply(text, number):\n    raise ValueError('nope')\n"
    agent = agent_repo(tmp_path / "broken", files)

    with pytest.raises(ValidationFailed) as failure:
        import_agent(options(agent, "broken"), root=repo)

    turns = failure.value.report.checks[-1]
    assert turns.name == "turns" and not turns.ok
    assert "ValueError: nope" in (turns.traceback or "")
    assert tree(repo / PLUGINS_FOLDER) == {"README.md": b"Plugins live here.\n"}


def test_dry_run_writes_nothing_and_lists_the_files_with_contents(
    repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_dry"))
    before = tree(repo)

    result = import_agent(options(agent, "dry", dry_run=True), root=repo)

    assert tree(repo) == before
    assert result.dry_run and result.validation.ok
    assert "plugin.py" in result.files and "src/graph.py" in result.files
    assert "class DryPlugin(WrapperPlugin)" in (result.files["plugin.py"] or "")
    assert json.loads(
        ImportResult.model_validate_json(result.model_dump_json()).files["agent.json"] or ""
    )


@pytest.mark.parametrize("bad", ["../x", "X", "a", "a" * 34, "1abc", "has-dash", ""])
def test_bad_plugin_ids_are_refused_before_anything_runs(
    repo: Path, tmp_path: Path, bad: str
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_bad"))
    before = tree(repo)

    with pytest.raises(AgentImportError, match=r"plugin id .* must match"):
        import_agent(options(agent, bad), root=repo)

    assert tree(repo) == before


def test_an_existing_plugin_is_refused_without_force_and_replaced_with_it(
    repo: Path, tmp_path: Path
) -> None:
    first = agent_repo(tmp_path / "echo", echo_agent("echo_first"))
    second = agent_repo(tmp_path / "counter", counter_agent("counter_second"))
    import_agent(options(first, "shared"), root=repo)
    kept = tree(repo / PLUGINS_FOLDER / "shared")

    with pytest.raises(AgentImportError, match="already exists; use --force"):
        import_agent(options(second, "shared"), root=repo)
    assert tree(repo / PLUGINS_FOLDER / "shared") == kept

    result = import_agent(options(second, "shared", force=True), root=repo)
    assert result.strategy == "subgraph"
    assert "(SubgraphPlugin)" in (repo / PLUGINS_FOLDER / "shared" / "plugin.py").read_text()


STEPS = {
    "fetch": "generator.pipeline.importer.fetch",
    "inspect": "generator.pipeline.importer.inspect_source",
    "design": "generator.pipeline.importer.design",
    "render": "generator.pipeline.importer.render",
    "vendor": "generator.pipeline.importer.vendor",
    "dependencies": "generator.pipeline.importer.check_dependencies",
    "validate": "generator.pipeline.job.validate",
}


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("step", [*STEPS, "write"])
def test_a_failure_at_any_step_leaves_the_plugins_folder_as_it_was(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, force: bool
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent(f"echo_fail_{step}_{force}".lower()))
    if force:
        (repo / PLUGINS_FOLDER / "victim").mkdir()
        (repo / PLUGINS_FOLDER / "victim" / "kept.txt").write_text("the old plugin\n")
    before = tree(repo)

    def broken(*args: object, **kwargs: object) -> Any:
        raise AgentImportError(f"injected failure in {step}")

    if step == "write":
        monkeypatch.setattr(importer.Staging, "commit", broken)
    else:
        monkeypatch.setattr(STEPS[step], broken)
    with pytest.raises(AgentImportError, match=f"injected failure in {step}"):
        import_agent(options(agent, "victim", force=force), root=repo)

    assert tree(repo) == before
    assert not list((repo / PLUGINS_FOLDER).glob(".*"))


def test_progress_reports_every_step_with_its_time(repo: Path, tmp_path: Path) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_progress"))
    seen: list[str] = []

    result = import_agent(
        options(agent, "timed", dry_run=True), root=repo, progress=lambda s: seen.append(s.name)
    )

    assert seen == ["fetch", "inspect", "design", "render", "dependencies", "validate"]
    assert all(step.summary for step in result.steps)


def test_an_import_holds_the_plugin_id_until_its_commit_is_made(repo: Path, tmp_path: Path) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_claimed"))
    claimed: list[str] = []

    def progress(step: Step) -> None:  # an update of the same plugin, after every step
        try:
            Claim(repo / PLUGINS_FOLDER, "claimed").release()
        except ClaimHeld:
            claimed.append(step.name)

    result = import_agent(
        options(agent, "claimed", branch="add-claimed"), root=repo, progress=progress
    )

    assert claimed == [step.name for step in result.steps] and claimed[-1] == "commit"
    assert git(repo, "status", "--porcelain") == ""


def test_the_design_and_its_reasoning_are_reported(repo: Path, tmp_path: Path) -> None:
    agent = agent_repo(tmp_path / "agent", echo_agent("reported_pkg"))
    pieces: list[str] = []

    result = import_agent(
        options(agent, "reported", dry_run=True), root=repo, on_text=pieces.append
    )

    assert result.design.plugin_id == "reported"
    assert pieces == [result.design.reasoning]  # the offline designer: at once, in one piece
    assert json.loads(result.files["screens/result.json"] or "") == (
        result.design.result.model_dump(mode="json")
    )
