"""A payments agent in the shape of a year-old LangGraph 0.2 project.

It imports ``langchain_core.pydantic_v1`` (gone from today's langchain-core) and says which
LangGraph answered. "pay NAME" asks first (``interrupt()``, answered ``True`` or ``False``);
"sleep SECONDS" blocks without ever looking up; "crash" kills its own process; "stream" streams
its model's reply token by token; "spend" calls a model that reports 1200 tokens; "tools N"
calls a tool N times; "remember TEXT" and "recall" use the store; "whoami" tells the user id
and the ``tone`` setting its run was given; "card" answers with a card number and "leaked?" says
whether its own conversation still holds one; "loop" never stops; "env NAME" tells
the value of a variable of its environment; anything else is answered by
its chat model.
"""

import os
import signal
import time
from importlib.metadata import version
from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage
from langchain_core.pydantic_v1 import BaseModel, Field
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.store.base import BaseStore
from langgraph.types import interrupt


class Payment(BaseModel):
    payee: str = Field(description="Who is paid.")


class State(TypedDict):
    messages: Annotated[list, add_messages]


model = FakeListChatModel(responses=["I can help with payments."])
CARD = "4111 1111 1111 1111"
USAGE = {"input_tokens": 600, "output_tokens": 600, "total_tokens": 1200}


@tool
def lookup(name: str) -> str:
    """Look a payee up."""
    return f"{name} is known."


async def respond(state: State, config: RunnableConfig, *, store: BaseStore) -> dict:
    text = state["messages"][-1].content
    verb, _, rest = text.partition(" ")
    if verb == "pay":
        payment = Payment(payee=rest.strip().title())
        approved = interrupt({"question": f"Pay {payment.payee}?"})
        reply = f"Paid {payment.payee}." if approved is True else "Payment cancelled."
    elif verb == "sleep":
        time.sleep(float(rest))
        reply = "Awake."
    elif verb == "stream":
        reply = "".join(str(chunk.content) for chunk in model.stream(state["messages"]))
    elif verb == "spend":
        spender = GenericFakeChatModel(messages=iter([AIMessage("Spent.", usage_metadata=USAGE)]))
        reply = str(spender.invoke(state["messages"]).content)
    elif verb == "tools":
        reply = " ".join(lookup.invoke({"name": f"p{i}"}) for i in range(int(rest)))
    elif verb == "remember":
        store.put(("facts",), "fact", {"text": rest})
        reply = "Noted."
    elif verb == "recall":
        item = store.get(("facts",), "fact")
        reply = item.value["text"] if item else "Nothing."
    elif verb == "whoami":
        configurable = config["configurable"]
        reply = f"user {configurable.get('user_id')}, tone {configurable.get('tone')}"
    elif verb == "card":
        reply = f"Your card {CARD} is active."
    elif verb == "leaked?":
        leaked = any(CARD in str(message.content) for message in state["messages"])
        reply = "leaked" if leaked else "masked"
    elif verb == "env":
        reply = f"{rest}={os.environ.get(rest)}"
    elif verb == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
        reply = "unreachable"
    else:
        reply = str(model.invoke(state["messages"]).content)
    return {"messages": [AIMessage(content=f"{reply} [langgraph {version('langgraph')}]")]}


def again(state: State) -> str:
    said = [message for message in state["messages"] if message.type == "human"]
    return "respond" if said and said[-1].content == "loop" else END


builder = StateGraph(State)
builder.add_node("respond", respond)
builder.add_edge(START, "respond")
builder.add_conditional_edges("respond", again, ["respond", END])
graph = builder.compile()
