"""One graph of ``langgraph.json``: what its export is, and everything read from it.

The export is a compiled graph (``builder.compile()``, also ``.with_config(...)``, or an
uncompiled builder the server compiles), a factory function (sync or async, no argument,
``(config)`` or ``(config, runtime)``, also a context manager) whose body is followed to the
graph it returns, a prebuilt agent (``create_react_agent``, ``create_agent``, a swarm or a
supervisor: see ``prebuilts``), an ``@entrypoint``
function (functional API: no state or nodes to read), or ``unresolvable`` with the reason.
"""

from __future__ import annotations

from typing import Any

from generator.inspect import inputs, prebuilts
from generator.inspect.config import GraphSpec
from generator.inspect.evaluate import Args, Interpreter
from generator.inspect.nodes import describe_nodes
from generator.inspect.state import joined, schema_of
from generator.inspect.strategy import is_message_input, suggest
from generator.inspect.structured import structured_outputs
from generator.inspect.values import (
    Builder,
    Class,
    Compiled,
    Entrypoint,
    External,
    Function,
    Lambda,
    Prebuilt,
    Site,
    Unknown,
    Value,
    describe,
    params_of,
)
from generator.models import FactorySignature, Graph
from runtime.contract.agent import InputShape


def inspect_graph(interp: Interpreter, spec: GraphSpec) -> Graph:
    """Read the graph ``spec`` names, following its code wherever it leads in the repository."""
    module = interp.project.module(interp.project.root / spec.path)
    scope = interp.module_scope(module)
    site = Site(module, scope.sites.get(spec.export))
    if spec.export in scope.vars:
        value = interp.lookup(scope, spec.export)
    else:
        value = Unknown(f"{spec.export!r} is not defined at the top level of {spec.file}")
    known: dict[str, Any] = {"graph_id": spec.graph_id, "spec": spec.spec}
    known |= {"description": spec.description}
    known |= {"file": spec.file, "export": spec.export}
    if isinstance(value, Function):
        signature = FactorySignature(
            params=[p.name.value for p in params_of(value.node)], is_async=value.is_async
        )
        built = interp.invoke(value, Args(), site)
        known |= _describe(interp, built, site, spec.graph_id, factory=value.name)
        known |= {"export_kind": "factory", "factory": signature}
    else:
        known |= _describe(interp, value, site, spec.graph_id, factory=None)
    graph = Graph(**known)
    graph.input_is_messages = graph.input_is_messages or is_message_input(
        graph.input_schema or graph.state
    )
    graph.strategy, graph.strategy_reason = suggest(graph)
    return graph


def _describe(
    interp: Interpreter, value: Value, site: Site, gid: str, factory: str | None
) -> dict[str, Any]:
    match value:
        case Compiled():
            return _builder(interp, value.builder, site, gid) | {"compile_name": value.name}
        case Builder():
            return _builder(interp, value, site, gid)
        case Prebuilt():
            return _prebuilt(interp, value, site, gid)
        case Entrypoint():
            return _entrypoint(interp, value, gid)
    reason = describe(value)
    where = value.site if isinstance(value, Unknown) and value.site else site
    subject = f"what factory {factory}() returns" if factory else "the export"
    interp.project.warn(
        where.module,
        where.node,
        f"graph {gid!r}: {subject} cannot be resolved statically: {reason}",
    )
    if factory:
        return {}
    return {"export_kind": "unresolvable", "export_reason": reason}


def _builder(interp: Interpreter, builder: Builder, site: Site, gid: str) -> dict[str, Any]:
    def schema(value: Value | None, what: str) -> Any:
        return schema_of(interp, value, f"{what} of graph {gid!r}", builder.site)

    state = builder.state or Unknown("StateGraph() was given no state schema", builder.site)
    nodes, command_edges = describe_nodes(interp, builder)
    modules = {builder.site.module, site.module}
    modules |= {n.target.module for n in builder.nodes if isinstance(n.target, Function | Lambda)}
    state_schema = schema(state, "state")
    parts = [schema(value, "middleware state") for value in builder.joined_states]
    if state_schema is not None and parts:
        state_schema = joined([part for part in parts if part is not None], state_schema)
    input_schema = schema(builder.schemas.get("input"), "input schema")
    context_schema = schema(builder.schemas.get("context"), "context schema")
    needed = inputs.required_inputs(
        interp, builder, input_schema or state_schema, builder.schemas.get("input"), site.module
    )
    return {
        "export_kind": "compiled_graph",
        "state": state_schema,
        "input_schema": input_schema,
        "output_schema": schema(builder.schemas.get("output"), "output schema"),
        "context_schema": context_schema,
        "required_context": inputs.required_context(interp, context_schema, site.module),
        "required_inputs": needed,
        "nodes": nodes,
        "nodes_complete": builder.complete,
        "edges": builder.edges + command_edges,
        "documented_shape": builder.documented,
        "structured_output": structured_outputs(interp, sorted(modules, key=lambda m: m.rel)),
    }


def _prebuilt(interp: Interpreter, graph: Prebuilt, site: Site, gid: str) -> dict[str, Any]:
    """A prebuilt agent: its documented nodes and edges, state, context and response format."""
    response_format = graph.kwargs.get("response_format")
    output = (
        schema_of(interp, response_format, f"response format of graph {gid!r}", graph.site)
        if isinstance(response_format, Class)
        else None
    )
    builder = prebuilts.shape(interp, graph)
    if builder is None:  # nodes unknown: the state and context are still documented
        builder = Builder(graph.site, graph.kwargs.get("state_schema"), {}, complete=False)
        builder.state = builder.state or External(prebuilts.DEFAULT_STATES[graph.factory])
        context = graph.kwargs.get("context_schema") or graph.kwargs.get("config_schema")
        builder.schemas |= {"context": context} if context is not None else {}
        known = _builder(interp, builder, site, gid) | {"nodes": None}
    else:
        known = _builder(interp, builder, site, gid)
    return known | {
        "export_kind": "prebuilt",
        "prebuilt": graph.factory,
        "documented_shape": prebuilts.PREBUILTS[graph.factory],
        "compile_name": graph.name,
        "structured_output": [output] if output else [],
        "input_is_messages": True,
    }


def _entrypoint(interp: Interpreter, entry: Entrypoint, gid: str) -> dict[str, Any]:
    """A functional-API graph: its input read from the first parameter (a bare list of messages
    or a string takes the user's words as they are; a class is the graph's input schema)."""
    function = entry.function
    site = Site(function.module, function.node)
    interp.project.warn(
        function.module,
        function.node.name,
        f"graph {gid!r} uses the functional API (@entrypoint): its state and nodes are not "
        "known statically",
    )
    params = params_of(function.node)
    first = params[0] if params else None
    annotation = first.annotation if first is not None else None
    input_schema = None
    if annotation is not None:
        value = interp.eval(annotation.annotation, function.scope)
        if isinstance(value, Class):
            input_schema = schema_of(interp, value, f"input of graph {gid!r}", site)
    written = function.module.code(annotation.annotation) if annotation else ""
    shape = entry_input_shape(first.name.value if first else "", written)
    return {
        "export_kind": "entrypoint",
        "input_schema": input_schema,
        "input_shape": shape,
        "input_is_messages": shape != "state" or "Message" in written,
        "structured_output": structured_outputs(interp, [function.module]),
    }


#: Names an unannotated entrypoint parameter has when it takes a list of messages, or a string.
_MESSAGE_NAMES = frozenset({"messages", "msgs", "chat_history", "history", "conversation"})
_TEXT_NAMES = frozenset(
    {"query", "question", "text", "prompt", "message", "user_input", "topic", "request"}
)


def entry_input_shape(name: str, annotation: str) -> InputShape:
    """How an entrypoint takes the user's words, from its first parameter's ``name`` and
    ``annotation`` as written: ``list[BaseMessage]`` (or a ``messages`` parameter) is a bare list
    of messages, ``str`` (or a ``query`` parameter) a string, anything else its input state."""
    compact = annotation.replace(" ", "")
    if compact.startswith(("list[", "List[", "Sequence[", "typing.List[")) and (
        "Message" in compact
    ):
        return "messages"
    if compact == "str":
        return "text"
    if not compact:
        if name in _MESSAGE_NAMES:
            return "messages"
        if name in _TEXT_NAMES:
            return "text"
    return "state"
