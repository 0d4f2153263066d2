"""A model node (a scripted chat model, faked at the client boundary), a tool node, an answer.

The model streams a tool call (``lookup_rate``) and, once it has the tool's result, streams its
answer; every reply reports ``TOKENS_PER_CALL`` tokens of usage. A message starting with "loop"
makes the model call the tool for ever. The policy allows 3 tool calls a turn and 100 tokens a
session. Each turn also says who the run is for (``RunExtras``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

from runtime.contract.plugin import PluginBase
from runtime.contract.policy import RunPolicy
from runtime.contract.state import CommonState, event
from runtime.turns import run_extras

TOKENS_PER_CALL = 15
ANSWER = "The fixed rate is 4 percent."


@tool
def lookup_rate(product: str) -> str:
    """The rate of a mortgage product."""
    return json.dumps({"product": product, "rate": 4})


class ScriptedModel(BaseChatModel):
    """Calls ``lookup_rate`` until it has a result (forever when told to loop), then answers."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _reply(self, messages: list[BaseMessage]) -> list[AIMessageChunk]:
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": TOKENS_PER_CALL}
        last = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        asked = str(messages[last].text)
        calls = sum(isinstance(m, ToolMessage) for m in messages[last:])
        if calls and not asked.startswith("loop"):
            words = ANSWER.split(" ")
            chunks = [AIMessageChunk(content=w if i == 0 else f" {w}") for i, w in enumerate(words)]
        else:
            call_id = f"call-{calls + 1}"
            chunks = [
                AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {"name": "lookup_rate", "args": "", "id": call_id, "index": 0}
                    ],
                ),
                AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {"name": None, "args": '{"product": ', "id": None, "index": 0}
                    ],
                ),
                AIMessageChunk(
                    content="",
                    tool_call_chunks=[{"name": None, "args": '"fixed"}', "id": None, "index": 0}],
                ),
            ]
        last = chunks[-1]
        chunks[-1] = last.model_copy(update={"usage_metadata": usage, "chunk_position": "last"})
        return chunks

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._reply(messages):
            if run_manager:
                run_manager.on_llm_new_token(
                    str(chunk.text), chunk=ChatGenerationChunk(message=chunk)
                )
            yield ChatGenerationChunk(message=chunk)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chunks = self._reply(messages)
        whole = chunks[0]
        for chunk in chunks[1:]:
            whole = whole + chunk
        message = AIMessage(
            content=whole.content, tool_calls=whole.tool_calls, usage_metadata=whole.usage_metadata
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


MODEL = ScriptedModel()


class ChattyPlugin(PluginBase):
    plugin_id = "chatty"
    title = "Chatty"
    run_policy = RunPolicy(token_budget=100, max_tool_calls=3)

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(CommonState)
        graph.add_node("listen", listen)
        graph.add_node("model", call_model)
        graph.add_node("tools", ToolNode([lookup_rate]))
        graph.add_node("answer", answer)
        graph.add_edge(START, "listen")
        graph.add_conditional_edges(
            "listen", lambda s: "model" if s.get("transcript") else "answer"
        )
        graph.add_conditional_edges("model", route, ["tools", "answer"])
        graph.add_edge("tools", "model")
        graph.add_edge("answer", END)
        return graph


def listen(state: CommonState) -> dict[str, Any]:
    text = state.get("transcript", "")
    return {"messages": [HumanMessage(text)]} if text else {}


def call_model(state: CommonState) -> dict[str, Any]:
    return {"messages": [MODEL.invoke(state["messages"])]}


def route(state: CommonState) -> str:
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "answer"


def answer(state: CommonState, config: RunnableConfig) -> dict[str, Any]:
    messages = state.get("messages") or []
    line = str(messages[-1].text) if messages else "Ask me a rate."
    user = run_extras(config).user_id or "nobody"
    return {
        "outbox": [
            event("server.voice.say", text=line),
            event("server.transcript.final", text=user),
        ]
    }
