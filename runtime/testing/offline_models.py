"""Run an agent with no model, no key and no network: what the offline smoke test installs.

* Every LangChain chat model (ChatAnthropic, ChatOpenAI, ChatBedrock, ``init_chat_model``...)
  answers with one scripted reply: the patch sits on ``BaseChatModel``'s public entry points
  (``generate``/``agenerate``, which ``invoke``, ``batch`` and tool-bound models go through, and
  ``stream``/``astream``), so no provider code runs. When structured output was asked for
  (``with_structured_output``, in any method), the reply carries a value built from the schema as
  a tool call, as JSON text and as OpenAI's ``parsed`` value, so every provider's parser turns it
  into an instance of the schema; a forced ``tool_choice`` gets a call of that tool, the same
  way. Wrappers (``init_chat_model`` with ``configurable_fields``, ``with_retry``,
  ``with_fallbacks``, ``bind_tools``) end in a patched model, so they answer too.
* Provider keys are set to dummies (real ones are never used), and outgoing connections to
  anything but this machine fail at once instead of hanging.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.utils.function_calling import convert_to_openai_tool

SCRIPTED_REPLY = "This is a scripted offline reply: no language model was called."

#: Environment of the smoke test: dummy credentials for the common providers, tracing off. Not
#: Azure's: an agent that finds an Azure key switches to Azure, which then insists on its
#: endpoint and deployments, settings no dummy can stand for.
OFFLINE_ENV = {
    **dict.fromkeys(
        (
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
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
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
}


class NetworkDisabled(OSError):
    """An outgoing connection was attempted during the offline smoke test."""


def use_offline_models() -> None:
    """What ``a2ui-runtime serve --offline-models`` does: dummy keys (where none are set), the
    scripted models and no outgoing connections, for the whole process."""
    for name, value in OFFLINE_ENV.items():
        os.environ.setdefault(name, value)
    install()


def active() -> bool:
    """True once this process's chat models answer with the scripted reply (an isolated plugin's
    worker is then started with them too)."""
    return BaseChatModel.generate is _generate


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
    value = value if isinstance(value, dict) else {}  # a call's arguments are an object
    call = {"name": function["name"], "args": value, "id": "offline_call_0", "type": "tool_call"}
    # ``parsed`` is where OpenAI's json_schema parser looks first; other parsers read the tool
    # call (function calling) or the JSON text (JSON mode).
    return AIMessage(
        content=json.dumps(value), tool_calls=[call], additional_kwargs={"parsed": value}
    )


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
    """What the reply must fill in: the structured output's schema, or the tool a forced
    ``tool_choice`` asks for (an agent that insists on a tool call loops on a plain reply)."""
    spec = kwargs.get("ls_structured_output_format")
    if isinstance(spec, dict):
        return spec.get("schema")
    return _forced_tool(kwargs.get("tools") or [], kwargs.get("tool_choice"))


def _forced_tool(tools: list[Any], choice: Any) -> Any:
    """The tool ``choice`` forces, in each provider's spelling: one by name (``"Info"``,
    ``{"type": "tool", "name": ...}``, ``{"type": "function", "function": {"name": ...}}``), or
    any (``"any"``, ``"required"``, ``True``, ``{"type": "any"}``): then the last one, where
    agents put the tool that hands in their result."""
    if isinstance(choice, dict):
        if choice.get("type") in ("auto", "none"):
            return None
        name = choice.get("name") or (choice.get("function") or {}).get("name")
    elif choice in (None, False, "auto", "none"):
        return None
    else:
        name = choice if isinstance(choice, str) and choice not in ("any", "required") else None
    named = [tool for tool in tools if _tool_name(tool) == name]
    return named[0] if named else (tools[-1] if tools else None)


def _tool_name(tool: Any) -> Any:
    if isinstance(tool, dict):
        return tool.get("name") or (tool.get("function") or {}).get("name")
    return getattr(tool, "name", None)


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
