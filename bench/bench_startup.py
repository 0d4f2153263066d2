"""What the runtime costs to start, alone and with the import API (``serve --import-api``).

* import: ``import runtime.serving.app`` in a fresh interpreter, and with ``generator.api`` too,
which
  ``--import-api`` loads: wall-clock and CPU time, the medians of ``RUNS`` (on a busy machine the
  CPU time is the steadier figure);
* serve: ``a2ui-runtime serve`` over the shipped plugins, from spawn to ``/health`` answering, and
  the server's resident memory (``VmRSS``) then.

``BENCH_BASELINE=DIR`` also measures another checkout the same way, side by side (e.g. ``git
archive HEAD~1 | tar -x -C DIR``): its code is run with ``PYTHONPATH=DIR``, from ``DIR``.

Prints figures only.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.bench_runtime import spawn
from runtime.serving.launch import free_port

RUNS = 5
ROOT = Path(__file__).resolve().parents[1]
#: What is measured: a label, the modules the server's process imports, the ``serve`` flags.
CASES: dict[str, tuple[str, list[str]]] = {
    "runtime alone": ("runtime.serving.app", []),
    "with the import API": ("runtime.serving.app, generator.api", ["--import-api"]),
}
#: A tree from before the extension point: its runtime always served the import API.
ALWAYS_WITH_THE_API: dict[str, tuple[str, list[str]]] = {
    "runtime (import API always in)": ("runtime.serving.app", [])
}


def main(argv: list[str]) -> None:
    trees = {"": ROOT}
    if baseline := os.environ.get("BENCH_BASELINE"):
        trees = {"baseline: ": Path(baseline).resolve(), "this tree: ": ROOT}
    print(f"{'':44} {'import: wall':>12} {'CPU':>8} {'spawn to /health':>17} {'RSS':>9}")
    for tree_label, tree in trees.items():
        lean = (tree / "runtime" / "extensions.py").exists()
        for label, (modules, flags) in (CASES if lean else ALWAYS_WITH_THE_API).items():
            wall, cpu = import_seconds(tree, modules)
            spawn, rss_kib = serve_cost(tree, flags)
            print(
                f"{tree_label + label:44} {wall * 1e3:9.0f} ms {cpu * 1e3:5.0f} ms "
                f"{spawn:15.2f} s {rss_kib / 1024:5.0f} MiB"
            )


def _env(tree: Path) -> dict[str, str]:
    """The environment that runs ``tree``'s code (from ``tree``: ``-c`` and ``-m`` put the
    current directory first on the path)."""
    return {**os.environ, "PYTHONPATH": str(tree)}


def import_seconds(tree: Path, modules: str) -> tuple[float, float]:
    """The median wall-clock and CPU seconds ``import MODULES`` takes in a fresh interpreter."""
    script = (
        "import time; w, c = time.perf_counter(), time.process_time(); "
        f"import {modules}; print(time.perf_counter() - w, time.process_time() - c)"
    )
    walls, cpus = [], []
    for _ in range(RUNS):
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            cwd=tree,
            env=_env(tree),
        )
        wall, cpu = done.stdout.split()
        walls.append(float(wall))
        cpus.append(float(cpu))
    return statistics.median(walls), statistics.median(cpus)


def serve_cost(tree: Path, flags: list[str]) -> tuple[float, int]:
    """``a2ui-runtime serve FLAGS``: seconds from spawn to ``/health``, and its RSS then (KiB)."""
    port = free_port()
    command = [sys.executable, "-m", "runtime.cli", "serve", "--port", str(port), *flags]
    with spawn(command, port, cwd=tree, env=_env(tree)) as running:
        return running.startup_s, resident_kib(running.process.pid)


def resident_kib(pid: int) -> int:
    """A process's resident memory, from ``/proc`` (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")
