"""The plugin hooks: ``plugin-contract``, ``no-merge-leftovers``, and all three (with
``a2ui-screens``) run by pre-commit in a fresh git repository, configured as this one is."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from plugin_repo import ROOT, agent_repo, commit_all, echo_agent, options, runtime_repo, write_files

from generator.checks import contract, leftovers
from generator.pipeline.importer import import_agent
from runtime.contract.layout import PLUGINS_FOLDER

HOOKS = ("a2ui-screens", "plugin-contract", "no-merge-leftovers")

HAND_WRITTEN = {
    "__init__.py": 'PLUGIN_ID = "demo"\nTITLE = "Demo"\n',
    "plugin.py": """
        from runtime.contract.plugin import PluginBase
        from runtime.plugins.demo import PLUGIN_ID


        class Base(PluginBase):
            title = "Demo"


        class DemoPlugin(Base):
            plugin_id = PLUGIN_ID
    """,
    "screens/main.json": """
        {
          "components": [
            {"id": "root", "component": "Column", "children": ["card"]},
            {"id": "card", "component": "DataCard", "title": "Hello", "value": "World"}
          ],
          "voice_text": "Hello."
        }
    """,
}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plugin folder rendered by an import (copied by each test that changes it)."""
    tmp = tmp_path_factory.mktemp("imported")
    repo = runtime_repo(tmp / "repo")
    import_agent(options(agent_repo(tmp / "agent", echo_agent("echo_checks")), "echo"), root=repo)
    return repo / PLUGINS_FOLDER / "echo"


def plugin(tmp_path: Path, files: dict[str, str], name: str = "demo") -> Path:
    return write_files(tmp_path / "runtime" / "plugins" / name, files)


def copied(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "runtime" / "plugins" / folder.name))


@pytest.mark.parametrize("name", ["mortgage", "lost_card"])
def test_the_hand_written_reference_plugins_pass(name: str) -> None:
    assert contract.check(ROOT / "runtime" / "plugins" / name) == []


def test_an_imported_plugin_and_a_hand_written_one_pass(imported: Path, tmp_path: Path) -> None:
    assert contract.check(imported) == []
    assert contract.check(plugin(tmp_path, HAND_WRITTEN)) == []


def test_paths_map_to_their_plugin_folders(tmp_path: Path) -> None:
    folder = plugin(tmp_path, HAND_WRITTEN)
    paths = [folder / "screens" / "main.json", folder / "plugin.py", folder.parent / "README.md"]
    assert contract.plugin_folders([*paths, folder.parent / "__init__.py"]) == [folder]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"__init__.py": 'PLUGIN_ID = "other"\n'},
            "{plugin}:9: class DemoPlugin: plugin_id 'other' must equal the folder name 'demo'",
        ),
        (
            {
                "plugin.py": (
                    "from runtime.contract.plugin import PluginBase\n\nclass Nothing:\n    pass\n"
                )
            },
            "{plugin}: must define exactly one PluginBase subclass (found: none)",
        ),
        (
            {
                "plugin.py": HAND_WRITTEN["plugin.py"]
                + "\n\n        class Another(Base):\n            pass\n"
            },
            "{plugin}: must define exactly one PluginBase subclass (found: DemoPlugin, Another)",
        ),
        (
            {"plugin.py": "class Broken(:\n"},
            "{plugin}:1: syntax error: invalid syntax",
        ),
        (
            {"plugin.py": HAND_WRITTEN["plugin.py"].replace("= PLUGIN_ID", "= make_id()")},
            "{plugin}:9: class DemoPlugin: plugin_id cannot be read statically; set it to a "
            "string, or to PLUGIN_ID from __init__.py",
        ),
    ],
    ids=["wrong-id", "no-class", "two-classes", "syntax-error", "dynamic-id"],
)
def test_a_broken_hand_written_plugin_is_named_precisely(
    tmp_path: Path, change: dict[str, str], expected: str
) -> None:
    folder = plugin(tmp_path, {**HAND_WRITTEN, **change})
    assert contract.check(folder) == [expected.format(plugin=folder / "plugin.py")]


def test_a_folder_name_that_is_no_plugin_id(tmp_path: Path) -> None:
    folder = plugin(tmp_path, HAND_WRITTEN, name="Demo-2")
    assert contract.check(folder)[0] == (
        f"{folder}: folder name 'Demo-2' is not a plugin id (^[a-z][a-z0-9_]{{1,32}}$)"
    )


def test_an_imported_plugin_without_its_answers_file(imported: Path, tmp_path: Path) -> None:
    folder = copied(imported, tmp_path)
    (folder / ".copier-answers.yml").unlink()
    assert contract.check(folder) == [
        f"{folder / '.copier-answers.yml'}: missing: an imported plugin keeps the answers it was "
        "rendered from (agent-import update and copier update need them)"
    ]


def test_answers_that_disagree_with_the_plugin(imported: Path, tmp_path: Path) -> None:
    folder = copied(imported, tmp_path)
    answers_file = folder / ".copier-answers.yml"
    answers = yaml.safe_load(answers_file.read_text())
    answers.update(strategy="inline", source_commit="main", agent_file="agent.json")
    answers["screens"]["welcome"] = {"components": [], "voice_text": "the screen, repeated"}
    del answers["_commit"]
    answers_file.write_text(yaml.safe_dump(answers))
    (folder / "screens" / "error.json").unlink()

    assert contract.check(folder) == [
        f"{answers_file}: no _commit: not written by Copier, so `copier update` cannot update it",
        f"{answers_file}: strategy must be one of wrapper, subgraph, port (how the plugin runs "
        "its agent), not 'inline'",
        f"{answers_file}: source_commit 'main' is not a full commit sha",
        f"{answers_file}: agent_file 'agent.json' is not a git blob id",
        f"{folder / 'screens' / 'error.json'}: missing (.copier-answers.yml records it)",
        f"{answers_file}: screens.welcome must be the git blob id of welcome.json as generated",
    ]


def test_an_agent_json_the_runtime_would_refuse(imported: Path, tmp_path: Path) -> None:
    folder = copied(imported, tmp_path)
    agent = folder / "agent.json"
    agent.write_text(agent.read_text().replace('"config_file": "', '"config_file": "../'))

    problems = contract.check(folder)

    assert problems == [
        f"{agent}: config_file: Value error, '../langgraph.json' must be a path inside src/"
    ]


@pytest.mark.parametrize("marker", [".copier-answers.yml", "agent.json"])
def test_either_file_marks_a_plugin_as_imported(tmp_path: Path, marker: str) -> None:
    contents = {".copier-answers.yml": "_src_path: .\n", "agent.json": "{}"}
    folder = plugin(tmp_path, {**HAND_WRITTEN, marker: contents[marker]})
    problems = contract.check(folder)
    assert f"{folder / 'src/'}: missing (an imported plugin keeps it)" in problems


def test_leftovers_name_each_marker_line_and_each_leftover_file(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "Title\n=======\n\n<<<<<<< before updating\nours\n=======\ntheirs\n>>>>>>> after updating\n"
    )
    rej = tmp_path / "plugin.py.rej"
    rej.write_text("@@ -1 +1 @@\n")
    clean = tmp_path / "clean.md"
    clean.write_text("Title\n=======\n")

    assert [p for path in (readme, rej, clean) for p in leftovers.leftovers(path)] == [
        f"{readme}:4: conflict marker '<<<<<<<': resolve the conflict",
        f"{readme}:6: conflict marker '=======': resolve the conflict",
        f"{readme}:8: conflict marker '>>>>>>>': resolve the conflict",
        f"{rej}: left by a merge: apply what it holds by hand, then delete it",
    ]
    assert leftovers.main([str(clean)]) == 0 and leftovers.main([str(rej)]) == 1


def test_the_offered_hooks_are_console_scripts_this_repository_runs_too() -> None:
    """Each offered hook runs a console script of one of the two distributions, which pre-commit
    installs together from the hook repository's clone (``.`` and ``./runtime``)."""
    offered = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    scripts = {
        name
        for project in (ROOT / "pyproject.toml", ROOT / "runtime" / "pyproject.toml")
        for name in tomllib.loads(project.read_text())["project"]["scripts"]
    }
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    local = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert [hook["id"] for hook in offered] == list(HOOKS)
    for hook in offered:
        assert hook["entry"] in scripts and hook["language"] == "python"
        assert hook["additional_dependencies"] == ["./runtime"]
        assert local[hook["id"]]["entry"] == hook["entry"]


def pre_commit(repo: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit run --all-files`` with this repository's plugin hooks, offline."""
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    hooks = [hook for r in config["repos"] for hook in r["hooks"] if hook["id"] in HOOKS]
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]})
    )
    commit_all(repo, "pre-commit config")
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
    }
    return subprocess.run(
        [str(bin_dir / "pre-commit"), "run", "--all-files", "--color=never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_pre_commit_passes_good_plugins_and_names_a_dangling_id(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    write_files(repo / PLUGINS_FOLDER / "demo", HAND_WRITTEN)
    commit_all(repo, "a plugin")
    good = pre_commit(repo)
    assert good.returncode == 0, good.stdout

    screen = repo / PLUGINS_FOLDER / "demo" / "screens" / "main.json"
    screen.write_text(screen.read_text().replace('"children": ["card"]', '"children": ["ghost"]'))
    commit_all(repo, "a broken screen")
    bad = pre_commit(repo)

    assert bad.returncode == 1
    assert (
        "runtime/plugins/demo/screens/main.json: component 'root' property 'children': "
        "dangling id 'ghost'"
    ) in bad.stdout
