"""Import jobs: ``import_agent`` in a worker thread, its progress kept in memory for polling.

A job follows the wizard's states as the pipeline's steps finish: FETCHING (fetch, inspect),
PARSED then DESIGNING (design; the model's output streams into ``stream``), WRITING (render and
dependencies, into the staging folder; PREVIEW instead for a dry run, which writes nothing),
VALIDATING (the import check and smoke test), then DONE or ERROR. The last move of the staged
folder into ``runtime/plugins/`` is part of DONE.

``Jobs`` bounds them: at most ``limit`` running at once and one per plugin id; finished jobs are
forgotten ``ttl`` seconds after they end.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from generator.api.guard import ApiError, one_line
from generator.api.models import JobStatus, Preview, State
from generator.errors import AgentImportError
from generator.pipeline.importer import ImportResult, ValidationFailed
from generator.pipeline.steps import Step
from generator.render.claim import ClaimHeld

logger = logging.getLogger(__name__)

#: The state a job enters when a step finishes (see the module docstring).
_AFTER_STEP: dict[str, tuple[State, ...]] = {
    "inspect": ("PARSED", "DESIGNING"),
    "design": ("WRITING",),
    "dependencies": ("VALIDATING",),
}

Work = Callable[["Job"], ImportResult]
#: Builds the job's ``result`` and says whether the plugin is served (``served``, ``hint``).
Finish = Callable[["Job", ImportResult], None]


@dataclass
class Job:
    """One import, as far as it got."""

    plugin_id: str
    dry_run: bool
    job_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    history: list[State] = field(default_factory=lambda: ["IDLE"])
    steps: list[Step] = field(default_factory=list)
    chunks: list[str] = field(default_factory=list)
    status: JobStatus | None = None  # the final status, once finished
    finished: threading.Event = field(default_factory=threading.Event)
    ended_at: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def state(self) -> State:
        return self.history[-1]

    def enter(self, *states: State) -> None:
        with self._lock:
            self.history.extend(states)

    def on_step(self, step: Step) -> None:
        """The pipeline's ``progress``: record the step, move to the next state."""
        with self._lock:
            self.steps.append(step)
        after = _AFTER_STEP.get(step.name, ())
        if self.dry_run and after == ("WRITING",):
            after = ("PREVIEW",)
        self.enter(*after)

    def on_text(self, text: str) -> None:
        with self._lock:
            self.chunks.append(text)

    def snapshot(self) -> JobStatus:
        """The status as of now: the final one once finished."""
        if self.status is not None:
            return self.status
        with self._lock:
            return JobStatus(
                job_id=self.job_id,
                plugin_id=self.plugin_id,
                dry_run=self.dry_run,
                state=self.state,
                history=list(self.history),
                steps=list(self.steps),
                stream="".join(self.chunks),
            )

    def finish(self, **fields: object) -> None:
        """Freeze the final status (DONE with a result, or ERROR with why)."""
        state: State = "ERROR" if fields.get("error") else "DONE"
        self.enter(state)
        self.status = self.snapshot().model_copy(update={**fields, "state": state})
        self.ended_at = time.monotonic()
        self.finished.set()


class Jobs:
    """The running and recently finished jobs of one server."""

    def __init__(self, *, limit: int, ttl: float) -> None:
        self.limit = limit
        self.ttl = ttl
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            self._expire()
            return self._jobs.get(job_id)

    def start(self, job: Job, work: Work, finish: Finish) -> None:
        """Run ``work`` for ``job`` in a thread; ``ApiError`` 409/429 if it may not run now."""
        with self._lock:
            self._expire()
            running = [j for j in self._jobs.values() if not j.finished.is_set()]
            if any(j.plugin_id == job.plugin_id for j in running):
                raise ApiError(409, f"an import of {job.plugin_id!r} is already running")
            if len(running) >= self.limit:
                raise ApiError(
                    429, f"{len(running)} imports are running (at most {self.limit}); try later"
                )
            self._jobs[job.job_id] = job
        job.enter("FETCHING")
        thread = threading.Thread(
            target=_run, args=(job, work, finish), name=f"import-{job.job_id[:8]}", daemon=True
        )
        thread.start()

    def _expire(self) -> None:
        now = time.monotonic()
        for job_id, job in list(self._jobs.items()):
            if job.ended_at is not None and now - job.ended_at > self.ttl:
                del self._jobs[job_id]


def details(result: ImportResult) -> dict[str, object]:
    """What a job's status shows of an import, finished or (dry run) failed validation."""
    return {
        "report": result.validation,
        "diagnosis": result.validation.diagnosis,
        "design": result.design,
        "dependencies": result.dependencies,
        **preview(result),
    }


def preview(result: ImportResult) -> Preview:
    """A dry run's files as the answers show them: ``files``, each text file's contents as a
    string, and ``binary_files``, the others by name. Nothing for an import that writes."""
    if not result.dry_run:
        return {}
    return {
        "files": {path: text for path, text in result.files.items() if text is not None},
        "binary_files": [path for path, text in result.files.items() if text is None],
    }


def _run(job: Job, work: Work, finish: Finish) -> None:
    try:
        result = work(job)
        finish(job, result)
    except ValidationFailed as exc:
        report = {"report": exc.report, "diagnosis": exc.report.diagnosis}
        preview = details(exc.preview) if exc.preview is not None else report
        job.finish(error=one_line(str(exc)), error_status=422, **preview)
    except ClaimHeld as exc:  # another process (a command line, another worker) is at it
        job.finish(error=one_line(str(exc)), error_status=409)
    except AgentImportError as exc:
        job.finish(error=one_line(str(exc)), error_status=400)
    except ApiError as exc:
        job.finish(error=exc.message, error_status=exc.status)
    except Exception as exc:
        logger.exception("import job %s failed", job.job_id)
        job.finish(
            error=f"internal error: {type(exc).__name__}: {exc}".splitlines()[0], error_status=500
        )
