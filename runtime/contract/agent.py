"""``agent.json``: where an imported plugin's agent lives and how its state maps to the plugin's.

``agent-import`` writes this file into every plugin folder it imports, and it is the one record
of these values (the template's answers do not repeat them); the adapters read it. Paths are
relative to the plugin's vendored ``src/`` folder, and a path that would leave it is refused, so
an edited ``agent.json`` cannot load code from elsewhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from runtime.contract.layout import AGENT_FILE

#: What an environment variable name may look like (POSIX names; never a value).
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class AgentFileError(ValueError):
    """``agent.json`` is missing, unreadable or invalid; the message names the file."""


def _relative(value: str) -> str:
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{value!r} must be a path inside src/")
    return value


#: How a graph takes the user's words (``AgentSpec.input_shape``).
InputShape = Literal["state", "messages", "text"]


class EnvironmentSpec(BaseModel):
    """Which Python environment the agent runs in (``environment`` in ``agent.json``).

    ``shared``: the runtime's own, in process (the default: no cost). ``isolated``: an environment
    of the plugin's own, built from its ``requirements.lock`` (``a2ui-runtime envs``), where a
    worker process runs the agent (``runtime.isolated``); the import chooses it when the agent's
    requirements conflict with the runtime's or another plugin's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["shared", "isolated"] = "shared"
    python: str | None = Field(
        default=None, description="The Python version wanted (e.g. '3.11'); none: the runtime's."
    )
    reason: str = Field(default="", description="Why the import chose this environment.")
    asked_python: str | None = Field(
        default=None,
        description="The Python the project asks for (e.g. '3.12') when it was validated on "
        "another: no such Python was found, or an environment of its own was not approved. "
        "A warning for the reviewer, never a refusal (LangGraph's server would run it on the "
        "asked one).",
    )


class AgentSpec(BaseModel):
    """The contents of ``agent.json``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    graph_id: str
    graph_spec: str = Field(description="'./file.py:name' or 'package.module:name'.")
    config_file: str = Field(description="langgraph.json, relative to src/.")
    python_paths: list[str] = Field(
        default_factory=list, description="Folders under src/ put on sys.path (its local deps)."
    )
    input_field: str
    output_field: str
    input_shape: InputShape = Field(
        default="state",
        description="How the user's words enter the graph: 'state' (a message, or the value, "
        "under input_field), 'messages' (a bare list of messages: a functional-API entrypoint's "
        "input) or 'text' (a bare string). An entrypoint's output is whatever it returns, read "
        "as the value of output_field.",
    )
    result_fields: list[str] = Field(default_factory=list)
    initial_domain_state: dict[str, Any] = Field(default_factory=dict)
    # The plugin's settings, reviewed in the import PR (values here are never secrets):
    context: dict[str, Any] = Field(
        default_factory=dict,
        description="Run-context values by field name, applied over the defaults of the graph's "
        "context_schema (and into config['configurable'] for config_schema agents).",
    )
    env: list[str] = Field(
        default_factory=list,
        description="Names of the environment variables the agent reads (names only, never "
        "values); the runtime reads them from its own environment and warns of unset ones.",
    )
    inputs: dict[str, Any] = Field(
        default_factory=dict,
        description="Values of the agent's other required input fields (not input_field), sent "
        "with the user's words on the first run of a conversation.",
    )
    tool_servers: list[str] = Field(
        default_factory=list,
        description="The MCP servers the agent starts or reaches ('name: command or URL "
        "(transport)'), which must be available where it runs; for the reviewer.",
    )
    environment: EnvironmentSpec = Field(
        default_factory=EnvironmentSpec,
        description="The agent's Python environment: the runtime's (shared) or its own (isolated).",
    )
    network: bool = Field(
        default=True,
        description="Whether an isolated plugin's worker may open connections (model providers); "
        "false closes the network to it entirely.",
    )
    validated_without_sandbox: bool = Field(
        default=False,
        description="The import's checks ran the agent's code unconfined (--no-sandbox): review "
        "the code as having run on the importer's machine.",
    )

    @model_validator(mode="before")
    @classmethod
    def _without_strategy(cls, data: Any) -> Any:
        """Imports before the answers became the one record of it wrote ``strategy`` here too;
        the plugin's class says how it runs, so the key is read past, never required."""
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if key != "strategy"}
        return data

    @field_validator("config_file")
    @classmethod
    def _config_inside_src(cls, value: str) -> str:
        return _relative(value)

    @field_validator("python_paths")
    @classmethod
    def _paths_inside_src(cls, value: list[str]) -> list[str]:
        return [_relative(path) for path in value]

    @field_validator("env")
    @classmethod
    def _env_names(cls, value: list[str]) -> list[str]:
        for index, name in enumerate(value):
            if not ENV_NAME.match(name):  # not echoed: a mistaken entry may hold a secret
                raise ValueError(f"entry {index} is not an environment variable name")
        return list(dict.fromkeys(value))

    @model_validator(mode="after")
    def _inputs_leave_the_input_field(self) -> AgentSpec:
        if self.input_field in self.inputs:
            raise ValueError(f"inputs must not set {self.input_field!r}: the user's words go there")
        return self

    @property
    def config_dir(self) -> str:
        """The folder of langgraph.json under src/, which ``./file.py`` specs are relative to."""
        return str(PurePosixPath(self.config_file).parent)


def load_agent_spec(folder: Path) -> AgentSpec:
    """Read and validate ``<folder>/agent.json``."""
    path = folder / AGENT_FILE
    try:
        return AgentSpec.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise AgentFileError(f"{path}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise AgentFileError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise AgentFileError(f"{path}: {where}: {first['msg']}") from None
