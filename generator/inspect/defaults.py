"""A state or context field's default, read from how it is written.

``x: int = 5``, ``field(default=5)``, ``Field(5, description=...)`` give a default;
``Field(description=...)`` alone or ``Field(...)`` do not. Both the inspector (which fields a run
needs) and the plugin's settings (which values ``agent.json`` records) ask here.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from generator.models import StateField

#: Calls whose ``default=`` (or first argument) is the field's default: dataclasses and pydantic.
_DEFAULT_CALLS = frozenset({"field", "Field", "dataclasses.field", "pydantic.Field"})

#: What ``literal_default`` returns for a field whose default is no JSON literal.
NO_VALUE = object()


def literal_default(field: StateField) -> Any:
    """The field's default when it is a JSON literal (``5``, ``"x"``, ``field(default="x")``)."""
    expr = _default_expr(field)
    if expr is None:
        return NO_VALUE
    try:
        value = ast.literal_eval(expr)
        json.dumps(value)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return NO_VALUE
    return value


def has_default(field: StateField) -> bool:
    """False for a field that must be given: no default, or ``Field(description=...)`` alone."""
    if field.default is None:
        return False
    call = _parsed(field.default)
    if isinstance(call, ast.Call) and ast.unparse(call.func) in _DEFAULT_CALLS:
        given = {k.arg for k in call.keywords} & {"default", "default_factory"}
        positional = call.args[:1]
        return bool(given) or (bool(positional) and ast.unparse(positional[0]) != "...")
    return True


def _default_expr(field: StateField) -> ast.expr | None:
    """The default's expression, unwrapped from ``field(default=...)``/``Field(...)``."""
    tree = _parsed(field.default) if field.default is not None else None
    if isinstance(tree, ast.Call) and ast.unparse(tree.func) in _DEFAULT_CALLS:
        given = [k.value for k in tree.keywords if k.arg == "default"] or tree.args[:1]
        return given[0] if given else None
    return tree


def _parsed(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
