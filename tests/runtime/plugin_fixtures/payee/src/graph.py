"""An approval agent as LangGraph's server runs it: it asks before it adds a payee."""

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class PayeeState(TypedDict, total=False):
    request: str
    reply: str
    payees: list[str]


def propose(state: PayeeState) -> PayeeState:
    name = state.get("request", "").removeprefix("add").strip().title() or "Nobody"
    approved = interrupt(
        {"question": f"Add {name} as a payee?", "details": {"Name": name, "Sort code": "12-34-56"}}
    )
    if approved is True:
        return {"payees": [*state.get("payees", []), name], "reply": f"Added {name} as a payee."}
    return {"reply": f"Cancelled: {name} was not added."}


builder = StateGraph(PayeeState)
builder.add_node("propose", propose)
builder.add_edge(START, "propose")
builder.add_edge("propose", END)
graph = builder.compile()
