"""Graphs built by library prebuilts, read from each library's documented shape.

``create_react_agent`` (langgraph.prebuilt), ``create_agent`` (langchain.agents),
``create_swarm`` / ``create_handoff_tool`` (langgraph_swarm), ``create_supervisor``
(langgraph_supervisor) and ``create_deep_agent`` (deepagents) assemble their graphs inside the
library, where the inspector never reads. Their node names, edges and state are part of each
library's documentation (API reference and source of the versions this generator supports), so
they are written down here once and turned into the same ``Builder`` a hand-written graph gives.
A graph read this way names its library function in ``Graph.documented_shape``. Whatever the
documentation leaves open (middleware nodes, a deep agent's internals) is reported unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.inspect.values import (
    Builder,
    Class,
    Compiled,
    Const,
    External,
    HandoffTool,
    Instance,
    LibraryNode,
    NodeSpec,
    Prebuilt,
    Seq,
    Site,
    ToolNode,
    Value,
    const_str,
)
from generator.models import END, START, Edge, StateField, StateSchema

if TYPE_CHECKING:
    from generator.inspect.evaluate import Args, Interpreter

_MESSAGES = "Annotated[list[AnyMessage], add_messages]"
#: Where a middleware hook sends the run next (``langchain.agents.middleware.AgentState``).
_JUMP_TO = "NotRequired[Annotated[JumpTo | None, EphemeralValue, PrivateStateAttr]]"
#: Annotations that keep a field out of a langchain agent's output schema.
_PRIVATE_MARKS = ("PrivateStateAttr", "OmitFromOutput")


def _field(name: str, type_: str, reducer: str | None = None) -> StateField:
    return StateField(name=name, type=type_, reducer=reducer)


#: Documented fields of library states, by (top-level package, class name), in LangGraph's
#: order: the state a graph is built with, private channels (``jump_to``) included.
LIBRARY_STATES: dict[tuple[str, str], list[StateField]] = {
    ("langgraph", "AgentState"): [
        _field("messages", _MESSAGES, "add_messages"),
        _field("remaining_steps", "NotRequired[RemainingSteps]"),
    ],
    ("langchain", "AgentState"): [
        _field("messages", _MESSAGES, "add_messages"),
        _field("jump_to", _JUMP_TO),
        _field("structured_response", "NotRequired[ResponseT]"),
    ],
    ("langgraph_swarm", "SwarmState"): [
        _field("messages", _MESSAGES, "add_messages"),
        _field("active_agent", "str | None"),
    ],
    ("langgraph_supervisor", "_OuterState"): [_field("messages", _MESSAGES, "add_messages")],
    ("deepagents", "DeepAgentState"): [
        _field("messages", _MESSAGES, "add_messages"),
        _field("todos", "NotRequired[list[Todo]]"),
        _field("files", "NotRequired[dict[str, FileData]]", "file_data_reducer"),
    ],
}

#: The state each prebuilt uses when it is given no ``state_schema``.
DEFAULT_STATES = {
    "create_react_agent": "langgraph.prebuilt.chat_agent_executor.AgentState",
    "create_agent": "langchain.agents.AgentState",
    "create_deep_agent": "deepagents.DeepAgentState",
    "create_swarm": "langgraph_swarm.SwarmState",
    "create_supervisor": "langgraph_supervisor.supervisor._OuterState",
}

#: Library function -> its documented name, as shown in ``Graph.documented_shape``.
PREBUILTS = {
    "create_react_agent": "langgraph.prebuilt.create_react_agent",
    "create_agent": "langchain.agents.create_agent",
    "create_deep_agent": "deepagents.create_deep_agent",
    "create_swarm": "langgraph_swarm.create_swarm",
    "create_supervisor": "langgraph_supervisor.create_supervisor",
}


def library_state(value: External) -> StateSchema | None:
    """The documented schema of a library state class, or None if it is not one we know."""
    fields = LIBRARY_STATES.get((value.qualname.partition(".")[0], value.leaf))
    if fields is None:
        return None
    return StateSchema(name=value.leaf, style="library", fields=fields)


def is_private(field: StateField) -> bool:
    """A library's private channel (``jump_to``): in the state, never in a run's input or
    output, as ``create_agent`` leaves it out of its input and output schemas."""
    return any(mark in field.type for mark in _PRIVATE_MARKS)


def output_fields(schema: StateSchema) -> list[str]:
    """The fields a prebuilt agent returns: its state's, less the private ones."""
    return [f.name for f in schema.fields if not is_private(f)]


def graph_name(value: Value) -> str | None:
    """The name a compiled graph or prebuilt agent is given (``name=`` / ``compile(name=)``)."""
    if isinstance(value, Prebuilt | Compiled):
        return value.name
    return None


def shape(interp: Interpreter, agent: Prebuilt) -> Builder | None:
    """The prebuilt agent as a builder with its documented nodes and edges.

    None for a deep agent, whose nodes depend on its middleware inside the library.
    """
    if agent.factory == "create_react_agent":
        return _react_agent(agent)
    if agent.factory == "create_agent":
        return _create_agent(interp, agent)
    interp.project.warn(
        agent.site.module,
        agent.site.node,
        f"{agent.factory}() assembles its nodes inside the library: they are not known statically",
    )
    return None


def _given(value: Value | None) -> bool:
    return value is not None and not (isinstance(value, Const) and value.value is None)


def _state(agent: Prebuilt) -> Value:
    return agent.kwargs.get("state_schema") or External(DEFAULT_STATES[agent.factory])


def _context(kwargs: dict[str, Value]) -> dict[str, Value]:
    context = kwargs.get("context_schema") or kwargs.get("config_schema")
    return {"context": context} if context is not None else {}


def _react_agent(agent: Prebuilt) -> Builder:
    """``langgraph.prebuilt.create_react_agent``: ``agent`` and ``tools`` nodes, optional hooks."""
    kw, site = agent.kwargs, agent.site
    builder = Builder(site, _state(agent), _context(kw), documented=PREBUILTS[agent.factory])
    tools = kw.get("tools")
    has_tools = not (isinstance(tools, Seq) and not tools.items)
    pre, post = kw.get("pre_model_hook"), kw.get("post_model_hook")
    structured = _given(kw.get("response_format"))
    add = builder.nodes.append
    add(NodeSpec("agent", LibraryNode("call_model", ("messages",)), None, site))
    if has_tools:
        add(NodeSpec("tools", ToolNode("tools", site), None, site))
    entry = "agent"
    if pre is not None and _given(pre):
        add(NodeSpec("pre_model_hook", pre, None, site))
        entry = "pre_model_hook"
    if post is not None and _given(post):
        add(NodeSpec("post_model_hook", post, None, site))
    if structured:
        writes = ("structured_response",)
        add(NodeSpec("generate_structured_response", LibraryNode("generate", writes), None, site))
    edges = builder.edges
    edges.append(Edge(source=START, target=entry))
    if entry != "agent":
        edges.append(Edge(source=entry, target="agent"))
    after_model = "post_model_hook" if _given(post) else None
    if after_model:
        edges.append(Edge(source="agent", target=after_model))
    finish = "generate_structured_response" if structured else END
    if not has_tools:
        if structured:
            edges.append(Edge(source=after_model or "agent", target=finish))
        return builder
    if after_model:
        routes = [entry, "tools", finish]
        edges += _conditional(after_model, routes, "post_model_hook_router")
        edges += _conditional("agent", [after_model], "should_continue")
    else:
        edges += _conditional("agent", ["tools", finish], "should_continue")
    edges.append(Edge(source="tools", target=entry))
    return builder


def _create_agent(interp: Interpreter, agent: Prebuilt) -> Builder:
    """``langchain.agents.create_agent``: ``model`` and ``tools``; middleware adds more."""
    kw, site = agent.kwargs, agent.site
    builder = Builder(site, _state(agent), _context(kw), documented=PREBUILTS[agent.factory])
    tools = kw.get("tools")
    has_tools = _given(tools) and not (isinstance(tools, Seq) and not tools.items)
    builder.nodes.append(NodeSpec("model", LibraryNode("model_node", ("messages",)), None, site))
    if has_tools:
        builder.nodes.append(NodeSpec("tools", ToolNode("tools", site), None, site))
    middleware = kw.get("middleware")
    builder.joined_states += _middleware_states(interp, middleware)
    if _given(middleware) and not (isinstance(middleware, Seq) and not middleware.items):
        builder.complete = False
        interp.project.warn(
            site.module,
            site.node,
            "create_agent() middleware adds nodes and edges not known statically",
        )
        return builder
    structured = _given(kw.get("response_format"))
    builder.edges.append(Edge(source=START, target="model"))
    if has_tools:
        back = ["model", END] if structured else ["model"]
        builder.edges += _conditional("tools", back, "tools_to_model")
        onward = ["tools", END, "model"] if structured else ["tools", END]
        builder.edges += _conditional("model", onward, "model_to_tools")
    elif not structured:
        builder.edges.append(Edge(source="model", target=END))
    return builder


def _middleware_states(interp: Interpreter, middleware: Value | None) -> list[Value]:
    """The ``state_schema`` each repository middleware declares (``class M(AgentMiddleware):
    state_schema = NotesState``): ``create_agent`` merges their fields into the agent's state."""
    states: list[Value] = []
    for item in middleware.items if isinstance(middleware, Seq) else []:
        owner = item.cls if isinstance(item, Instance) else item
        if isinstance(owner, Class):
            state = interp.class_attr(owner, "state_schema")
            if state is not None:
                states.append(state)
    return states


def _conditional(source: str, targets: list[str], condition: str) -> list[Edge]:
    return [
        Edge(source=source, target=target, conditional=True, condition=condition)
        for target in targets
    ]


def new_swarm(interp: Interpreter, args: Args, site: Site) -> Builder:
    """``create_swarm(agents, *, default_active_agent, state_schema, context_schema)``.

    One node per agent, named by the agent's ``name``; a router from START to the active agent;
    each agent's handoff tools (``create_handoff_tool(agent_name=...)``) are its destinations.
    """
    kw = args.keywords
    state = kw.get("state_schema") or External(DEFAULT_STATES["create_swarm"])
    builder = Builder(site, state, _context(kw), documented=PREBUILTS["create_swarm"])
    agents = _agents(interp, builder, args.get(0, "agents"), site)
    for name, agent in agents:
        builder.nodes.append(NodeSpec(name, agent, None, site))
    builder.edges += _conditional(START, [name for name, _ in agents], "route_to_active_agent")
    for name, agent in agents:
        handoffs = agent.kwargs.get("tools") if isinstance(agent, Prebuilt) else None
        items = handoffs.items if isinstance(handoffs, Seq) else []
        targets = [item.agent_name for item in items if isinstance(item, HandoffTool)]
        if any(target is None for target in targets):
            interp.project.warn(site.module, site.node, f"a handoff of {name!r} has no static name")
        builder.edges += _conditional(name, [t for t in targets if t], "destinations")
    return builder


def new_supervisor(interp: Interpreter, args: Args, site: Site) -> Builder:
    """``create_supervisor(agents, *, model, tools, supervisor_name="supervisor", ...)``.

    The supervisor is a ReAct agent that can hand over to any agent or finish; every agent
    reports back to it.
    """
    kw = args.keywords
    state = kw.get("state_schema") or External(DEFAULT_STATES["create_supervisor"])
    builder = Builder(site, state, _context(kw), documented=PREBUILTS["create_supervisor"])
    name = const_str(kw.get("supervisor_name")) or "supervisor"
    supervisor = Prebuilt("create_react_agent", {**kw, "name": Const(name)}, site)
    agents = _agents(interp, builder, args.get(0, "agents"), site)
    builder.nodes.append(NodeSpec(name, supervisor, None, site))
    builder.edges.append(Edge(source=START, target=name))
    builder.edges += _conditional(name, [agent for agent, _ in agents] + [END], "destinations")
    for agent_name, agent in agents:
        builder.nodes.append(NodeSpec(agent_name, agent, None, site))
        builder.edges.append(Edge(source=agent_name, target=name))
    return builder


def _agents(
    interp: Interpreter, builder: Builder, agents: Value | None, site: Site
) -> list[tuple[str, Value]]:
    """The named agents of a multi-agent prebuilt; any unnamed one makes the graph incomplete."""
    if not isinstance(agents, Seq):
        builder.complete = False
        interp.project.warn(site.module, site.node, "the list of agents is not known statically")
        return []
    named = [(graph_name(agent), agent) for agent in agents.items]
    if any(name is None for name, _ in named):
        builder.complete = False
        interp.project.warn(
            site.module, site.node, "an agent's name is not known statically (give it name=...)"
        )
    return [(name, agent) for name, agent in named if name is not None]
