"""The whole offline import of each example agent (goal: under 2 s), with per-step times.

Each example is imported into a fresh clone of this repository (as the demo does): by the
``agent-import import`` command in a new process, ``COMMAND_RUNS`` times, as median and range
(what a user waits for, interpreter start and imports included; its CPU time too, git's
included, a figure a busy machine inflates less), then in-process a few times (the steps alone,
Copier already imported).

Then real projects' shapes from the fixture corpus (``APPROVED``: a ReAct-style template, and
a supervisor team whose requirement the runtime lacks) are imported with ``--approve-deps`` by
the command, each in a fresh clone: their requirements are resolved with the runtime's and what
is missing installed by uv into a fresh validation environment, once with an empty uv cache
(cold: downloads from the package index), then ``WARM_RUNS`` times with it filled (goal: a
median of ``WARM_GOAL_S``), with each step's median and the CPU time of every process.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from generator.design import DesignOptions
from generator.pipeline.demo import clone_repository
from generator.pipeline.importer import ImportOptions, import_agent
from runtime.contract.layout import PLUGINS_FOLDER

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("savings_helper", "budget_calculator")
RUNS = 3
#: Runs of the command itself (a new process each): single runs vary by tenths of a second.
COMMAND_RUNS = 7
FIXTURES = ROOT / "tests" / "fixtures" / "agents"
#: Runs of each approved import with a warm uv cache; the goal is on their median.
WARM_RUNS = 3
WARM_GOAL_S = 5.0


@dataclass(frozen=True)
class Project:
    """A fixture imported with ``--approve-deps``: what a real project's import does."""

    title: str
    folder: Path
    graph: str
    plugin_id: str


@dataclass(frozen=True)
class Approved:
    """One approved import: wall and CPU seconds, each step's seconds, how it ended."""

    wall: float
    cpu: float
    steps: dict[str, float]
    outcome: str


APPROVED = (
    # create_agent with a run context; all its requirements are the runtime's own
    Project("ReAct template", FIXTURES / "create_agent_prebuilt", "helper", "react_helper"),
    # a supervisor of agents: langgraph-supervisor is not the runtime's, so it is installed
    Project("Supervisor team", FIXTURES / "supervisor", "team", "supervisor_team"),
)


def command_seconds(example: str, scratch: Path) -> str:
    """The command ``COMMAND_RUNS`` times in one clone (the plugin folder removed in between)."""
    repo = clone_repository(ROOT, scratch / f"cli-{example}")
    # -P: this checkout's generator (installed editable), not the clone's committed one
    agent = ROOT / "examples" / example
    command = [sys.executable, "-P", "-m", "generator.cli", "import", str(agent)]
    runs = []
    for _ in range(COMMAND_RUNS):
        runs.append(timed([*command, "--plugin-id", example, "--offline"], cwd=repo))
        shutil.rmtree(repo / PLUGINS_FOLDER / example)
    return summary(runs)


def timed(command: list[str], *, cwd: Path) -> tuple[float, float]:
    """Run ``command``; its wall time and the CPU time of it and every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def summary(runs: list[tuple[float, float]]) -> str:
    """Median and range of the wall times, median CPU time: one run varies by tenths here. The
    CPU time over the cores is the least wall time the command could take, all of it parallel."""
    walls = sorted(wall for wall, _ in runs)
    cpu = statistics.median(cpu for _, cpu in runs)
    cores = os.cpu_count() or 1
    return (
        f"median {statistics.median(walls):.2f} s over {len(runs)} runs "
        f"({walls[0]:.2f}-{walls[-1]:.2f} s; CPU {cpu:.2f} s, "
        f"so at least {cpu / cores:.2f} s on {cores} cores)"
    )


def in_process(example: str, scratch: Path, run: int) -> dict[str, float]:
    repo = clone_repository(ROOT, scratch / f"run{run}-{example}")
    options = ImportOptions(
        src=str(ROOT / "examples" / example),
        plugin_id=example,
        design_options=DesignOptions(offline=True, use_cache=False),
    )
    result = import_agent(options, root=repo)
    return {step.name: step.seconds for step in result.steps}


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        scratch = Path(tmp)
        if argv == ["approved"]:
            approved_imports(scratch)
            return
        for example in EXAMPLES:
            print(f"{example}: `agent-import import --offline` {command_seconds(example, scratch)}")
        for example in EXAMPLES:
            runs = [in_process(example, scratch, run) for run in range(RUNS)]
            totals = [sum(run.values()) for run in runs]
            print(f"{example}: in-process, {RUNS} runs, median {statistics.median(totals):.2f} s")
            for name in runs[0]:
                times = ", ".join(f"{run[name]:.2f}" for run in runs)
                print(f"    {name:<13} {times} s")
        approved_imports(scratch)


def approved_command(project: Project, repo: Path, cache: Path) -> Approved:
    """One ``agent-import import --approve-deps`` of ``project`` in a new process, with the uv
    cache at ``cache``: its wall and CPU time (uv's, git's, the checks' included), its steps."""
    command = [  # -P: as in command_seconds
        *(sys.executable, "-P", "-m", "generator.cli", "import", str(project.folder)),
        *("--plugin-id", project.plugin_id, "--graph", project.graph),
        *("--approve-deps", "--offline", "--json"),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "UV_CACHE_DIR": str(cache)},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return Approved(wall=wall, cpu=cpu, steps={}, outcome=f"stopped: {why}")
    steps = {step["name"]: step["seconds"] for step in json.loads(done.stdout)["steps"]}
    return Approved(wall=wall, cpu=cpu, steps=steps, outcome="validated")


def approved_imports(scratch: Path) -> None:
    """Each approved project once with an empty uv cache, then ``WARM_RUNS`` times with it
    filled, each in a fresh clone: the warm median against ``WARM_GOAL_S``, per-step medians."""
    for project in APPROVED:
        cache = scratch / f"uv-cache-{project.plugin_id}"
        repos = [scratch / f"{project.plugin_id}-{run}" for run in range(WARM_RUNS + 1)]
        cold, *warm = (
            approved_command(project, clone_repository(ROOT, repo), cache) for repo in repos
        )
        walls = sorted(run.wall for run in warm)
        median = statistics.median(walls)
        verdict = "within" if median <= WARM_GOAL_S else "OVER"
        print(f"{project.title}, `import --approve-deps --offline`:")
        print(f"    cold uv cache: {cold.wall:.1f} s (CPU {cold.cpu:.1f} s), {cold.outcome}")
        print(
            f"    warm uv cache: median {median:.2f} s over {len(warm)} runs "
            f"({walls[0]:.2f}-{walls[-1]:.2f} s; CPU median "
            f"{statistics.median(run.cpu for run in warm):.2f} s), {verdict} the "
            f"{WARM_GOAL_S:g} s goal; {', '.join(sorted({run.outcome for run in warm}))}"
        )
        for name in dict.fromkeys(name for run in warm for name in run.steps):
            times = [run.steps[name] for run in warm if name in run.steps]
            print(f"        {name:<13} median {statistics.median(times):5.2f} s")


if __name__ == "__main__":  # python -m bench.bench_import approved: only the approved imports
    main(sys.argv[1:])
