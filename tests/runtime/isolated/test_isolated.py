"""Isolated plugins on a real runtime: an agent written for LangGraph 0.2 runs in its own
environment (built with uv from PyPI, cached across runs in ``.a2ui-runtime/test-envs``) beside
an in-process plugin, with the guarantees an in-process agent has."""

from __future__ import annotations

import base64
import json
import re
import shutil
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from runtime.isolated.envs import ENVS_DIR_ENV
from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import FIXTURE_PLUGINS, runtime_process
from tests.runtime.isolated.conftest import CACHE, copy_plugin, modern_plugin, pinned_plugin
from tests.runtime.test_redaction import leaked


@pytest.fixture
def plugins(tmp_path: Path, envs: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``legacy`` (isolated) beside ``echo`` (in process)."""
    monkeypatch.setenv(ENVS_DIR_ENV, str(CACHE))
    folder = tmp_path / "plugins"
    shutil.copytree(FIXTURE_PLUGINS / "legacy", folder / "legacy")
    shutil.copytree(FIXTURE_PLUGINS / "echo", folder / "echo")
    return folder


def said(frames: list[dict[str, Any]]) -> str:
    return " ".join(f["payload"]["text"] for f in frames if f["type"] == "server.voice.say")


def errors(frames: list[dict[str, Any]]) -> list[str]:
    return [f["payload"]["code"] for f in frames if f["type"] == "server.error"]


def workers(folder: Path) -> list[int]:
    """The pids the runtime started for the plugin in ``folder``'s workers (in a sandbox, its
    keeper: the worker and the sandbox's first process are its descendants)."""
    found: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if b"worker" in command and str(folder / "agent.json").encode() in command:
            found[int(proc.name)] = parent
    return [pid for pid, parent in found.items() if parent not in found]


def test_an_agent_for_langgraph_0_2_answers_asks_and_resumes_beside_an_in_process_one(
    plugins: Path,
) -> None:
    with runtime_process("--plugins-dir", str(plugins), "--offline-models") as address:
        with RuntimeClient(address, agent="legacy") as client:
            client.receive_turn()
            answer = said(client.say("hello"))
            assert answer.startswith("This is a scripted offline reply")
            assert "[langgraph 0.2." in answer
            assert said(client.say("pay alex")) == "Pay Alex? Say yes or no."
            assert said(client.say("yes")).startswith("Paid Alex. [langgraph 0.2.")
        with RuntimeClient(address, agent="echo") as client:
            client.receive_turn()
            assert not errors(client.say("hello"))
    assert version("langgraph").startswith("1.")  # the runtime's own environment is untouched


def test_an_agent_pinned_to_langgraph_1_0_answers_asks_and_resumes_on_its_own_langgraph(
    plugins: Path, modern: Path
) -> None:
    """A minor release below the runtime's own LangGraph is a conflict too."""
    modern_plugin(modern, plugins / "modern")
    with (
        runtime_process("--plugins-dir", str(plugins), "--offline-models") as address,
        RuntimeClient(address, agent="modern") as client,
    ):
        client.receive_turn()
        assert "[langgraph 1.0." in said(client.say("hello"))
        assert said(client.say("pay alex")) == "Pay Alex? Say yes or no."
        assert said(client.say("yes")).startswith("Paid Alex. [langgraph 1.0.")


def test_a_crashed_worker_fails_one_turn_and_the_session_goes_on(plugins: Path) -> None:
    with (
        runtime_process("--plugins-dir", str(plugins), "--offline-models") as address,
        RuntimeClient(address, agent="legacy") as client,
    ):
        client.receive_turn()
        said(client.say("hello"))
        first = workers(plugins / "legacy")
        failed = client.say("crash")
        assert errors(failed) == [] and "try again" in said(failed)
        assert "[langgraph 0.2." in said(client.say("hello again"))
        assert workers(plugins / "legacy") and workers(plugins / "legacy") != first


def test_a_run_past_its_deadline_is_stopped_and_its_worker_killed(
    plugins: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEGACY_DEADLINE_S", "10")
    with (
        runtime_process("--plugins-dir", str(plugins), "--offline-models") as address,
        RuntimeClient(address, agent="legacy") as client,
    ):
        client.receive_turn()
        said(client.say("hello"))  # a warm worker: the deadline is the sleep's alone
        (stuck,) = workers(plugins / "legacy")
        assert errors(client.say("sleep 600")) == ["deadline_exceeded"]
        # The run was cancelled; the worker, which never looks, is killed after a grace.
        for _ in range(200):
            if stuck not in workers(plugins / "legacy"):
                break
            time.sleep(0.05)
        assert stuck not in workers(plugins / "legacy")
        assert "[langgraph 0.2." in said(client.say("hello"))


def test_a_conversation_continues_after_a_runtime_restart(
    plugins: Path, shared_storage: str
) -> None:
    """With SQLite (and PostgreSQL, a slow test): the agent's checkpoint is in the database."""
    serve = ("--plugins-dir", str(plugins), "--offline-models")
    store = ("--storage", shared_storage)
    with (
        runtime_process(*serve, *store) as address,
        RuntimeClient(address, agent="legacy") as client,
    ):
        client.receive_turn()
        assert said(client.say("pay alex")) == "Pay Alex? Say yes or no."
    with (
        runtime_process(*serve, *store) as address,
        RuntimeClient(address, agent="legacy", session_id=client.session_id) as again,
    ):
        # The reconnected client is shown the question again, then the answer.
        assert said(again.say("yes")).endswith("Paid Alex. [langgraph 0.2.76]")


def test_two_isolated_plugins_with_different_pins_run_side_by_side(
    plugins: Path, envs: Path
) -> None:
    copy_plugin(envs, plugins / "vintage", "vintage")
    with runtime_process("--plugins-dir", str(plugins), "--offline-models") as address:
        with RuntimeClient(address, agent="vintage") as client:
            client.receive_turn()
            assert "[langgraph 0.2.60]" in said(client.say("hello"))
        with RuntimeClient(address, agent="legacy") as client:
            client.receive_turn()
            assert "[langgraph 0.2.76]" in said(client.say("hello"))


#: Base64 text as long as a checkpoint's: the runtime stores the agent's checkpoint so.
BASE64 = re.compile(rb"[A-Za-z0-9+/]{64,}")


def unpacked(data: bytes, depth: int = 3) -> bytes:
    """``data`` with every base64 run in it decoded beside it, ``depth`` levels deep (the agent's
    serialized checkpoint is base64 inside the base64 the runtime stores), each run from each of
    the four offsets one of which is where it really starts."""
    if depth == 0:
        return data
    decoded = [
        unpacked(base64.b64decode(run[offset : offset + (len(run) - offset) // 4 * 4]), depth - 1)
        for run in BASE64.findall(data)
        for offset in range(4)
    ]
    return b"\n".join([data, *decoded])


def test_a_card_number_a_langchain_core_0_2_agent_writes_is_masked_everywhere(
    plugins: Path, envs: Path, tmp_path: Path
) -> None:
    """Its messages are pydantic v1 models: masked in its own checkpoint too, which the runtime
    stores in its database as opaque bytes."""
    pinned_plugin(envs, plugins / "vintage", "vintage")
    audit = tmp_path / "audit.jsonl"
    serve = ("--plugins-dir", str(plugins), "--offline-models", "--audit-file", str(audit))
    with (
        runtime_process(*serve, "--storage", f"sqlite:{tmp_path / 'sessions.db'}") as address,
        RuntimeClient(address, agent="vintage") as client,
    ):
        client.receive_turn()
        assert said(client.say("card")).endswith("1111 is active. [langgraph 0.2.60]")
        assert said(client.say("leaked?")).startswith("masked")  # what the agent itself kept
        frames = list(client.received)
    assert "Your card ****1111 is active." in json.dumps(frames)
    databases = [path for path in tmp_path.glob("sessions.db*") if path.is_file()]  # not locks
    stored = b"\n".join(unpacked(path.read_bytes()) for path in databases).decode(errors="replace")
    assert "Your card ****1111 is active." in stored  # the agent's checkpoint, decoded
    assert leaked(stored) == []
    assert leaked(audit.read_text()) == []
    assert leaked("\n".join(json.dumps(f, ensure_ascii=False) for f in frames)) == []
