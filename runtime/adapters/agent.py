"""``agent.json``: where an imported plugin's agent lives and how its state maps to the plugin's.

``agent-import`` writes this file into every plugin folder it renders (through the Copier
template); the adapters read it. Paths are relative to the plugin's vendored ``src/`` folder, and a
path that would leave it is refused, so an edited ``agent.json`` cannot load code from elsewhere.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from runtime.layout import AGENT_FILE, Strategy


class AgentFileError(ValueError):
    """``agent.json`` is missing, unreadable or invalid; the message names the file."""


def _relative(value: str) -> str:
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{value!r} must be a path inside src/")
    return value


class AgentSpec(BaseModel):
    """The contents of ``agent.json``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strategy: Strategy
    graph_id: str
    graph_spec: str = Field(description="'./file.py:name' or 'package.module:name'.")
    config_file: str = Field(description="langgraph.json, relative to src/.")
    python_paths: list[str] = Field(
        default_factory=list, description="Folders under src/ put on sys.path (its local deps)."
    )
    input_field: str
    output_field: str
    result_fields: list[str] = Field(default_factory=list)
    initial_domain_state: dict[str, Any] = Field(default_factory=dict)

    @field_validator("config_file")
    @classmethod
    def _config_inside_src(cls, value: str) -> str:
        return _relative(value)

    @field_validator("python_paths")
    @classmethod
    def _paths_inside_src(cls, value: list[str]) -> list[str]:
        return [_relative(path) for path in value]

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
