"""The typed values handed from one pipeline step to the next.

``fetch`` returns a ``Source``; ``inspect`` returns an ``Inspection``. These models are the public
contract of ``agent-import inspect --json``: keys here stay stable (new ones may be added), and
``INSPECTION_VERSION`` changes when a key changes meaning.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runtime.contract.agent import InputShape
from runtime.contract.layout import Strategy

INSPECTION_VERSION = 1

#: How ``Edge.source``/``Edge.target`` name LangGraph's START and END, as LangGraph itself does.
START, END = "__start__", "__end__"

ExportKind = Literal["compiled_graph", "factory", "prebuilt", "entrypoint", "unresolvable"]
StateStyle = Literal["TypedDict", "dataclass", "pydantic", "MessagesState", "library", "unknown"]
NodeTarget = Literal["function", "ToolNode", "subgraph", "method", "lambda", "library", "unknown"]


class Model(BaseModel):
    """Base for every boundary model: unknown keys are an error, not silently kept."""

    model_config = ConfigDict(extra="forbid")


class Source(Model):
    """Where the agent came from, pinned to a commit when it is a git repository."""

    url: str = Field(description="The URL or path the user gave, any password replaced by ***.")
    path: str = Field(description="The local folder the agent was read from.")
    ref: str | None = None
    commit: str | None = Field(default=None, description="Resolved commit sha, if a git repo.")
    dirty: bool = Field(default=False, description="A local git folder had uncommitted changes.")
    is_remote: bool = False


class Warning_(Model):
    """Something that cannot be known statically, pinned to where it was seen."""

    file: str = Field(description="Relative to the source root.")
    line: int | None = None
    message: str


class StateField(Model):
    name: str
    type: str = Field(description="The annotation as written in the source.")
    reducer: str | None = None
    default: str | None = Field(default=None, description="Default value as written, if any.")
    inherited_from: str | None = Field(
        default=None,
        description="Base class the field was inherited from; None when declared on the class.",
    )


class StateSchema(Model):
    name: str
    style: StateStyle
    file: str | None = Field(default=None, description="Relative to the source root.")
    fields: list[StateField] = Field(default_factory=list)


class Node(Model):
    """One ``add_node``: what it runs (function, method, lambda, ToolNode, subgraph)."""

    name: str
    target: NodeTarget
    target_name: str | None = Field(default=None, description="The callable's name as written.")
    returns: list[str] | None = Field(default=None, description="Keys returned; None if unknown.")
    returns_complete: bool = Field(
        default=True, description="False when some returned values could not be read."
    )
    line: int | None = Field(default=None, description="Line of the add_node call.")


class Edge(Model):
    """``__start__``/``__end__`` stand for START/END; conditional edges name their router
    (the path function as written, ``destinations``, or ``Command`` for a node's goto)."""

    source: str
    target: str
    conditional: bool = False
    condition: str | None = None


class RequiredField(Model):
    """A field a run cannot start without, with the value the import proposes for review."""

    name: str
    type: str = Field(description="The annotation as written in the source.")
    proposed: Any = Field(default=None, description="The proposed JSON value, if any.")
    because: str | None = Field(
        default=None, description="Where the proposed value comes from; None when there is none."
    )


class FactorySignature(Model):
    params: list[str] = Field(default_factory=list)
    is_async: bool = False


class Graph(Model):
    """One graph of ``langgraph.json``, read statically.

    ``state`` and ``nodes`` are None when they cannot be known without running code (an
    unresolvable export, a functional-API entrypoint, a prebuilt agent's nodes); the warnings
    of the ``Inspection`` say why, with file and line.
    """

    graph_id: str
    spec: str = Field(default="", description="The entry as written in langgraph.json.")
    description: str | None = Field(default=None, description="From langgraph.json, if any.")
    file: str = Field(description="Graph file, relative to the langgraph.json folder.")
    export: str = Field(description="The exported variable or function name.")
    export_kind: ExportKind
    export_reason: str | None = Field(default=None, description="Why, when unresolvable.")
    factory: FactorySignature | None = None
    prebuilt: str | None = Field(default=None, description="e.g. create_react_agent.")
    documented_shape: str | None = Field(
        default=None,
        description="The library function whose documented shape gave the nodes, edges and "
        "state (e.g. langgraph_swarm.create_swarm); None when read from the repository's code.",
    )
    state: StateSchema | None = None
    input_schema: StateSchema | None = None
    output_schema: StateSchema | None = None
    context_schema: StateSchema | None = None
    nodes: list[Node] | None = None
    nodes_complete: bool = Field(
        default=True, description="False when nodes were added in loops or with dynamic names."
    )
    edges: list[Edge] = Field(default_factory=list)
    compile_name: str | None = None
    structured_output: list[StateSchema] = Field(default_factory=list)
    required_context: list[RequiredField] = Field(
        default_factory=list,
        description="Context fields with no default (dataclass or pydantic; a TypedDict key is "
        "never required), each with a proposed value where one is known.",
    )
    required_inputs: list[RequiredField] = Field(
        default_factory=list,
        description="Input fields other than messages a run cannot start without: fields with "
        "no default, keys of a TypedDict input schema, keys the first node(s) read as "
        "state['x'] or state.x; each with a proposed value.",
    )
    input_is_messages: bool = False
    input_shape: InputShape = Field(
        default="state",
        description="'messages' or 'text' for a functional-API entrypoint whose input is a bare "
        "list of messages or a string; 'state' otherwise (a dict of the graph's input fields).",
    )
    strategy: Strategy = "port"
    strategy_reason: str = ""


class Dependency(Model):
    name: str
    spec: str = Field(description="The requirement as written, e.g. 'langchain-openai>=0.2'.")
    origin: str = Field(description="File it came from, e.g. 'pyproject.toml'.")
    proposed_for: str | None = Field(
        default=None,
        description="Set when no requirement declared it: the import it is proposed for, "
        "'module (file:line)'; origin is then another requirements file of the repository, "
        "'usual distribution name', or 'an ImportError's install hint' (its `pip install X`).",
    )


class EnvVar(Model):
    """An environment variable the agent reads (its name only: values are never read)."""

    name: str
    required: bool = Field(description="True when unset fails: os.environ[...] or config env.")
    origin: str = Field(description="Where it was seen: 'file:line' or langgraph.json.")


class ToolServer(Model):
    """An MCP server the agent starts (stdio) or connects to (SSE, HTTP)."""

    name: str
    transport: str = Field(description="stdio, sse, streamable_http, ...")
    target: str = Field(description="The command it runs with its arguments, or its URL.")
    origin: str = Field(description="Where it is configured: file:line, or a config file.")

    def describe(self) -> str:
        """``playwright: npx @playwright/mcp (stdio)``, as the reviewer reads it."""
        return f"{self.name}: {self.target} ({self.transport})"


class ProposedFile(Model):
    """A file the project ships only as an example, proposed from it for review."""

    path: str = Field(description="The file the agent reads, relative to the source root.")
    example: str = Field(description="The example it is made from, relative to the root.")


class Inspection(Model):
    version: int = INSPECTION_VERSION
    source: Source
    config_file: str = Field(description="langgraph.json, relative to the source root.")
    config_extra_keys: list[str] = Field(default_factory=list)
    python_version: str | None = None
    env: str | dict[str, str] | None = Field(
        default=None, description="A .env path, or variable names (values are never copied)."
    )
    import_roots: list[str] = Field(
        default_factory=list,
        description="Folders the agent's imports resolve from (sys.path), relative to the root.",
    )
    environment: list[EnvVar] = Field(
        default_factory=list, description="Environment variables the agent reads, by name."
    )
    tool_servers: list[ToolServer] = Field(
        default_factory=list, description="MCP servers the agent starts or connects to."
    )
    proposed_files: list[ProposedFile] = Field(
        default_factory=list,
        description="Configuration files the agent reads that only exist as an example.",
    )
    graphs: list[Graph]
    dependencies: list[Dependency] = Field(default_factory=list)
    local_packages: list[str] = Field(
        default_factory=list,
        description="The repository's own project names: the local folders the agent uses "
        "(vendored), the root's and the uv workspace members'; never installed from a package "
        "index, never proposed.",
    )
    readme_excerpt: str = ""
    warnings: list[Warning_] = Field(default_factory=list)
