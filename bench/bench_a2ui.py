"""A2UI validator benchmarks: the cost of checking a screen, a wire message, and a cold load.

The validator runs on every designed screen (and each repair round), in pre-commit hooks, and on
each message the runtime emits, so its per-call cost is what matters. Every shipped screen file
(``runtime/plugins/*/screens``, ``runtime/a2ui/examples``) is measured; figures are medians.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from runtime.a2ui import (
    create_surface_message,
    load_screen,
    screen_events,
    validate_message,
    validate_screen,
)

REPO = Path(__file__).resolve().parents[1]
ROUNDS = 2000


def _median_us(call: Callable[[], object], rounds: int = ROUNDS) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def main(argv: list[str]) -> None:
    paths = sorted(
        [*REPO.glob("runtime/plugins/*/screens/*.json"), *REPO.glob("runtime/a2ui/examples/*.json")]
    )
    screens = [load_screen(path, plugin_id=_plugin_id(path)) for path in paths]
    sizes = [len(screen.components) for screen in screens]
    print(f"{len(screens)} screens, {min(sizes)}-{max(sizes)} components each")

    per_screen = [_median_us(partial(validate_screen, screen)) for screen in screens]
    median, worst = statistics.median(per_screen), max(per_screen)
    print(f"validate_screen: median {median:.0f} us per screen, slowest {worst:.0f} us")

    biggest = screens[sizes.index(max(sizes))]
    patch, data = (e["payload"] for e in screen_events("b", biggest, {"answer": 1}))
    calls: dict[str, Callable[[], object]] = {
        f"validate_message(updateComponents, {max(sizes)} components)": partial(
            validate_message, patch
        ),
        "validate_message(updateDataModel)": partial(validate_message, data),
        "validate_message(createSurface)": partial(validate_message, create_surface_message("b")),
        f"screen_events({max(sizes)} components + data)": partial(
            screen_events, "b", biggest, {"answer": 1}
        ),
    }
    for label, call in calls.items():
        print(f"{label}: {_median_us(call):.0f} us")

    command = [sys.executable, "-m", "runtime.a2ui.check", *map(str, paths)]
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, check=False)
        runs.append(time.perf_counter() - started)
    print(
        f"check CLI on all {len(paths)} files in a fresh interpreter (the pre-commit hook): "
        f"median {statistics.median(runs) * 1000:.0f} ms, exit {done.returncode}"
    )


def _plugin_id(path: Path) -> str | None:
    """The examples' actions use plugin ``example``; plugin screens name theirs by folder."""
    return "example" if path.parent.name == "examples" else None
