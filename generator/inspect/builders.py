"""``StateGraph`` builders: what each ``add_node``/``add_edge``/``compile`` call adds.

The interpreter creates a ``Builder`` value for every ``StateGraph(...)`` call and sends each
method called on it here, so every call is tied to the builder object it was made on: several
builders in one file, builders passed to helper functions, and a builder whose variable is later
reused for the compiled graph all stay apart.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from generator.inspect.returns import route_targets
from generator.inspect.values import (
    Builder,
    Compiled,
    Entrypoint,
    External,
    Function,
    Lambda,
    Mapping,
    NodeSpec,
    Prebuilt,
    Seq,
    Site,
    ToolNode,
    Unknown,
    Value,
    const_str,
    node_id,
)
from generator.models import END, START, Edge

if TYPE_CHECKING:
    from generator.inspect.evaluate import Args, Interpreter

#: Schema roles and their keyword spellings, current first (``input``/``config_schema`` are old).
SCHEMA_KEYWORDS = {
    "input": ("input_schema", "input"),
    "output": ("output_schema", "output"),
    "context": ("context_schema", "config_schema"),
}


def new_builder(args: Args, site: Site) -> Builder:
    """``StateGraph(state_schema, context_schema=None, *, input_schema=, output_schema=)``."""
    schemas = {
        role: args.keywords[found]
        for role, spellings in SCHEMA_KEYWORDS.items()
        for found in [next((k for k in spellings if k in args.keywords), None)]
        if found is not None
    }
    if "context" not in schemas and len(args.positional) > 1:
        schemas["context"] = args.positional[1]
    return Builder(site, args.get(0, "state_schema"), schemas)


def call_method(interp: Interpreter, builder: Builder, name: str, args: Args, site: Site) -> Value:
    """Apply ``builder.name(*args)``; builder methods return the builder, ``compile`` a graph."""
    if name == "compile":
        return Compiled(builder, const_str(args.keywords.get("name")), site)
    method = _METHODS.get(name)
    if method is None:
        return Unknown(f"the result of StateGraph.{name}()", site)
    method(interp, builder, args, site)
    return builder


def _add_node(interp: Interpreter, builder: Builder, args: Args, site: Site) -> None:
    if len(args.positional) >= 2 or "action" in args.keywords:
        name = const_str(args.get(0, "node"))
        target, expr = args.get(1, "action"), args.expr(1, "action")
    else:
        target, expr = args.get(0, "node"), args.expr(0, "node")
        name = _implicit_name(target, expr)
    _record(interp, builder, name, target or Unknown("no action given", site), expr, site)
    destinations = args.keywords.get("destinations")
    if name is not None and destinations is not None:
        _branch(interp, builder, name, None, destinations, "destinations", site)


def _record(
    interp: Interpreter,
    builder: Builder,
    name: str | None,
    target: Value,
    expr: cst.BaseExpression | None,
    site: Site,
) -> None:
    if interp.loops:
        builder.complete = False
        interp.project.warn(
            site.module, site.node, "node added inside a loop: names and count not known statically"
        )
    elif name is None:
        builder.complete = False
        interp.project.warn(site.module, site.node, "node name not known statically")
    else:
        builder.nodes.append(NodeSpec(name, target, expr, site))


def _implicit_name(target: Value | None, expr: cst.BaseExpression | None) -> str | None:
    """The name LangGraph gives ``add_node(x)``: the callable's ``__name__`` or ``name``."""
    match target:
        case Function():
            return target.name
        case Entrypoint():
            return target.function.name
        case ToolNode():
            return target.name
        case Compiled() | Prebuilt():
            return target.name
        case Lambda():
            return "<lambda>"
        case External():
            return target.leaf
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _add_edge(interp: Interpreter, builder: Builder, args: Args, site: Site) -> None:
    start = args.get(0, "start_key")
    starts = start.items if isinstance(start, Seq) else [start]
    for source in starts:
        _edge(interp, builder, node_id(source), node_id(args.get(1, "end_key")), site)


def _edge(
    interp: Interpreter, builder: Builder, source: str | None, target: str | None, site: Site
) -> None:
    if interp.loops:
        interp.project.warn(
            site.module, site.node, "edge added inside a loop: not known statically"
        )
    elif source is None or target is None:
        interp.project.warn(site.module, site.node, "edge endpoint not known statically")
    else:
        builder.edges.append(Edge(source=source, target=target))


def _add_conditional_edges(interp: Interpreter, builder: Builder, args: Args, site: Site) -> None:
    source = node_id(args.get(0, "source"))
    if source is None:
        interp.project.warn(site.module, site.node, "conditional edge source not known statically")
        return
    _conditional(interp, builder, source, args, 1, site)


def _set_conditional_entry_point(
    interp: Interpreter, builder: Builder, args: Args, site: Site
) -> None:
    _conditional(interp, builder, START, args, 0, site)


def _conditional(
    interp: Interpreter, builder: Builder, source: str, args: Args, at: int, site: Site
) -> None:
    """``path`` at position ``at``, ``path_map`` right after it."""
    path_expr = args.expr(at, "path")
    condition = site.module.code(path_expr) if path_expr is not None else "?"
    _branch(
        interp, builder, source, args.get(at, "path"), args.get(at + 1, "path_map"), condition, site
    )


def _branch(
    interp: Interpreter,
    builder: Builder,
    source: str,
    path: Value | None,
    path_map: Value | None,
    condition: str,
    site: Site,
) -> None:
    targets = _targets(interp, path, path_map)
    if targets is None:
        interp.project.warn(
            site.module,
            site.node,
            f"targets of the conditional edge from {source!r} ({condition}) not known statically",
        )
        return
    for target in targets:
        builder.edges.append(
            Edge(source=source, target=target, conditional=True, condition=condition)
        )


def _targets(interp: Interpreter, path: Value | None, path_map: Value | None) -> list[str] | None:
    match path_map:
        case Mapping():
            found = [node_id(value) for _, value in path_map.items]
        case Seq():
            found = [node_id(item) for item in path_map.items]
        case None:
            if isinstance(path, External) and path.is_("tools_condition"):
                return ["tools", END]
            if isinstance(path, Function | Lambda):
                return route_targets(interp, path)
            return None
        case _:
            return None
    targets = [t for t in found if t is not None]
    return list(dict.fromkeys(targets)) if len(targets) == len(found) else None


def _add_sequence(interp: Interpreter, builder: Builder, args: Args, site: Site) -> None:
    steps = args.get(0, "nodes")
    if not isinstance(steps, Seq):
        builder.complete = False
        interp.project.warn(site.module, site.node, "add_sequence nodes not known statically")
        return
    names: list[str | None] = []
    for step in steps.items:
        if isinstance(step, Seq) and len(step.items) == 2:
            name, target = const_str(step.items[0]), step.items[1]
        else:
            name, target = _implicit_name(step, None), step
        _record(interp, builder, name, target, None, site)
        names.append(name)
    for first, then in itertools.pairwise(names):
        if first is not None and then is not None:
            builder.edges.append(Edge(source=first, target=then))


def _set_entry_point(interp: Interpreter, builder: Builder, args: Args, site: Site) -> None:
    _edge(interp, builder, START, node_id(args.get(0, "key")), site)


def _set_finish_point(interp: Interpreter, builder: Builder, args: Args, site: Site) -> None:
    _edge(interp, builder, node_id(args.get(0, "key")), END, site)


def _validate(interp: Interpreter, builder: Builder, args: Args, site: Site) -> None:
    """``validate()`` only checks the graph; nothing to record."""


_METHODS: dict[str, Callable[[Interpreter, Builder, Args, Site], None]] = {
    "add_node": _add_node,
    "add_edge": _add_edge,
    "add_conditional_edges": _add_conditional_edges,
    "add_sequence": _add_sequence,
    "set_entry_point": _set_entry_point,
    "set_finish_point": _set_finish_point,
    "set_conditional_entry_point": _set_conditional_entry_point,
    "validate": _validate,
}
