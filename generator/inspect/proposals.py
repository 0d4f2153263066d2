"""Values the import proposes for fields a run needs and nothing gives, shown for review.

A context field with no default gets a value only where its code or documentation names one: a
``Literal``'s first value, an enum's first member, or, for a model-name field (``model``,
``model_name``, ``llm``...), the model an ``.env.example`` variable or the README names
(``MODEL=anthropic/claude-3-5-sonnet``). An input field also gets a plain value of its type (a
small number, an empty string or list, ``False``), unless the README or the code shows one
(``"max_analysts": 3``). A dict is never guessed: it is usually a structure the agent needs
(a JSON schema to fill, a configuration), which a reviewer gives. Every proposal says where it
comes from; nothing is read but text.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst.helpers import get_full_name_for_node

from generator.inspect.values import Class, External, Scope

if TYPE_CHECKING:
    from generator.inspect.evaluate import Interpreter

#: The input value proposed for an ``int`` field: a small number most loops and counts accept.
SMALL_NUMBER = 3
#: Plain values by type name (``list[str]`` is a list).
_PLAIN: dict[str, Any] = {
    "int": SMALL_NUMBER, "float": 1.0, "str": "", "bool": False,
    "list": [], "List": [], "Sequence": [], "set": [], "Set": [], "tuple": [], "Tuple": [],
    "frozenset": [],
}  # fmt: skip
#: Wrappers whose first argument is the type itself.
_WRAPPERS = frozenset({"Annotated", "Required", "NotRequired", "ReadOnly"})
#: Field names that hold a chat model's name.
_MODEL_FIELD = re.compile(r"(^|_)(model|llm)(_?name|_?id)?$", re.IGNORECASE)
#: A model named ``provider/model`` or ``provider:model`` in a README.
_MODEL_ID = re.compile(
    r"\b((?:anthropic|openai|azure_openai|google_genai|google_vertexai|bedrock|bedrock_converse"
    r"|fireworks|groq|mistralai|ollama|together|deepseek|xai|cohere)[/:][A-Za-z0-9][\w.\-:]*)"
)
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
_ENV_EXAMPLES = (".env.example", ".env.sample", "example.env")
_READMES = ("README.md", "README.rst", "README.txt", "README")
_LITERAL = r"""(-?\d+(?:\.\d+)?|True|False|"[^"\n]*"|'[^'\n]*')"""

Proposal = tuple[Any, str]


def context_value(
    interp: Interpreter, scope: Scope, name: str, annotation: str, folder: Path
) -> Proposal | None:
    """A value for a context field with no default: its choices first, then a model's name."""
    found = choice(interp, scope, annotation)
    if found is None and _MODEL_FIELD.search(name) and "str" in annotation:
        found = model_name(interp, name, folder)
    return found


def input_value(
    interp: Interpreter, scope: Scope, name: str, annotation: str, folder: Path
) -> Proposal | None:
    """A value for a required input field: its choices, one shown in the README or code, or a
    plain value of its type."""
    found = choice(interp, scope, annotation)
    if found is not None:
        return found
    plain = _plain(_parse(annotation))
    shown = _shown(interp, name, folder)
    if shown is not None and (
        plain is None or plain[0] is None or type(shown[0]) is type(plain[0])
    ):
        return shown
    return plain


def choice(interp: Interpreter, scope: Scope, annotation: str) -> Proposal | None:
    """A ``Literal``'s first value or an enum's first member, as written in the type."""
    expr = _unwrapped(_parse(annotation))
    if isinstance(expr, cst.Subscript) and _leaf(expr.value) == "Literal" and expr.slice:
        first = expr.slice[0].slice
        if isinstance(first, cst.Index):
            value = _literal(first.value)
            if value is not None:
                return value[0], f"the first value of {annotation}"
    if isinstance(expr, cst.Name | cst.Attribute):
        return _enum_member(interp, interp.eval(expr, scope))
    return None


def model_name(interp: Interpreter, name: str, folder: Path) -> Proposal | None:
    """The model an ``.env.example`` variable (``NAME``, else any ``*MODEL*``) or the README
    names."""
    for where in _folders(interp, folder):
        for file in _ENV_EXAMPLES:
            text = interp.project.read_optional(where / file)
            lines = (text or "").splitlines()
            values = {m[1]: m[2] for line in lines if (m := _ENV_LINE.match(line))}
            keys = [name.upper()] + [k for k in values if "MODEL" in k.upper()]
            for key in keys:
                value = values.get(key, "").strip("\"'")
                if value and " " not in value:
                    return value, f"{key} in {file}"
        for file in _READMES:
            text = interp.project.read_optional(where / file)
            if text and (match := _MODEL_ID.search(text)):
                return match.group(1), f"named in {file}"
    return None


def _shown(interp: Interpreter, name: str, folder: Path) -> Proposal | None:
    """A literal value given to ``name`` in the README or the code read (``"name": 3``,
    ``name=3``), or its default where code reads it (``.get("name", 3)``)."""
    key = re.escape(name)
    pattern = re.compile(
        rf"""["']?\b{key}\b["']?\s*[:=]\s*{_LITERAL}|\.get\(\s*["']{key}["']\s*,\s*{_LITERAL}"""
    )
    texts = [
        (file, interp.project.read_optional(where / file))
        for where in _folders(interp, folder)
        for file in _READMES
    ]
    texts += [
        (module.rel, module.data.decode("utf-8", "replace")) for module in interp.project.modules
    ]
    for where, text in texts:
        if text and (match := pattern.search(text)):
            return ast.literal_eval(match.group(1) or match.group(2)), f"shown in {where}"
    return None


def _plain(expr: cst.BaseExpression | None) -> Proposal | None:
    expr = _unwrapped(expr)
    if expr is None:
        return None
    if _optional(expr):
        return None, "the type allows None"
    base = expr.value if isinstance(expr, cst.Subscript) else expr
    leaf = _leaf(base)
    if leaf in _PLAIN:
        return _PLAIN[leaf], f"a value of type {leaf}"
    return None


def _optional(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Subscript):
        return _leaf(expr.value) == "Optional"
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
        return any(
            (isinstance(side, cst.Name) and side.value == "None") or _optional(side)
            for side in (expr.left, expr.right)
        )
    return False


def _enum_member(interp: Interpreter, value: object) -> Proposal | None:
    if not isinstance(value, Class):
        return None
    bases = [
        interp.eval(base.value, value.scope.parent or value.scope) for base in value.node.bases
    ]
    if not any(isinstance(b, External) and b.qualname.startswith("enum.") for b in bases):
        return None
    for line in value.node.body.body:
        if isinstance(line, cst.SimpleStatementLine):
            for stmt in line.body:
                if isinstance(stmt, cst.Assign) and isinstance(stmt.targets[0].target, cst.Name):
                    member = _literal(stmt.value)
                    if member is not None:
                        first = stmt.targets[0].target.value
                        return member[0], f"the first member of {value.node.name.value}, {first}"
    return None


def _unwrapped(expr: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """The type inside ``Annotated[...]``, ``Required[...]`` and the like."""
    while isinstance(expr, cst.Subscript) and _leaf(expr.value) in _WRAPPERS and expr.slice:
        inner = expr.slice[0].slice
        if not isinstance(inner, cst.Index):
            return None
        expr = inner.value
    return expr


def _parse(annotation: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(annotation)
    except cst.ParserSyntaxError:
        return None


def _literal(expr: cst.BaseExpression) -> tuple[Any] | None:
    """``(value,)`` for a literal constant (a 1-tuple, since the value may be None)."""
    if isinstance(expr, cst.Name) and expr.value in {"True", "False", "None"}:
        return ({"True": True, "False": False, "None": None}[expr.value],)
    if isinstance(expr, cst.SimpleString | cst.Integer | cst.Float | cst.ConcatenatedString):
        value = expr.evaluated_value
        return (value,) if isinstance(value, str | int | float) else None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _literal(expr.expression)
        return (-inner[0],) if inner and isinstance(inner[0], int | float) else None
    return None


def _leaf(expr: cst.BaseExpression) -> str:
    return (get_full_name_for_node(expr) or "").rpartition(".")[2]


def _folders(interp: Interpreter, folder: Path) -> list[Path]:
    """The graph's folder and each one above it up to the source root."""
    root = interp.project.root
    found = [folder]
    while found[-1] != root and root in found[-1].parents:
        found.append(found[-1].parent)
    return list(dict.fromkeys(found))
