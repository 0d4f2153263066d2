"""The run context, configurable and user a run of an imported agent receives."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from runtime.adapters.run_context import (
    AUTH_USER_KEY,
    ContextError,
    build_context,
    make_run_context,
)
from runtime.contract.agent import AgentSpec


@dataclass(kw_only=True)
class DataclassContext:
    model: str = "anthropic/claude"
    user_id: str = "default"
    region: str = field(default="")

    def __post_init__(self) -> None:
        self.region = self.region or os.environ.get("CONTEXT_TEST_REGION", "none")


class PydanticContext(BaseModel):
    model: str = "openai/gpt"
    userId: str = "default"
    max_loops: int = 3


class DictContext(TypedDict, total=False):
    model: str
    user_id: str


class GraphConfig(TypedDict):
    model_name: str


@dataclass
class NeedsKey:
    api_base: str
    model: str = "m"


def spec(**values: Any) -> AgentSpec:
    return AgentSpec(
        graph_id="agent",
        graph_spec="./g.py:graph",
        config_file="langgraph.json",
        input_field="messages",
        output_field="messages",
        **values,
    )


def context(schema: Any, user_id: str | None = None, **settings: Any) -> Any:
    run_context = make_run_context(spec(context=settings), plugin_id="p", user_id=user_id)
    return build_context(schema, run_context.values)


def test_defaults_then_settings_then_the_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEXT_TEST_REGION", "eu")

    assert context(DataclassContext) == DataclassContext(
        model="anthropic/claude", user_id="default", region="eu"
    )
    built = context(DataclassContext, "alice", model="openai/gpt-4o")
    assert (built.model, built.user_id, built.region) == ("openai/gpt-4o", "alice", "eu")


def test_pydantic_and_typeddict_schemas() -> None:
    built = context(PydanticContext, "bob", max_loops="5")
    assert (built.model, built.userId, built.max_loops) == ("openai/gpt", "bob", 5)
    assert context(DictContext, "carol", model="x") == {"model": "x", "user_id": "carol"}
    assert context(None, "carol") is None


def test_a_required_field_without_a_setting_is_named_with_the_fix() -> None:
    with pytest.raises(ContextError, match=r"NeedsKey needs a value for 'api_base'.*\"context\""):
        context(NeedsKey)

    assert context(NeedsKey, api_base="http://x").api_base == "http://x"


def test_a_typeddict_key_nothing_sets_is_absent_as_on_the_server() -> None:
    assert context(GraphConfig) == {}
    assert context(GraphConfig, model_name="anthropic") == {"model_name": "anthropic"}


def test_a_bad_value_names_the_field() -> None:
    with pytest.raises(ContextError, match="PydanticContext: max_loops: "):
        context(PydanticContext, max_loops="many")


def test_configurable_gets_the_values_but_never_the_runtimes_keys() -> None:
    run_context = make_run_context(
        spec(context={"model": "m", "thread_id": "stolen"}), plugin_id="p", user_id="dave"
    )

    configurable = run_context.configurable
    assert configurable["model"] == "m" and configurable["user_id"] == "dave"
    assert "thread_id" not in configurable
    assert (configurable["assistant_id"], configurable["graph_id"]) == ("p", "agent")
    assert configurable[AUTH_USER_KEY].identity == "dave"


def test_without_a_user_there_is_no_user() -> None:
    run_context = make_run_context(spec(), plugin_id="p")

    assert run_context.user is None and AUTH_USER_KEY not in run_context.configurable
    assert "user_id" not in run_context.values
