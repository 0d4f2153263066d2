"""fetch: local folders in place, git URLs cloned shallow under size and time limits."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from generator.errors import AgentImportError
from generator.fetch import FetchLimits, Workspace, fetch, is_git_url, redact

GitRepo = Any  # the conftest's GitRepo: a real repository driven through the git CLI


@pytest.fixture
def repo(git_repo: Callable[[str], GitRepo]) -> GitRepo:
    """A repo with two commits: v1 (tagged) and v2 on main, plus a 'feature' branch."""
    repo = git_repo("upstream")
    repo.commit({"agent.py": "VERSION = 1\n"}, "one")
    repo.git("tag", "v1")
    repo.git("branch", "feature")
    repo.commit({"agent.py": "VERSION = 2\n"}, "two")
    return repo


def version(path: str) -> str:
    return (Path(path) / "agent.py").read_text().strip()


def test_remote_default_branch_is_cloned_shallow_and_pinned(repo: GitRepo) -> None:
    with Workspace() as ws:
        source = fetch(repo.url, workspace=ws)
        assert version(source.path) == "VERSION = 2"
        assert source.commit == repo.git("rev-parse", "HEAD")
        assert source.is_remote and source.url == repo.url and source.ref is None
        count = subprocess.run(
            ["git", "-C", source.path, "rev-list", "--count", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert count.stdout.strip() == "1"


@pytest.mark.parametrize("ref", ["v1", "feature"])
def test_tag_and_branch_refs(repo: GitRepo, ref: str) -> None:
    with Workspace() as ws:
        source = fetch(repo.url, workspace=ws, ref=ref)
        assert version(source.path) == "VERSION = 1"
        assert source.commit == repo.git("rev-parse", f"{ref}^{{commit}}")
        assert source.ref == ref


def test_commit_sha_ref(repo: GitRepo) -> None:
    first = repo.git("rev-parse", "v1^{commit}")
    with Workspace() as ws:
        source = fetch(repo.url, workspace=ws, ref=first)
        assert version(source.path) == "VERSION = 1"
        assert source.commit == first


def test_unknown_ref_is_one_clear_error(repo: GitRepo) -> None:
    with Workspace() as ws, pytest.raises(AgentImportError, match="no branch, tag or commit 'v9'"):
        fetch(repo.url, workspace=ws, ref="v9")


def test_abbreviated_sha_asks_for_the_full_one(repo: GitRepo) -> None:
    short = repo.git("rev-parse", "--short", "v1^{commit}")
    with Workspace() as ws, pytest.raises(AgentImportError, match="full 40-character commit sha"):
        fetch(repo.url, workspace=ws, ref=short)


@pytest.mark.parametrize("local", [False, True], ids=["file-url", "folder"])
def test_an_option_given_as_ref_never_reaches_git(
    repo: GitRepo, tmp_path: Path, local: bool
) -> None:
    marker = tmp_path / "pwned"
    src = str(repo.path) if local else repo.url
    attack = f"--upload-pack=touch {marker};git-upload-pack"
    with Workspace() as ws, pytest.raises(AgentImportError, match="not a branch, tag or commit"):
        fetch(src, workspace=ws, ref=attack)
    assert not marker.exists()


def test_a_url_shaped_like_an_option_is_refused(tmp_path: Path) -> None:
    with Workspace() as ws, pytest.raises(AgentImportError, match="'-t@host:x' is not a git URL"):
        fetch("-t@host:x", workspace=ws)


def test_unreachable_url(tmp_path: Path) -> None:
    url = (tmp_path / "nowhere").as_uri()
    with Workspace() as ws, pytest.raises(AgentImportError, match=f"cannot fetch {url}"):
        fetch(url, workspace=ws)


def test_clone_over_the_size_limit_is_refused_and_removed(
    git_repo: Callable[[str], GitRepo],
) -> None:
    big = git_repo("big")
    big.commit({"data.txt": os.urandom(300_000).hex()})
    with Workspace() as ws:
        with pytest.raises(AgentImportError, match=r"bigger than the clone size limit of 0\.25 MB"):
            fetch(big.url, workspace=ws, limits=FetchLimits(max_bytes=256 * 1024))
        assert ws.root is not None and not any(ws.root.iterdir())  # no half-written clone


def test_slow_clone_is_killed_at_the_time_limit(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git runs the remote's upload-pack through the shell: make it stall for 30 s.
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "remote.origin.uploadpack")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "sleep 30; git-upload-pack")
    with Workspace() as ws, pytest.raises(AgentImportError, match=r"longer than the 0\.5 s limit"):
        fetch(repo.url, workspace=ws, limits=FetchLimits(timeout=0.5))


class _AskForCredentials(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="private"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def private_url() -> Iterator[str]:
    """A git server on 127.0.0.1 that asks every request for a user name and a password."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _AskForCredentials)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/agent.git"
    server.shutdown()
    thread.join()
    server.server_close()


def test_a_clone_asks_nobody_for_credentials(
    private_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No credential helper and no askpass program runs: either could prompt, and a helper
    would hand the user's stored credentials to whatever URL an import request named."""
    helper_ran, askpass_ran = tmp_path / "helper-ran", tmp_path / "askpass-ran"
    config = tmp_path / "gitconfig"
    config.write_text(f"[credential]\n\thelper = !touch {helper_ran}\n")
    askpass = tmp_path / "askpass.sh"
    askpass.write_text(f"#!/bin/sh\ntouch {askpass_ran}\necho secret\n")
    askpass.chmod(0o755)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_ASKPASS", str(askpass))
    monkeypatch.setenv("SSH_ASKPASS", str(askpass))
    with Workspace() as ws, pytest.raises(AgentImportError, match="terminal prompts disabled"):
        fetch(private_url, workspace=ws)
    assert not helper_ran.exists() and not askpass_ran.exists()


def test_workspace_removes_clones_on_exit(repo: GitRepo) -> None:
    with Workspace() as ws:
        path = Path(fetch(repo.url, workspace=ws).path)
        assert path.is_dir()
    assert not path.exists()


def test_local_folder_is_read_in_place(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("x = 1\n")
    with Workspace() as ws:
        source = fetch(str(tmp_path), workspace=ws)
    assert source.path == str(tmp_path.resolve())
    assert source.commit is None and not source.dirty and not source.is_remote


def test_local_git_folder_records_head_and_dirtiness(repo: GitRepo) -> None:
    with Workspace() as ws:
        clean = fetch(str(repo.path), workspace=ws)
        (repo.path / "agent.py").write_text("VERSION = 3\n")
        dirty = fetch(str(repo.path), workspace=ws)
    assert clean.commit == dirty.commit == repo.git("rev-parse", "HEAD")
    assert (clean.dirty, dirty.dirty) == (False, True)


def test_a_local_folder_never_runs_a_command_its_repository_configures(
    repo: GitRepo, tmp_path: Path
) -> None:
    """A folder handed to ``import`` (say, unpacked from an archive with its ``.git``) is as
    untrusted as a URL: its fsmonitor hook and filter drivers never run, yet a changed file
    still makes it dirty."""
    ran = tmp_path / "ran"
    repo.commit({".gitattributes": "*.py filter=evil\n"}, "attributes")
    repo.git("config", "core.fsmonitor", f"touch {ran}-fsmonitor; false")
    for key in ("clean", "smudge", "process"):
        repo.git("config", f"filter.evil.{key}", f"touch {ran}-{key}; cat")
    repo.git("config", "filter.evil.required", "true")  # git fails on a file it cannot filter
    os.utime(repo.path / "agent.py", (0, 0))  # stat-dirty: git status would run the filter
    with Workspace() as ws:
        clean = fetch(str(repo.path), workspace=ws)
        (repo.path / "agent.py").write_text("VERSION = 3\n")
        dirty = fetch(str(repo.path), workspace=ws)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ran")) == []
    assert (clean.dirty, dirty.dirty) == (False, True)


def test_local_git_folder_at_a_ref_is_cloned(repo: GitRepo) -> None:
    (repo.path / "sub").mkdir()
    repo.commit({"sub/inner.py": "x = 1\n"})
    with Workspace() as ws:
        source = fetch(str(repo.path / "sub"), workspace=ws, ref="main")
        assert Path(source.path).name == "sub" and (Path(source.path) / "inner.py").is_file()
        assert not source.is_remote and source.commit == repo.git("rev-parse", "HEAD")


def test_ref_on_a_folder_that_is_not_a_repo(tmp_path: Path) -> None:
    with Workspace() as ws, pytest.raises(AgentImportError, match="--ref needs a git repository"):
        fetch(str(tmp_path), workspace=ws, ref="main")


def test_missing_folder(tmp_path: Path) -> None:
    with Workspace() as ws, pytest.raises(AgentImportError, match="no such folder"):
        fetch(str(tmp_path / "missing"), workspace=ws)


@pytest.mark.parametrize(
    ("src", "is_url"),
    [
        ("https://github.com/org/agent.git", True),
        ("ssh://git@github.com/org/agent.git", True),
        ("git@github.com:org/agent.git", True),
        ("file:///srv/agent", True),
        ("./agent", False),
        ("/srv/agent", False),
        ("C:agent", False),
    ],
)
def test_git_url_detection(src: str, is_url: bool) -> None:
    assert is_git_url(src) is is_url


def test_credentials_never_reach_messages_or_reports() -> None:
    assert redact("https://bob:ghp_secret@github.com/org/a.git") == (
        "https://bob:***@github.com/org/a.git"
    )
    assert redact("https://github.com/org/a.git") == "https://github.com/org/a.git"
