"""The whole offline import of each example agent (goal: under 2 s), with per-step times.

Each example is imported into a fresh clone of this repository (as the demo does): once by
the ``agent-import import`` command in a new process (what a user waits for, interpreter start
and imports included; its CPU time too, git's included, a figure a busy machine inflates less),
then in-process a few times (the steps alone, Copier already imported).
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from generator.design import DesignOptions
from generator.pipeline.demo import clone_repository
from generator.pipeline.importer import ImportOptions, import_agent

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("savings_helper", "budget_calculator")
RUNS = 3


def command_seconds(example: str, scratch: Path) -> str:
    repo = clone_repository(ROOT, scratch / f"cli-{example}")
    command = [sys.executable, "-m", "generator.cli", "import", str(ROOT / "examples" / example)]
    return timed([*command, "--plugin-id", example, "--offline"], cwd=repo)


def timed(command: list[str], *, cwd: Path) -> str:
    """Run ``command``; its wall time and the CPU time of it and every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return f"{wall:.2f} s (CPU {cpu:.2f} s)"


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
        for example in EXAMPLES:
            print(f"{example}: `agent-import import --offline` {command_seconds(example, scratch)}")
        for example in EXAMPLES:
            runs = [in_process(example, scratch, run) for run in range(RUNS)]
            totals = [sum(run.values()) for run in runs]
            print(f"{example}: in-process, {RUNS} runs, median {statistics.median(totals):.2f} s")
            for name in runs[0]:
                times = ", ".join(f"{run[name]:.2f}" for run in runs)
                print(f"    {name:<13} {times} s")
