"""The whole offline import of each example agent (goal: under 2 s), with per-step times.

Each example is imported into a fresh clone of this repository (as the demo does): by the
``agent-import import`` command in a new process, ``COMMAND_RUNS`` times, as median and range
(what a user waits for, interpreter start and imports included; its CPU time too, git's
included, a figure a busy machine inflates less), then in-process a few times (the steps alone,
Copier already imported).

Then a ReAct-style template (``create_agent`` with a run context, from the fixture corpus) is
imported with ``--approve-deps``: its requirements are resolved with the runtime's and installed
by uv into a fresh validation environment, once with an empty uv cache (cold: downloads from
the package index) and once with that cache filled (warm; goal: under 30 s).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from generator.design import DesignOptions
from generator.errors import AgentImportError
from generator.pipeline.demo import clone_repository
from generator.pipeline.importer import ImportOptions, import_agent
from generator.pipeline.steps import Step
from runtime.layout import PLUGINS_FOLDER

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("savings_helper", "budget_calculator")
RUNS = 3
#: Runs of the command itself (a new process each): single runs vary by tenths of a second.
COMMAND_RUNS = 7
REACT_TEMPLATE = ROOT / "tests" / "fixtures" / "agents" / "create_agent_prebuilt"
WARM_GOAL_S = 30.0


def command_seconds(example: str, scratch: Path) -> str:
    """The command ``COMMAND_RUNS`` times in one clone (the plugin folder removed in between)."""
    repo = clone_repository(ROOT, scratch / f"cli-{example}")
    command = [sys.executable, "-m", "generator.cli", "import", str(ROOT / "examples" / example)]
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
        if argv == ["react"]:  # python -m bench.bench_import react: only the approved import
            react_template(scratch)
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
        react_template(scratch)


def approved_import(scratch: Path, name: str, cache: Path) -> tuple[float, list[Step], str]:
    """Wall time of one ``--approve-deps`` import of the ReAct template, its steps, outcome."""
    repo = clone_repository(ROOT, scratch / name)
    options = ImportOptions(
        src=str(REACT_TEMPLATE),
        plugin_id="react_helper",
        graph="helper",
        approve_deps=True,
        design_options=DesignOptions(offline=True, use_cache=False),
    )
    steps: list[Step] = []
    saved = os.environ.get("UV_CACHE_DIR")
    os.environ["UV_CACHE_DIR"] = str(cache)
    started = time.perf_counter()
    try:
        import_agent(options, root=repo, progress=steps.append)
        outcome = "validated"
    except AgentImportError as exc:
        outcome = f"stopped: {str(exc).splitlines()[0]}"
    finally:
        if saved is None:
            del os.environ["UV_CACHE_DIR"]
        else:
            os.environ["UV_CACHE_DIR"] = saved
    return time.perf_counter() - started, steps, outcome


def react_template(scratch: Path) -> None:
    cache = scratch / "uv-cache"
    for name in ("cold", "warm"):
        seconds, steps, outcome = approved_import(scratch, f"react-{name}", cache)
        verdict = "" if name == "cold" else (
            " (under the 30 s goal)" if seconds < WARM_GOAL_S else " (OVER the 30 s goal)"
        )  # fmt: skip
        print(f"ReAct template, approved dependencies, {name} uv cache: {seconds:.1f} s{verdict}")
        for step in steps:
            print(f"    {step.name:<13} {step.seconds:6.2f} s  {step.summary.splitlines()[0]}")
        print(f"    outcome: {outcome}")
