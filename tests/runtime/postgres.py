"""A throwaway PostgreSQL cluster for tests and benchmarks: the real server, in a temp folder.

``initdb`` refuses to run as root, so as root the cluster belongs to the ``postgres`` user (its
commands run through ``runuser``); otherwise it belongs to whoever runs it. It listens on a free
port of 127.0.0.1 only, trusts local connections, and is stopped and deleted on exit.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from runtime.serving.launch import free_port

SUPERUSER = "postgres"


def server_bindir() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl`` (``pg_config --bindir``, else Debian's layout)."""
    pg_config = shutil.which("pg_config")
    if pg_config:
        found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout
        if (Path(found.strip()) / "initdb").exists():
            return Path(found.strip())
    installed = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return installed[-1].parent if installed else None


@contextmanager
def temporary_postgres() -> Iterator[str]:
    """Start a cluster; yield the URL of its ``postgres`` database; stop and delete it."""
    bindir = server_bindir()
    if bindir is None:
        raise FileNotFoundError("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    folder = Path(tempfile.mkdtemp(prefix="a2ui-postgres-"))
    as_owner: list[str] = []
    if os.geteuid() == 0:
        owner = pwd.getpwnam(SUPERUSER)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_owner = ["runuser", "-u", SUPERUSER, "--"]
    data, port = folder / "data", free_port()

    def run(*command: str) -> None:
        done = subprocess.run([*as_owner, *command], cwd=folder, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()}")

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", SUPERUSER, "-A", "trust", "--no-sync")
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"),
            "-w", "start")  # fmt: skip
        try:
            yield f"postgresql://{SUPERUSER}@127.0.0.1:{port}/postgres"
        finally:
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def create_database(server_url: str) -> str:
    """A new, empty database on the server of ``server_url``; its URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server_url.rpartition("/")[0] + f"/{name}"
