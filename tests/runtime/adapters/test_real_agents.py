"""Template-shaped agents imported offline, then served by ``a2ui-runtime serve --offline-models``.

The fixtures (``tests/fixtures/agents/``) are written in the shapes of public LangGraph templates:
a ReAct agent whose context dataclass reads environment variables, a factory taking
``(config, runtime)``, a data-enrichment agent whose input is not a message list, a memory agent
with a store and a ``user_id`` in its context. All keep their code in a top-level package named
``agent``, so they also prove that such agents run side by side in one process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from generator.pipeline.importer import import_agent
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER
from runtime.serving.launch import free_port
from runtime.testing.client import RuntimeClient
from runtime.testing.offline_models import SCRIPTED_REPLY
from tests.generator.plugin_repo import commit_all, git, options, runtime_repo
from tests.installed import unless_installed
from tests.runtime.plugins.turns import check_frames

#: Imports validate each agent in a process of their own; servers import every agent at start-up.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),
    unless_installed("langchain", "langchain_openai", "langchain_anthropic"),
]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"
TEMPLATES = ("react_context", "factory_runtime", "enrichment_input")
#: The templates made to lack a module and an input.
UNAVAILABLE = ("factory_runtime", "enrichment_input")
USER_HEADER = "X-User-Id"
SECRET = "REACT_CONTEXT_TEST_SECRET"
TRACING = "LANGSMITH_API_KEY"
STARTUP_S = 120.0


def import_fixture(repo: Path, workdir: Path, name: str) -> Path:
    """Import ``tests/fixtures/agents/<name>`` offline (from its own git repository)."""
    source = workdir / "agents" / name
    shutil.copytree(FIXTURES / name, source)
    git(source, "init", "--quiet", "--initial-branch=main")
    commit_all(source, "agent")
    import_agent(options(source, name), root=repo)
    commit_all(repo, f"import {name}")
    return repo / PLUGINS_FOLDER / name


def edit_agent_json(plugin: Path, **values: Any) -> None:
    """What a reviewer changes in the import PR."""
    path = plugin / AGENT_FILE
    path.write_text(json.dumps({**json.loads(path.read_text()), **values}, indent=2))


def without_keys() -> dict[str, str]:
    """This environment without any provider key a developer may have set."""
    return {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}


@contextmanager
def serve(
    plugins: Path, log: Path, *flags: str, env: dict[str, str] | None = None
) -> Iterator[str]:
    """``a2ui-runtime serve`` in a child process; yields ``host:port`` once it answers."""
    port = free_port()
    command = [sys.executable, "-m", "runtime.cli", "serve", "--plugins-dir", str(plugins)]
    command += ["--port", str(port), *flags]
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, env={**without_keys(), **(env or {})}, stdout=out, stderr=subprocess.STDOUT
        )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            assert process.poll() is None, log.read_text()
            try:
                httpx.get(f"http://{address}/health", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=30)


def answer_of(frames: list[dict[str, Any]]) -> str:
    finals = [f["payload"]["text"] for f in frames if f["type"] == "server.transcript.final"]
    assert finals, frames
    return str(finals[-1])


def listed(address: str, key: str = "needs") -> dict[str, list[str]]:
    """Each plugin's ``needs`` (or ``warnings``) in ``/plugins``."""
    plugins = httpx.get(f"http://{address}/plugins").json()["plugins"]
    return {plugin_id: info[key] for plugin_id, info in plugins.items()}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("real_agents")


@pytest.fixture(scope="module")
def plugins(workdir: Path) -> Path:
    """The three ``agent``-package templates imported into one runtime repository."""
    repo = runtime_repo(workdir / "repo")
    for name in TEMPLATES:
        import_fixture(repo, workdir, name)
    return repo / PLUGINS_FOLDER


def test_agents_lacking_a_module_or_an_input_say_so_and_unset_variables_only_warn(
    plugins: Path, workdir: Path
) -> None:
    edit_agent_json(plugins / "react_context", env=["ANTHROPIC_API_KEY", TRACING, SECRET])
    graph = plugins / "factory_runtime" / "src" / "src" / "agent" / "graph.py"
    original = graph.read_text()
    future = "from __future__ import annotations\n"
    graph.write_text(original.replace(future, future + "import offline_missing_module_xyz\n"))
    try:
        with serve(plugins, workdir / "needs.log", "--offline-models") as address:
            needs, warnings = listed(address), listed(address, "warnings")
            screens = {}
            for plugin_id in UNAVAILABLE:
                with RuntimeClient(address, agent=plugin_id) as client:
                    frames = check_frames(plugin_id, client.receive_turn())
                    screens[plugin_id] = client.surfaces[plugin_id].data["error"]
                    errors = [f["payload"] for f in frames if f["type"] == "server.error"]
                    assert errors == [{"message": screens[plugin_id], "code": "agent_unavailable"}]
            with RuntimeClient(address, agent="react_context") as client:
                client.receive_turn()
                react = answer_of(check_frames("react_context", client.say("Capital of France?")))
        listing = subprocess.run(
            [sys.executable, "-m", "runtime.cli", "plugins", "--plugins-dir", str(plugins)],
            capture_output=True,
            text=True,
            check=True,
            env=without_keys(),
        ).stdout
    finally:
        graph.write_text(original)

    # Never stricter than LangGraph's server: unset variables are a warning, and the agent runs.
    assert needs["react_context"] == []
    # the tracing key is optional: never warned about
    unset = f"reads {SECRET}, which is not set: it may fail when it uses it"
    assert warnings["react_context"][0].startswith(unset)
    assert SCRIPTED_REPLY in react
    assert "needs module 'offline_missing_module_xyz'" in needs["factory_runtime"][0]
    assert "uv pip install" in needs["factory_runtime"][0]
    assert "requirements.txt" in needs["factory_runtime"][0]
    assert "'extraction_schema'" in needs["enrichment_input"][0]
    assert '"inputs"' in needs["enrichment_input"][0]
    # Without --offline-models there are no dummy provider keys: the listing names all three.
    warned = f"WARNING: reads ANTHROPIC_API_KEY, {SECRET}, which are not set"
    actions = "react_context.restart, react_context.retry, react_context.continue"
    assert f"    actions: {actions}\n    {warned}" in listing
    assert "offline_missing_module_xyz" in screens["factory_runtime"]
    assert "'extraction_schema'" in screens["enrichment_input"]
    log = (workdir / "needs.log").read_text()
    assert f"agent 'react_context' {unset}" in log
    assert "Traceback" not in log


def test_three_agent_package_templates_answer_side_by_side(plugins: Path, workdir: Path) -> None:
    schema = {
        "title": "Facts",
        "type": "object",
        "properties": {"born": {"type": "integer"}},
        "required": ["born"],
    }
    edit_agent_json(
        plugins / "enrichment_input",
        input_field="topic",
        output_field="summary",
        inputs={"extraction_schema": schema},
    )
    edit_agent_json(plugins / "react_context", env=["ANTHROPIC_API_KEY", SECRET])
    flags = ("--offline-models", "--user-header", USER_HEADER)
    env = {"PERSONA": "a pirate", SECRET: "s3cret"}
    with serve(plugins, workdir / "serve.log", *flags, env=env) as address:
        assert listed(address) == {plugin_id: [] for plugin_id in TEMPLATES}
        with RuntimeClient(address, agent="react_context") as client:
            client.receive_turn()
            react = answer_of(check_frames("react_context", client.say("Capital of France?")))
        headers = {USER_HEADER: "alice"}
        with RuntimeClient(address, agent="factory_runtime", headers=headers) as client:
            client.receive_turn()
            factory = answer_of(check_frames("factory_runtime", client.say("Hi there")))
            session_id = client.session_id
        with RuntimeClient(address, agent="factory_runtime") as client:
            client.receive_turn()
            guest = answer_of(client.say("Hi there"))
        with RuntimeClient(address, agent="enrichment_input") as client:
            client.receive_turn()
            enriched = answer_of(check_frames("enrichment_input", client.say("Ada Lovelace")))

    assert react.startswith("[a pirate] ") and SCRIPTED_REPLY in react
    assert factory.startswith(f"Hello alice (thread {session_id}). ")
    assert guest.startswith("Hello a guest (thread ")
    assert enriched == 'About Ada Lovelace: {"born": 0}'


def test_a_user_header_is_ignored_unless_the_runtime_trusts_it(
    plugins: Path, workdir: Path
) -> None:
    with serve(plugins, workdir / "untrusted.log", "--offline-models") as address:
        with RuntimeClient(
            address, agent="factory_runtime", headers={USER_HEADER: "mallory"}
        ) as client:
            client.receive_turn()
            spoofed = answer_of(client.say("Hi"))
        with (
            serve(
                plugins, workdir / "bad.log", "--offline-models", "--user-header", USER_HEADER
            ) as trusted,
            RuntimeClient(trusted, agent="factory_runtime", headers={USER_HEADER: "a b"}) as bad,
            pytest.raises(Exception, match="4001"),
        ):
            bad.receive()

    assert spoofed.startswith("Hello a guest ")


def test_a_memory_agent_recalls_facts_per_user_across_sessions_and_restarts(
    workdir: Path,
) -> None:
    repo = runtime_repo(workdir / "memory_repo")
    plugin = import_fixture(repo, workdir, "memory_store")
    database = workdir / "sessions.sqlite"
    flags = (
        "--offline-models",
        "--user-header",
        USER_HEADER,
        "--storage",
        f"sqlite:{database}",
    )
    alice, bob = {USER_HEADER: "alice"}, {USER_HEADER: "bob"}
    with serve(plugin.parent, workdir / "memory.log", *flags) as address:
        with RuntimeClient(address, agent="memory_store", headers=alice) as client:
            client.receive_turn()
            client.say("Please remember that my dog is called Rex.")
        with RuntimeClient(address, agent="memory_store", headers=alice) as client:
            client.receive_turn()
            recalled = answer_of(client.say("What do you know about me?"))
        with RuntimeClient(address, agent="memory_store", headers=bob) as client:
            client.receive_turn()
            other = answer_of(client.say("What do you know about me?"))
    with (
        serve(plugin.parent, workdir / "memory.log", *flags) as address,
        RuntimeClient(address, agent="memory_store", headers=alice) as client,
    ):
        client.receive_turn()
        restarted = answer_of(client.say("What do you know about me?"))

    assert recalled.endswith("I know: my dog is called Rex.")
    assert other.endswith("I know: nothing yet.")
    assert restarted.endswith("I know: my dog is called Rex.")
