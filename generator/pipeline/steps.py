"""Timed pipeline steps, reported as they finish: what ``import`` and ``update`` show as progress.

``Steps`` is a recorder: ``with steps("fetch") as note:`` times the block, the block appends to
its one-line summary, and the finished ``Step`` goes to ``progress`` at once (a failure too, with
its first line, before the exception goes on).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from generator.design import Design
    from generator.models import Inspection


class Step(BaseModel):
    """One finished pipeline step."""

    model_config = ConfigDict(extra="forbid")

    name: str
    seconds: float
    summary: str


Progress = Callable[[Step], None]


class Steps:
    """The steps of one run, in order; ``steps(name)`` times one."""

    def __init__(self, progress: Progress | None = None) -> None:
        self.done: list[Step] = []
        self._progress = progress

    @contextmanager
    def __call__(self, name: str) -> Iterator[list[str]]:
        summary: list[str] = []
        started = time.perf_counter()
        try:
            yield summary
        except BaseException as exc:
            summary = [f"failed: {exc}".splitlines()[0]]
            raise
        finally:
            seconds = time.perf_counter() - started
            self.done.append(Step(name=name, seconds=seconds, summary="; ".join(summary)))
            if self._progress is not None:
                self._progress(self.done[-1])


def progress_line(step: Step) -> str:
    """One aligned line for a finished step: name, seconds, what it found."""
    return f"{step.name:<13}{step.seconds:6.2f} s  {step.summary}"


def to_stderr(step: Step) -> None:
    """The command line's ``Progress``: one line per finished step, on stderr."""
    print(f"  {progress_line(step)}", file=sys.stderr, flush=True)


def inspected(inspection: Inspection) -> str:
    """The inspect step's summary: graphs, requirements, warnings."""
    graphs = ", ".join(f"{g.graph_id} ({g.export_kind}, {g.strategy})" for g in inspection.graphs)
    warnings = f", {len(inspection.warnings)} warnings" if inspection.warnings else ""
    return f"{graphs}; {len(inspection.dependencies)} requirements{warnings}"


def designed(result: Design) -> str:
    """The design step's summary: who designed, the field mapping, the screens."""
    provenance = result.provenance
    how = provenance.design_model if provenance.mode == "bedrock" else provenance.mode
    screens = ", ".join(result.screens())
    return f"{how}: {result.input_field} -> {result.output_field}, screens {screens}"
