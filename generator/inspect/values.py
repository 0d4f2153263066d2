"""What the interpreter knows about a Python value without running any code.

The inspector walks module and function bodies like a tiny abstract interpreter: every name and
expression evaluates to one of these values, bound in a ``Scope``. Anything it cannot follow is an
``Unknown`` that carries the reason, so the report can say *why* rather than guess. Scopes live
here, next to the classes and functions that keep one, so no module needs the interpreter's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst

from generator.models import Edge

if TYPE_CHECKING:
    from generator.inspect.modules import Module

#: Library packages whose names the inspector recognises (``langgraph.graph.StateGraph``, ...).
LIBRARY_ROOTS = frozenset(
    {"langgraph", "langchain", "langchain_core", "typing", "typing_extensions", "pydantic",
     "dataclasses", "operator", "functools", "builtins", "contextlib", "langgraph_swarm",
     "langgraph_supervisor", "deepagents"}
)  # fmt: skip


@dataclass(frozen=True)
class Site:
    """Where something was seen: a node of a parsed module."""

    module: Module
    node: cst.CSTNode | None


@dataclass(frozen=True)
class Unknown:
    """A value the inspector cannot know statically, and why."""

    reason: str
    site: Site | None = None


@dataclass(frozen=True)
class External:
    """A name from outside the repository, known only by its dotted path."""

    qualname: str

    @property
    def leaf(self) -> str:
        return self.qualname.rpartition(".")[2]

    def is_(self, *names: str) -> bool:
        """True for a known library's ``names`` (``langgraph.graph.StateGraph`` is StateGraph)."""
        return self.leaf in names and self.qualname.partition(".")[0] in LIBRARY_ROOTS


@dataclass(frozen=True)
class Const:
    value: str | int | float | bool | bytes | None


@dataclass(eq=False)
class ModuleRef:
    """A repository module; ``package`` is its folder when submodules can be imported from it."""

    package: Path | None = None
    module: Module | None = None


@dataclass(eq=False)
class Seq:
    items: list[Value]


@dataclass(eq=False)
class Mapping:
    items: list[tuple[Value, Value]]
    complete: bool = True


@dataclass(frozen=True)
class Pending:
    """An import, resolved on first use so unused imports cost nothing."""

    importer: Module
    module: str
    name: str | None
    level: int


class Scope:
    """Names bound in a module, class or function body, with the scope it can see."""

    def __init__(self, module: Module, parent: Scope | None, *, is_class: bool = False) -> None:
        self.module = module
        self.parent = parent
        self.is_class = is_class
        self.vars: dict[str, Value | Pending] = {}
        self.sites: dict[str, cst.CSTNode] = {}
        self.stars: list[Pending] = []
        self.returns: list[Value] = []


@dataclass(eq=False)
class Class:
    node: cst.ClassDef
    module: Module
    scope: Scope


@dataclass(eq=False)
class Instance:
    cls: Class
    attrs: dict[str, Value] = field(default_factory=dict)


@dataclass(eq=False)
class Function:
    node: cst.FunctionDef
    module: Module
    scope: Scope = field(repr=False)
    bound: Instance | None = None

    @property
    def name(self) -> str:
        return self.node.name.value

    @property
    def is_async(self) -> bool:
        return self.node.asynchronous is not None


@dataclass(eq=False)
class Lambda:
    node: cst.Lambda
    module: Module


@dataclass(eq=False)
class TypeExpr:
    """A subscripted type such as ``Annotated[list, add_messages]`` (e.g. behind an alias)."""

    node: cst.Subscript
    module: Module


@dataclass(eq=False)
class Method:
    """``receiver.name`` of a graph value, waiting to be called."""

    receiver: Value
    name: str


@dataclass(eq=False)
class NodeSpec:
    """One ``add_node`` call: the node's name (None if not static) and what it runs."""

    name: str | None
    target: Value
    expr: cst.BaseExpression | None
    site: Site


@dataclass(eq=False)
class Builder:
    """A ``StateGraph(...)`` and everything added to it so far."""

    site: Site
    state: Value | None
    schemas: dict[str, Value]
    nodes: list[NodeSpec] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    complete: bool = True
    documented: str | None = None  # the library function whose documented shape this is
    #: State schemas whose fields come before the state's (``create_agent``'s middleware's).
    joined_states: list[Value] = field(default_factory=list)


@dataclass(eq=False)
class Compiled:
    builder: Builder
    name: str | None
    site: Site


@dataclass(eq=False)
class Prebuilt:
    """A graph from a prebuilt agent function (``create_react_agent``...), with its arguments."""

    factory: str
    kwargs: dict[str, Value]
    site: Site

    @property
    def name(self) -> str | None:
        name = self.kwargs.get("name")
        return name.value if isinstance(name, Const) and isinstance(name.value, str) else None


@dataclass(frozen=True)
class HandoffTool:
    """``create_handoff_tool(agent_name=...)``: a tool that moves the run to another agent."""

    agent_name: str | None


@dataclass(frozen=True)
class LibraryNode:
    """A node a prebuilt adds with the library's own function, and the keys it writes."""

    function: str
    writes: tuple[str, ...]


@dataclass(eq=False)
class ToolNode:
    name: str
    site: Site


@dataclass(eq=False)
class Entrypoint:
    function: Function


Value = (
    Unknown | External | Const | ModuleRef | Seq | Mapping | Class | Instance | Function | Lambda
    | TypeExpr | Method | Builder | Compiled | Prebuilt | ToolNode | Entrypoint | HandoffTool
    | LibraryNode
)  # fmt: skip
Graphish = Builder | Compiled | Prebuilt | Entrypoint


def const_str(value: Value | None) -> str | None:
    return value.value if isinstance(value, Const) and isinstance(value.value, str) else None


def node_id(value: Value | None) -> str | None:
    """A node name as LangGraph spells it: strings, and ``START``/``END`` as ``__start__``..."""
    if isinstance(value, External) and value.is_("START", "END"):
        return f"__{value.leaf.lower()}__"
    return const_str(value)


def describe(value: Value) -> str:
    """A short human description, for warnings."""
    match value:
        case Unknown(reason=reason):
            return reason
        case External(qualname=qualname):
            return qualname
        case Function() | Class():
            return value.node.name.value
        case Const(value=constant):
            return f"the constant {constant!r}"
        case _:
            return type(value).__name__.lower()


def params_of(node: cst.FunctionDef | cst.Lambda) -> list[cst.Param]:
    """Every named parameter of a function or lambda, in order (``*args``/``**kw`` excluded)."""
    params = node.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]
