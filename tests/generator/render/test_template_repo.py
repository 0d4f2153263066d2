"""The template's own repository: replayed from the history, the same on every clone."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_repo import commit_all, git, runtime_repo

from generator.render.template_repo import TEMPLATE_REPO, copier_source, replayed_from

TEMPLATE_FILES = ["copier-template/", "copier.yml"]


def template_history(repo: Path) -> list[str]:
    """The template commits of ``repo`` as a branch merged in: a commit on each side."""
    readme = repo / "copier-template" / "README.md.jinja"
    git(repo, "switch", "--quiet", "--create", "side")
    readme.write_text(readme.read_text() + "\nFrom the side branch.\n")
    commit_all(repo, "template: a footer, on a branch")
    git(repo, "switch", "--quiet", "main")
    (repo / "copier.yml").write_text((repo / "copier.yml").read_text() + "\n# main's note\n")
    commit_all(repo, "template: a note, on main")
    (repo / "unrelated.txt").write_text("not the template\n")
    commit_all(repo, "unrelated")
    git(repo, "merge", "--quiet", "--no-ff", "side", "-m", "merge the footer")
    return git(repo, "log", "--format=%H", "--", "copier.yml", "copier-template").split()


def hostile_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's settings a replay must not depend on: no identity, and signing asked for."""
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tuseConfigOnly = true\n[commit]\n\tgpgSign = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("NAME", "EMAIL"):
        for role in ("AUTHOR", "COMMITTER"):
            monkeypatch.delenv(f"GIT_{role}_{name}", raising=False)


def test_two_clones_replay_the_same_commits_with_no_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = runtime_repo(tmp_path / "origin")
    commits = template_history(origin)
    clones = [tmp_path / "one", tmp_path / "two"]
    for clone in clones:
        git(tmp_path, "clone", "--quiet", str(origin), str(clone))
    hostile_settings(tmp_path, monkeypatch)

    sources = [copier_source(clone, commits[0]) for clone in clones]

    assert sources[0] == sources[1]
    assert sources[0].src_path == TEMPLATE_REPO.as_posix() == ".agent-import/template"
    one = clones[0] / TEMPLATE_REPO
    described = "--format=%an|%ae|%ad|%cn|%ce|%cd|%s"
    original = git(origin, "log", described, "--", "copier.yml", "copier-template")
    replayed = git(one, "log", described, sources[0].commit)
    assert sorted(replayed.splitlines()) == sorted(original.splitlines())
    assert len(commits) == 4 and "merge the footer" in replayed
    assert git(one, "rev-list", "--count", "--merges", "HEAD") == "1"
    assert git(one, "ls-tree", "--name-only", "HEAD").split() == ["copier-template", "copier.yml"]
    assert git(one, "status", "--porcelain") == ""  # checked out, as a plain `copier update` needs
    assert git(clones[0], "status", "--porcelain") == ""  # ignored by the repository
    assert git(one, "fsck", "--connectivity-only", "--no-dangling") == ""  # it stands alone


def test_new_template_commits_are_added_and_mapped_back(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    first = git(repo, "rev-parse", "HEAD")
    before = copier_source(repo, first)
    (repo / "copier.yml").write_text((repo / "copier.yml").read_text() + "\n# a note\n")
    second = commit_all(repo, "template: a note")

    after = copier_source(repo, second)

    template = repo / TEMPLATE_REPO
    assert git(template, "rev-parse", "HEAD^") == before.commit
    assert git(template, "show", "HEAD:copier.yml").endswith("# a note")
    assert replayed_from(repo, after.commit[:7], current=second) == second
    assert replayed_from(repo, before.commit, current=second) == first
    assert replayed_from(repo, first, current=second) is None  # not a replayed commit
    assert copier_source(repo, first) == before  # an older template is checked out again
    assert git(template, "status", "--porcelain") == ""
