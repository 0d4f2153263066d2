"""What a node returns: the state keys it writes, and where a ``Command`` sends control.

Read from the node's ``return`` statements: dict literals (``{**state, "k": v}`` counts as writing
``k``), ``dict(k=v)``, ``Command(update=..., goto=...)``, instances of repository state classes,
and local variables built from those (``out = {}``; ``out["k"] = v``; ``out.update(...)``).
A value built any other way (a helper call, a parameter) makes the keys incomplete; the caller
reports it as a warning rather than guessing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst
from libcst.helpers import get_full_name_for_node

from generator.inspect.values import (
    Class,
    External,
    Function,
    Lambda,
    Scope,
    node_id,
    params_of,
)

if TYPE_CHECKING:
    from generator.inspect.evaluate import Interpreter

_MAX_DEPTH = 8


@dataclass
class Returns:
    keys: list[str] = field(default_factory=list)
    complete: bool = True
    goto: list[str] = field(default_factory=list)
    #: Expressions whose keys could not be read, with what they are.
    unknown: list[tuple[cst.CSTNode, str]] = field(default_factory=list)

    def add(self, key: str) -> None:
        if key not in self.keys:
            self.keys.append(key)

    def give_up(self, node: cst.CSTNode, what: str) -> None:
        self.complete = False
        self.unknown.append((node, what))


def node_returns(interp: Interpreter, target: Function | Lambda) -> Returns:
    """The keys ``target`` returns, and its ``Command`` destinations."""
    out = Returns()
    reader = _Reader(interp, target)
    for expr in reader.body.returns:
        reader.value(expr, out, 0)
    if isinstance(target, Function):  # Command[Literal[...]] declares the destinations
        out.goto += [n for n in _literal_strings(target.node.returns) if n not in out.goto]
    return out


def route_targets(interp: Interpreter, target: Function | Lambda) -> list[str] | None:
    """Nodes a routing function can return: its ``Literal[...]`` annotation or its returns."""
    if isinstance(target, Function):
        annotated = _literal_strings(target.node.returns)
        if annotated:
            return annotated
    reader = _Reader(interp, target)
    found: list[str] = []
    for expr in reader.body.returns:
        names = reader.names(expr) if expr is not None else None
        if names is None:
            return None
        found += names
    return list(dict.fromkeys(found)) or None


class _Body(cst.CSTVisitor):
    """Returns and local dict building in one function body (nested functions skipped)."""

    def __init__(self) -> None:
        self.returns: list[cst.BaseExpression | None] = []
        self.assigned: defaultdict[str, list[cst.BaseExpression]] = defaultdict(list)
        self.subscripts: defaultdict[str, list[cst.BaseExpression]] = defaultdict(list)
        self.updates: defaultdict[str, list[cst.Call]] = defaultdict(list)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target, node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "update"
            and isinstance(func.value, cst.Name)
        ):
            self.updates[func.value.value].append(node)

    def _target(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.assigned[target.value].append(value)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            element = target.slice[0].slice if len(target.slice) == 1 else None
            if isinstance(element, cst.Index):
                self.subscripts[target.value.value].append(element.value)


class _Reader:
    def __init__(self, interp: Interpreter, target: Function | Lambda) -> None:
        self.interp = interp
        self.module = target.module
        self.scope: Scope = interp.function_scope(target)
        self.body = _Body()
        if isinstance(target, Lambda):
            self.body.returns.append(target.node.body)
        else:
            target.node.body.visit(self.body)
        self.params = {param.name.value for param in params_of(target.node)}

    def value(self, expr: cst.BaseExpression | None, out: Returns, depth: int) -> None:
        """Add the keys of the returned ``expr`` to ``out``."""
        if expr is None or depth > _MAX_DEPTH:
            return
        match expr:
            case cst.Name(value="None"):
                return
            case cst.Dict():
                self._dict(expr, out, depth)
            case cst.Call():
                self._call(expr, out, depth)
            case cst.Name() if expr.value in self.params or expr.value in self.body.assigned:
                self._local(expr, out, depth)
            case cst.IfExp():
                self.value(expr.body, out, depth + 1)
                self.value(expr.orelse, out, depth + 1)
            case _:
                out.give_up(expr, self.module.shown(expr))

    def _dict(self, expr: cst.Dict, out: Returns, depth: int) -> None:
        for element in expr.elements:
            if isinstance(element, cst.DictElement):
                key = element.key
                if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
                    out.add(key.evaluated_value)
                else:
                    out.give_up(key, f"a computed key {self.module.shown(key)}")
            elif not self._echoes_input(element.value):
                self.value(element.value, out, depth + 1)  # {**other, ...}: other's keys too

    def _echoes_input(self, expr: cst.BaseExpression) -> bool:
        """``state``, ``state.model_dump()``, ``dict(state)``, ``asdict(state)``: the input."""
        match expr:
            case cst.Name():
                return expr.value in self.params
            case cst.Call(func=cst.Attribute(value=cst.Name() as owner), args=[]):
                return owner.value in self.params
            case cst.Call(args=[cst.Arg(keyword=None, star="", value=cst.Name() as only)]):
                return only.value in self.params
        return False

    def _call(self, call: cst.Call, out: Returns, depth: int) -> None:
        func = self.interp.eval(call.func, self.scope)
        keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword}
        if isinstance(func, External) and func.is_("Command"):
            self.value(keywords.get("update"), out, depth + 1)
            goto = keywords.get("goto")
            if goto is not None:
                names = self.names(goto)
                if names is None:
                    out.give_up(goto, f"a Command goto {self.module.shown(goto)}")
                out.goto += [name for name in names or [] if name not in out.goto]
        elif (isinstance(func, External) and func.qualname == "builtins.dict") or isinstance(
            func, Class
        ):
            self._keyword_keys(call, out, depth)
        else:
            out.give_up(call, self.module.shown(call))

    def _keyword_keys(self, call: cst.Call, out: Returns, depth: int) -> None:
        """Keys of ``dict(...)``, ``State(...)`` or ``x.update(...)``: keywords and mappings."""
        for arg in call.args:
            if arg.keyword is not None:
                out.add(arg.keyword.value)
            elif arg.star == "**":
                out.give_up(arg.value, self.module.shown(arg.value))
            else:
                self.value(arg.value, out, depth + 1)

    def _local(self, name: cst.Name, out: Returns, depth: int) -> None:
        if name.value in self.params and not self.body.assigned[name.value]:
            out.give_up(name, f"its parameter {name.value!r} (changed in place)")
        for value in self.body.assigned[name.value]:
            self.value(value, out, depth + 1)
        for key in self.body.subscripts[name.value]:
            if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
                out.add(key.evaluated_value)
            else:
                out.give_up(key, f"a computed key {self.module.shown(key)}")
        for update in self.body.updates[name.value]:
            self._keyword_keys(update, out, depth + 1)

    def names(self, expr: cst.BaseExpression) -> list[str] | None:
        """Node names ``expr`` stands for (strings, ``END``, ``Send(...)``, lists of them)."""
        match expr:
            case cst.SimpleString() if isinstance(expr.evaluated_value, str):
                return [expr.evaluated_value]
            case cst.Name() | cst.Attribute():
                found = node_id(self.interp.eval(expr, self.scope))
                return [found] if found is not None else None
            case cst.List() | cst.Tuple():
                collected: list[str] = []
                for element in expr.elements:
                    names = self.names(element.value)
                    if names is None:
                        return None
                    collected += names
                return collected
            case cst.IfExp():
                body, orelse = self.names(expr.body), self.names(expr.orelse)
                return body + orelse if body is not None and orelse is not None else None
            case cst.Call() if expr.args:
                func = self.interp.eval(expr.func, self.scope)
                if isinstance(func, External) and func.is_("Send"):
                    return self.names(expr.args[0].value)
        return None


def _literal_strings(annotation: cst.Annotation | None) -> list[str]:
    """Strings inside ``Literal[...]`` in a return annotation (``Command[Literal["a"]]``)."""
    if annotation is None:
        return []
    found: list[str] = []

    class _Literals(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> None:
            name = get_full_name_for_node(node.value) or ""
            if name.rpartition(".")[2] == "Literal":
                for element in node.slice:
                    index = element.slice
                    if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                        value = index.value.evaluated_value
                        if isinstance(value, str) and value not in found:
                            found.append(value)

    annotation.visit(_Literals())
    return found
