"""``PluginBase``: what a plugin folder must provide for the runtime to serve it.

A plugin is a package under ``runtime/plugins/<plugin_id>/``: a cheap ``__init__.py`` manifest and a
``plugin.py`` holding one ``PluginBase`` subclass. The runtime compiles the graph a plugin builds
with its own checkpointer, so plugins never pick their persistence.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar, get_args

from langgraph.graph import StateGraph
from pydantic import BaseModel, ConfigDict, Field

from runtime.contract.layout import SCREENS_FOLDER
from runtime.contract.policy import RunPolicy
from runtime.contract.state import CommonState, Mode, ServerEventDict


class Capabilities(BaseModel):
    """What a plugin tells clients and tools about itself."""

    model_config = ConfigDict(extra="forbid")

    title: str
    description: str = ""
    actions: list[str] = Field(default_factory=list, description="Namespaced action ids.")
    modes: list[Mode] = Field(default_factory=lambda: list(get_args(Mode)))
    screens: list[str] = Field(default_factory=list)
    needs: list[str] = Field(
        default_factory=list,
        description="What the plugin lacks to run (e.g. 'needs module 'langchain_openai''); "
        "sessions on it get an error screen until it is provided.",
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="What may make some of its turns fail, though it runs (e.g. 'reads "
        "OPENAI_API_KEY, which is not set: ...').",
    )


class PluginBase(ABC):
    """Base class of every plugin; subclasses set the class attributes and build a graph."""

    plugin_id: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str] = ""
    state_version: ClassVar[int] = 1
    #: Short action names (without the ``<plugin_id>.`` prefix) this plugin accepts.
    actions: ClassVar[tuple[str, ...]] = ()
    #: Limits and breakpoints of every turn (see docs/run-policy.md).
    run_policy: ClassVar[RunPolicy] = RunPolicy()
    #: Whether the graph reads client tool results that answer no interrupt (an imported agent's
    #: model calls frontend tools itself; ``run_extras(config).tool_results``).
    reads_tool_results: ClassVar[bool] = False

    @property
    def folder(self) -> Path:
        """The plugin's folder, where ``screens/`` lives."""
        module = __import__(type(self).__module__, fromlist=["__file__"])
        return Path(module.__file__ or ".").resolve().parent

    def initial_domain_state(self) -> dict[str, Any]:
        """The plugin's own fields, stored under ``state["domain"][plugin_id]``."""
        return {}

    def create_initial_state(self) -> CommonState:
        """The state a new session starts from."""
        return CommonState(
            mode="voice",
            device="web",
            transcript="",
            messages=[],
            ui={},
            errors=[],
            pendingAction=None,
            outbox=[],
            meta={},
            usage={"tokens": 0},
            domain={self.plugin_id: self.initial_domain_state()},
            state_version=self.state_version,
        )

    @abstractmethod
    def build_graph(self) -> StateGraph[Any]:
        """Return the *uncompiled* graph over ``CommonState``; the runtime compiles it."""

    def failure_events(self, state: CommonState, message: str) -> list[ServerEventDict]:
        """The screen shown after a failed turn, over ``state`` as it was before the turn; the
        runtime sends ``server.error`` with ``message`` first. None by default."""
        return []

    def action_id(self, action: str) -> str:
        """The namespaced id of one of this plugin's actions."""
        return f"{self.plugin_id}.{action}"

    def validate_action(self, action_id: str, data: dict[str, Any]) -> str | None:
        """Why a namespaced action is refused, or ``None`` to accept it."""
        if action_id not in {self.action_id(a) for a in self.actions}:
            return f"unknown action {action_id!r} for agent {self.plugin_id!r}"
        return None

    def unmet_needs(self) -> list[str]:
        """What this plugin lacks to run here (modules, settings), one line each."""
        return []

    def warnings(self) -> list[str]:
        """What may make some turns fail here, though the plugin runs (unset variables)."""
        return []

    def capabilities(self) -> Capabilities:
        """Describe the plugin; screens are the files under ``screens/``."""
        screens_dir = self.folder / SCREENS_FOLDER
        screens = sorted(p.stem for p in screens_dir.glob("*.json")) if screens_dir.is_dir() else []
        return Capabilities(
            title=self.title,
            description=self.description,
            actions=[self.action_id(a) for a in self.actions],
            screens=screens,
            needs=self.unmet_needs(),
            warnings=self.warnings(),
        )
