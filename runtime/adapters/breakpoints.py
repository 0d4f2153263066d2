"""Static breakpoints of an imported agent (a graph compiled with ``interrupt_before=`` or
``interrupt_after=``, as LangChain Academy's research assistant is).

On LangGraph's server the run ends there and the thread waits at the node; the next run continues
it, with input ``None`` or after a state update. The runtime runs the agent as a stateful
subgraph, so its stop leaves no interrupt in the plugin's own graph: the turn ends on a screen
saying where the agent paused, and the next turn continues it: "continue" (or yes, or the
screen's button) with no input, any other words as an update of its input first (LangGraph's
``update_state`` then ``invoke(None)``).
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphInterrupt

from runtime.a2ui import Screen
from runtime.contract.screens import CONTINUE
from runtime.turns.approvals import Approval

#: The action of the pause screen's button, and the word it stands for.


def has_breakpoints(graph: Any) -> bool:
    """Whether the agent's compiled graph stops at static breakpoints."""
    return bool(
        getattr(graph, "interrupt_before_nodes", None)
        or getattr(graph, "interrupt_after_nodes", None)
    )


def is_breakpoint(exc: GraphInterrupt) -> bool:
    """A stop at a static breakpoint: a ``GraphInterrupt`` carrying no ``interrupt()`` value."""
    return not (exc.args and exc.args[0])


async def paused_at(graph: Any, config: RunnableConfig) -> tuple[str, ...]:
    """The nodes the stateful agent waits to run after a static breakpoint; none when it is not
    paused, or waits on an ``interrupt()`` (the plugin's graph sees that one itself)."""
    snapshot = await graph.aget_state(config)
    if any(task.interrupts for task in snapshot.tasks):
        return ()
    return tuple(snapshot.next)


def pause_question(nodes: tuple[str, ...]) -> str:
    """What the user is told (a breakpoint asks nothing itself)."""
    where = f" before {' and '.join(nodes)}" if nodes else ""
    return f"The agent paused{where}. Say continue, or tell it what to change."


def says_continue(text: str) -> bool:
    """Whether words only tell the paused agent to go on ("continue", "yes", "go ahead"...)."""
    chosen = Approval.of(pause_question(())).chosen(text)
    return chosen is not None and chosen.value is True


def pause_screen(plugin_id: str, question: str) -> Screen:
    """The question and a button that continues the agent."""
    return Screen(
        components=[
            {"id": "root", "component": "Column", "children": ["title", "question", "go_on"]},
            {"id": "title", "component": "Text", "text": "The agent paused", "variant": "h2"},
            {
                "id": "question",
                "component": "DataCard",
                "title": "Your turn",
                "value": question,
                "tone": "warning",
            },
            {
                "id": "go_on",
                "component": "Button",
                "child": "go_on_label",
                "variant": "primary",
                "action": {"event": {"name": f"{plugin_id}.{CONTINUE}"}},
            },
            {"id": "go_on_label", "component": "Text", "text": "Continue"},
        ],
        voice_text=question,
    )
