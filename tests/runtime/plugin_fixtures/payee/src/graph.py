"""An approval agent as LangGraph's server runs it: it asks before it adds a payee.

"add NAME" asks yes or no (``interrupt()`` answered ``True`` or ``False``); "offer NAME" asks with
the options approve / reject, as an agent written for buttons does, and takes no other answer.
"repeat ..." sends it into a loop that adds "Echo" as a payee at every step and never stops.
"""

from typing import TypedDict

from langgraph.graph import START, StateGraph
from langgraph.types import interrupt


class PayeeState(TypedDict, total=False):
    request: str
    reply: str
    payees: list[str]


def route(state: PayeeState) -> str:
    return "repeat" if state.get("request", "").startswith("repeat") else "propose"


def propose(state: PayeeState) -> PayeeState:
    verb, _, rest = state.get("request", "").partition(" ")
    name = rest.strip().title() or "Nobody"
    question = f"Add {name} as a payee?"
    if verb == "offer":
        answer = interrupt({"question": question, "options": ["approve", "reject"]})
        if answer not in ("approve", "reject"):
            return {"reply": f"Not an option: {answer!r}."}
        approved = answer == "approve"
    else:
        details = {"Name": name, "Sort code": "12-34-56"}
        approved = interrupt({"question": question, "details": details}) is True
    if approved:
        return {"payees": [*state.get("payees", []), name], "reply": f"Added {name} as a payee."}
    return {"reply": f"Cancelled: {name} was not added."}


def repeat(state: PayeeState) -> PayeeState:
    return {"payees": [*state.get("payees", []), "Echo"]}


builder = StateGraph(PayeeState)
builder.add_node("propose", propose)
builder.add_node("repeat", repeat)
builder.add_conditional_edges(START, route, ["propose", "repeat"])
builder.add_edge("repeat", "repeat")  # the stop condition never holds
graph = builder.compile()
