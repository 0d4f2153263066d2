"""Ask a model until its answer is valid: the exact errors go back, at most ``repairs`` times.

Every answer received is recorded as a ``ModelCall`` (it was paid for, valid or not). The loop
ends with a value, or with a one-line reason: Bedrock unavailable, or still invalid after the
last repair. Callers fall back on that reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from generator.design.bedrock import BedrockUnavailable, Conversation, Reply
from generator.design.models import ModelCall

T = TypeVar("T")

#: Errors sent back in one repair turn; more would drown the first ones.
MAX_FEEDBACK_ERRORS = 30


class InvalidAnswer(Exception):
    """A model's answer cannot be used; ``errors`` say exactly why, one line each."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__("; ".join(errors))


@dataclass
class ModelResult(Generic[T]):
    """What asking a model came to: a valid value, or why there is none; plus every answer paid
    for on the way."""

    value: T | None = None
    failure: str | None = None
    #: The failure stops every model, not just this one (no credentials, no network).
    failure_everywhere: bool = False
    calls: list[ModelCall] = field(default_factory=list)
    text: str | None = None  # the valid answer as the model wrote it
    cached: bool = False


def ask_valid(
    conversation: Conversation,
    parse: Callable[[str], T],
    *,
    purpose: Literal["mapping", "design"],
    repairs: int,
) -> ModelResult[T]:
    """Ask, then repair with the exact validation errors; see the module docstring."""
    outcome: ModelResult[T] = ModelResult()
    try:
        reply = conversation.ask()
        while True:
            try:
                value = parse(reply.text)
            except InvalidAnswer as exc:
                errors = _with_cutoff(reply, exc.errors)
                outcome.calls.append(_call(reply, conversation.model_id, purpose, valid=False))
            else:
                outcome.calls.append(_call(reply, conversation.model_id, purpose, valid=True))
                outcome.value, outcome.text = value, reply.text
                return outcome
            if len(outcome.calls) > repairs:
                break
            reply = conversation.correct(feedback(errors))
    except BedrockUnavailable as exc:
        outcome.failure, outcome.failure_everywhere = str(exc), exc.everywhere
        return outcome
    more = f" and {len(errors) - 1} more" if len(errors) > 1 else ""
    outcome.failure = (
        f"{len(outcome.calls)} answers from {conversation.model_id} failed validation "
        f"(last: {errors[0]}{more})"
    )
    return outcome


def feedback(errors: list[str]) -> str:
    """The repair turn: every error, exactly as the validator wrote it."""
    shown = errors[:MAX_FEEDBACK_ERRORS]
    rest = len(errors) - len(shown)
    lines = "\n".join(f"- {error}" for error in shown) + (f"\n- ...and {rest} more" if rest else "")
    return (
        f"Your answer has {len(errors)} problem(s). Fix exactly these and answer again with the "
        f"complete answer in the same format:\n{lines}"
    )


def _with_cutoff(reply: Reply, errors: list[str]) -> list[str]:
    if reply.stop_reason == "max_tokens":
        return ["the answer was cut off at the token limit: make it shorter", *errors]
    return errors


def _call(
    reply: Reply, model_id: str, purpose: Literal["mapping", "design"], *, valid: bool
) -> ModelCall:
    return ModelCall(
        purpose=purpose,
        model_id=model_id,
        input_tokens=reply.input_tokens,
        output_tokens=reply.output_tokens,
        latency_ms=reply.latency_ms,
        valid=valid,
    )
