"""Fetch: turn what the user typed (a local folder or a git URL) into a ``Source`` on disk.

Git URLs (``https://``, ``ssh://``, ``git@host:path``, ``file://``) are fetched shallow into a
folder owned by a ``Workspace``: ``git init`` + ``git fetch --depth 1 origin REF`` +
``git checkout FETCH_HEAD``, which takes a branch, a tag or a full commit sha alike. Every git
process runs under a watchdog that kills it when the clone outgrows ``FetchLimits.max_bytes`` or
the whole fetch outlasts ``FetchLimits.timeout`` (50 MB / 30 s; docs/architecture.md). The
commands and their settings come from ``gitops.clone_commands``: the ref must be a branch, tag or
commit name, never an option, and git may use no transport that runs a command.

A local folder is read in place; with a ``ref`` it must be a git repository, which is then cloned
at that ref like a URL. Nothing fetched is ever executed: git hooks are disabled and no
submodules or LFS objects are pulled. Symlinks stay links: whoever reads the tree goes through
``generator.paths.within``, which refuses any path or symlink leading out of it (an error for
files the inspection needs, a warning and a skip for optional ones such as the README).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from generator import gitops
from generator.errors import AgentImportError
from generator.models import Source

MB = 1024 * 1024

_URL_PREFIXES = ("https://", "http://", "ssh://", "git://", "git+ssh://", "file://")
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:(?!//)")
_ABBREVIATED_SHA = re.compile(r"^[0-9a-f]{4,39}$")
_UNKNOWN_REF = ("couldn't find remote ref", "not our ref", "no such remote ref", "invalid refspec")
_POLL_SECONDS = 0.05
_SIZE_EVERY = 4  # polls between two measurements of the clone folder


class FetchLimits(BaseModel):
    """Bounds on a clone; exceeding either ends it with an ``AgentImportError``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_bytes: int = Field(default=50 * MB, gt=0, description="Clone folder size, .git included.")
    timeout: float = Field(default=30.0, gt=0, description="Seconds for the whole fetch.")


class Workspace:
    """Temporary folders for clones, all removed on ``close()`` or when the ``with`` block ends.

    A ``Source`` fetched into a workspace lives as long as the workspace, so the import step can
    keep the tree while it renders and only then let go of it.
    """

    def __init__(self) -> None:
        self._root: Path | None = None

    @property
    def root(self) -> Path | None:
        """The folder holding every clone (None until the first one)."""
        return self._root

    def folder(self, prefix: str) -> Path:
        """A new empty folder inside the workspace."""
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="agent-import-"))
        return Path(tempfile.mkdtemp(prefix=prefix, dir=self._root)).resolve()

    def close(self) -> None:
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def fetch(
    src: str,
    *,
    workspace: Workspace,
    ref: str | None = None,
    limits: FetchLimits = FetchLimits(),  # noqa: B008 - frozen, so sharing it is safe
) -> Source:
    """Make ``src`` (folder or git URL) available locally and pin it to a commit."""
    if is_git_url(src):
        return _clone(src, src, ref, limits, workspace)
    folder = Path(src).expanduser()
    if not folder.is_dir():
        raise AgentImportError(f"{src}: no such folder (give a local folder or a git URL)")
    folder = folder.resolve()
    toplevel = gitops.query_source(folder, "rev-parse", "--show-toplevel")
    if ref is not None:
        if toplevel is None:
            raise AgentImportError(f"{src}: --ref needs a git repository, and this folder is not")
        top = Path(toplevel).resolve()
        source = _clone(top.as_uri(), src, ref, limits, workspace)
        inner = Path(source.path) / folder.relative_to(top)
        return source.model_copy(update={"path": str(inner), "is_remote": False})
    commit = gitops.query_source(folder, "rev-parse", "HEAD") if toplevel else None
    dirty = gitops.has_changes(folder) if commit else False
    return Source(url=src, path=str(folder), commit=commit, dirty=dirty)


def is_git_url(src: str) -> bool:
    return src.startswith(_URL_PREFIXES) or bool(_SCP_LIKE.match(src))


def redact(url: str) -> str:
    """``url`` without a password or token, fit for messages and reports."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    netloc = f"{parts.username}:***@{host}{port}" if parts.username else f"***@{host}{port}"
    return urlunsplit(parts._replace(netloc=netloc))


def _clone(url: str, shown: str, ref: str | None, limits: FetchLimits, ws: Workspace) -> Source:
    shown = redact(shown)
    dest = ws.folder("clone-")
    deadline = time.monotonic() + limits.timeout
    try:
        for command in gitops.clone_commands(dest, url, ref):
            failure = _watch(command, dest, deadline, limits, shown)
            if failure is not None:
                raise _fetch_error(failure.replace(url, shown), shown, ref)
        _check_size(dest, limits, shown)
        commit = gitops.query_source(dest, "rev-parse", "HEAD")
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return Source(url=shown, path=str(dest), ref=ref, commit=commit, is_remote=True)


def _watch(
    command: gitops.Command, dest: Path, deadline: float, limits: FetchLimits, shown: str
) -> str | None:
    """Run one git command under the watchdog; its stderr if it failed, else None."""
    with tempfile.TemporaryFile() as stderr:
        try:
            proc = subprocess.Popen(
                command.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env=command.env,
                start_new_session=True,  # one process group: ssh/upload-pack die with git
            )
        except FileNotFoundError:
            raise AgentImportError("git is not installed (it is needed to fetch URLs)") from None
        polls = 0
        while proc.poll() is None:
            polls += 1
            if time.monotonic() > deadline:
                _kill(proc)
                raise AgentImportError(
                    f"fetching {shown} took longer than the {limits.timeout:g} s limit"
                )
            if polls % _SIZE_EVERY == 0 and _size(dest) > limits.max_bytes:
                _kill(proc)
                raise _too_big(shown, limits)
            time.sleep(_POLL_SECONDS)
        if proc.returncode == 0:
            return None
        stderr.seek(0)
        return stderr.read().decode(errors="replace")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _fetch_error(stderr: str, shown: str, ref: str | None) -> AgentImportError:
    if ref is not None and any(marker in stderr for marker in _UNKNOWN_REF):
        hint = " (give the full 40-character commit sha)" if _ABBREVIATED_SHA.match(ref) else ""
        return AgentImportError(f"{shown} has no branch, tag or commit {ref!r}{hint}")
    lines = [line.removeprefix("fatal: ").strip() for line in stderr.splitlines() if line.strip()]
    return AgentImportError(f"cannot fetch {shown}: {lines[0] if lines else 'git failed'}")


def _check_size(dest: Path, limits: FetchLimits, shown: str) -> None:
    if _size(dest) > limits.max_bytes:
        raise _too_big(shown, limits)


def _too_big(shown: str, limits: FetchLimits) -> AgentImportError:
    return AgentImportError(
        f"{shown} is bigger than the clone size limit of {limits.max_bytes / MB:.3g} MB"
    )


def _size(folder: Path) -> int:
    """Bytes under ``folder`` (symlinks counted as links, never followed)."""
    total = 0
    pending = [str(folder)]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:  # removed or being written while git runs
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                else:
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total
