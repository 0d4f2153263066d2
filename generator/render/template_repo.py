"""The template's own git repository, ``.agent-import/template/``: what Copier clones.

Copier clones its template and checks out every file of it, once per render and three times per
``copier update`` (the old version, the new one, and the merge); with the template at this
repository's root, that was every file of the repository each time, most of an import's and an
update's time. So the generator keeps a repository of ``copier.yml`` and ``copier-template/``
alone and points Copier there (it is the ``_src_path`` a plugin's answers record).

That repository is replayed from this one's history, as ``git subtree split`` does: one commit for
each commit that touched the template, with its author, committer, dates and message, its tree cut
down to the template, and its parents replayed the same way. The replay depends on the history
alone (no identity, date or setting of the machine), so every clone of this repository builds the
same commits, and the ``_commit`` a plugin's answers record resolves on a colleague's fresh clone.
The folder is local and ignored by git; it is built on first use and extended as the template's
history grows.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from generator import gitops
from generator.errors import AgentImportError
from generator.repository import LOCAL_FOLDER

TEMPLATE_CONFIG = "copier.yml"
TEMPLATE_FOLDER = "copier-template"
#: The template's own repository, relative to the repository root (Copier's ``_src_path``).
TEMPLATE_REPO = LOCAL_FOLDER / "template"
#: Each replayed commit is kept as ``refs/replayed/<the commit here it was replayed from>``.
REPLAYED = "refs/replayed/"
BRANCH = "main"
#: The template repository's git commands read no user or system settings: the replay must be
#: the same on every machine (no signing, hooks or templates), and needs no identity.
_HERMETIC = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


class TemplateSource(BaseModel):
    """Where Copier finds the template: a path relative to the repository root, and a commit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    src_path: str
    commit: str


def copier_source(root: Path, commit: str) -> TemplateSource:
    """The template at ``commit`` (a commit of ``root`` touching it) as Copier should clone it:
    the template repository, brought in step with ``root``'s history up to ``commit``."""
    repo = root / TEMPLATE_REPO
    history = _history(root, commit)
    replayed = _replayed(repo)
    todo = [(sha, parents) for sha, parents in history if sha not in replayed]
    if todo:
        _init(repo)
        replayed |= _replay(root, repo, todo, replayed)
    tip = replayed[commit]
    if gitops.query(repo, "rev-parse", "--verify", "--quiet", "HEAD", env=_HERMETIC) != tip:
        _git(repo, "reset", "--hard", "--quiet", tip)  # a clean work tree for plain copier
    return TemplateSource(src_path=TEMPLATE_REPO.as_posix(), commit=tip)


def replayed_from(root: Path, recorded: str, *, current: str) -> str | None:
    """The commit of ``root`` that a plugin's recorded template commit (maybe abbreviated, as
    Copier records it) was replayed from; None if it is none of the template's commits up to
    ``current`` (the template repository is brought in step with them first)."""
    repo = root / TEMPLATE_REPO
    copier_source(root, current)
    full = gitops.resolve_commit(repo, recorded) if recorded else None
    return next((here for here, sha in _replayed(repo).items() if sha == full), None)


def _history(root: Path, commit: str) -> list[tuple[str, list[str]]]:
    """The commits that touched the template up to ``commit``, parents first, each with its
    parents in that history (git's parent rewriting)."""
    listed = gitops.git(
        root,
        "rev-list",
        "--reverse",
        "--topo-order",
        "--parents",
        commit,
        "--",
        TEMPLATE_CONFIG,
        TEMPLATE_FOLDER,
    )
    history = [(line.split()[0], line.split()[1:]) for line in listed.splitlines()]
    if not history or history[-1][0] != commit:
        raise AgentImportError(f"commit {commit[:12]} did not touch {TEMPLATE_CONFIG}")
    return history


def _replay(
    root: Path, repo: Path, todo: list[tuple[str, list[str]]], replayed: dict[str, str]
) -> dict[str, str]:
    """Write the replayed commits of ``todo`` (in order) with one ``git fast-import``; their shas.

    The template's files are borrowed from ``root``'s objects while importing, then copied into
    the template repository, so it stands alone.
    """
    headers = _commit_headers(root, [sha for sha, _ in todo])
    entries = _entries(root, [sha for sha, _ in todo])
    marks = {sha: f":{number}" for number, (sha, _) in enumerate(todo, start=1)}
    stream = bytearray()
    for sha, parents in todo:
        ref = f"{REPLAYED}{sha}"
        stream += f"reset {ref}\ncommit {ref}\nmark {marks[sha]}\n".encode()
        stream += headers[sha]
        for number, parent in enumerate(parents):
            keyword = "merge" if number else "from"
            stream += f"{keyword} {marks.get(parent) or replayed[parent]}\n".encode()
        stream += b"deleteall\n"
        for mode, name, obj in entries[sha]:
            stream += f"M {mode} {obj} {name}\n".encode()
        stream += b"\n"
    objects = gitops.git(root, "rev-parse", "--path-format=absolute", "--git-common-dir")
    borrow = {"GIT_ALTERNATE_OBJECT_DIRECTORIES": str(Path(objects) / "objects")}
    with tempfile.TemporaryDirectory(prefix="agent-import-replay-") as scratch:
        exported = Path(scratch) / "marks"
        _git(
            repo,
            "fast-import",
            "--quiet",
            f"--export-marks={exported}",
            stdin=stream,
            borrow=borrow,
        )
        numbers = dict(line.split() for line in exported.read_text().splitlines())
    _git(repo, "repack", "-a", "-d", "--quiet", borrow=borrow)
    return {sha: numbers[mark] for sha, mark in marks.items()}


def _commit_headers(root: Path, commits: list[str]) -> dict[str, bytes]:
    """Each commit's author, committer, encoding and message, as fast-import commands."""
    out = gitops.git_bytes(
        root, "cat-file", "--batch", stdin="".join(f"{c}\n" for c in commits).encode()
    )
    headers: dict[str, bytes] = {}
    position = 0
    for sha in commits:
        header_end = out.index(b"\n", position)
        size = int(out[position:header_end].split()[2])
        raw = out[header_end + 1 : header_end + 1 + size]
        position = header_end + 1 + size + 1
        head, _, message = raw.partition(b"\n\n")
        kept = [
            line
            for line in head.split(b"\n")
            if line.split(b" ", 1)[0] in (b"author", b"committer", b"encoding")
        ]
        kept.sort(key=lambda line: (b"author", b"committer", b"encoding").index(line.split()[0]))
        headers[sha] = b"\n".join(kept) + b"\ndata %d\n" % len(message) + message + b"\n"
    return headers


def _entries(root: Path, commits: list[str]) -> dict[str, list[tuple[str, str, str]]]:
    """Each commit's template entries: (mode, name, object), the ones it has."""
    names = (TEMPLATE_CONFIG, TEMPLATE_FOLDER)
    asked = "".join(f"{c}:{name}\n" for c in commits for name in names).encode()
    out = gitops.git_bytes(
        root, "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin=asked
    )
    answers = iter(out.decode().splitlines())
    modes = {"blob": "100644", "tree": "040000"}
    found: dict[str, list[tuple[str, str, str]]] = {}
    for sha in commits:
        found[sha] = []
        for name in names:
            obj, _, kind = next(answers).partition(" ")
            if kind in modes:
                found[sha].append((modes[kind], name, obj))
    return found


def _init(repo: Path) -> None:
    """Create the template repository (once), in a folder git ignores by itself."""
    if (repo / ".git").is_dir():
        return
    repo.mkdir(parents=True, exist_ok=True)
    ignore = repo.parent / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# agent-import's local folder: never committed\n*\n", encoding="utf-8")
    _git(repo, "init", "--quiet", f"--initial-branch={BRANCH}")


def _replayed(repo: Path) -> dict[str, str]:
    """The commits replayed so far: commit here -> replayed commit."""
    if not (repo / ".git").is_dir():
        return {}
    listed = _git(repo, "for-each-ref", "--format=%(refname) %(objectname)", REPLAYED).decode()
    return {
        ref.removeprefix(REPLAYED): sha
        for ref, sha in (line.split() for line in listed.splitlines())
    }


def _git(
    repo: Path, *args: str, stdin: bytes | bytearray = b"", borrow: dict[str, str] | None = None
) -> bytes:
    """``git ARGS`` in the template repository, reading no user or system settings (and, with
    ``borrow``, this repository's objects too)."""
    try:
        return gitops.git_bytes(
            repo, *args, stdin=bytes(stdin), env={**_HERMETIC, **(borrow or {})}
        )
    except AgentImportError as exc:
        raise AgentImportError(f"{exc} (in the template repository {TEMPLATE_REPO})") from None
