"""The warm check interpreter: each plugin checked in a fresh fork, bounded, never left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from plugin_repo import agent_repo, echo_agent, options, runtime_repo

from generator.pipeline.importer import import_agent
from generator.validate import warm
from generator.validate.plugin import validate
from runtime.contract.layout import PLUGINS_FOLDER


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An imported echo plugin whose agent module can be given a probe to run on import."""
    tmp = tmp_path_factory.mktemp("warm")
    repo = runtime_repo(tmp / "repo")
    import_agent(options(agent_repo(tmp / "echo", echo_agent("echo_warm")), "echo"), root=repo)
    return repo / PLUGINS_FOLDER / "echo"


Probe = Callable[[str], None]


@pytest.fixture
def probe(plugin: Path) -> Iterator[Probe]:
    """Put code at the top of the agent's graph module; restored afterwards."""
    graph = plugin / "src" / "graph.py"
    original = graph.read_text()

    def put(code: str) -> None:
        graph.write_text(code + "\n" + original)

    yield put
    graph.write_text(original)


def alive(pid: int) -> bool:
    """Running (a zombie is not: it only waits to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def test_each_check_is_a_fresh_process_the_warm_interpreter_is_not(
    plugin: Path, probe: Probe, tmp_path: Path
) -> None:
    # What an agent leaves in its interpreter (a patched builtin, a module) must not reach the
    # next check: a second run finds it only if the checks shared a process.
    seen = tmp_path / "pids"
    probe(
        "import builtins, os\n"
        "left = getattr(builtins, 'left_by_an_agent', os.getpid())\n"
        "assert left == os.getpid(), f'process {left} left this'\n"
        "builtins.left_by_an_agent = os.getpid()\n"
        f"open({str(seen)!r}, 'a').write(f'{{os.getpid()}} {{os.getppid()}}\\n')\n"
    )

    # The fork's own mechanics, seen from outside (the sandbox's tests are tests/runtime/sandbox).
    first, second = validate(plugin, sandboxed=False), validate(plugin, sandboxed=False)

    assert first.ok and second.ok, second.describe()
    lines = {tuple(map(int, line.split())) for line in seen.read_text().splitlines()}
    pids = {pid for pid, _ in lines}
    interpreter = warm.start()
    assert interpreter is not None
    assert os.getpid() not in pids and interpreter.process.pid not in pids
    assert len(pids) >= 2  # two checks, two processes (the import and turns checks share one)
    assert {parent for _, parent in lines} == {interpreter.process.pid}  # forks, not new ones


def test_a_check_sees_the_environment_of_the_moment_and_an_empty_folder(
    plugin: Path, probe: Probe, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm.start()  # started before the variable is set
    monkeypatch.setenv("WARM_PROBE_SETTING", "set after the interpreter started")
    probe(
        "import os\n"
        "assert os.environ['WARM_PROBE_SETTING'] == 'set after the interpreter started'\n"
        "assert os.listdir('.') == ['output.log'], os.listdir('.')\n"
    )

    report = validate(plugin, sandboxed=False)  # unconfined: the caller's whole environment

    assert report.ok, report.describe()


@pytest.mark.parametrize("path", ["warm", "cold"])
def test_the_time_limit_kills_the_check_and_what_it_started(
    path: str, plugin: Path, probe: Probe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if path == "cold":  # no warm interpreter: the checks start a new one
        monkeypatch.setattr(warm, "start", lambda: None)
    pid_file = tmp_path / "grandchild"
    probe(
        "import subprocess, time\n"
        "child = subprocess.Popen(['sleep', '300'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(300)\n"
    )

    report = validate(plugin, timeout=3, sandboxed=False)  # a pid the test can see

    assert not report.ok and report.checks[0].summary == "timed out after 3 s"
    assert wait_gone(int(pid_file.read_text()))


def test_a_broken_agent_reports_its_output_and_traceback(plugin: Path, probe: Probe) -> None:
    probe("import os, sys\nprint('said before dying', file=sys.stderr)\nos._exit(3)\n")

    report = validate(plugin)

    (check,) = report.checks
    assert not check.ok and check.summary == "the check process ended before reporting"
    assert "said before dying" in (check.traceback or "")


def test_a_dead_warm_interpreter_is_replaced(plugin: Path) -> None:
    interpreter = warm.start()
    assert interpreter is not None
    interpreter.process.kill()
    interpreter.process.wait()

    report = validate(plugin)

    assert report.ok, report.describe()
    replacement = warm.start()
    assert replacement is not None and replacement is not interpreter and replacement.alive


def test_a_request_to_a_dead_interpreter_is_unavailable(plugin: Path, tmp_path: Path) -> None:
    interpreter = warm.Warm()
    interpreter.process.kill()
    interpreter.process.wait()
    request = warm.Request(
        folder=str(plugin), out=str(tmp_path / "out.json"), scratch=str(tmp_path), env={}
    )
    try:
        with pytest.raises(warm.Unavailable):
            interpreter.check(request, timeout=10)
    finally:
        interpreter.close()


def test_the_warm_interpreter_ends_with_the_process_that_started_it(tmp_path: Path) -> None:
    # Killed outright, the caller runs no clean-up: the interpreter notices its stdin closing.
    code = (
        "import os\n"
        "from generator.validate import warm\n"
        "print(warm.start().process.pid, flush=True)\n"
        "os._exit(0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )

    assert wait_gone(int(done.stdout), seconds=60)
