"""``RunPolicy``: how a plugin's turns may run; a plugin sets ``run_policy`` to change it.

Every limit has a default, so a plugin that says nothing is still bounded. What happens when a
limit is hit (the error codes, the rollback) is in docs/run-policy.md.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RunPolicy(BaseModel):
    """Limits and breakpoints of one plugin's turns."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    recursion_limit: int = Field(
        default=25, ge=1, description="Graph steps per turn (LangGraph's recursion_limit)."
    )
    deadline_s: float = Field(
        default=60.0, gt=0, description="Seconds a turn may take; past it the turn is stopped."
    )
    token_budget: int | None = Field(
        default=200_000,
        ge=1,
        description="Model tokens per session (from usage metadata); None means no budget.",
    )
    max_tool_calls: int = Field(default=25, ge=0, description="Tool calls per turn.")
    interrupt_before: tuple[str, ...] = Field(
        default=(), description="Nodes that wait for the customer's approval before they run."
    )
    interrupt_after: tuple[str, ...] = Field(
        default=(), description="Nodes whose result waits for the customer's approval."
    )
    on_event_loop: bool = Field(
        default=False,
        description=(
            "Run turns on the server's event loop thread, not a worker thread: only for graphs "
            "whose nodes never wait (no model, network, file or sleep); the deadline is then "
            "checked between steps (see runtime.turns.runs)."
        ),
    )
