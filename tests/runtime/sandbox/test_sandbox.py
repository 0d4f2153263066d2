"""The sandbox itself, tried from inside as an attacker would: what a program in it sees, what it
may change, what it may start, and that it ends with the process its caller started."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runtime import sandbox
from runtime.sandbox._linux import _SYSCALLS

#: ``keyctl``'s number on this machine (the C library has no wrapper).
KEYCTL = _SYSCALLS.get("keyctl", -1)

pytestmark = pytest.mark.usefixtures("sandbox_available")


def run(spec: sandbox.Spec, code: str, **popen: object) -> subprocess.CompletedProcess[str]:
    """``code`` run by this interpreter in a sandbox made from ``spec`` (plus the interpreter)."""
    binds = tuple(sandbox.Bind(path) for path in sandbox.this_interpreter())
    full = sandbox.Spec(**{**spec.__dict__, "binds": binds + spec.binds})
    command = sandbox.command(full, [sys.executable, "-c", textwrap.dedent(code)])
    return subprocess.run(command, capture_output=True, text=True, timeout=60, **popen)  # type: ignore[call-overload]


def test_it_sees_its_own_processes_no_network_and_holds_no_privilege() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        done = run(
            sandbox.Spec(),
            f"""
            import os, socket
            print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))
            try:
                socket.create_connection(('127.0.0.1', {listener.getsockname()[1]}), timeout=2)
                print('connected')
            except OSError as exc:
                print('no connection', exc.errno)
            status = dict(l.split(':\\t') for l in open('/proc/self/status').read().splitlines())
            print([status[k].strip() for k in ('CapEff', 'CapBnd', 'NoNewPrivs', 'Seccomp')])
            print(sorted(os.listdir('/')))
            print(os.path.exists({__file__!r}), os.path.exists('/etc/shadow'))
            """,
        )
        listener.settimeout(0.5)
        with pytest.raises(TimeoutError):
            listener.accept()
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert lines[0] == "[1, 2]"
    assert lines[1].startswith("no connection")
    assert lines[2] == "['0000000000000000', '0000000000000000', '1', '2']"
    assert {"home", "tmp", "proc", "dev", "usr", "etc"} <= set(eval(lines[3]))
    assert lines[4] == "False False"  # not this test's file, not the host's password hashes


def test_a_read_only_bind_stays_so_a_writable_one_and_home_take_writes(tmp_path: Path) -> None:
    given, kept, hidden = tmp_path / "given", tmp_path / "kept", tmp_path / "kept" / "hidden"
    given.mkdir()
    hidden.mkdir(parents=True)
    (hidden / "secret.txt").write_text("not for the sandbox")
    sandbox.hand_over(given)
    spec = sandbox.Spec(
        binds=(sandbox.Bind(str(given), writable=True), sandbox.Bind(str(kept))),
        hidden=(str(hidden),),
    )
    done = run(
        spec,
        f"""
        import os
        open({str(given / "made")!r}, 'w').write('ok')
        open(os.path.join({sandbox.HOME!r}, 'note'), 'w').write('ok')
        for target in ({str(kept / "x")!r}, '/usr/x', '/x'):
            try:
                open(target, 'w')
                print('wrote', target)
            except OSError as exc:
                print('refused', exc.errno)
        print(os.listdir({str(hidden)!r}))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["refused 30", "refused 30", "refused 30", "[]"]
    assert (given / "made").read_text() == "ok"
    assert not (kept / "x").exists()


def test_kill_minus_one_inside_reaches_nothing_outside() -> None:
    """Inside, ``getpid()`` is 2 and 1 is the sandbox's own first process: signalling every
    process it may (``kill(-1)``) or group 1 ends the sandbox alone."""
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        done = run(
            sandbox.Spec(),
            """
            import os, signal
            for target, how in ((1, os.killpg), (-1, os.kill)):
                try:
                    how(target, signal.SIGKILL)
                except OSError:
                    pass
            """,
        )
        assert done.returncode in (0, -signal.SIGKILL, 128 + signal.SIGKILL)
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


def test_killing_the_keeper_ends_everything_inside_even_a_new_session() -> None:
    """The caller kills the sandbox by the pid it started: a process inside that left the
    group (``setsid``) and ignores SIGTERM still ends, as the namespace's first process dies."""
    read, write = os.pipe()
    binds = tuple(sandbox.Bind(path) for path in sandbox.this_interpreter())
    code = textwrap.dedent(
        f"""
        import os, signal, time
        if os.fork() == 0:
            os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(300)  # holds the pipe's write end ({write}) while it lives
        os.write({write}, b'ready')
        time.sleep(300)
        """
    )
    spec = sandbox.Spec(binds=binds, keep_fds=(write,))
    command = sandbox.command(spec, [sys.executable, "-c", code])
    keeper = subprocess.Popen(command, pass_fds=(write,), start_new_session=True)
    os.close(write)
    try:
        assert os.read(read, 5) == b"ready"
        os.killpg(keeper.pid, signal.SIGKILL)
        keeper.wait()
        ready, _, _ = select.select([read], [], [], 10)
        assert ready and os.read(read, 1) == b""  # every holder of the write end is gone
    finally:
        os.close(read)


def test_if_any_part_cannot_be_made_nothing_runs_and_one_line_says_why(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    tmp_path.chmod(0o777)
    spec = sandbox.Spec(
        binds=(sandbox.Bind(str(tmp_path), writable=True), sandbox.Bind("/no/such/folder"))
    )
    done = run(spec, f"open({str(ran)!r}, 'w')")

    assert done.returncode == sandbox.SETUP_FAILED
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("sandbox: cannot make the sandbox (bind /no/such/folder: No such file")
    assert sandbox.NO_SANDBOX_OPTION in line
    assert not ran.exists()


def test_memory_and_processes_are_limited() -> None:
    # As root the limit counts every process of nobody's (other tests' sandboxes too): a margin.
    spec = sandbox.Spec(memory_bytes=1 << 30, processes=64)
    done = run(
        spec,
        """
        import os
        try:
            bytearray(2 << 30)
            print('allocated')
        except MemoryError:
            print('memory refused')
        children = []
        try:
            for _ in range(256):
                pid = os.fork()
                if pid == 0:
                    import time; time.sleep(5); os._exit(0)
                children.append(pid)
            print('forked 256')
        except BlockingIOError:
            print('processes refused')
        for pid in children:
            os.kill(pid, 9)
        """,
    )
    assert done.stdout.splitlines() == ["memory refused", "processes refused"], done.stderr


def test_a_copy_is_written_in_memory_and_writable_folders_are_bounded(tmp_path: Path) -> None:
    """The agent's copy of its folder takes writes, the original keeps its bytes; no writable
    folder, and no file, can grow past its limit (a full /tmp must not fill the host)."""
    source = tmp_path / "plugin"
    source.mkdir()
    (source / "graph.py").write_text("original")
    spec = sandbox.Spec(
        binds=(sandbox.Bind(str(source), copy=True),), writable_bytes=8 << 20, file_bytes=4 << 20
    )
    done = run(
        spec,
        f"""
        import os
        open({str(source / "graph.py")!r}, 'w').write('changed')
        open({str(source / "new.txt")!r}, 'w').write('new')
        print(open({str(source / "graph.py")!r}).read())
        for n, (folder, size) in enumerate(
            (('/tmp', 3 << 20), ('/tmp', 3 << 20), ('/tmp', 3 << 20), ({sandbox.HOME!r}, 5 << 20))
        ):
            try:
                with open(os.path.join(folder, f'fill-{{n}}'), 'wb') as f:
                    f.write(b'x' * size)
                print('wrote', size >> 20)
            except OSError as exc:
                print('refused', exc.errno)
        """,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "changed"
    assert lines[1:] == ["wrote 3", "wrote 3", "refused 28", "refused 27"]  # ENOSPC, EFBIG
    assert [p.name for p in source.iterdir()] == ["graph.py"]
    assert (source / "graph.py").read_text() == "original"


def test_nothing_the_caller_holds_reaches_inside_nor_memory_no_limit_counts() -> None:
    """No descriptor but stdio (a caller's connection would let the agent say 'finished');
    no keyring (the caller's session keyring is inherited otherwise); no memory outside every
    process's limit (memfd, System V shared memory and message queues)."""
    with socket.create_server(("127.0.0.1", 0)) as held:
        done = run(
            sandbox.Spec(),
            f"""
            import ctypes, os
            libc = ctypes.CDLL(None, use_errno=True)
            print(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))
            for name, call in (
                ('keyctl', lambda: libc.syscall({KEYCTL}, 0, -3, 0)),  # the session keyring's id
                ('memfd', lambda: libc.memfd_create(b'x', 0)),
                ('shmget', lambda: libc.shmget(0, 1 << 20, 0o1600)),
                ('msgget', lambda: libc.msgget(0, 0o1600)),
            ):
                print(name, call(), ctypes.get_errno())
            """,
            pass_fds=(held.fileno(),),
        )
    assert done.returncode == 0, done.stderr
    fds, *calls = done.stdout.splitlines()
    assert eval(fds) == [0, 1, 2, 3]  # stdio and the listing's own
    assert [line.split()[1] for line in calls] == ["-1"] * 4, calls


def test_a_sandbox_ends_when_the_process_that_made_it_dies() -> None:
    """A runtime killed outright leaves no worker behind: its sandbox's keeper, orphaned, ends
    the sandbox, even one whose program ignores its input closing."""
    read, write = os.pipe()
    binds = tuple(sandbox.Bind(path) for path in sandbox.this_interpreter())
    spec = sandbox.Spec(binds=binds, keep_fds=(write,))
    inner = [sys.executable, "-c", f"import os, time; os.write({write}, b'ready'); time.sleep(300)"]
    maker = textwrap.dedent(
        f"""
        import subprocess, time
        subprocess.Popen({sandbox.command(spec, inner)!r}, pass_fds=({write},))
        time.sleep(300)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", maker], pass_fds=(write,))
    os.close(write)
    try:
        assert os.read(read, 5) == b"ready"
        parent.kill()
        parent.wait()
        ready, _, _ = select.select([read], [], [], 10)
        assert ready and os.read(read, 1) == b""  # the sandboxed program is gone
    finally:
        os.close(read)


@pytest.mark.parametrize("made", [True, False], ids=["made", "half-built"])
def test_no_folder_is_left_behind(tmp_path: Path, made: bool) -> None:
    """The folder a view is built on goes, after a pivot_root moved it out of the keeper's sight
    and after a failure left it mounted."""
    binds = () if made else (sandbox.Bind("/no/such/folder"),)
    done = run(sandbox.Spec(binds=binds), "pass", env={**os.environ, "TMPDIR": str(tmp_path)})

    assert done.returncode == (0 if made else sandbox.SETUP_FAILED), done.stderr
    assert list(tmp_path.iterdir()) == []
