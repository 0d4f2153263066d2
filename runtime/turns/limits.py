"""The limits of one turn, enforced while it runs: ``TurnGuard`` is a LangChain callback handler.

Tool calls are counted as tools start, tokens from each model's usage metadata as models finish.
Past a limit, or once the turn is cancelled (the deadline, a transport that stopped listening),
the guard asks LangGraph to drain the run (``RunControl``: the graph and its subgraphs stop before
their next step) and raises ``TurnStopped`` from the next model or tool callback, which stops the
node that made it. A node that catches the exception cannot hide it: the engine reads
``guard.stopped`` after the run. The recursion limit is LangGraph's own
(``config["recursion_limit"]``). The guard ignores chain events: they are many, and steps are
already checked by the drain.
"""

from __future__ import annotations

import threading
from typing import Any, Literal
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult
from langgraph.runtime import RunControl

from runtime.contract.policy import RunPolicy

#: The ``server.error`` code of each way a turn fails.
ErrorCode = Literal[
    "agent_error", "recursion_limit", "deadline_exceeded", "budget_exhausted", "tool_limit"
]


class TurnStopped(Exception):
    """A limit stopped the turn; ``code`` is what ``server.error`` carries."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def tokens_of(response: LLMResult) -> int:
    """The total tokens a model reported for one call (0 when it reports none)."""
    total = 0
    for generations in response.generations:
        for generation in generations:
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
            if usage:
                total += int(usage.get("total_tokens") or 0)
    return total


class TurnGuard(BaseCallbackHandler):
    """Counts one turn's tool calls and tokens against ``policy``; stops the turn past them."""

    raise_error = True
    run_inline = True
    ignore_chain = True
    ignore_retriever = True

    def __init__(self, policy: RunPolicy, tokens_before: int) -> None:
        self.policy = policy
        self.tokens_before = tokens_before
        self.tokens = 0
        self.tool_calls = 0
        self.stopped: TurnStopped | None = None
        #: Lent to the run (``graph.stream(control=...)``) and, through it, to its subgraphs.
        self.control = RunControl()
        #: Set by ``finish``: the run went to its end and is being kept; nothing stops it now.
        self.finished = False
        # The run's thread finishes while the event loop may stop or cancel: one of them wins.
        self._ending = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return bool(self.control.drain_requested)

    def stop(self, code: ErrorCode, message: str) -> TurnStopped:
        """Record why the turn stops (the first reason wins) and cancel what still runs. Once the
        turn has finished, nothing is recorded: the exception returned is nobody's."""
        with self._ending:
            if self.finished:
                return TurnStopped(code, message)
            if self.stopped is None:
                self.stopped = TurnStopped(code, message)
            self._drain()
            return self.stopped

    def cancel(self) -> None:
        """Stop the run at its next step: nobody waits for it any more."""
        with self._ending:
            if not self.finished:
                self._drain()

    def finish(self) -> bool:
        """Claim the end of a run that went to its end, so its writes can be kept: False when the
        turn was stopped or cancelled first; once True, it cannot be any more."""
        with self._ending:
            self.finished = self.stopped is None and not self.cancelled
            return self.finished

    def _drain(self) -> None:
        self.control.request_drain("cancelled")

    def check(self) -> None:
        if self.stopped is not None:
            raise self.stopped

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        self.check()

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        self.tokens += tokens_of(response)
        budget = self.policy.token_budget
        if budget is not None and self.tokens_before + self.tokens > budget:
            raise self.stop("budget_exhausted", f"the session's budget of {budget} tokens is spent")
        self.check()

    def on_tool_start(self, serialized: Any, input_str: str, **kwargs: Any) -> None:
        self.tool_calls += 1
        limit = self.policy.max_tool_calls
        if self.tool_calls > limit:
            raise self.stop("tool_limit", f"more than {limit} tool calls in one turn")
        self.check()
