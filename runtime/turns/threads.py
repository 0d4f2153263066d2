"""LangGraph's background threads, kept from one run to the next.

LangGraph gives each synchronous run a thread pool of its own (``BackgroundExecutor``, over
``langchain_core``'s ``get_executor_for_config``) and, with a checkpointer, starts a thread in it
to save the run's last checkpoint, then joins it as the run ends. Starting a thread costs about
0.2 ms of CPU, and the run waits until the new thread is scheduled: on a busy machine,
milliseconds, which a run on the event loop's thread (``runtime.turns.runs``) spends holding up
every other session. ``share_run_threads`` hands LangGraph one long-lived pool instead.

Nothing else changes: LangGraph still waits for each of its tasks before a run ends; the pool only
keeps its threads for the next run. It starts a thread whenever none is idle, as a pool per run
would, so a task waiting for another (a nested run's) never waits for a thread. A run that sets
``max_concurrency`` gets a pool of its own, as bounded as it asked. A run on the event loop's
thread (``running_inline``: its nodes only compute) hands nothing to a thread at all: parallel
branches and the last save run on its own thread, one after the other.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final, ParamSpec, TypeVar

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ContextThreadPoolExecutor, get_executor_for_config

from runtime.turns._langgraph import executor as langgraph_executor

logger = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")

#: Threads start as runs need them and stay; this only bounds a runaway.
MAX_THREADS: Final = 1024
#: Starts no thread until a run submits to it.
_POOL: Final = ContextThreadPoolExecutor(MAX_THREADS, thread_name_prefix="langgraph-run")


#: Set while a run runs on the event loop's thread (``runtime.turns.runs``): its nodes only
#: compute, so what LangGraph would hand to a thread runs there and then.
running_inline: ContextVar[bool] = ContextVar("running_inline", default=False)


class _Inline(Executor):
    """Runs each task as it is submitted, on the submitting thread."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


_INLINE: Final = _Inline()


@contextmanager
def _executor_for(config: RunnableConfig | None) -> Iterator[Executor]:
    if running_inline.get():
        yield _INLINE
        return
    if (config or {}).get("max_concurrency") is not None:
        with get_executor_for_config(config) as executor:
            yield executor
        return
    yield _POOL


def share_run_threads() -> None:
    """Let every run of this process use the shared pool (the serving app does, at start-up)."""
    current = getattr(langgraph_executor, "get_executor_for_config", None)
    if current is _executor_for:
        return
    if current is not get_executor_for_config:  # a LangGraph that makes its pools otherwise
        logger.warning("LangGraph's run pools are not where they were: each run keeps its own")
        return
    langgraph_executor.get_executor_for_config = _executor_for  # type: ignore[attr-defined]
