"""Turning an agent's written answer into something a voice assistant can say.

Agents answer in prose, often in markdown and often at length. The voice gets the first whole
sentences that fit under the house limit (fewer than 40 words) with the markdown taken out; the
transcript keeps the full answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages
from pydantic_core import to_jsonable_python

from runtime.a2ui.validate import MAX_VOICE_WORDS

#: At most this many words are spoken: the house rule is "under MAX_VOICE_WORDS".
MAX_SPOKEN_WORDS = MAX_VOICE_WORDS - 1

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*_`#>|]+|^\s*(?:[-+]|\d+[.)])\s+", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def speakable(text: str, *, max_words: int = MAX_SPOKEN_WORDS) -> str:
    """Plain text of at most ``max_words`` words: whole sentences, or a cut one ending in '…'."""
    plain = " ".join(_MARKUP.sub(" ", _LINK.sub(r"\1", text)).split())
    spoken: list[str] = []
    for sentence in _SENTENCE_END.split(plain):
        words = sentence.split()
        if len(spoken) + len(words) > max_words:
            if not spoken:
                spoken = [*words[:max_words], "…"] if max_words else []
            break
        spoken += words
    return " ".join(spoken).replace(" …", "…")


def message_text(message: BaseMessage) -> str:
    """The text of a message whose content is a string or a list of content blocks."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = [
        block if isinstance(block, str) else str(block.get("text", ""))
        for block in content
        if isinstance(block, str) or block.get("type") == "text"
    ]
    return "".join(parts)


def answer_text(value: Any) -> str:
    """The answer held in an agent's output field: the last AI message's text, or the value (a
    structured one read out field by field: "Founded: 1998. Founders: Ada, Grace.")."""
    if isinstance(value, BaseMessage):
        return message_text(value)
    if isinstance(value, list | tuple) and value and isinstance(value[-1], BaseMessage):
        return last_ai_text(value)
    if (messages := _message_dicts(value)) is not None:
        return last_ai_text(messages)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    plain = to_jsonable_python(value, fallback=str)
    if isinstance(plain, dict):  # a structured result (a dict, a pydantic model): read it out
        return " ".join(f"{_label(key)}: {_plain(item)}." for key, item in plain.items())
    return _plain(plain)


def _message_dicts(value: Any) -> list[BaseMessage] | None:
    """Messages written as dicts (``{"role": "assistant", "content": ...}``, as the OpenAI
    format and many functional-API agents return them), one or a list; else None."""
    items = list(value) if isinstance(value, list | tuple) else [value]
    if not items or not all(
        isinstance(item, dict) and "content" in item and ("role" in item or "type" in item)
        for item in items
    ):
        return None
    try:
        return convert_to_messages(items)
    except (ValueError, TypeError, NotImplementedError):
        return None


def _label(key: Any) -> str:
    text = str(key).replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def _plain(value: Any) -> str:
    """A JSON value in words: lists joined, ``None`` and ``[]`` as "none", booleans yes/no."""
    if value is None or value == []:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_plain(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def last_ai_text(messages: Iterable[BaseMessage]) -> str:
    """The text of the last AI message that has any (tool-call-only messages are skipped)."""
    for message in reversed(list(messages)):
        if isinstance(message, AIMessage) and (text := message_text(message).strip()):
            return text
    return ""
