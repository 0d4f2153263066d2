"""Structured output: classes given to ``.with_structured_output(X)`` or ``response_format=X``.

These models say what a graph's LLM calls produce, which is often what a screen should show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from generator.inspect.state import schema_of
from generator.inspect.values import Class, Site
from generator.models import StateSchema

if TYPE_CHECKING:
    from collections.abc import Iterable

    from generator.inspect.evaluate import Interpreter
    from generator.inspect.modules import Module


def structured_outputs(interp: Interpreter, modules: Iterable[Module]) -> list[StateSchema]:
    """Schemas of the repository classes used for structured output in ``modules``."""
    found: dict[str, StateSchema] = {}
    for module in modules:
        if not any(word in module.data for word in _WORDS):  # skip the walk: most files
            continue
        finder = _Finder()
        module.tree.visit(finder)
        scope = interp.module_scope(module)
        for expr in finder.schemas:
            value = interp.eval(expr, scope)
            if isinstance(value, Class) and value.node.name.value not in found:
                schema = schema_of(interp, value, "structured output", Site(module, expr))
                if schema is not None:
                    found[schema.name] = schema
    return list(found.values())


_WORDS = (b"with_structured_output", b"response_format")


class _Finder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.schemas: list[cst.BaseExpression] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "with_structured_output":
            first = next(
                (a for a in node.args if a.keyword is None or a.keyword.value == "schema"), None
            )
            if first is not None:
                self.schemas.append(first.value)
        self.schemas += [
            arg.value for arg in node.args if arg.keyword and arg.keyword.value == "response_format"
        ]
