"""``RunEvents``: a card number a model streams across deltas, of its text or of a tool call's
arguments, goes out masked whole (each event is masked again on its own by the encoder, which
alone would let the pieces through)."""

from __future__ import annotations

import json

import pytest
from ag_ui.core import TextMessageContentEvent, ToolCallArgsEvent

from runtime.serving.agui.events import RunEvents
from runtime.turns import TextDelta, ToolCallArgs, ToolCallEnded, ToolCallStarted

CARD = "4111 1111 1111 1111"
TEXT = f"Your card {CARD} is blocked. Call +44 20 7946 0958 if that was not you: {CARD}"
ARGS = f'{{"card": "{CARD}", "reason": "lost"}}'


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 50])
def test_a_card_number_split_across_deltas_is_masked_whole(size: int) -> None:
    run = RunEvents(thread_id="t", run_id="r")
    events = [e for piece in pieces(TEXT, size) for e in run.during(TextDelta("m", piece))]
    events += run.during(ToolCallStarted("c", "block_card", "m"))  # closes the text message
    events += [e for piece in pieces(ARGS, size) for e in run.during(ToolCallArgs("c", piece))]
    events += run.during(ToolCallEnded("c"))
    text = "".join(e.delta for e in events if isinstance(e, TextMessageContentEvent))
    args = "".join(e.delta for e in events if isinstance(e, ToolCallArgsEvent))
    kinds = [str(e.type.value) for e in events]

    assert text == TEXT.replace(CARD, "****1111")
    assert args == ARGS.replace(CARD, "****1111")
    assert "4111" not in text + args
    assert kinds.index("TEXT_MESSAGE_END") < kinds.index("TOOL_CALL_START")


#: Arguments as ``json.dumps`` writes them: the no-break spaces escaped (``4501\\u00a05919``).
ESCAPED_ARGS = json.dumps({"card": "4501\u00a05919\u00a03456\u00a07805", "reason": "lost"})


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 50])
def test_a_card_number_whose_separators_json_escaped_is_masked_in_tool_call_args(
    size: int,
) -> None:
    run = RunEvents(thread_id="t", run_id="r")
    events = run.during(ToolCallStarted("c", "block_card", "m"))
    events += [e for p in pieces(ESCAPED_ARGS, size) for e in run.during(ToolCallArgs("c", p))]
    events += run.during(ToolCallEnded("c"))
    args = "".join(e.delta for e in events if isinstance(e, ToolCallArgsEvent))
    assert json.loads(args) == {"card": "****7805", "reason": "lost"}
