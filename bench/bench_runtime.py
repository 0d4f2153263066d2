"""Runtime benchmarks: turns per second and latency under load, overhead per turn, start-up time.

* Load: 10 and 100 concurrent WebSocket sessions on loopback against ``a2ui-runtime serve`` in a
  subprocess (so the client load does not share the server's GIL); each session plays the same
  turn repeatedly; latency is from sending a transcript to the ``thinking`` false closing its turn.
  (``bench_throughput`` plays the same load against one and several workers.)
* Overhead: one session's turn latency through the server over the same compiled graph called
  directly in-process with the same kind of checkpointer and durability (a ratio of medians).
* Start-up: discovery of 50 generated trivial plugins in a fresh interpreter, and a whole server
  start (process spawn to ``/health`` answering) over them.

Prints figures only; the run is bounded (well under two minutes).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.floor import bare_graph, cpu_seconds, machine_cpu_seconds
from runtime.discovery import discover
from runtime.serving.launch import free_port

MORTGAGE_TURN = "my house is worth 400k and I owe 250k, 5 year fix over 25 years"
TRIVIAL_PLUGIN = """\
from langgraph.graph import END, START, StateGraph

from runtime.contract.state import CommonState, event
from runtime.contract.plugin import PluginBase


class Plugin(PluginBase):
    plugin_id = {plugin_id!r}
    title = "Trivial {n}"

    def build_graph(self):
        graph = StateGraph(CommonState)
        graph.add_node("reply", lambda state: {{"outbox": [event("server.voice.say", text="ok")]}})
        graph.add_edge(START, "reply")
        graph.add_edge("reply", END)
        return graph
"""
STARTUP_TIMEOUT_S = 60.0
#: What every frame that may close a turn holds (its type, as any JSON encoder writes it).
THINKING = '"server.agent.thinking"'
LOAD_BUDGET_S = 25.0


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-runtime-") as tmp:
        trivial_dir = generate_plugins(Path(tmp) / "plugins", 50)
        agent, plugins_dir = pick_agent(trivial_dir)
        print(f"agent: {agent}; turn: {turn_text(agent)!r}")
        with server(plugins_dir) as running:
            for sessions, turns in ((10, 20), (100, 5)):
                load([running.address], agent, sessions, turns)
            overhead(running.address, agent, plugins_dir)
        startup(trivial_dir)


def pick_agent(trivial_dir: Path) -> tuple[str, Path | None]:
    """The mortgage plugin when it is there, else a trivial one."""
    if "mortgage" in discover().plugins:
        return "mortgage", None
    return "trivial_00", trivial_dir


def turn_text(agent: str) -> str:
    return MORTGAGE_TURN if agent == "mortgage" else "hello"


def generate_plugins(folder: Path, count: int) -> Path:
    for n in range(count):
        plugin_id = f"trivial_{n:02d}"
        package = folder / plugin_id
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(f'"""Trivial plugin {n}."""\n')
        (package / "plugin.py").write_text(TRIVIAL_PLUGIN.format(plugin_id=plugin_id, n=n))
    return folder


@dataclass(frozen=True)
class Running:
    """A server started for a benchmark."""

    address: str
    process: subprocess.Popen[bytes]
    startup_s: float


@contextmanager
def server(plugins_dir: Path | None, *args: str) -> Iterator[Running]:
    """``a2ui-runtime serve [ARGS]`` in a subprocess, answering ``/health``."""
    port = free_port()
    command = [sys.executable, "-m", "runtime.cli", "serve", "--port", str(port), *args]
    command += ["--log-level", "WARNING"]
    if plugins_dir is not None:
        command += ["--plugins-dir", str(plugins_dir)]
    with spawn(command, port) as running:
        yield running


@contextmanager
def spawn(
    command: list[str], port: int, *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> Iterator[Running]:
    """``command``, a server on 127.0.0.1:``port``, once it answers ``/health``; stopped after."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    address = f"127.0.0.1:{port}"
    try:
        wait_healthy(address, process)
        yield Running(address, process, time.perf_counter() - started)
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_healthy(address: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            httpx.get(f"http://{address}/health", timeout=1).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.02)
    raise RuntimeError(f"the benchmark server on {address} did not start")


async def receive_turn(ws: ClientConnection) -> None:
    """Frames until the ``thinking`` false that closes a turn. Only ``thinking`` frames are parsed:
    the client shares the server's cores, so it reads no screen it does not need."""
    while True:
        text = await ws.recv()
        if THINKING not in text:
            continue
        frame = json.loads(text)
        if frame["type"] == "server.agent.thinking" and frame["payload"]["thinking"] is False:
            return


async def session(
    address: str, agent: str, turns: int, deadline: float, ready: asyncio.Barrier | None = None
) -> list[float]:
    """One client: connect, take the welcome (then wait at ``ready``), then play ``turns`` turns;
    per-turn latencies."""
    message = json.dumps({"type": "client.transcript.final", "payload": {"text": turn_text(agent)}})
    latencies = []
    async with connect(f"ws://{address}/ws?agent={agent}&mode=voice", max_size=None) as ws:
        await receive_turn(ws)
        if ready is not None:
            await ready.wait()
        for _ in range(turns):
            if time.monotonic() > deadline:
                break
            sent = time.perf_counter()
            await ws.send(message)
            await receive_turn(ws)
            latencies.append(time.perf_counter() - sent)
    return latencies


@dataclass(frozen=True)
class Load:
    """What a load measured: each turn's latency, the seconds it took, and the CPU seconds the
    client (this process), the server (with its workers) and the whole machine spent meanwhile."""

    latencies: list[float]
    elapsed: float
    client_cpu: float
    server_cpu: float
    machine_cpu: float

    @property
    def turns_per_s(self) -> float:
        return len(self.latencies) / self.elapsed


def play_load(
    addresses: Sequence[str],
    agent: str,
    sessions: int,
    turns: int,
    *,
    connected_first: bool,
    server_pids: Sequence[int] = (),
) -> Load:
    """``sessions`` concurrent sessions spread over ``addresses`` in turn (as a load balancer).
    ``connected_first``: the clock starts once every session is connected and welcomed."""

    def server_cpu() -> float:
        return sum(cpu_seconds(pid) for pid in server_pids)

    async def run() -> Load:
        deadline = time.monotonic() + LOAD_BUDGET_S
        ready = asyncio.Barrier(sessions + 1) if connected_first else None
        clients = asyncio.gather(
            *(
                session(addresses[n % len(addresses)], agent, turns, deadline, ready)
                for n in range(sessions)
            )
        )
        if ready is not None:
            await ready.wait()
        started, client, server = time.perf_counter(), time.process_time(), server_cpu()
        machine = machine_cpu_seconds()
        results = await clients
        elapsed = time.perf_counter() - started
        latencies = [lat for lats in results for lat in lats]
        return Load(
            latencies,
            elapsed,
            time.process_time() - client,
            server_cpu() - server,
            machine_cpu_seconds() - machine,
        )

    return asyncio.run(run())


def load(addresses: Sequence[str], agent: str, sessions: int, turns: int, label: str = "") -> None:
    """Play and print a load, connections and welcomes included in its time."""
    measured = play_load(addresses, agent, sessions, turns, connected_first=False)
    latencies, elapsed = measured.latencies, measured.elapsed
    print(
        f"{label}{sessions:>3} sessions x {turns} turns: {measured.turns_per_s:7.1f} turns/s, "
        f"p50 {percentile(latencies, 50):6.1f} ms, p95 {percentile(latencies, 95):6.1f} ms "
        f"({len(latencies)} turns in {elapsed:.1f} s, connections and welcomes included)"
    )


def overhead(address: str, agent: str, plugins_dir: Path | None, turns: int = 200) -> None:
    """One session through the server vs the same graph invoked directly, turns interleaved.

    Interleaving keeps both series in the same moments of a shared, noisy machine.
    """
    message = json.dumps({"type": "client.transcript.final", "payload": {"text": turn_text(agent)}})

    async def measure() -> tuple[list[float], list[float]]:
        served, direct = [], []
        with bare_graph(agent, plugins_dir, turn_text(agent)) as bare:
            config = bare.session()
            async with connect(f"ws://{address}/ws?agent={agent}", max_size=None) as ws:
                await receive_turn(ws)
                for _ in range(turns):
                    started = time.perf_counter()
                    await ws.send(message)
                    await receive_turn(ws)
                    served.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    bare.turn(config)
                    direct.append(time.perf_counter() - started)
        return served, direct

    served, direct = asyncio.run(measure())
    ratio = statistics.median(served) / statistics.median(direct)
    print(
        f"overhead: turn through the server p50 {percentile(served, 50):.2f} ms vs direct "
        f"graph.invoke p50 {percentile(direct, 50):.2f} ms -> {ratio:.2f}x "
        f"(+{percentile(served, 50) - percentile(direct, 50):.2f} ms per turn: WebSocket, JSON, "
        "worker thread, outbox)"
    )


def startup(trivial_dir: Path) -> None:
    script = (
        "import time, sys; from pathlib import Path; from runtime.discovery import discover; "
        "t = time.perf_counter(); r = discover(Path(sys.argv[1])); "
        "print(len(r.plugins), len(r.broken), time.perf_counter() - t)"
    )
    command = [sys.executable, "-c", script, str(trivial_dir)]
    found, broken, seconds = subprocess.run(
        command, capture_output=True, text=True, check=True
    ).stdout.split()
    print(
        f"start-up: discovery of {found} plugins ({broken} broken) in {float(seconds) * 1e3:.0f} ms"
    )
    with server(trivial_dir) as running:
        spawned = running.startup_s
        print(f"start-up: whole server (spawn to /health) with 50 plugins in {spawned:.2f} s")


def percentile(values: list[float], pct: int) -> float:
    """The ``pct``-th percentile in milliseconds (nearest rank)."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered)) - 1))
    return ordered[rank] * 1000


if __name__ == "__main__":
    main(sys.argv[1:])
