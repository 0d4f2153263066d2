"""State schemas: a class (or library name) turned into a ``StateSchema`` with its fields.

Handles TypedDict, dataclasses (``field(default_factory=...)``, ``kw_only=True``), pydantic
models and ``MessagesState``, wherever they are defined in the repository, and follows
inheritance chains base-first. A field's reducer is the last ``Annotated`` metadata item when it
is a name (``add_messages``, ``operator.add``, ``add``, a custom function) or a lambda, also
behind a type alias; other metadata (``{"description": ...}``, ``Field(...)``) is not a reducer,
as in LangGraph. Library states take their documented fields (``prebuilts.LIBRARY_STATES``);
any other library state is reported as ``library`` with the one field every one of them has,
``messages``, and a warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.helpers import get_full_name_for_node

from generator.inspect.prebuilts import library_state
from generator.inspect.values import (
    Class,
    External,
    Scope,
    Site,
    TypeExpr,
    Unknown,
    Value,
    describe,
)
from generator.models import StateField, StateSchema, StateStyle

if TYPE_CHECKING:
    from generator.inspect.evaluate import Interpreter
    from generator.inspect.modules import Module

MESSAGES = StateField(
    name="messages", type="Annotated[list[AnyMessage], add_messages]", reducer="add_messages"
)
#: Wrappers around a field's type that do not change it.
_QUALIFIERS = frozenset({"Required", "NotRequired", "ReadOnly"})
_SKIPPED = frozenset({"ClassVar", "KW_ONLY", "InitVar"})
_IGNORED_BASES = frozenset({"Generic", "Protocol", "object", "ABC"})
_BASE_STYLES: dict[str, StateStyle] = {
    "TypedDict": "TypedDict",
    "BaseModel": "pydantic",
    "MessagesState": "MessagesState",
}


def schema_of(
    interp: Interpreter, value: Value | None, what: str, site: Site
) -> StateSchema | None:
    """The schema ``value`` names, or None (with a warning saying why) if it is not knowable."""
    match value:
        case None:
            return None
        case Class():
            return _class_schema(interp, value)
        case TypeExpr():  # Generic state: State[int]
            inner = interp.eval(value.node.value, interp.module_scope(value.module))
            return schema_of(interp, inner, what, site)
        case External() if value.is_("MessagesState"):
            return StateSchema(name="MessagesState", style="MessagesState", fields=[MESSAGES])
        case External() if not value.qualname.startswith("builtins."):
            return _library(interp, value, site, inherited=False)
    reason = describe(value)
    warn_site = value.site if isinstance(value, Unknown) and value.site else site
    interp.project.warn(warn_site.module, warn_site.node, f"{what} not known statically: {reason}")
    return None


def joined(parts: list[StateSchema], schema: StateSchema) -> StateSchema:
    """``schema`` after the fields of ``parts``, as ``create_agent`` merges its middleware's
    state schemas and then its own: a field keeps its first position, the last definition wins."""
    fields: list[StateField] = []
    for part in [*parts, schema]:
        for field in part.fields:
            _merge(fields, field)
    return schema.model_copy(update={"fields": fields})


def _library(interp: Interpreter, value: External, site: Site, *, inherited: bool) -> StateSchema:
    documented = library_state(value)
    if documented is not None:
        tag = {"inherited_from": value.leaf} if inherited else {}
        fields = [field.model_copy(update=tag) for field in documented.fields]
        return documented.model_copy(update={"fields": fields})
    interp.project.warn(
        site.module,
        site.node,
        f"state {value.qualname} comes from a library: its fields cannot be read from the "
        "repository (only `messages` is assumed)",
    )
    field = MESSAGES.model_copy(update={"inherited_from": value.leaf if inherited else None})
    return StateSchema(name=value.leaf, style="library", fields=[field])


def _class_schema(
    interp: Interpreter, cls: Class, seen: frozenset[int] = frozenset()
) -> StateSchema:
    name = cls.node.name.value
    outer = cls.scope.parent or cls.scope
    style: StateStyle | None = "dataclass" if _is_dataclass(interp, cls, outer) else None
    fields: list[StateField] = []
    for base in cls.node.bases:
        if base.keyword is not None:  # total=False, metaclass=...
            continue
        value = interp.eval(base.value, outer)
        if isinstance(value, TypeExpr):
            value = interp.eval(value.node.value, interp.module_scope(value.module))
        inherited, base_style = _base(interp, value, Site(cls.module, base), seen | {id(cls.node)})
        style = style or base_style
        for field in inherited:
            _merge(fields, field)
    for field in _own_fields(interp, cls):
        _merge(fields, field)
    if style is None:
        interp.project.warn(
            cls.module, cls.node, f"{name} is not a TypedDict, dataclass or pydantic model"
        )
    return StateSchema(name=name, style=style or "unknown", file=cls.module.rel, fields=fields)


def _base(
    interp: Interpreter, value: Value, site: Site, seen: frozenset[int]
) -> tuple[list[StateField], StateStyle | None]:
    """Fields a base class passes down (tagged with where they come from), and its style."""
    match value:
        case Class() if id(value.node) not in seen:
            schema = _class_schema(interp, value, seen)
            tagged = [
                f.model_copy(update={"inherited_from": f.inherited_from or schema.name})
                for f in schema.fields
            ]
            return tagged, schema.style
        case External() if value.is_("MessagesState"):
            return [
                MESSAGES.model_copy(update={"inherited_from": "MessagesState"})
            ], "MessagesState"
        case External() if value.leaf in _BASE_STYLES and value.is_(value.leaf):
            return [], _BASE_STYLES[value.leaf]
        case External() if value.leaf in _IGNORED_BASES:
            return [], None
        case External():
            return _library(interp, value, site, inherited=True).fields, "library"
    interp.project.warn(
        site.module, site.node, f"base class not known statically: {describe(value)}"
    )
    return [], "unknown"


def _merge(fields: list[StateField], field: StateField) -> None:
    """Add ``field``; a redefinition keeps the first position, as in Python classes."""
    for index, existing in enumerate(fields):
        if existing.name == field.name:
            fields[index] = field
            return
    fields.append(field)


def _own_fields(interp: Interpreter, cls: Class) -> list[StateField]:
    module = cls.module
    fields = []
    for line in cls.node.body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for stmt in line.body:
            if not (isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name)):
                continue
            annotation = stmt.annotation.annotation
            if _leaf(annotation) in _SKIPPED:
                continue
            fields.append(
                StateField(
                    name=stmt.target.value,
                    type=module.code(annotation),
                    reducer=_reducer(interp, annotation, cls.scope, module, 0),
                    default=module.code(stmt.value) if stmt.value is not None else None,
                )
            )
    return fields


def _reducer(
    interp: Interpreter, annotation: cst.BaseExpression, scope: Scope, module: Module, depth: int
) -> str | None:
    """LangGraph's rule: the last ``Annotated`` metadata item, when it is a name or a lambda."""
    if depth > 4:
        return None
    if isinstance(annotation, cst.Subscript):
        leaf = _leaf(annotation.value)
        if leaf in _QUALIFIERS and len(annotation.slice) == 1:
            inner = annotation.slice[0].slice
            if isinstance(inner, cst.Index):
                return _reducer(interp, inner.value, scope, module, depth + 1)
        if leaf == "Annotated" and len(annotation.slice) > 1:
            last = annotation.slice[-1].slice
            reducer_forms = cst.Name | cst.Attribute | cst.Lambda
            if isinstance(last, cst.Index) and isinstance(last.value, reducer_forms):
                return module.code(last.value)
        return None
    if isinstance(annotation, cst.Name | cst.Attribute):  # a type alias
        alias = interp.eval(annotation, scope)
        if isinstance(alias, TypeExpr):
            alias_scope = interp.module_scope(alias.module)
            return _reducer(interp, alias.node, alias_scope, alias.module, depth + 1)
    return None


def _is_dataclass(interp: Interpreter, cls: Class, scope: Scope) -> bool:
    for decorator in cls.node.decorators:
        expr = decorator.decorator
        value = interp.eval(expr.func if isinstance(expr, cst.Call) else expr, scope)
        if isinstance(value, External) and value.is_("dataclass"):
            return True
    return False


def _leaf(expr: cst.BaseExpression) -> str:
    return (get_full_name_for_node(expr) or "").rpartition(".")[2]
