"""What the design step knows about one graph of an agent, read from its ``Inspection``.

The prompt, the field mapping, the fallback designer and the design checks all read these facts, so
they agree on which fields exist, which could take the user's request, and which could hold the
answer. Nothing here is guessed beyond what the inspection saw: fields of a state the inspector
could not read are simply absent.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from generator.errors import AgentImportError
from generator.inspect.prebuilts import is_private
from generator.models import Graph, Inspection, StateField, StateSchema

MESSAGES_FIELD = "messages"

#: Annotations the user's words fit (``""``: the inspector could not read it; never stricter).
_TEXT_TYPES = {"str", "Any", ""}
#: ``Annotated[x, ...]``, ``Optional[x]``, ``NotRequired[x]``, ``Required[x]``: x is the type.
_WRAPPER = re.compile(
    r"(?:typing(?:_extensions)?\.)?"
    r"(?:Annotated\[(.+?),.*|(?:Optional|NotRequired|Required)\[(.+))\]"
)
_SCALAR_TYPES = {"str", "int", "float", "bool", "Decimal", "date", "datetime"}
_MARKDOWN = re.compile(r"[*_`\[\]]|\(http[^)]*\)|<[^>]+>")


class AgentFacts(BaseModel):
    """The facts of one graph that shape its screens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    graph: Graph
    title: str
    description: str
    readme_excerpt: str
    fields: tuple[StateField, ...]
    input_fields: tuple[str, ...] = Field(description="Fields the user's words can fill.")
    structured_inputs: tuple[str, ...] = Field(
        default=(), description="Required input fields the user's words cannot fill (a dict...)."
    )
    output_fields: tuple[str, ...]
    messages_based: bool
    sample_output: str | None = None

    @property
    def field_names(self) -> frozenset[str]:
        """Every field name the agent's state (or its input/output schema) declares."""
        return frozenset({*(f.name for f in self.fields), *self.input_fields, *self.output_fields})

    def scalar_fields(self, *, exclude: set[str]) -> list[StateField]:
        """Output fields holding one simple value (text, number, flag), worth a StatCard."""
        by_name = {f.name: f for f in self.fields}
        return [
            by_name[name]
            for name in self.output_fields
            if name in by_name
            and name not in exclude
            and not name.startswith("_")
            and is_scalar(by_name[name].type)
        ]


def select_graph(inspection: Inspection, graph_id: str | None) -> Graph:
    """The graph named ``graph_id``, or the only graph; otherwise an error listing the ids."""
    ids = ", ".join(graph.graph_id for graph in inspection.graphs) or "none"
    if graph_id is None:
        if len(inspection.graphs) == 1:
            return inspection.graphs[0]
        raise AgentImportError(
            f"{inspection.config_file} declares several graphs ({ids}); choose one with --graph"
        )
    for graph in inspection.graphs:
        if graph.graph_id == graph_id:
            return graph
    raise AgentImportError(f"no graph {graph_id!r} in {inspection.config_file} (graphs: {ids})")


def agent_facts(
    inspection: Inspection, graph_id: str | None = None, *, sample_output: str | None = None
) -> AgentFacts:
    """Read the facts of one graph (see ``select_graph``) from an inspection."""
    graph = select_graph(inspection, graph_id)
    fields = _fields(graph.state, graph.input_schema, graph.output_schema)
    names = _names(graph.state)
    declared = _names(graph.input_schema)
    inputs = declared or names
    # Messages sent to a graph whose input schema lacks them never reach it (LangGraph drops
    # them): such a graph takes its request in one of the declared fields.
    messages_based = (
        graph.input_is_messages
        or MESSAGES_FIELD in inputs
        or (not declared and graph.state is not None and graph.state.style == "MessagesState")
        or not fields  # a prebuilt or unreadable state: LangGraph's default is messages
    )
    types = {field.name: field.type for field in fields}
    textual = tuple(name for name in inputs if takes_text(name, types.get(name, "")))
    # With no field the words can fill, they go as a message: the agent runs on its reviewed
    # inputs (agent.json) and reads the words only if it reads messages.
    words_as_message = (MESSAGES_FIELD,) if messages_based or not textual else ()
    extra = (MESSAGES_FIELD,) if messages_based else ()
    outputs = _names(graph.output_schema) or names
    return AgentFacts(
        graph=graph,
        title=_title(inspection.readme_excerpt, graph),
        description=graph.description or _description(inspection.readme_excerpt, graph),
        readme_excerpt=inspection.readme_excerpt,
        fields=fields,
        input_fields=_unique(textual + words_as_message),
        structured_inputs=tuple(
            required.name
            for required in graph.required_inputs
            if required.name in inputs and required.name not in textual
        ),
        output_fields=_unique(outputs + extra),
        messages_based=messages_based,
        sample_output=sample_output,
    )


def is_scalar(annotation: str) -> bool:
    """``str``, ``int | None``, ``Optional[float]``, ``Literal["a", "b"]``... but not containers."""
    text = annotation.replace(" ", "")
    if match := re.fullmatch(r"(?:typing\.)?Annotated\[(.+?),.*\]", text):
        text = match.group(1)
    if match := re.fullmatch(r"(?:typing\.)?Optional\[(.+)\]", text):
        text = match.group(1)
    parts = [part for part in text.split("|") if part != "None"]
    return len(parts) == 1 and (
        parts[0].rsplit(".", 1)[-1] in _SCALAR_TYPES
        or parts[0].startswith(("Literal[", "typing.L"))
    )


def takes_text(name: str, annotation: str) -> bool:
    """Whether the user's words can fill a field: messages, or a ``str`` (or untyped) one.

    Never a ``dict``, a model or a number: words put there fail in the agent's first node
    (``TypeError: string indices must be integers``).
    """
    if name == MESSAGES_FIELD:
        return True
    text = annotation.replace(" ", "")
    while match := _WRAPPER.fullmatch(text):
        text = match.group(1) or match.group(2)
    return any(part.rsplit(".", 1)[-1] in _TEXT_TYPES for part in text.split("|"))


def _fields(*schemas: StateSchema | None) -> tuple[StateField, ...]:
    """The schemas' fields a caller sees (not a library's private channels, e.g. ``jump_to``)."""
    seen: dict[str, StateField] = {}
    for schema in schemas:
        for field in schema.fields if schema else ():
            if not is_private(field):
                seen.setdefault(field.name, field)
    return tuple(seen.values())


def _names(schema: StateSchema | None) -> tuple[str, ...]:
    return tuple(f.name for f in _fields(schema))


def _unique(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _prose(readme: str) -> list[str]:
    """README prose lines as plain text: no headings, badges, code, tables or markup."""
    lines = []
    for line in readme.splitlines():
        if line.lstrip().startswith(("#", "![", "[![", "<", "```", "|", ">")):
            continue
        plain = " ".join(_MARKDOWN.sub("", line).split())
        if plain:
            lines.append(plain)
    return lines


def _title(readme: str, graph: Graph) -> str:
    """The README's first heading, else the compiled graph's name, else the graph id."""
    for line in readme.splitlines():
        if line.startswith("# "):
            heading = " ".join(_MARKDOWN.sub("", line[2:]).split())
            if heading:
                return heading[:60]
    name = graph.compile_name or graph.graph_id
    words = re.sub(r"[_\-\s]+", " ", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)).strip()
    return (words[:1].upper() + words[1:]) or "Agent"


def _description(readme: str, graph: Graph) -> str:
    """The README's first sentence of prose, else a plain statement of what the graph is."""
    for line in _prose(readme):
        sentence = re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0][:200]
        if len(sentence.split()) >= 4:
            return sentence if sentence.endswith((".", "!", "?")) else sentence + "."
    return f"A LangGraph agent ({graph.graph_id})."
