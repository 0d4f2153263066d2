"""The few git operations fetch, import and update need, each one ``git`` subprocess.

Paths are given relative to the repository root or absolute. ``git`` raises an
``AgentImportError`` with git's own last line, so the CLI prints one clear line; ``query`` is for
read-only questions whose failure is an answer ("not a repository", "no such commit"). Hooks are
not disabled: a repository's pre-commit hooks check the commit ``--branch`` makes like any other.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from generator.errors import AgentImportError

#: Git never stops to ask a question, never pages, and writes plain English. Commits are made as
#: someone configured or named in the environment, never as a name git guessed from the login and
#: the host name (``user.useConfigOnly``).
_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "user.useConfigOnly",
    "GIT_CONFIG_VALUE_0": "true",
}


def git(root: Path, *args: str, stdin: str | None = None) -> str:
    """Run ``git -C root ARGS``; its stdout, without trailing whitespace."""
    done = subprocess.run(
        ["git", "-C", str(root), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **_ENV},
        check=False,
    )
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise AgentImportError(f"git {args[0]} failed: {lines[-1] if lines else done.returncode}")
    return done.stdout.rstrip()


def query(root: Path, *args: str) -> str | None:
    """Stdout of a quick read-only ``git -C root ARGS``, or ``None`` if git failed or hung."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            env={**os.environ, **_ENV},
            stdin=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def resolve_commit(root: Path, ref: str) -> str | None:
    """The full sha ``ref`` (an abbreviated sha, a branch, ...) names, if it is a commit."""
    return query(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")


def changed_files(root: Path, folder: Path) -> list[str]:
    """Files under ``folder`` that differ from HEAD: modified, staged, untracked or unmerged."""
    status = git(root, "status", "--porcelain", "--untracked-files=all", "--", str(folder))
    return [line[3:] for line in status.splitlines()]


def conflicted_files(root: Path, folder: Path) -> list[str]:
    """Files under ``folder`` that git records as unmerged (Copier's inline conflicts)."""
    listed = git(root, "diff", "--name-only", "--diff-filter=U", "--", str(folder))
    return sorted(set(listed.splitlines()))


def mark_conflicted(root: Path, path: Path, *, base: str, ours: str, theirs: str) -> None:
    """Record ``path`` as unmerged, as Copier does for its inline conflicts, so ``git status``
    lists it as "both modified" and ``git add`` marks it resolved."""
    relative = path.resolve().relative_to(root.resolve()).as_posix()
    entries = [f"0 {'0' * 40}\t{relative}"]
    for stage, text in ((1, base), (2, ours), (3, theirs)):
        if text:
            blob = git(root, "hash-object", "-w", "--stdin", stdin=text)
            entries.append(f"100644 {blob} {stage}\t{relative}")
    git(root, "update-index", "--index-info", stdin="\n".join(entries) + "\n")


def restore(root: Path, folder: Path) -> None:
    """Put ``folder`` back as HEAD has it: what an update changed, and nothing else, is undone.

    Only called on a folder that was clean when the update began.
    """
    git(root, "restore", "--source=HEAD", "--staged", "--worktree", "--", str(folder))
    git(root, "clean", "-d", "--force", "--quiet", "--", str(folder))


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD")


def current_branch(root: Path) -> str | None:
    """The checked-out branch, None when HEAD is detached."""
    try:
        return git(root, "symbolic-ref", "--quiet", "--short", "HEAD")
    except AgentImportError:
        return None


def check_branch_commit(root: Path, name: str) -> None:
    """Refuse, before anything is written, a commit on ``name`` that could not be made: git has
    no identity to commit as (never made up: the commit goes to review under a real name), the
    name is not one git takes, or the branch exists and is not checked out (a second plugin of
    ``update --all`` commits onto the branch the first one created)."""
    if any(query(root, "var", f"GIT_{who}_IDENT") is None for who in ("AUTHOR", "COMMITTER")):
        raise AgentImportError(
            "git has no identity to commit with: set one with "
            '`git config --global user.name "Your Name"` and '
            "`git config --global user.email you@example.com` (or GIT_AUTHOR_NAME/EMAIL and "
            "GIT_COMMITTER_NAME/EMAIL)"
        )
    try:
        git(root, "check-ref-format", "--branch", name)
    except AgentImportError:
        raise AgentImportError(f"{name!r} is not a valid branch name") from None
    if current_branch(root) == name:
        return
    try:
        git(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}")
    except AgentImportError:
        return
    raise AgentImportError(f"branch {name!r} already exists; choose a new name")


def commit_on_branch(root: Path, branch: str, folder: Path, message: str) -> str:
    """Commit everything under ``folder`` (and only that) on ``branch``, created from HEAD
    unless it is the checked-out branch already; the new commit's sha."""
    check_branch_commit(root, branch)
    if current_branch(root) != branch:
        git(root, "switch", "--quiet", "--create", branch)
    git(root, "add", "--all", "--", str(folder))
    git(root, "commit", "--quiet", "--message", message, "--", str(folder))
    return head(root)
