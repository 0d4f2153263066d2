"""The git commands fetch, import and update run, each one ``git`` subprocess, all started here.

What a user typed (a ref, a branch name, a URL; from the command line, the import API or a
plugin's recorded answers) reaches git as a name, never as an option: ``check_ref`` and
``check_branch`` refuse a value that starts with ``-`` or that git's own rules do not take as a
name, and each value sits after ``--`` or inside an argument that cannot be an option
(``refs/heads/NAME``, ``--create=NAME``). Every call runs with no prompt, no pager and plain
English, and may use only the transports a source is fetched over (``GIT_ALLOW_PROTOCOL``, which
wins over any configuration: ``ext::``, which runs a command, never). A clone of a source nobody
vetted (``clone_commands``) also runs no hook and no credential helper, and may read ``file://``
only when the user gave a local source. A source's own repository (a folder handed to
``import``, or its clone) is asked through ``query_source`` alone, which runs none of the commands
that repository configures. Hooks of the user's own repository still run: its pre-commit hooks
check the commit ``--branch`` makes like any other. Copier runs git itself, with the variables
``copier_env`` gives.

``git`` raises an ``AgentImportError`` with git's own last line, so the CLI prints one clear line
(``git_bytes`` is the same for commands whose input or output is not text); ``query`` is for
read-only questions whose failure is an answer ("not a repository", "no such commit"). A caller's
``env`` adds variables (the template's own repository reads no user settings, say) and never
replaces one of the settings above.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from generator.errors import AgentImportError
from runtime.serving.quotes import excerpt

#: The transports a source is fetched over; ``file`` only for a local source (``clone_commands``).
NETWORK_PROTOCOLS = ("https", "http", "ssh", "git")
#: Every call: git never stops to ask a question (an empty ``GIT_ASKPASS`` starts no askpass
#: program, not even ``SSH_ASKPASS``), never pages, and writes plain English.
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "GIT_PAGER": "cat", "LC_ALL": "C"}
#: Commits are made as someone configured or named in the environment, never as a name git
#: guessed from the login and the host name.
_CONFIG = ("user.useConfigOnly=true",)
#: A clone of an untrusted source: no hooks (not even an init template's), no credential helper
#: (one may prompt, and it would lend the user's stored credentials to whatever URL was asked
#: for), no advice on stderr.
_CLONE_CONFIG = ("core.hooksPath=/dev/null", "credential.helper=", "advice.detachedHead=false")
#: ssh never asks for a password or a passphrase either (unless the user chose another command).
_SSH_COMMAND = "ssh -o BatchMode=yes"
#: A source's repository: no ``core.fsmonitor`` command and no hook.
_SOURCE_CONFIG = ("core.fsmonitor=false", "core.hooksPath=/dev/null")
#: Each filter driver of a source's repository: no command (``clean``, ``smudge``, ``process``),
#: and not ``required``, which would make git fail for want of one.
_FILTER_OFF = ("clean=", "smudge=", "process=", "required=false")
#: Copier's git, in the template's repository, the user's and its own scratch ones: local
#: repositories alone (a plugin's answers name the template's folder; an edit naming a URL is
#: refused) and no ``core.fsmonitor`` command; the user's hooks and git-lfs keep working.
_COPIER_PROTOCOLS = ("file",)
_COPIER_CONFIG = {"core.fsmonitor": "false"}


class Command(NamedTuple):
    """One git process to start: its arguments and its whole environment."""

    argv: list[str]
    env: dict[str, str]


def git(
    root: Path, *args: str, stdin: str | None = None, env: Mapping[str, str] | None = None
) -> str:
    """Run ``git -C root ARGS``; its stdout, without trailing whitespace."""
    return _text(git_bytes(root, *args, stdin=(stdin or "").encode(), env=env)).rstrip()


def git_bytes(
    root: Path, *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None
) -> bytes:
    """``git`` fed and answering bytes: ``cat-file --batch`` and ``fast-import`` carry commit
    messages and file contents in any encoding."""
    return _checked(args, _run(_command(root, args, env=env), stdin=stdin))


def query(root: Path, *args: str, env: Mapping[str, str] | None = None) -> str | None:
    """Stdout of a quick read-only ``git -C root ARGS``, or ``None`` if git failed or hung."""
    return _answer(_command(root, args, env=env))


def query_source(root: Path, *args: str) -> str | None:
    """``query`` in a source's repository (a folder handed to ``import``, or its clone), which
    is as untrusted as a URL: git runs none of the commands it configures (``core.fsmonitor``,
    which ``ls-files --others`` and ``status`` would start, hooks, filter drivers)."""
    filters_off = _filters_off(root)
    if filters_off is None:
        return None
    return _answer(_command(root, args, config=(*_SOURCE_CONFIG, *filters_off)))


def copier_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables to set over ``environ`` for Copier's git (it takes no option from us):
    ``_COPIER_PROTOCOLS`` and ``_COPIER_CONFIG``, the latter after any setting ``environ``
    holds (``GIT_CONFIG_COUNT``, read by git 2.31 and later)."""
    first = int(environ.get("GIT_CONFIG_COUNT") or 0)
    env = {
        "GIT_ALLOW_PROTOCOL": ":".join(_COPIER_PROTOCOLS),
        "GIT_CONFIG_COUNT": str(first + len(_COPIER_CONFIG)),
    }
    for number, (key, value) in enumerate(_COPIER_CONFIG.items(), start=first):
        env |= {f"GIT_CONFIG_KEY_{number}": key, f"GIT_CONFIG_VALUE_{number}": value}
    return env


def clone_local(repo: Path, dest: Path) -> None:
    """Clone the local repository ``repo`` (this project's own checkout, never a source) into
    ``dest`` through git's pack transport (``--no-local``): the clone arrives packed, as one
    from a git server does, and never hardlinks, so ``dest`` may be on another filesystem."""
    args = ["clone", "--quiet", "--no-local", "--", str(repo), str(dest)]
    _checked(args, _run(_command(None, args, config=_CLONE_CONFIG, protocols=("file",))))


def check_ref(ref: str) -> str:
    """``ref``, if it names a branch, a tag or a commit (a sha is such a name too) by git's rules
    (``git check-ref-format``) and cannot be read as an option."""
    if ref.startswith("-") or _check_ref_format(f"refs/heads/{ref}") is None:
        raise AgentImportError(f"{excerpt(ref)} is not a branch, tag or commit name")
    return ref


def check_branch(name: str) -> str:
    """``name``, if git takes it as a new branch's name (``git check-ref-format --branch``, which
    refuses ``HEAD`` too) just as typed: ``@{-1}``, which names another branch, is refused."""
    if name.startswith("-") or _check_ref_format("--branch", name) != name:
        raise AgentImportError(f"{excerpt(name)} is not a valid branch name")
    return name


def clone_commands(dest: Path, url: str, ref: str | None) -> list[Command]:
    """The commands that fetch ``ref`` (default: the remote's HEAD) of ``url`` shallow into the
    empty folder ``dest`` and check it out: ``init``, ``remote add``, ``fetch --depth 1`` and
    ``checkout FETCH_HEAD``, which takes a branch, a tag or a full commit sha alike.

    A ``file://`` URL is a local source the user gave (a folder is cloned as its ``file://`` URL):
    only then may git use the file transport.
    """
    if url.startswith("-"):
        raise AgentImportError(f"{excerpt(url)} is not a git URL")
    wanted = "HEAD" if ref is None else check_ref(ref)
    local = url.startswith("file://")
    protocols = (*NETWORK_PROTOCOLS, "file") if local else NETWORK_PROTOCOLS
    env = {
        "GIT_LFS_SKIP_SMUDGE": "1",
        "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", _SSH_COMMAND),
    }
    steps = [
        ["init", "--quiet"],
        ["remote", "add", "--", "origin", url],
        ["fetch", "--quiet", "--depth", "1", "--no-tags", "--", "origin", wanted],
        ["checkout", "--quiet", "--detach", "FETCH_HEAD"],
    ]
    return [
        _command(dest, step, config=_CLONE_CONFIG, protocols=protocols, env=env) for step in steps
    ]


def has_changes(folder: Path) -> bool:
    """Whether a local source's working tree under ``folder`` differs from its HEAD (its
    submodules, whose commands ``query_source`` would not switch off, left out)."""
    return bool(query_source(folder, "status", "--porcelain", "--ignore-submodules=all", "--", "."))


def resolve_commit(root: Path, ref: str) -> str | None:
    """The full sha ``ref`` (an abbreviated sha, a branch, ...) names, if it is a commit."""
    return query(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")


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


def unmerged(root: Path, folder: Path) -> str:
    """The index entries of ``folder``'s unmerged files (``mode sha stage<TAB>path`` lines)."""
    return git(root, "ls-files", "--unmerged", "--", str(folder))


def record_unmerged(root: Path, entries: str) -> None:
    """Record ``entries`` (``unmerged``'s lines, read in another worktree of this repository,
    whose objects it shares) as this index's: the files are unmerged here too."""
    paths = sorted({line.split("\t", 1)[1] for line in entries.splitlines() if line})
    cleared = [f"0 {'0' * 40}\t{path}" for path in paths]
    git(root, "update-index", "--index-info", stdin="\n".join([*cleared, entries]) + "\n")


@contextlib.contextmanager
def worktree(root: Path, folder: Path) -> Iterator[Path]:
    """A checkout of HEAD's ``folder`` alone in a temporary worktree, removed on exit: where an
    update is staged, since Copier merges in a git repository, so that the repository's own
    tree changes only once the update has passed. The checkout is sparse (the rest of the
    repository is never written out) through the worktree's own pattern file, so the
    repository's configuration is left as it was (``git sparse-checkout`` would change it)."""
    scratch = Path(tempfile.mkdtemp(prefix="agent-import-update-"))
    tree = scratch / "tree"
    try:
        git(
            root, "worktree", "add", "--no-checkout", "--detach", "--quiet", "--", str(tree), "HEAD"
        )
        patterns = Path(git(tree, "rev-parse", "--absolute-git-dir")) / "info" / "sparse-checkout"
        patterns.parent.mkdir(parents=True, exist_ok=True)
        patterns.write_text(f"/{folder.relative_to(root).as_posix()}/\n", encoding="utf-8")
        git(tree, "-c", "core.sparseCheckout=true", "checkout", "--quiet")
        yield tree
    finally:
        query(root, "worktree", "remove", "--force", "--", str(tree))
        shutil.rmtree(scratch, ignore_errors=True)
        query(root, "worktree", "prune")


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
    check_branch(name)
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
        git(root, "switch", "--quiet", f"--create={branch}")
    git(root, "add", "--all", "--", str(folder))
    git(root, "commit", "--quiet", "--message", message, "--", str(folder))
    return head(root)


def _command(
    root: Path | None,
    args: Sequence[str],
    *,
    config: Sequence[str] = (),
    protocols: Sequence[str] = NETWORK_PROTOCOLS,
    env: Mapping[str, str] | None = None,
) -> Command:
    """``git [-C root] ARGS`` with the settings every call has, plus ``config`` and ``env``."""
    settings = [part for setting in (*_CONFIG, *config) for part in ("-c", setting)]
    where = ["-C", str(root)] if root is not None else []
    allowed = {"GIT_ALLOW_PROTOCOL": ":".join(protocols)}
    # The settings every call has come last: a caller's variables never replace them.
    return Command(
        ["git", *settings, *where, *args], {**os.environ, **(env or {}), **_ENV, **allowed}
    )


def _filters_off(root: Path) -> list[str] | None:
    """Settings that switch off each filter driver ``root``'s repository configures; None if
    one is named with ``=``, where ``-c`` would cut its name (so it could not be switched off)."""
    listed = query(root, "config", "--name-only", "--get-regexp", r"^filter\.")
    drivers = sorted({line.rsplit(".", 1)[0] for line in (listed or "").splitlines()})
    if any("=" in driver for driver in drivers):
        return None
    return [f"{driver}.{setting}" for driver in drivers for setting in _FILTER_OFF]


def _answer(command: Command) -> str | None:
    """``command``'s stdout, or ``None`` if git failed or hung."""
    try:
        done = _run(command, timeout=10)
    except (AgentImportError, subprocess.TimeoutExpired):
        return None
    return _text(done.stdout).strip() if done.returncode == 0 else None


def _run(
    command: Command, *, stdin: bytes = b"", timeout: float | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``command`` with ``stdin`` as its whole input (never the terminal's)."""
    try:
        return subprocess.run(
            command.argv,
            input=stdin,
            capture_output=True,
            env=command.env,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise AgentImportError("git is not installed") from None


def _checked(args: Sequence[str], done: subprocess.CompletedProcess[bytes]) -> bytes:
    """``done``'s stdout, or an ``AgentImportError`` with git's last line if it failed."""
    if done.returncode != 0:
        lines = _text(done.stderr or done.stdout).strip().splitlines()
        raise AgentImportError(f"git {args[0]} failed: {lines[-1] if lines else done.returncode}")
    return done.stdout


def _text(output: bytes) -> str:
    return output.decode(errors="replace")


def _check_ref_format(*args: str) -> str | None:
    """What ``git check-ref-format ARGS`` prints (nothing for a plain name), None if it refuses
    (or could not be asked: no argument of a process holds a NUL)."""
    if any("\0" in arg for arg in args):
        return None
    done = _run(_command(None, ["check-ref-format", *args]))
    return _text(done.stdout).strip() if done.returncode == 0 else None
