"""Keeps facts in the runtime's store (``runtime.store``), as imported memory agents do.

"remember X" puts X in the ``("facts",)`` namespace; "recall" says every fact found there, in
whatever session; "namespaces" says every namespace the plugin can list. Anything else is the
welcome.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime

from runtime.contract.plugin import PluginBase
from runtime.contract.state import CommonState, event

FACTS = ("facts",)


class MemoPlugin(PluginBase):
    plugin_id = "memo"
    title = "Memo"

    def build_graph(self) -> StateGraph[Any]:
        return StateGraph(CommonState).add_sequence([respond]).add_edge(START, "respond")


def respond(state: CommonState, runtime: Runtime[None]) -> dict[str, Any]:
    store = runtime.store
    assert store is not None, "the runtime compiles every graph with a store"
    transcript = state.get("transcript", "")
    if transcript.startswith("remember "):
        fact = transcript.removeprefix("remember ")
        store.put(FACTS, fact, {"text": fact})
        said = f"remembered {fact}"
    elif transcript == "recall":
        facts = sorted(item.value["text"] for item in store.search(FACTS))
        said = "I know: " + (", ".join(facts) or "nothing")
    elif transcript == "namespaces":
        said = "namespaces: " + repr(store.list_namespaces())
    else:
        said = "memo ready"
    return {"outbox": [event("server.voice.say", text=said)]}
