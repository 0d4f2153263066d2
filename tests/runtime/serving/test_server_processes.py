"""What plugins keep in the store, across sessions, restarts and server processes; sessions across
server processes; ``serve --workers N``: N server processes on one port sharing one database.

The server tests run real uvicorn servers on 127.0.0.1; the multi-process tests start
``a2ui-runtime serve`` processes (two independent ones on PostgreSQL, as behind a load balancer,
or one with ``--workers 2``) and tell which server process serves a connection from ``/proc``
(Linux), as they tell which processes are left after a stop.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from runtime.cli import STORAGE_ENVS, build_parser, main
from runtime.serving.launch import free_port
from runtime.serving.processes import available_cores
from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import runtime_process, runtime_server
from tests.runtime.serving.websocket.test_device_tools import (
    GET_LOCATION,
    LIVERPOOL,
    ask_for_a_branch,
)

#: How long a server process may take to stop, or its supervisor to replace it (a bound, not a
#: measure).
STOP_TIMEOUT_S = 60.0


def voice(frames: list[dict[str, Any]]) -> list[str]:
    return [f["payload"]["text"] for f in frames if f["type"] == "server.voice.say"]


def say(address: str, agent: str, text: str) -> list[str]:
    """What ``agent`` says to ``text`` in a new session."""
    with RuntimeClient(address, agent=agent) as client:
        client.receive_turn()
        return voice(client.say(text))


def test_a_fact_remembered_in_one_session_is_found_in_another(
    start_server: Any, memo_plugins: Path
) -> None:
    with start_server() as address:
        assert say(address, "memo", "remember the cat is called Tom") == [
            "remembered the cat is called Tom"
        ]
        assert say(address, "memo", "recall") == ["I know: the cat is called Tom"]


def test_another_plugin_finds_none_of_its_facts(start_server: Any, memo_plugins: Path) -> None:
    with start_server() as address:
        say(address, "memo", "remember the safe code is 1234")
        assert say(address, "snoop", "recall") == ["I know: nothing"]
        assert say(address, "snoop", "namespaces") == ["namespaces: []"]
        assert say(address, "memo", "namespaces") == ["namespaces: [('facts',)]"]


def test_facts_survive_a_restart_with_sqlite(
    start_server: Any, memo_plugins: Path, tmp_path: Path
) -> None:
    checkpointer = f"sqlite:{tmp_path / 'runtime.sqlite'}"
    with start_server(storage=checkpointer) as address:
        say(address, "memo", "remember the cat is called Tom")
    with start_server(storage=checkpointer) as address:
        assert say(address, "memo", "recall") == ["I know: the cat is called Tom"]
    with start_server() as address:  # memory: nothing carried over
        assert say(address, "memo", "recall") == ["I know: nothing"]


@pytest.mark.slow  # a PostgreSQL cluster and two runtime processes
@pytest.mark.timeout(400)
def test_two_server_processes_on_one_postgres_share_sessions_and_facts(
    memo_plugins: Path, postgres_url: str
) -> None:
    args = ("--plugins-dir", str(memo_plugins), "--storage", postgres_url)
    with runtime_process(*args) as server_a, runtime_process(*args) as server_b:
        with RuntimeClient(server_a, agent="echo") as on_a:
            on_a.receive_turn()
            on_a.say("started on A")
        with RuntimeClient(server_b, agent="echo", session_id=on_a.session_id) as on_b:
            redraw = [on_b.receive() for _ in range(3)]
            next_turn = voice(on_b.say("continued on B"))
        say(server_a, "memo", "remember the meeting is on Tuesday")
        recalled_on_b = say(server_b, "memo", "recall")
        snooped_on_b = say(server_b, "snoop", "recall")

    kinds = [next(k for k in f["payload"] if k != "version") for f in redraw]
    assert kinds == ["createSurface", "updateComponents", "updateDataModel"]
    assert redraw[2]["payload"]["updateDataModel"]["value"] == {"heard": "started on A", "turns": 2}
    assert next_turn == ["continued on B turn 3"]
    assert recalled_on_b == ["I know: the meeting is on Tuesday"]
    assert snooped_on_b == ["I know: nothing"]


# --- serve --workers N ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Served:
    """``serve --workers 2`` running: its address, the supervisor and its server processes' pids."""

    address: str
    supervisor: subprocess.Popen[bytes]
    processes: set[int]

    def one_on_each(self, stack: ExitStack, **query: Any) -> list[RuntimeClient]:
        """A connection on each server process (``RuntimeClient(address, **query)``), kept in
        ``stack``.

        The supervisor gives each new connection to a started server process; others than the
        first on each are closed."""
        found: dict[int, RuntimeClient] = {}
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while time.monotonic() < deadline:
            with ExitStack() as attempt:
                client = attempt.enter_context(RuntimeClient(self.address, **query))
                pid = serving(client, self.processes)
                if pid not in found:
                    found[pid] = client
                    stack.push(attempt.pop_all())
            if len(found) == len(self.processes):
                return [found[pid] for pid in sorted(found)]
        raise AssertionError(f"connections reached only server processes {sorted(found)}")


@contextmanager
def two_server_processes(*args: str, log: BinaryIO | None = None) -> Iterator[Served]:
    """``serve --workers 2 ARGS``, answering: the supervisor hands connections over once both
    server processes have started."""
    with runtime_server("--workers", "2", *args, log=log) as (address, supervisor):
        yield Served(address, supervisor, server_processes_of(supervisor.pid))


def children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid``."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with suppress(OSError):
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
            if int(parent) == pid and state != "Z":
                found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    with suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


def server_processes_of(supervisor: int) -> set[int]:
    """The supervisor's server processes (its other child is multiprocessing's resource
    tracker)."""
    return {pid for pid in children(supervisor) if b"spawn_main" in command_line(pid)}


def command_line(pid: int) -> bytes:
    """The command line of ``pid``; empty once it has ended (it may end while it is read)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def serving(client: RuntimeClient, processes: set[int]) -> int:
    """Which of ``processes`` holds the server's end of ``client``'s connection."""
    here = f"{client.connection.local_address[1]:04X}"
    there = f"{client.connection.remote_address[1]:04X}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1].endswith(f":{there}") and fields[2].endswith(f":{here}"):
            target = f"socket:[{fields[9]}]"
            for pid in processes:
                if target in open_files(pid):
                    return pid
    raise LookupError(f"no process of {sorted(processes)} serves this connection")


def open_files(pid: int) -> set[str]:
    """What the file descriptors of ``pid`` point to (some close while they are read; none once
    the process has ended)."""
    found = set()
    with suppress(FileNotFoundError, ProcessLookupError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with suppress(FileNotFoundError):
                found.add(os.readlink(fd))
    return found


def wait_until(condition: Callable[[], bool]) -> bool:
    """Whether ``condition`` came true within ``STOP_TIMEOUT_S`` (a bound, not a measure)."""
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def port_is_free(address: str) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", int(address.rpartition(":")[2])))
        except OSError:
            return False
        return True


@pytest.fixture
def sqlite_db(tmp_path: Path) -> str:
    return f"sqlite:{tmp_path / 'runtime.sqlite'}"


def test_sessions_are_served_by_both_server_processes_and_go_on_on_either(
    plugins_dir: Path, shared_storage: str
) -> None:
    with (
        two_server_processes(
            "--plugins-dir", str(plugins_dir), "--storage", shared_storage
        ) as served,
        ExitStack() as stack,
    ):
        on_a, _ = served.one_on_each(stack, agent="echo")
        on_a.receive_turn()
        begun = voice(on_a.say("begun on A"))
        _, on_b = served.one_on_each(stack, agent="echo", session_id=on_a.session_id)
        went_on = voice(on_b.say("went on on B"))
    assert begun == ["begun on A turn 2"]
    assert went_on == ["went on on B turn 3"]  # server process B knew what A did


@pytest.mark.timeout(300)
def test_two_connections_to_one_session_on_two_server_processes_take_turns(
    plugins_dir: Path, shared_storage: str
) -> None:
    """Each "slow" turn sleeps inside the graph: two turns that overlapped would both read the
    same count and both say the same "turn N" (a lost update)."""
    with two_server_processes(
        "--plugins-dir", str(plugins_dir), "--storage", shared_storage
    ) as served:
        with RuntimeClient(served.address, agent="echo") as opener:
            opener.receive_turn()
        with ExitStack() as stack:
            clients = served.one_on_each(stack, agent="echo", session_id=opener.session_id)

            def play(client: RuntimeClient) -> list[int]:
                """The turn numbers the session said ("slow 0 turn 5": 5)."""
                return [int(voice(client.say(f"slow {n}"))[0].split()[-1]) for n in range(3)]

            with ThreadPoolExecutor(2) as pool:
                said = [turn for turns in pool.map(play, clients) for turn in turns]
    assert sorted(said) == list(range(2, 8))


def test_each_connection_goes_to_the_server_process_holding_the_fewest(sqlite_db: str) -> None:
    """Sessions stay where they land: the kernel's hash of their addresses would leave them
    unequal three times in four; one after another, they alternate."""
    with two_server_processes("--storage", sqlite_db) as served, ExitStack() as stack:
        clients = []
        for _ in range(10):
            clients.append(stack.enter_context(RuntimeClient(served.address, agent="mortgage")))
            clients[-1].receive_turn()
        held = Counter(serving(client, served.processes) for client in clients)
    assert sorted(held.values()) == [5, 5]


def test_a_device_tool_answer_reaches_the_server_process_that_asked(sqlite_db: str) -> None:
    answers = []
    with two_server_processes("--storage", sqlite_db) as served, ExitStack() as stack:
        for client in served.one_on_each(stack, agent="lost_card"):
            client.receive_turn()
            client.send("client.tools.register", tools=[GET_LOCATION])
            call = ask_for_a_branch(client)
            client.send("client.tool.result", toolCallId=call["toolCallId"], content=LIVERPOOL)
            answers.append(voice(client.receive_turn()))
    assert len(answers) == 2
    for answer in answers:
        assert answer[0].startswith("Your nearest branch is Manchester King Street")


def test_with_every_server_process_at_its_most_a_connection_waits_until_one_closes(
    plugins_dir: Path, sqlite_db: str
) -> None:
    """``--max-connections 1``: a session on each server process, so a third connection waits in
    the backlog (unanswered for a while, however long is not measured) and is served once one
    closes."""
    request = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    with (
        two_server_processes(
            "--plugins-dir", str(plugins_dir), "--storage", sqlite_db, "--max-connections", "1"
        ) as served,
        ExitStack() as stack,
    ):
        first, _ = served.one_on_each(stack, agent="echo")
        name, _, port = served.address.rpartition(":")
        with socket.create_connection((name, int(port))) as waiting:
            waiting.sendall(request)
            unanswered = not select.select([waiting], [], [], 3)[0]
            first.connection.close()
            waiting.settimeout(STOP_TIMEOUT_S)
            answered = b"".join(iter(lambda: waiting.recv(4096), b""))
    assert unanswered
    assert answered.startswith(b"HTTP/1.1 200 OK")


@pytest.mark.parametrize("ctrl_c", [False, True], ids=["SIGTERM", "Ctrl-C"])
def test_a_stop_ends_every_server_process_and_frees_the_port(sqlite_db: str, ctrl_c: bool) -> None:
    """SIGTERM reaches the supervisor alone (as from a process manager); Ctrl-C, every process of
    the terminal's process group."""
    with (
        two_server_processes("--storage", sqlite_db) as served,
        RuntimeClient(served.address, agent="mortgage") as client,  # a session open meanwhile
    ):
        client.receive_turn()
        started = children(served.supervisor.pid)
        signalled = (
            [served.supervisor.pid, *served.processes] if ctrl_c else [served.supervisor.pid]
        )
        for pid in signalled:
            os.kill(pid, signal.SIGINT if ctrl_c else signal.SIGTERM)
        code = served.supervisor.wait(timeout=STOP_TIMEOUT_S)
    assert code == 0
    assert len(started) == 3  # two server processes and multiprocessing's resource tracker
    assert not any(alive(pid) for pid in served.processes)  # the supervisor waited for them
    assert wait_until(lambda: not any(alive(pid) for pid in started))  # the tracker: at EOF
    assert port_is_free(served.address)


def test_a_server_process_that_dies_is_reported_and_replaced(sqlite_db: str) -> None:
    with tempfile.TemporaryFile() as log:
        with two_server_processes("--storage", sqlite_db, log=log) as served:
            dead = min(served.processes)
            os.kill(dead, signal.SIGKILL)
            assert wait_until(lambda: len(server_processes_of(served.supervisor.pid) - {dead}) == 2)
            now = Served(
                served.address, served.supervisor, server_processes_of(served.supervisor.pid)
            )
            with ExitStack() as stack:  # the survivor, and the new one once it has started
                for client in now.one_on_each(stack, agent="mortgage"):
                    assert client.receive_turn()
        log.seek(0)
        output = log.read().decode()
    assert f"server process {dead} died (exit code -9); server process " in output


def test_server_processes_stop_when_their_supervisor_is_killed(sqlite_db: str) -> None:
    with two_server_processes("--storage", sqlite_db) as served:
        started = children(served.supervisor.pid)
        served.supervisor.kill()
        served.supervisor.wait()
        assert wait_until(lambda: not any(alive(pid) for pid in started))
        assert wait_until(lambda: port_is_free(served.address))


def test_a_server_process_that_cannot_start_stops_them_all(sqlite_db: str, tmp_path: Path) -> None:
    """Another server process would fail the same way: ``serve`` exits 3, as one process does."""
    command = [sys.executable, "-m", "runtime.cli", "serve", "--workers", "2"]
    command += ["--port", str(free_port()), "--storage", sqlite_db]
    command += ["--audit-file", str(tmp_path)]  # a folder: the server processes' start-up fails
    done = subprocess.run(command, capture_output=True, text=True, timeout=STOP_TIMEOUT_S)
    assert done.returncode == 3
    assert "failed to start: stopping the others" in done.stderr


def test_a_port_already_taken_stops_serve_at_once(sqlite_db: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "runtime.cli", "serve", "--workers", "2"]
        command += ["--port", str(port), "--storage", sqlite_db]
        done = subprocess.run(command, capture_output=True, text=True, timeout=STOP_TIMEOUT_S)
    assert done.returncode == 3
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in done.stderr


def test_memory_sessions_cannot_be_shared_by_server_processes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in STORAGE_ENVS:
        monkeypatch.delenv(name, raising=False)
    assert main(["serve", "--workers", "2"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    expected = "a2ui-runtime: error: --workers 2 needs sessions every server process sees"
    assert line.startswith(expected)


def test_the_import_api_is_served_by_one_server_process(
    sqlite_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--workers", "2", "--storage", sqlite_db, "--import-api"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("a2ui-runtime: error: --import-api needs one server process, not 2: ")


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_the_workers_flag_is_a_count_or_auto(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", "--workers", value])
    assert exited.value.code == 2
    expected = f"expected a number of server processes or 'auto', not {value!r}"
    assert expected in capsys.readouterr().err
    assert build_parser().parse_args(["serve", "--workers", "auto"]).workers == available_cores()
