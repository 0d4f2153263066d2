"""``agent-import update`` time per plugin (goal: under 2.5 s), by kind of change, with step times.

Each example is imported offline into a fresh clone of this repository from its own git
repository, committed, then updated after each kind of change (committed between runs):

* upstream, screens kept: a commit that changes no state field or node;
* upstream, re-designed: a new state field and node (``budget_calculator`` only);
* template only: a commit to ``copier-template/``;
* up to date: nothing changed (no Copier run at all).

For each example the ``agent-import update`` command runs in a new process after an upstream
change, ``COMMAND_RUNS`` times, as median and range (what a user waits for, interpreter start and
imports included, and its CPU time); the rest runs in-process. Copier
clones and checks out its template several times per update (its old, current and new workers
each clone it); the last lines measure one such clone of the template's own repository
(``.agent-import/template``, what Copier clones) and, for comparison, of this whole repository
(what it cloned when the template's ``_src_path`` was the repository root).
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.bench_import import COMMAND_RUNS, summary, timed
from generator.design import DesignOptions
from generator.pipeline.demo import clone_repository
from generator.pipeline.importer import ImportOptions, import_agent
from generator.pipeline.update import UpdateOptions, UpdateResult, update_plugin
from generator.render.template_repo import TEMPLATE_REPO

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("savings_helper", "budget_calculator")
RUNS = 3
OFFLINE = DesignOptions(offline=True, use_cache=False)
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]


def git(folder: Path, *args: str) -> str:
    done = subprocess.run([*GIT, "-C", str(folder), *args], capture_output=True, text=True)
    done.check_returncode()
    return done.stdout.strip()


def commit(folder: Path, message: str) -> None:
    git(folder, "add", "--all")
    git(folder, "commit", "--quiet", "--allow-empty", "-m", message)


class Bench:
    """One example imported into a scratch clone, with its agent in a repository of its own."""

    def __init__(self, example: str, scratch: Path) -> None:
        self.example = example
        self.repo = clone_repository(ROOT, scratch / f"repo-{example}")
        self.agent = Path(shutil.copytree(ROOT / "examples" / example, scratch / example))
        git(self.agent, "init", "--quiet", "--initial-branch=main")
        commit(self.agent, "agent")
        options = ImportOptions(src=str(self.agent), plugin_id=example, design_options=OFFLINE)
        import_agent(options, root=self.repo)
        commit(self.repo, f"import {example}")
        self.graph = self.agent / example / "graph.py"
        self.runs = 0

    def upstream_kept(self) -> None:
        self.runs += 1
        self.graph.write_text(self.graph.read_text() + f"\n# upstream change {self.runs}\n")
        commit(self.agent, "a change that keeps the state")

    def upstream_redesigned(self) -> None:
        self.runs += 1
        text = self.graph.read_text()
        state = re.search(r"class (\w+)\(TypedDict.*\):\n", text)
        assert state, "the example has no TypedDict state"
        field, node = f"extra_{self.runs}", f"extra_node_{self.runs}"
        text = text[: state.end()] + f"    {field}: int\n" + text[state.end() :]
        text = text.replace(
            "builder.add_edge(START,",
            f"def {node}(state):\n    return {{{field!r}: {self.runs}}}\n\n\n"
            f"builder.add_node({node!r}, {node})\nbuilder.add_edge(START,",
            1,
        )
        self.graph.write_text(text)
        commit(self.agent, "a new state field and node")

    def template_changed(self) -> None:
        self.runs += 1
        readme = self.repo / "copier-template" / "README.md.jinja"
        readme.write_text(readme.read_text() + f"\nTemplate revision {self.runs}.\n")
        commit(self.repo, "template change")

    def update(self, **overrides: object) -> UpdateResult:
        values = {"plugin_id": self.example, "design_options": OFFLINE, **overrides}
        result = update_plugin(UpdateOptions.model_validate(values), root=self.repo)
        assert result.ok, result.message
        commit(self.repo, "update")
        return result

    def command_seconds(self) -> str:
        """The command after an upstream change, ``COMMAND_RUNS`` times (committed in between)."""
        command = [
            str(Path(sys.executable).with_name("agent-import")),
            "update",
            self.example,
            "--offline",
        ]
        runs = []
        for _ in range(COMMAND_RUNS):
            self.upstream_kept()
            runs.append(timed(command, cwd=self.repo))
            commit(self.repo, "update")
        return summary(runs)


def scenarios(bench: Bench) -> dict[str, tuple[Callable[[], None], dict[str, object]]]:
    found: dict[str, tuple[Callable[[], None], dict[str, object]]] = {
        "upstream, screens kept": (bench.upstream_kept, {}),
        "template only": (bench.template_changed, {"template_only": True}),
        "up to date": (lambda: None, {}),
    }
    if "class " in bench.graph.read_text() and "TypedDict" in bench.graph.read_text():
        found["upstream, re-designed"] = (bench.upstream_redesigned, {})
    return found


def clone_cost(repo: Path, scratch: Path) -> None:
    """One clone and checkout of each repository, as Copier makes of its template per render."""
    for label, source in (
        ("the template's repository", repo / TEMPLATE_REPO),
        ("this whole repository", repo),
    ):
        clone = scratch / f"clone-{source.name}"
        started = time.perf_counter()
        subprocess.run(["git", "clone", "--quiet", str(source), str(clone)], check=True)
        seconds = time.perf_counter() - started
        files = len(git(clone, "ls-files").splitlines())
        print(f"one clone and checkout of {label} ({files} files): {seconds:.2f} s")


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-update-") as tmp:
        scratch = Path(tmp)
        for example in EXAMPLES:
            bench = Bench(example, scratch)
            print(f"{example}: `agent-import update --offline` {bench.command_seconds()}")
            for name, (change, overrides) in scenarios(bench).items():
                runs = []
                for _ in range(RUNS):
                    change()
                    result = bench.update(**overrides)
                    runs.append({step.name: step.seconds for step in result.steps})
                totals = [sum(run.values()) for run in runs]
                steps = "  ".join(
                    f"{step} {statistics.median(run.get(step, 0.0) for run in runs):.2f}"
                    for step in runs[0]
                )
                print(
                    f"    {name:<24} median {statistics.median(totals):.2f} s "
                    f"(max {max(totals):.2f})  {steps}"
                )
        clone_cost(bench.repo, scratch)
