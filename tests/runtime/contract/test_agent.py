"""``agent.json``: the plugin settings the import writes and the runtime reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runtime.contract.agent import AgentFileError, load_agent_spec

BASE = {
    "graph_id": "agent",
    "graph_spec": "./graph.py:graph",
    "config_file": "langgraph.json",
    "input_field": "topic",
    "output_field": "answer",
}


def spec_file(tmp_path: Path, **values: Any) -> Path:
    (tmp_path / "agent.json").write_text(json.dumps({**BASE, **values}))
    return tmp_path


def test_settings_default_to_empty_so_older_plugins_still_load(tmp_path: Path) -> None:
    spec = load_agent_spec(spec_file(tmp_path))

    assert (spec.context, spec.env, spec.inputs) == ({}, [], {})


def test_settings_are_read_with_their_values(tmp_path: Path) -> None:
    spec = load_agent_spec(
        spec_file(
            tmp_path,
            context={"model": "anthropic/claude-3-5-haiku", "max_loops": 3},
            env=["ANTHROPIC_API_KEY", "TAVILY_API_KEY", "ANTHROPIC_API_KEY"],
            inputs={"extraction_schema": {"type": "object"}},
        )
    )

    assert spec.context == {"model": "anthropic/claude-3-5-haiku", "max_loops": 3}
    assert spec.env == ["ANTHROPIC_API_KEY", "TAVILY_API_KEY"]
    assert spec.inputs == {"extraction_schema": {"type": "object"}}


@pytest.mark.parametrize("name", ["ANTHROPIC_API_KEY=sk-123", "1KEY", "A B", ""])
def test_env_holds_names_never_values(tmp_path: Path, name: str) -> None:
    with pytest.raises(AgentFileError, match=r"env: .*entry 1 is not an environment") as caught:
        load_agent_spec(spec_file(tmp_path, env=["OPENAI_API_KEY", name]))

    assert "sk-123" not in str(caught.value)


def test_inputs_cannot_take_the_users_words(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError, match="inputs must not set 'topic'"):
        load_agent_spec(spec_file(tmp_path, inputs={"topic": "fixed"}))
