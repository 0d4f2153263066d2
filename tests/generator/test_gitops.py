"""gitops: what a user typed reaches git as a name, never as an option, and no git process runs a
command that a URL or a configuration asks for."""

from __future__ import annotations

import ast
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator import gitops
from generator.errors import AgentImportError

GitRepo = Any  # the conftest's GitRepo: a real repository driven through the git CLI

#: Option-shaped and malformed refs: none is a branch, tag or commit name.
BAD_REFS = [
    "-x",
    "--upload-pack=touch pwned;git-upload-pack",
    "--output=/tmp/x",
    "a..b",
    "a b",
    "x@{1}",
    "@{-1}",
    "foo.lock",
    "~1",
    "^",
    "a:b",
    "a?b",
    "a*b",
    "a[b",
    "a\\b",
    "feature/",
    "/feature",
    ".hidden",
    "",
    "a\nb",
    "a\tb",
    "a\x00b",
    "a\x1bb",
    "a\x7fb",
]
GOOD_REFS = ["main", "v1.2.3", "feature/x", "HEAD", "a" * 40, "3f2a9c1"]


@pytest.mark.parametrize("ref", BAD_REFS)
def test_option_shaped_and_malformed_refs_are_refused(ref: str) -> None:
    with pytest.raises(AgentImportError, match="is not a branch, tag or commit name") as refused:
        gitops.check_ref(ref)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("ref", GOOD_REFS)
def test_branch_tag_and_commit_names_are_taken_as_they_are(ref: str) -> None:
    assert gitops.check_ref(ref) == ref


def test_a_refused_value_is_quoted_short_and_escaped() -> None:
    with pytest.raises(AgentImportError) as refused:
        gitops.check_ref("--upload-pack=" + "x" * 200 + "\x1b[2J")
    assert str(refused.value) == (
        "'--upload-pack=xxxxxxxxxxxxxxxxxxxxxxxxxx'… is not a branch, tag or commit name"
    )


@pytest.mark.parametrize("name", ["-evil", "--force", "HEAD", "a..b", "x@{1}", "a b", "a\x00b"])
def test_branch_names_git_would_not_take_are_refused(name: str) -> None:
    with pytest.raises(AgentImportError, match="is not a valid branch name"):
        gitops.check_branch(name)


@pytest.mark.parametrize("name", ["agent-import/update-counter", "feature/x", "v2"])
def test_branch_names_are_taken_as_they_are(name: str) -> None:
    assert gitops.check_branch(name) == name


def test_a_branch_named_after_the_previous_one_is_refused(
    git_repo: Callable[[str], GitRepo],
) -> None:
    """``@{-1}`` passes ``git check-ref-format --branch``, which reads it as the branch checked
    out before: the commit would land on a branch nobody named."""
    repo = git_repo("repo")
    repo.commit({"a.txt": "a\n"})
    repo.git("switch", "--quiet", "--create", "feature")
    repo.git("switch", "--quiet", "main")
    with pytest.raises(AgentImportError, match=r"'@\{-1\}' is not a valid branch name"):
        gitops.check_branch_commit(repo.path, "@{-1}")


def test_a_url_shaped_like_an_option_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AgentImportError, match="'--upload-pack@host:x' is not a git URL"):
        gitops.clone_commands(tmp_path, "--upload-pack@host:x", None)


def test_the_file_transport_only_for_a_local_source(tmp_path: Path) -> None:
    def allowed(url: str) -> set[str]:
        commands = gitops.clone_commands(tmp_path, url, "main")
        return {part for c in commands for part in c.env["GIT_ALLOW_PROTOCOL"].split(":")}

    assert allowed("https://example.invalid/agent.git") == {"https", "http", "ssh", "git"}
    assert allowed("git@example.invalid:org/agent.git") == {"https", "http", "ssh", "git"}
    assert allowed((tmp_path / "agent").as_uri()) == {"https", "http", "ssh", "git", "file"}


def run_until_failure(commands: list[gitops.Command]) -> subprocess.CompletedProcess[str]:
    """Run the clone's commands as fetch does, one after the other; the first that failed."""
    for command in commands:
        done = subprocess.run(
            command.argv, env=command.env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            return done
    raise AssertionError("every command succeeded")


def test_ext_urls_never_run_a_command_whatever_the_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ext::`` runs a shell command; a user's configuration allowing it changes nothing."""
    config = tmp_path / "gitconfig"
    config.write_text('[protocol]\n\tallow = always\n[protocol "ext"]\n\tallow = always\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    marker = tmp_path / "pwned"
    dest = tmp_path / "clone"
    dest.mkdir()

    failed = run_until_failure(gitops.clone_commands(dest, f"ext::sh -c touch% {marker}", None))

    assert "transport 'ext' not allowed" in failed.stderr
    assert not marker.exists()


def test_a_callers_environment_never_lifts_a_setting(tmp_path: Path) -> None:
    """``env`` adds variables (the template repository's hermetic ones); the protocol limit
    stays, so no caller can let ``ext::`` through by accident."""
    marker = tmp_path / "pwned"
    lifted = {"GIT_ALLOW_PROTOCOL": "ext", "GIT_TERMINAL_PROMPT": "1"}

    answer = gitops.query(tmp_path, "ls-remote", "--", f"ext::sh -c touch% {marker}", env=lifted)

    assert answer is None
    assert not marker.exists()


def test_a_filter_driver_named_with_an_equals_sign_never_runs(
    git_repo: Callable[[str], GitRepo], tmp_path: Path
) -> None:
    """``-c filter.x=y.clean=`` sets ``filter.x``: a driver so named cannot be switched off, so
    its repository is not asked at all."""
    ran = tmp_path / "ran"
    repo = git_repo("repo")
    repo.commit({".gitattributes": "*.py filter=x=y\n", "agent.py": "VERSION = 1\n"})
    repo.git("config", "filter.x=y.clean", f"touch {ran}; cat")
    (repo.path / "agent.py").write_text("VERSION = 2\n")

    gitops.has_changes(repo.path)

    assert not ran.exists()
    assert gitops.query_source(repo.path, "status", "--porcelain") is None


def test_copiers_git_reads_local_repositories_alone_and_keeps_the_environments_settings(
    tmp_path: Path,
) -> None:
    """``copier_env`` adds its settings after those the environment holds, and no
    configuration lets Copier's git use another transport than ``file`` (``ext::`` runs a
    command)."""
    marker = tmp_path / "pwned"
    environ = {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "user.name",
        "GIT_CONFIG_VALUE_0": "Ann",
    }
    env = {**os.environ, **environ, **gitops.copier_env(environ)}

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        argv = ["git", "-c", "protocol.allow=always", "-C", str(tmp_path), *args]
        return subprocess.run(argv, env=env, capture_output=True, text=True, check=False)

    assert git("config", "user.name").stdout == "Ann\n"
    assert git("config", "core.fsmonitor").stdout == "false\n"
    assert "transport 'ext' not allowed" in git("ls-remote", f"ext::sh -c touch% {marker}").stderr
    assert not marker.exists()


def _git_argvs(tree: ast.Module) -> list[int]:
    """Lines of list or tuple displays starting with ``"git"``: a git command being spelt."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.List | ast.Tuple)
        and node.elts
        and isinstance(node.elts[0], ast.Constant)
        and node.elts[0].value == "git"
    ]


def test_git_commands_start_only_in_gitops() -> None:
    """docs/architecture.md: every git process of the generator starts in ``gitops.py``, with
    its settings, whatever module asks for it."""
    package = Path(gitops.__file__).parent
    elsewhere = [
        f"{path.relative_to(package.parent)}:{line}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "gitops.py" or path.parent != package
        for line in _git_argvs(ast.parse(path.read_text(encoding="utf-8")))
    ]

    assert elsewhere == []
