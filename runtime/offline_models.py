"""Run an agent with no model, no key and no network: what the offline smoke test installs.

* Every LangChain chat model (ChatAnthropic, ChatOpenAI, ChatBedrock, ``init_chat_model``...)
  answers with one scripted reply: the patch sits on ``BaseChatModel``'s public entry points
  (``generate``/``agenerate``, which ``invoke``, ``batch`` and tool-bound models go through, and
  ``stream``/``astream``), so no provider code runs. When structured output was asked for
  (``with_structured_output``), the reply carries a value built from the schema, both as a tool
  call and as JSON text, so tool-based and JSON-based parsers alike accept it.
* Provider keys are set to dummies (real ones are never used), and outgoing connections to
  anything but this machine fail at once instead of hanging.
"""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.utils.function_calling import convert_to_openai_tool

SCRIPTED_REPLY = "This is a scripted offline reply: no language model was called."

#: Environment of the smoke test: dummy credentials for the common providers, tracing off.
OFFLINE_ENV = {
    **dict.fromkeys(
        (
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "AZURE_OPENAI_API_KEY",
            "GOOGLE_API_KEY",
            "GEMINI_API_KEY",
            "MISTRAL_API_KEY",
            "GROQ_API_KEY",
            "COHERE_API_KEY",
            "FIREWORKS_API_KEY",
            "TOGETHER_API_KEY",
            "DEEPSEEK_API_KEY",
            "XAI_API_KEY",
            "TAVILY_API_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
        ),
        "offline-dummy-key",
    ),
    "AZURE_OPENAI_ENDPOINT": "https://offline.invalid",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
}


class NetworkDisabled(OSError):
    """An outgoing connection was attempted during the offline smoke test."""


def install() -> None:
    """Patch every chat model to the scripted reply and refuse non-local connections."""
    BaseChatModel.generate = _generate  # type: ignore[method-assign]
    BaseChatModel.agenerate = _agenerate  # type: ignore[method-assign]
    BaseChatModel.stream = _stream  # type: ignore[method-assign]
    BaseChatModel.astream = _astream  # type: ignore[method-assign]
    original = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address[0]):
            raise NetworkDisabled(f"network access to {address[0]} is disabled (offline test)")
        original(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]


def scripted_message(structured_schema: Any = None) -> AIMessage:
    """The reply: plain text, or a schema-shaped value when structured output is expected."""
    if structured_schema is None:
        return AIMessage(content=SCRIPTED_REPLY)
    function = convert_to_openai_tool(structured_schema)["function"]
    value = sample_value(function.get("parameters", {}))
    call = {"name": function["name"], "args": value, "id": "offline_call_0", "type": "tool_call"}
    return AIMessage(content=json.dumps(value), tool_calls=[call])


def sample_value(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A small value valid for a JSON schema: first enum or variant, 'offline' for strings."""
    defs = {**(defs or {}), **schema.get("$defs", {}), **schema.get("definitions", {})}
    if "$ref" in schema:
        return sample_value(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        variants = [v for v in schema.get(key, []) if v.get("type") != "null"]
        if variants:
            return sample_value(variants[0], defs)
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: sample_value(sub, defs) for name, sub in props.items()}
    if kind == "array":
        return [sample_value(schema.get("items", {}), defs)] * int(schema.get("minItems", 0))
    formats = {"date": "2024-01-01", "date-time": "2024-01-01T00:00:00Z", "email": "a@b.example"}
    text = formats.get(schema.get("format", ""), "offline")
    return {"string": text, "integer": 0, "number": 0.0, "boolean": False}.get(str(kind))


def _structured_schema(kwargs: dict[str, Any]) -> Any:
    spec = kwargs.get("ls_structured_output_format")
    return spec.get("schema") if isinstance(spec, dict) else None


def _result(messages: list[list[BaseMessage]], kwargs: dict[str, Any]) -> LLMResult:
    schema = _structured_schema(kwargs)
    return LLMResult(
        generations=[[ChatGeneration(message=scripted_message(schema))] for _ in messages]
    )


def _generate(
    self: BaseChatModel, messages: list[list[BaseMessage]], *args: Any, **kwargs: Any
) -> LLMResult:
    return _result(messages, kwargs)


async def _agenerate(
    self: BaseChatModel, messages: list[list[BaseMessage]], *args: Any, **kwargs: Any
) -> LLMResult:
    return _result(messages, kwargs)


def _chunk(kwargs: dict[str, Any]) -> AIMessageChunk:
    message = scripted_message(_structured_schema(kwargs))
    chunks = [
        tool_call_chunk(name=call["name"], args=json.dumps(call["args"]), id=call["id"], index=i)
        for i, call in enumerate(message.tool_calls)
    ]
    return AIMessageChunk(content=message.content, tool_call_chunks=chunks)


def _stream(self: BaseChatModel, input: Any, *args: Any, **kwargs: Any) -> Iterator[AIMessageChunk]:
    yield _chunk(kwargs)


async def _astream(
    self: BaseChatModel, input: Any, *args: Any, **kwargs: Any
) -> AsyncIterator[AIMessageChunk]:
    yield _chunk(kwargs)


def _is_local(host: str) -> bool:
    return host in {"localhost", "::1"} or host.startswith("127.")
