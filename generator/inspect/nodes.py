"""Nodes of a builder as reported: what each runs, the keys it returns, where it can go.

A node's target is a function, a bound method, a lambda, a ``ToolNode`` or a compiled subgraph
(``compile()`` or a prebuilt agent). The keys a function returns come from ``returns``; a
``ToolNode`` writes ``messages``; a subgraph writes its output (or state) schema's fields.
``Command(goto=...)`` destinations become conditional edges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from generator.inspect.prebuilts import DEFAULT_STATES, output_fields
from generator.inspect.returns import Returns, node_returns
from generator.inspect.state import schema_of
from generator.inspect.values import (
    Builder,
    Compiled,
    Entrypoint,
    External,
    Function,
    Instance,
    Lambda,
    LibraryNode,
    NodeSpec,
    Prebuilt,
    ToolNode,
    Value,
    describe,
)
from generator.models import Edge, Node, NodeTarget

if TYPE_CHECKING:
    from generator.inspect.evaluate import Interpreter


def describe_nodes(interp: Interpreter, builder: Builder) -> tuple[list[Node], list[Edge]]:
    """The builder's nodes in ``add_node`` order, and the edges their ``Command``s add."""
    nodes: list[Node] = []
    edges: list[Edge] = []
    for spec in builder.nodes:
        kind, returns = _target(interp, spec)
        nodes.append(
            Node(
                name=spec.name or "?",
                target=kind,
                target_name=_written(spec),
                returns=None
                if returns is None or not (returns.keys or returns.complete)
                else returns.keys,
                returns_complete=returns is not None and returns.complete,
                line=spec.site.module.line(spec.site.node),
            )
        )
        for target in returns.goto if returns else []:
            edges.append(
                Edge(source=spec.name or "?", target=target, conditional=True, condition="Command")
            )
    return nodes, edges


def _target(interp: Interpreter, spec: NodeSpec) -> tuple[NodeTarget, Returns | None]:
    target = _callable(interp, spec.target)
    match target:
        case Function():
            kind: NodeTarget = "method" if target.bound is not None else "function"
            return kind, _returns(interp, spec, target)
        case Lambda():
            return "lambda", _returns(interp, spec, target)
        case ToolNode():
            return "ToolNode", Returns(keys=["messages"])
        case LibraryNode():
            return "library", Returns(keys=list(target.writes))
        case Compiled() | Builder():
            return "subgraph", _subgraph_returns(interp, target, spec)
        case Prebuilt():
            state = target.kwargs.get("state_schema") or External(DEFAULT_STATES[target.factory])
            schema = schema_of(interp, state, f"state of agent node {spec.name!r}", spec.site)
            return "subgraph", Returns(keys=output_fields(schema)) if schema else None
        case Entrypoint():
            return "subgraph", None
    interp.project.warn(
        spec.site.module,
        spec.site.node,
        f"node {spec.name!r} runs {describe(target)}; what it returns is not known statically",
    )
    return "unknown", None


def _callable(interp: Interpreter, target: Value) -> Value:
    """An instance of a repository class runs its ``__call__``."""
    if isinstance(target, Instance):
        call = interp.attribute(target, "__call__", None)
        if isinstance(call, Function):
            return call
    return target


def _returns(interp: Interpreter, spec: NodeSpec, target: Function | Lambda) -> Returns:
    returns = node_returns(interp, target)
    for node, what in returns.unknown:
        interp.project.warn(
            target.module,
            node,
            f"node {spec.name!r} returns {what}; the keys it writes are not known statically",
        )
    return returns


def _subgraph_returns(
    interp: Interpreter, graph: Compiled | Builder, spec: NodeSpec
) -> Returns | None:
    builder = graph.builder if isinstance(graph, Compiled) else graph
    output = builder.schemas.get("output", builder.state)
    schema = schema_of(interp, output, f"output of subgraph node {spec.name!r}", spec.site)
    return Returns(keys=[field.name for field in schema.fields]) if schema else None


def _written(spec: NodeSpec) -> str | None:
    """The target as written at the ``add_node`` call (the callee, for ``ToolNode(...)``)."""
    expr = spec.expr
    if isinstance(spec.target, Lambda):
        return "lambda"
    if isinstance(spec.target, LibraryNode):
        return spec.target.function
    if isinstance(spec.target, ToolNode) and expr is None:
        return "ToolNode"
    if isinstance(spec.target, Prebuilt) and expr is None:
        return spec.target.factory
    if expr is None:
        return describe(spec.target)
    if isinstance(expr, cst.Call):
        expr = expr.func
    return spec.site.module.code(expr)
