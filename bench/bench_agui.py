"""AG-UI: the runtime's ``/agui`` against ``ag-ui-langgraph`` serving the same graph.

Both servers run in their own subprocess on loopback over one compiled graph (a one-node plugin
that answers the last thing said); the bench plays the same sequential runs of one thread against
each and prints, per run: the server's CPU time (user + system, read from ``/proc``), and the
events and bytes of the event stream. ``ag-ui-langgraph`` runs with its defaults, as deployed.
Below them, the floor: the same graph invoked directly with the same (in-memory) checkpointer
(``bench.floor``), so each server's CPU reads as a multiple of what the graph itself costs.

``ag-ui-langgraph`` is not a dependency of the project: the nox ``bench`` session installs the
pinned version (see ``noxfile.py``); without it the comparison is skipped with a line saying so.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.bench_runtime import server, spawn
from bench.floor import bare_graph, cpu_per_turn, cpu_seconds
from runtime.serving.launch import free_port

PLUGIN_ID = "bench_echo"
PLUGIN = """\
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph

from runtime.contract.state import CommonState, event
from runtime.contract.plugin import PluginBase


def answer(state):
    heard = state.get("transcript") or next(
        (m.content for m in reversed(state.get("messages") or []) if isinstance(m, HumanMessage)),
        "",
    )
    line = f"You said: {heard}"
    return {"messages": [AIMessage(line)], "outbox": [event("server.voice.say", text=line)]}


class Plugin(PluginBase):
    plugin_id = "bench_echo"
    title = "Bench echo"

    def build_graph(self):
        graph = StateGraph(CommonState)
        graph.add_node("answer", answer)
        graph.add_edge(START, "answer")
        graph.add_edge("answer", END)
        return graph
"""
WARMUP_RUNS = 3
RUNS = 40
TEXT = "my card is lost"


@dataclass(frozen=True)
class Figures:
    cpu_ms: float
    events: float
    bytes: float


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-agui-") as tmp:
        plugins_dir = Path(tmp) / "plugins"
        (plugins_dir / PLUGIN_ID).mkdir(parents=True)
        (plugins_dir / PLUGIN_ID / "__init__.py").write_text("")
        (plugins_dir / PLUGIN_ID / "plugin.py").write_text(PLUGIN)
        print(f"graph: {PLUGIN_ID} (one node); {RUNS} sequential runs of one thread, loopback")
        rows = {"a2ui-runtime /agui": measure_runtime(plugins_dir)}
        if importlib.util.find_spec("ag_ui_langgraph") is None:
            print("ag-ui-langgraph is not installed: run `python3 dev.py bench -- agui`")
        else:
            rows[f"ag-ui-langgraph {version('ag-ui-langgraph')}"] = measure_incumbent(plugins_dir)
        with bare_graph(PLUGIN_ID, plugins_dir, TEXT) as bare:
            floor_ms = cpu_per_turn(bare, sessions=1, turns=RUNS) * 1000
    print(f"{'server':<28}{'CPU ms/run':>12}{'x floor':>9}{'events/run':>12}{'bytes/run':>12}")
    for name, row in rows.items():
        print(
            f"{name:<28}{row.cpu_ms:>12.2f}{row.cpu_ms / floor_ms:>9.1f}{row.events:>12.1f}"
            f"{row.bytes:>12.0f}"
        )
    print(f"{'bare graph (the floor)':<28}{floor_ms:>12.2f}{1:>9.1f}")
    if len(rows) == 2:
        ours, theirs = rows.values()
        print(f"server CPU per run: {theirs.cpu_ms / ours.cpu_ms:.1f}x less with /agui")


def version(distribution: str) -> str:
    from importlib.metadata import version as installed

    return installed(distribution)


def measure_runtime(plugins_dir: Path) -> Figures:
    with server(plugins_dir) as running:
        return play(running.process, f"http://{running.address}/agui/{PLUGIN_ID}")


def measure_incumbent(plugins_dir: Path) -> Figures:
    port = free_port()
    command = [sys.executable, "-m", "bench.agui_incumbent", str(plugins_dir), PLUGIN_ID, str(port)]
    with spawn(command, port) as running:
        return play(running.process, f"http://{running.address}/agent")


def play(process: subprocess.Popen[bytes], url: str) -> Figures:
    """Warm up, then time ``RUNS`` runs; each sends one new user message on the same thread."""
    thread = uuid.uuid4().hex
    with httpx.Client(timeout=30) as client:
        for n in range(WARMUP_RUNS):
            run(client, url, thread, f"warm up {n}")
        before = cpu_seconds(process.pid)
        totals = [run(client, url, thread, f"run {n}: {TEXT}") for n in range(RUNS)]
        spent = cpu_seconds(process.pid) - before
    return Figures(
        cpu_ms=spent * 1000 / RUNS,
        events=sum(events for events, _ in totals) / RUNS,
        bytes=sum(size for _, size in totals) / RUNS,
    )


def run(client: httpx.Client, url: str, thread: str, text: str) -> tuple[int, int]:
    """One AG-UI run; its event count and stream size. A run that does not finish is an error."""
    body = {
        "threadId": thread,
        "runId": uuid.uuid4().hex,
        "messages": [{"id": uuid.uuid4().hex, "role": "user", "content": text}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }
    with client.stream("POST", url, json=body, headers={"Accept": "text/event-stream"}) as reply:
        reply.raise_for_status()
        stream = reply.read()
    events = [line for line in stream.split(b"\n") if line.startswith(b"data:")]
    if not events or b'"RUN_FINISHED"' not in events[-1]:
        raise RuntimeError(f"{url}: the run did not finish: {stream[-300:]!r}")
    return len(events), len(stream)
