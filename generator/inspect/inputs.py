"""What a run needs besides the user's words: required context and input fields.

An input field is required when a run cannot start without it, the way LangGraph would fail:
a dataclass or pydantic field with no default (the state cannot be built), a key of a separate
TypedDict input schema that is not ``NotRequired`` (``total=False`` makes none required), and a
key the first node(s) read as ``state["x"]`` or ``state.x`` (``KeyError`` otherwise), also
through a compiled subgraph added as the first node. ``state.get("x")`` is not required, nor
are messages. A context field is required only in a dataclass or pydantic schema: a TypedDict
key is simply absent when nothing gives it, as on LangGraph's server. Each gets the value
``proposals`` finds, for review.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from generator.inspect import proposals
from generator.inspect.defaults import has_default
from generator.inspect.prebuilts import is_private
from generator.inspect.values import (
    Builder,
    Class,
    Compiled,
    Function,
    Instance,
    Lambda,
    Scope,
    Value,
    params_of,
)
from generator.models import START, RequiredField, StateField, StateSchema

if TYPE_CHECKING:
    from generator.inspect.evaluate import Interpreter
    from generator.inspect.modules import Module

#: How deep first nodes are followed into subgraphs.
_MAX_SUBGRAPHS = 4
_STRICT_STYLES = frozenset({"dataclass", "pydantic"})


def required_context(
    interp: Interpreter, schema: StateSchema | None, graph_module: Module
) -> list[RequiredField]:
    """Fields of a dataclass or pydantic context with no default, each with a proposal."""
    if schema is None or schema.style not in _STRICT_STYLES:
        return []
    scope, folder = _scope(interp, schema, graph_module), graph_module.path.parent
    required = []
    for field in schema.fields:
        if not has_default(field):
            found = proposals.context_value(interp, scope, field.name, field.type, folder)
            required.append(_required(field, found))
    return required


def required_inputs(
    interp: Interpreter,
    builder: Builder,
    schema: StateSchema | None,
    typed_input: Value | None,
    graph_module: Module,
) -> list[RequiredField]:
    """Input fields other than messages that a run of ``builder``'s graph cannot start without.

    ``schema`` is the input schema (or the state); ``typed_input`` the class given as a separate
    TypedDict input schema, if any.
    """
    if schema is None:
        return []
    fields = {f.name: f for f in schema.fields if not _given_otherwise(f)}
    names: list[str] = []
    if schema.style in _STRICT_STYLES:
        names += [name for name, field in fields.items() if not has_default(field)]
    separate = isinstance(typed_input, Class) and typed_input is not builder.state
    if schema.style == "TypedDict" and isinstance(typed_input, Class) and separate:
        total = _total(typed_input)
        names += [n for n, f in fields.items() if total and "NotRequired" not in f.type]
    names += [
        name
        for name in first_reads(interp, builder, 0)
        if name in fields and not has_default(fields[name])
    ]
    scope, folder = _scope(interp, schema, graph_module), graph_module.path.parent
    return [
        _required(field, proposals.input_value(interp, scope, name, field.type, folder))
        for name in dict.fromkeys(names)
        for field in [fields[name]]
    ]


def first_reads(interp: Interpreter, builder: Builder, depth: int) -> list[str]:
    """Keys the nodes a run starts with read from their state (``state["x"]``, ``state.x``)."""
    firsts = {edge.target for edge in builder.edges if edge.source == START}
    found: list[str] = []
    for spec in builder.nodes:
        if spec.name not in firsts:
            continue
        target = spec.target
        if isinstance(target, Instance):
            target = interp.attribute(target, "__call__", None)
        match target:
            case Function() | Lambda():
                found += _reads(target)
            case Compiled() | Builder() if depth < _MAX_SUBGRAPHS:
                inner = target.builder if isinstance(target, Compiled) else target
                found += first_reads(interp, inner, depth + 1)
    return list(dict.fromkeys(found))


def _reads(target: Function | Lambda) -> list[str]:
    params = params_of(target.node)
    if isinstance(target, Function) and target.bound is not None:
        params = params[1:]
    if not params:
        return []
    reader = _StateReads(params[0].name.value)
    target.node.body.visit(reader)
    return [name for name in reader.names if name not in reader.written | reader.checked]


class _StateReads(cst.CSTVisitor):
    """``state["x"]`` and ``state.x`` read in a function body, less the keys it assigns first
    or checks for (``if "x" in state``)."""

    def __init__(self, state: str) -> None:
        self.state = state
        self.names: list[str] = []
        self.written: set[str] = set()
        self.checked: set[str] = set()

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for target in node.comparisons:
            of_state = (
                isinstance(target.comparator, cst.Name) and target.comparator.value == self.state
            )
            if of_state and isinstance(target.operator, cst.In | cst.NotIn):
                key = node.left.evaluated_value if isinstance(node.left, cst.SimpleString) else None
                if isinstance(key, str):
                    self.checked.add(key)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._written(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._written(node.target)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        key = self._key(node)
        if key is not None:
            self.names.append(key)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name) and node.value.value == self.state:
            self.names.append(node.attr.value)

    def _written(self, target: cst.BaseExpression) -> None:
        key = self._key(target) if isinstance(target, cst.Subscript) else None
        if key is not None and key not in self.names:
            self.written.add(key)

    def _key(self, node: cst.Subscript) -> str | None:
        if not (isinstance(node.value, cst.Name) and node.value.value == self.state):
            return None
        index = node.slice[0].slice if len(node.slice) == 1 else None
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            value = index.value.evaluated_value
            return value if isinstance(value, str) else None
        return None


def _given_otherwise(field: StateField) -> bool:
    """Messages (the user's words) and a library's private channels are no input to propose."""
    return field.name == "messages" or field.reducer == "add_messages" or is_private(field)


def _total(cls: Class) -> bool:
    """False for ``class X(TypedDict, total=False)``."""
    for keyword in cls.node.keywords:
        if keyword.keyword is not None and keyword.keyword.value == "total":
            return not (isinstance(keyword.value, cst.Name) and keyword.value.value == "False")
    return True


def _scope(interp: Interpreter, schema: StateSchema, graph_module: Module) -> Scope:
    """Where the schema's annotations resolve: the module that declares it."""
    project = interp.project
    module = project.module(project.root / schema.file) if schema.file else graph_module
    return interp.module_scope(module)


def _required(field: StateField, found: proposals.Proposal | None) -> RequiredField:
    if found is None:
        return RequiredField(name=field.name, type=field.type)
    value, because = found
    return RequiredField(name=field.name, type=field.type, proposed=value, because=because)
