"""A tiny abstract interpreter over LibCST trees: it reads code the way Python would run it.

Module bodies are walked top to bottom, binding names to ``values``; imports are followed into
other repository files lazily; calls to repository functions and classes are followed (with their
arguments bound) so graphs built inside functions, factories and class methods are seen. Library
names stay ``External`` and only the LangGraph ones that build graphs (``StateGraph``,
``ToolNode``, ``create_react_agent``...) get meaning. Loops over literal sequences run item by
item; other loops run their body once and mark what they add as not knowable. Nothing is ever
imported or executed; work is bounded by a step budget and a call depth so hostile or huge code
cannot stall an inspection. What ``StateGraph`` methods and library prebuilts add is decided in
``builders`` and ``prebuilts``, handed in as ``Handlers``: they call back into the interpreter, so
it imports neither.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.helpers import get_full_name_for_node

from generator.inspect.modules import Module, Project, find_nodes
from generator.inspect.values import (
    LIBRARY_ROOTS,
    Builder,
    Class,
    Compiled,
    Const,
    Entrypoint,
    External,
    Function,
    Graphish,
    HandoffTool,
    Instance,
    Lambda,
    Mapping,
    Method,
    ModuleRef,
    Pending,
    Prebuilt,
    Scope,
    Seq,
    Site,
    ToolNode,
    TypeExpr,
    Unknown,
    Value,
    const_str,
    describe,
)
from generator.paths import find_module, relative

MAX_STEPS = 50_000
MAX_CALL_DEPTH = 8
MAX_EXPR_DEPTH = 50
#: Longest literal sequence a ``for`` loop is unrolled over.
MAX_UNROLL = 64
#: Methods of a dict literal that give a sequence: ``for name, fn in NODES.items()``.
_DICT_VIEWS = frozenset({"items", "keys", "values"})
_BUILTINS = frozenset(dir(builtins))
#: Methods of a compiled graph that return an equivalent graph.
_SAME_GRAPH = frozenset({"with_config", "with_retry", "with_listeners", "with_types"})
#: Why an item of a literal sequence is unknown when it is ``*unpacked``.
UNPACKED = "an unpacked value"
#: Library callables whose first argument is what a node really runs.
_WRAPPERS = ("partial", "RunnableLambda", "RunnableCallable")
#: Standard-library calls that return what their first argument's call returns: a graph built by
#: an async function at import (``graph = asyncio.run(build_graph())``) is that graph.
_RUNS = frozenset({"asyncio.run", "asyncio.get_event_loop.run_until_complete"})


@dataclass
class Args:
    """The arguments of one call, evaluated, with the expressions they came from."""

    positional: list[Value] = field(default_factory=list)
    keywords: dict[str, Value] = field(default_factory=dict)
    exprs: list[cst.BaseExpression] = field(default_factory=list)
    keyword_exprs: dict[str, cst.BaseExpression] = field(default_factory=dict)

    def get(self, index: int, keyword: str) -> Value | None:
        """The argument given at ``index`` or as ``keyword`` (None if not given)."""
        if index < len(self.positional):
            return self.positional[index]
        return self.keywords.get(keyword)

    def expr(self, index: int, keyword: str) -> cst.BaseExpression | None:
        if index < len(self.exprs):
            return self.exprs[index]
        return self.keyword_exprs.get(keyword)


@dataclass(frozen=True)
class Handlers:
    """The calls that build graphs, made by modules that call back into the interpreter."""

    #: ``StateGraph(...)``.
    new_builder: Callable[[Args, Site], Value]
    #: ``builder.name(...)`` on a ``StateGraph``.
    builder_method: Callable[[Interpreter, Builder, str, Args, Site], Value]
    #: ``create_swarm(...)``.
    new_swarm: Callable[[Interpreter, Args, Site], Value]
    #: ``create_supervisor(...)``.
    new_supervisor: Callable[[Interpreter, Args, Site], Value]


class Interpreter:
    """Evaluates the repository's code into ``values``, one inspection at a time."""

    def __init__(self, project: Project, handlers: Handlers) -> None:
        self.project = project
        self.handlers = handlers
        self.loops = 0  # > 0 while walking a loop body, also inside functions it calls
        self._scopes: dict[Path, Scope] = {}
        self._steps = 0
        self._calls = 0
        self._depth = 0

    # --- modules and names -------------------------------------------------------------

    def module_scope(self, module: Module) -> Scope:
        """The module's top-level names after running its body (once per inspection)."""
        scope = self._scopes.get(module.path)
        if scope is None:
            scope = self._scopes[module.path] = Scope(module, None)  # before: import cycles
            self.run(module.tree.body, scope)
        return scope

    def lookup(self, scope: Scope, name: str, node: cst.CSTNode | None = None) -> Value:
        found: Scope | None = scope
        while found is not None:
            if name in found.vars:
                return self._settle(found, name)
            root, found = found, found.parent
        for star in root.stars:
            value = self._resolve(star, name)
            library_guess = isinstance(value, External) and name in _BUILTINS
            if not isinstance(value, Unknown) and not library_guess:
                return value
        if name in _BUILTINS:
            return External(f"builtins.{name}")
        site = Site(scope.module, node) if node is not None else None
        return Unknown(f"{name!r} is not defined", site)

    def _settle(self, scope: Scope, name: str) -> Value:
        value = scope.vars[name]
        if isinstance(value, Pending):
            scope.vars[name] = Unknown(f"{name!r} is imported in a cycle")  # while resolving
            value = scope.vars[name] = self._resolve(value)
        return value

    def _resolve(self, pending: Pending, star_name: str | None = None) -> Value:
        name = star_name or pending.name
        if not pending.level and pending.module.partition(".")[0] in LIBRARY_ROOTS:
            # A known library is read from its documented shape, even from inside its own
            # repository (an example of the vendored langgraph-swarm), never from its internals.
            return External(".".join(p for p in (pending.module, name) if p))
        target = self.project.find(pending.importer, pending.module, pending.level)
        if target is None:
            if pending.level:
                dots = "." * pending.level
                return Unknown(f"relative import {dots}{pending.module} is not in the repository")
            dotted = ".".join(p for p in (pending.module, name) if p)
            return External(dotted)
        ref = self._module_ref(target)
        return ref if name is None else self.attribute(ref, name, None)

    def _module_ref(self, target: Path) -> ModuleRef:
        if target.is_dir():
            return ModuleRef(package=target)
        package = target.parent if target.name == "__init__.py" else None
        return ModuleRef(package=package, module=self.project.module(target))

    def attribute(self, base: Value, name: str, site: Site | None) -> Value:
        """``base.name``."""
        match base:
            case External():
                return External(f"{base.qualname}.{name}")
            case ModuleRef():
                return self._module_attribute(base, name, site)
            case Instance():
                if name in base.attrs:
                    return base.attrs[name]
                return self._bind_self(self.class_attr(base.cls, name), base, name)
            case Class():
                return self.class_attr(base, name) or Unknown(
                    f"{base.node.name.value}.{name} is not defined", site
                )
            case Builder() | Compiled() | Prebuilt() | ToolNode():
                return Method(base, name)
            case Mapping() if name in _DICT_VIEWS:
                return Method(base, name)
            case Const() if name == "value":  # Enum members of str enums
                return base
            case Unknown():
                return base
        return Unknown(f"attribute {name!r} of {describe(base)}", site)

    def _module_attribute(self, ref: ModuleRef, name: str, site: Site | None) -> Value:
        if ref.module is not None:
            scope = self.module_scope(ref.module)
            if name in scope.vars:
                return self._settle(scope, name)
        if ref.package is not None:
            sub = find_module(self.project.root, [ref.package], name)
            if sub is not None:
                return self._module_ref(sub)
        if ref.module is not None:
            where = ref.module.rel
        else:
            where = relative(self.project.root, ref.package or self.project.root) + "/"
        return Unknown(f"{name!r} is not defined in {where}", site)

    def class_attr(self, cls: Class, name: str, seen: frozenset[int] = frozenset()) -> Value | None:
        """A name from the class body or its repository base classes (None if absent)."""
        if name in cls.scope.vars:
            return self._settle(cls.scope, name)
        seen |= {id(cls)}
        for base in cls.node.bases:
            value = self.eval(base.value, cls.scope)  # names rebound later can make cycles
            if isinstance(value, Class) and id(value) not in seen:
                found = self.class_attr(value, name, seen)
                if found is not None:
                    return found
        return None

    def _bind_self(self, value: Value | None, instance: Instance, name: str) -> Value:
        if isinstance(value, Function):
            return Function(value.node, value.module, value.scope, bound=instance)
        if value is None:
            cls = instance.cls.node.name.value
            return Unknown(f"{cls}.{name} is set at run time")
        return value

    # --- statements ----------------------------------------------------------------------

    def run(self, body: Sequence[cst.CSTNode], scope: Scope) -> None:
        for stmt in body:
            self._steps += 1
            if self._steps > MAX_STEPS:
                if self._steps == MAX_STEPS + 1:
                    self.project.warn(scope.module, stmt, "code too large; stopped reading here")
                return
            self._statement(stmt, scope)

    def _statement(self, stmt: cst.CSTNode, scope: Scope) -> None:
        match stmt:
            case cst.SimpleStatementLine() | cst.SimpleStatementSuite():
                self.run(stmt.body, scope)
            case cst.FunctionDef():
                self._bind(scope, stmt.name.value, self._function(stmt, scope), stmt)
            case cst.ClassDef():
                self._bind(scope, stmt.name.value, self._class(stmt, scope), stmt)
            case cst.If():
                if not _is_main_guard(stmt.test):
                    self.eval(stmt.test, scope)
                    self._suite(stmt.body, scope)
                    if stmt.orelse is not None:
                        self._statement(stmt.orelse, scope)
            case cst.Else():
                self._suite(stmt.body, scope)
            case cst.For():
                items = self._unrolled(stmt, scope)
                for element in items or []:
                    self._assign(stmt.target, element, scope, stmt)
                    self._suite(stmt.body, scope)
                if items is None:
                    self._assign(stmt.target, Unknown("a loop variable"), scope, stmt)
                    self._loop_once(stmt.body, scope)
                if stmt.orelse is not None:
                    self._suite(stmt.orelse.body, scope)
            case cst.While():
                self._loop_once(stmt.body, scope)
                if stmt.orelse is not None:
                    self._suite(stmt.orelse.body, scope)
            case cst.Try() | cst.TryStar():
                self._suite(stmt.body, scope)  # except-branches are fallbacks: not the usual path
                for extra in (stmt.orelse, stmt.finalbody):
                    if extra is not None:
                        self._suite(extra.body, scope)
            case cst.With():
                for item in stmt.items:
                    value = self.eval(item.item, scope)
                    if item.asname is not None:
                        entered = value if isinstance(value, Graphish) else Unknown("a with-target")
                        self._assign(item.asname.name, entered, scope, stmt)
                self._suite(stmt.body, scope)
            case cst.Match():
                for case in stmt.cases:
                    self._suite(case.body, scope)
            case _:
                self._small(stmt, scope)

    def _loop_once(self, body: cst.BaseSuite, scope: Scope) -> None:
        """A loop body whose iterations are not known: run once, what it adds marked unknown."""
        self.loops += 1
        self._suite(body, scope)
        self.loops -= 1

    def _unrolled(self, loop: cst.For, scope: Scope) -> list[Value] | None:
        """The items a ``for`` runs over when they are a literal sequence, to run it item by item.

        Only loops that always run every item in order qualify: no ``break``/``continue``, not
        ``async for``, at most ``MAX_UNROLL`` items; the step budget still bounds the work.
        """
        iterable = self.eval(loop.iter, scope)
        if isinstance(iterable, Mapping) and iterable.complete:
            iterable = Seq([key for key, _ in iterable.items])
        if not isinstance(iterable, Seq) or len(iterable.items) > MAX_UNROLL:
            return None
        if loop.asynchronous is not None or find_nodes(loop.body, cst.Break, cst.Continue):
            return None
        return iterable.items

    def _suite(self, suite: cst.BaseSuite, scope: Scope) -> None:
        self.run(suite.body, scope)

    def _small(self, stmt: cst.CSTNode, scope: Scope) -> None:
        match stmt:
            case cst.Assign():
                value = self.eval(stmt.value, scope)
                for target in stmt.targets:
                    self._assign(target.target, value, scope, stmt)
            case cst.AnnAssign(value=cst.BaseExpression() as expr):
                self._assign(stmt.target, self.eval(expr, scope), scope, stmt)
            case cst.AugAssign():
                self.eval(stmt.value, scope)
                self._assign(stmt.target, Unknown("an augmented assignment"), scope, stmt)
            case cst.TypeAlias():
                self._assign(stmt.name, self.eval(stmt.value, scope), scope, stmt)
            case cst.Expr():
                self.eval(stmt.value, scope)
            case cst.Return():
                scope.returns.append(self.eval(stmt.value, scope) if stmt.value else Const(None))
            case cst.Import():
                for alias in stmt.names:
                    dotted = get_full_name_for_node(alias.name) or ""
                    if alias.asname is not None:
                        bound = get_full_name_for_node(alias.asname.name) or dotted
                        self._bind(scope, bound, Pending(scope.module, dotted, None, 0), stmt)
                    else:
                        top = dotted.partition(".")[0]
                        self._bind(scope, top, Pending(scope.module, top, None, 0), stmt)
            case cst.ImportFrom():
                self._import_from(stmt, scope)

    def _import_from(self, stmt: cst.ImportFrom, scope: Scope) -> None:
        dotted = get_full_name_for_node(stmt.module) if stmt.module else ""
        level = len(stmt.relative)
        if isinstance(stmt.names, cst.ImportStar):
            scope.stars.append(Pending(scope.module, dotted or "", None, level))
            return
        for alias in stmt.names:
            name = get_full_name_for_node(alias.name) or ""
            bound = get_full_name_for_node(alias.asname.name) if alias.asname else None
            self._bind(scope, bound or name, Pending(scope.module, dotted or "", name, level), stmt)

    def _bind(self, scope: Scope, name: str, value: Value | Pending, node: cst.CSTNode) -> None:
        scope.vars[name] = value
        scope.sites[name] = node

    def _assign(self, target: cst.CSTNode, value: Value, scope: Scope, stmt: cst.CSTNode) -> None:
        match target:
            case cst.Name():
                self._bind(scope, target.value, value, stmt)
            case cst.Attribute():
                owner = self.eval(target.value, scope)
                if isinstance(owner, Instance):
                    owner.attrs[target.attr.value] = value
            case cst.Tuple() | cst.List():
                items = value.items if isinstance(value, Seq) else []
                for index, element in enumerate(target.elements):
                    item = items[index] if len(items) == len(target.elements) else None
                    self._assign(element.value, item or Unknown("an unpacked value"), scope, stmt)

    def _function(self, node: cst.FunctionDef, scope: Scope) -> Value:
        closure = scope.parent if scope.is_class and scope.parent else scope
        function = Function(node, scope.module, closure)
        for decorator in node.decorators:
            expr = decorator.decorator
            value = self.eval(expr.func if isinstance(expr, cst.Call) else expr, scope)
            if isinstance(value, External) and value.is_("entrypoint"):
                return Entrypoint(function)
        return function

    def _class(self, node: cst.ClassDef, scope: Scope) -> Class:
        body = Scope(scope.module, scope, is_class=True)
        self.run(node.body.body, body)
        return Class(node, scope.module, body)

    # --- expressions ---------------------------------------------------------------------

    def eval(self, expr: cst.BaseExpression, scope: Scope) -> Value:
        if self._depth >= MAX_EXPR_DEPTH:
            return Unknown("an expression nested too deeply", Site(scope.module, expr))
        self._depth += 1
        try:
            return self._eval(expr, scope)
        finally:
            self._depth -= 1

    def _eval(self, expr: cst.BaseExpression, scope: Scope) -> Value:
        site = Site(scope.module, expr)
        match expr:
            case cst.Name(value="True" | "False" | "None"):
                return Const({"True": True, "False": False, "None": None}[expr.value])
            case cst.Name():
                return self.lookup(scope, expr.value, expr)
            case cst.Attribute():
                return self.attribute(self.eval(expr.value, scope), expr.attr.value, site)
            case cst.Call():
                return self.call(self.eval(expr.func, scope), self._args(expr, scope), site)
            case cst.SimpleString() | cst.Integer() | cst.Float() | cst.ConcatenatedString():
                value = expr.evaluated_value
                return Const(value) if value is not None else Unknown("an f-string", site)
            case cst.List() | cst.Tuple() | cst.Set():
                return Seq([self._element(element, scope) for element in expr.elements])
            case cst.Dict():
                return self._dict(expr, scope)
            case cst.Lambda():
                return Lambda(expr, scope.module)
            case cst.UnaryOperation(operator=cst.Minus()):  # STEPS[-1]
                number = _integer(self.eval(expr.expression, scope))
                return Const(-number) if number is not None else Unknown("a negated value", site)
            case cst.Await():
                return self.eval(expr.expression, scope)
            case cst.Subscript():
                base = self.eval(expr.value, scope)
                if isinstance(base, External | Class | TypeExpr):
                    return TypeExpr(expr, scope.module)
                item = self._item(base, expr.slice, scope)
                if item is not None:
                    return item
                return Unknown(f"{scope.module.shown(expr)}, looked up at run time", site)
            case cst.Yield(value=cst.BaseExpression() as yielded):
                scope.returns.append(self.eval(yielded, scope))
            case cst.NamedExpr():
                named = self.eval(expr.value, scope)
                self._assign(expr.target, named, scope, expr)
                return named
            case cst.ListComp() | cst.SetComp() | cst.GeneratorExp() | cst.DictComp():
                inner = Scope(scope.module, scope)
                self._comprehension(expr.for_in, inner)
                self.loops += 1
                for part in (
                    (expr.key, expr.value) if isinstance(expr, cst.DictComp) else (expr.elt,)
                ):
                    self.eval(part, inner)
                self.loops -= 1
                return Unknown("a comprehension", site)
            case cst.IfExp() | cst.BooleanOperation():
                for part in (
                    (expr.body, expr.orelse)
                    if isinstance(expr, cst.IfExp)
                    else (expr.left, expr.right)
                ):
                    self.eval(part, scope)
                return Unknown("a value chosen at run time", site)
        return Unknown(f"a {type(expr).__name__} expression", site)

    def _item(
        self, base: Value, index: Sequence[cst.SubscriptElement], scope: Scope
    ) -> Value | None:
        """``seq[0]``, ``seq[1:]`` or ``mapping["key"]`` of a literal; None if not known."""
        part = index[0].slice if len(index) == 1 else None
        if isinstance(part, cst.Index):
            key = self.eval(part.value, scope)
            if isinstance(base, Mapping) and base.complete and isinstance(key, Const):
                found = [value for k, value in base.items if k == key]
                return found[-1] if found else None
            position = _integer(key)
            if isinstance(base, Seq) and _exact(base) and position is not None:
                inside = -len(base.items) <= position < len(base.items)
                return base.items[position] if inside else None
        elif isinstance(part, cst.Slice) and isinstance(base, Seq) and _exact(base):
            written = [part.lower, part.upper, part.step]
            bounds = [_integer(self.eval(b, scope)) if b is not None else None for b in written]
            known = zip(written, bounds, strict=True)
            if all(expr is None or bound is not None for expr, bound in known):
                return Seq(base.items[slice(*bounds)])
        return None

    def _element(self, element: cst.BaseElement, scope: Scope) -> Value:
        if isinstance(element, cst.StarredElement):
            return Unknown(UNPACKED)
        return self.eval(element.value, scope)

    def _dict(self, expr: cst.Dict, scope: Scope) -> Mapping:
        mapping = Mapping([])
        for element in expr.elements:
            if isinstance(element, cst.DictElement):
                key = self.eval(element.key, scope)
                mapping.items.append((key, self.eval(element.value, scope)))
            else:
                mapping.complete = False
        return mapping

    def _comprehension(self, for_in: cst.CompFor, scope: Scope) -> None:
        self.eval(for_in.iter, scope)
        self._assign(for_in.target, Unknown("a comprehension variable"), scope, for_in)
        if for_in.inner_for_in is not None:
            self._comprehension(for_in.inner_for_in, scope)

    def _args(self, call: cst.Call, scope: Scope) -> Args:
        args = Args()
        for arg in call.args:
            value = self.eval(arg.value, scope)
            if arg.keyword is not None:
                args.keywords[arg.keyword.value] = value
                args.keyword_exprs[arg.keyword.value] = arg.value
            elif not arg.star:
                args.positional.append(value)
                args.exprs.append(arg.value)
        return args

    # --- calls ---------------------------------------------------------------------------

    def call(self, func: Value, args: Args, site: Site) -> Value:
        """The value ``func(*args)`` returns, as far as it can be known."""
        match func:
            case External():
                return self._call_external(func, args, site)
            case Function():
                return self.invoke(func, args, site)
            case Class():
                return self._instantiate(func, args, site)
            case Method(receiver=Builder() as builder):
                return self.handlers.builder_method(self, builder, func.name, args, site)
            case Method(receiver=Compiled() | Prebuilt() as graph) if func.name in _SAME_GRAPH:
                return graph
            case Method(receiver=Mapping() as mapping) if mapping.complete:
                return _dict_view(mapping, func.name)
            case Unknown():
                return func
        return Unknown(f"the result of calling {describe(func)}", site)

    def _call_external(self, func: External, args: Args, site: Site) -> Value:
        if func.is_("StateGraph"):
            return self.handlers.new_builder(args, site)
        if func.is_("ToolNode"):
            return ToolNode(const_str(args.keywords.get("name")) or "tools", site)
        if func.is_("create_react_agent", "create_agent", "create_deep_agent"):
            named = dict(zip(("model", "tools"), args.positional, strict=False))
            return Prebuilt(func.leaf, {**named, **args.keywords}, site)
        if func.is_("create_handoff_tool"):
            return HandoffTool(const_str(args.get(0, "agent_name")))
        if func.is_("create_swarm"):
            return self.handlers.new_swarm(self, args, site)
        if func.is_("create_supervisor"):
            return self.handlers.new_supervisor(self, args, site)
        if (func.is_(*_WRAPPERS) or func.qualname in _RUNS) and args.positional:
            return args.positional[0]
        if func.qualname.startswith("builtins."):
            found = self._builtin(func.leaf, args, site)
            if found is not None:
                return found
        return Unknown(f"the value {func.qualname}() returns (outside the repository)", site)

    def _builtin(self, name: str, args: Args, site: Site) -> Value | None:
        """``getattr(x, "name")``, and ``zip``/``list``/``tuple`` of literal sequences: the
        shapes that add nodes by name from a table in another module."""
        given = args.positional
        match name, given:
            case "getattr", [owner, Const(value=str() as attribute), *_]:
                return self.attribute(owner, attribute, site)
            case "zip", [_, *_] if all(isinstance(s, Seq) and _exact(s) for s in given):
                columns = [s.items for s in given if isinstance(s, Seq)]
                return Seq([Seq(list(row)) for row in zip(*columns, strict=False)])
            case "list" | "tuple", [Seq() as items] if _exact(items):
                return Seq(list(items.items))
        return None

    def invoke(self, func: Function, args: Args, site: Site) -> Value:
        """Run a repository function's body with its parameters bound; its return value."""
        if self._calls >= MAX_CALL_DEPTH:
            return Unknown(f"calls nested too deeply at {func.name}()", site)
        scope = Scope(func.module, func.scope)
        self._bind_params(func, args, scope)
        self._calls += 1
        try:
            self._suite(func.node.body, scope)
        finally:
            self._calls -= 1
        graphs = [value for value in scope.returns if isinstance(value, Graphish)]
        if graphs:
            return graphs[0]
        return scope.returns[-1] if scope.returns else Const(None)

    def _bind_params(self, func: Function, args: Args, scope: Scope) -> None:
        params = func.node.params
        given = [func.bound, *args.positional] if func.bound is not None else args.positional
        for index, param in enumerate([*params.posonly_params, *params.params]):
            value = given[index] if index < len(given) else args.keywords.get(param.name.value)
            scope.vars[param.name.value] = value or self._default(func, param)
        for param in params.kwonly_params:
            scope.vars[param.name.value] = args.keywords.get(param.name.value) or self._default(
                func, param
            )
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.vars[star.name.value] = Unknown(f"*{star.name.value} of {func.name}()")

    def _default(self, func: Function, param: cst.Param) -> Value:
        if param.default is not None:
            return self.eval(param.default, func.scope)
        return Unknown(f"parameter {param.name.value!r} of {func.name}()")

    def _instantiate(self, cls: Class, args: Args, site: Site) -> Instance:
        instance = Instance(cls)
        init = self.class_attr(cls, "__init__")
        if isinstance(init, Function):
            self.invoke(Function(init.node, init.module, init.scope, bound=instance), args, site)
        return instance

    def function_scope(self, func: Function | Lambda) -> Scope:
        """A scope to resolve names used inside ``func`` (its module's globals)."""
        if isinstance(func, Function):
            return func.scope
        return self.module_scope(func.module)


def _exact(seq: Seq) -> bool:
    """No ``*unpacked`` item: each item is at its own position."""
    return not any(isinstance(item, Unknown) and item.reason == UNPACKED for item in seq.items)


def _integer(value: Value) -> int | None:
    number = value.value if isinstance(value, Const) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def _dict_view(mapping: Mapping, name: str) -> Seq:
    """``d.items()``, ``d.keys()`` or ``d.values()`` of a dict literal."""
    if name == "keys":
        return Seq([key for key, _ in mapping.items])
    if name == "values":
        return Seq([value for _, value in mapping.items])
    return Seq([Seq([key, value]) for key, value in mapping.items])


def _is_main_guard(test: cst.BaseExpression) -> bool:
    return (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and test.left.value == "__name__"
    )
