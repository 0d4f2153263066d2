"""Scripted chat models written into the source of test agents, so that the agents answer
without a model service and every test of one kind of agent runs the same model."""

from __future__ import annotations

#: A CopilotKit-style agent's model: it calls the client's ``get_location`` when the client
#: offers it (``state["tools"]``, where ``ag-ui-langgraph`` puts the frontend tools), then
#: answers word by word from the tool's result.
_LOCATION_MODEL = """
import json

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.graph import END, START, MessagesState, StateGraph


class State(MessagesState):
    tools: list  # the frontend tools, as ag-ui-langgraph passes them


def joined(chunks):
    whole = chunks[0]
    for chunk in chunks[1:]:
        whole = whole + chunk
    return AIMessage(content=whole.content, tool_calls=whole.tool_calls, id=whole.id)


class Scripted(BaseChatModel):
    '''Asks the device where it is when it can, then says where that is, word by word.'''

    @property
    def _llm_type(self):
        return "scripted"

    def _chunks(self, messages, tools):
        last = messages[-1]
        if isinstance(last, ToolMessage):
            where = json.loads(last.content)
            words = f"You are at {where['lat']:.2f}, {where['lon']:.2f}.".split(" ")
            return [AIMessageChunk(content=w if i == 0 else " " + w) for i, w in enumerate(words)]
        if "get_location" in tools:
            call = {"name": "get_location", "args": "{}", "id": "call_loc_1", "index": 0}
            return [AIMessageChunk(content="", tool_call_chunks=[call])]
        return [AIMessageChunk(content="I cannot tell where you are.")]

    def _stream(self, messages, stop=None, run_manager=None, tools=(), **kwargs):
        for chunk in self._chunks(messages, tools):
            generation = ChatGenerationChunk(message=chunk)
            if run_manager:
                run_manager.on_llm_new_token(chunk.content, chunk=generation)
            yield generation

    def _generate(self, messages, stop=None, run_manager=None, tools=(), **kwargs):
        message = joined(self._chunks(messages, tools))
        return ChatResult(generations=[ChatGeneration(message=message)])


model = Scripted()
"""

#: The chat node when it streams the model itself and joins the chunks.
_STREAMS = """
def chat(state: State):
    names = [tool["name"] for tool in state.get("tools") or []]
    return {"messages": [joined(list(model.stream(state["messages"], tools=names)))]}
"""

#: The chat node when it invokes the model (LangGraph's callbacks stream its tokens).
_INVOKES = """
def chat(state: State):
    names = [tool["name"] for tool in state.get("tools") or []]
    return {"messages": [model.invoke(state["messages"], tools=names)]}
"""

_GRAPH = """
builder = StateGraph(State)
builder.add_node("chat", chat)
builder.add_edge(START, "chat")
builder.add_edge("chat", END)
graph = builder.compile()
"""


def location_agent(*, streams_itself: bool) -> str:
    """The source of a one-node graph over the scripted ``get_location`` model: its node streams
    the model itself (``streams_itself``) or invokes it, as a CopilotKit agent does."""
    return _LOCATION_MODEL + (_STREAMS if streams_itself else _INVOKES) + _GRAPH
