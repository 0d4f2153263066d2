"""Answers made speakable: whole sentences under the voice limit, markdown removed."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from runtime.a2ui.validate import MAX_VOICE_WORDS
from runtime.adapters.voice import answer_text, speakable


def test_whole_sentences_that_fit_are_kept_and_markdown_removed() -> None:
    text = "**Yes.** An [ISA](https://bank.example/isa) is tax free. " + "More words here. " * 20

    spoken = speakable(text)

    assert spoken.startswith("Yes. An ISA is tax free. More words here.")
    assert len(spoken.split()) < MAX_VOICE_WORDS and spoken.endswith(".")


def test_one_long_sentence_is_cut_with_an_ellipsis() -> None:
    spoken = speakable(" ".join(["word"] * 80))

    assert len(spoken.split()) == 39 and spoken.endswith("word…")


def test_the_answer_is_the_last_ai_message_with_text() -> None:
    messages = [
        HumanMessage("hi"),
        AIMessage(content=[{"type": "text", "text": "Hello "}, {"type": "text", "text": "you"}]),
        AIMessage(content="", tool_calls=[{"name": "t", "args": {}, "id": "1"}]),
        ToolMessage(content="tool output", tool_call_id="1"),
    ]

    assert answer_text(messages) == "Hello you"
    assert answer_text("plain") == "plain" and answer_text(None) == "" and answer_text(3) == "3"


def test_a_structured_answer_is_read_out_field_by_field() -> None:
    info = {"founded": 1998, "founders": ["Ada", "Grace"], "public": False, "ceo": None}
    assert answer_text(info) == "Founded: 1998. Founders: Ada, Grace. Public: no. Ceo: none."
    assert answer_text(["a", "b"]) == "a, b"


def test_messages_written_as_dicts_answer_with_the_last_assistant_text() -> None:
    """The OpenAI format many functional-API agents return: never read out as JSON."""
    said = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "I'm in the 'agent'"},
    ]

    assert answer_text(said) == "I'm in the 'agent'"
    assert answer_text(said[-1]) == "I'm in the 'agent'"
    assert answer_text({"type": "ai", "content": "typed"}) == "typed"
    assert answer_text({"role": "teacher", "content": 1}) == "Role: teacher. Content: 1."
