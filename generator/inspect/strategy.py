"""How a graph should be brought into the runtime, and why.

- ``wrapper``: the graph takes a ``messages`` list, so the runtime can wrap it as it is: each
  utterance goes in as a human message and the last AI message comes back as the reply.
- ``subgraph``: the graph has a structured state (or pydantic structured output) the runtime can
  map to and from its own state, so it is mounted as a subgraph.
- ``port``: neither can be known statically; the graph has to be ported by hand.
"""

from __future__ import annotations

from generator.models import Graph, StateSchema
from runtime.contract.layout import Strategy

_STRUCTURED = ("TypedDict", "dataclass", "pydantic", "MessagesState")


def is_message_input(schema: StateSchema | None) -> bool:
    """True when the input has a ``messages`` list (``add_messages`` or message-typed)."""
    if schema is None:
        return False
    return schema.style == "MessagesState" or any(
        field.name == "messages"
        and ((field.reducer or "").endswith("add_messages") or "Message" in field.type)
        for field in schema.fields
    )


def suggest(graph: Graph) -> tuple[Strategy, str]:
    """The strategy for ``graph`` (with ``input_is_messages`` already set) and the reason."""
    if graph.export_kind == "unresolvable":
        return "port", f"the export cannot be resolved statically: {graph.export_reason}"
    if graph.input_is_messages:
        return "wrapper", (
            "its input is a `messages` list: the runtime sends each utterance as a human "
            "message and speaks the last AI message"
        )
    state = graph.state
    if state is not None and state.style in _STRUCTURED:
        names = ", ".join(field.name for field in state.fields) or "no fields"
        return "subgraph", (
            f"structured {state.style} state {state.name} ({names}): mount the graph as a "
            "subgraph and map the runtime's state to these fields"
        )
    if graph.structured_output:
        names = ", ".join(schema.name for schema in graph.structured_output)
        return "subgraph", f"pydantic structured output ({names}) can be mapped to screens"
    if state is None:
        return "port", "its state cannot be known statically"
    return "port", f"its {state.style} state {state.name} cannot be mapped statically"
