"""``runtime.testing.offline_models``: what real agents ask of a chat model, answered with no model.

The patch is process-wide, so the calls run in a child interpreter that prints one line per case.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.installed import unless_installed

#: One child interpreter importing LangChain and two providers.
pytestmark = [pytest.mark.slow, unless_installed("langchain_openai", "langchain_anthropic")]

SCRIPT = textwrap.dedent(
    """
    import asyncio, json
    from typing_extensions import TypedDict
    from pydantic import BaseModel
    from runtime.testing.offline_models import use_offline_models
    use_offline_models()
    from langchain.chat_models import init_chat_model
    from langchain_anthropic import ChatAnthropic
    from langchain_openai import ChatOpenAI

    class Plan(BaseModel):
        need_clarification: bool
        question: str

    class Topic(TypedDict):
        topic: str

    SCHEMA = {"title": "Count", "type": "object",
              "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    CONFIG = {"configurable": {"research_model": "anthropic:claude-3-5-haiku-latest"}}
    MODELS = {
        "openai": ChatOpenAI(model="gpt-4o"),
        "anthropic": ChatAnthropic(model="claude-3-5-haiku-latest"),
        "init": init_chat_model("openai:gpt-4o"),
        "configurable": init_chat_model(
            configurable_fields=("model", "model_provider"), config_prefix="research"
        ),
    }
    out = {}
    for name, model in MODELS.items():
        for method in ("function_calling", "json_schema", "json_mode"):
            for schema in (Plan, Topic, SCHEMA):
                label = getattr(schema, "__name__", "dict")
                chain = model.with_structured_output(schema, method=method)
                value = chain.with_retry(stop_after_attempt=2).with_fallbacks([chain]).invoke(
                    "hi", CONFIG
                )
                out[f"{name} {method} {label}"] = type(value).__name__ + " " + json.dumps(
                    value.model_dump() if isinstance(value, BaseModel) else value
                )
        tools = model.bind_tools([Plan]).with_retry()
        out[f"{name} tools"] = tools.invoke("hi", CONFIG).content
        for choice in ("any", "Plan"):
            forced = model.bind_tools([Plan, Topic], tool_choice=choice).invoke("hi", CONFIG)
            out[f"{name} forced {choice}"] = [[c["name"], c["args"]] for c in forced.tool_calls]
        out[f"{name} stream"] = "".join(c.content for c in model.stream("hi", CONFIG))
        async def astream():
            return "".join([c.content async for c in model.astream("hi", CONFIG)])
        out[f"{name} astream"] = asyncio.run(astream())
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def answers() -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


MODELS = ("openai", "anthropic", "init", "configurable")


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("method", ["function_calling", "json_schema", "json_mode"])
def test_structured_output_is_an_instance_of_the_schema(
    answers: dict[str, str], model: str, method: str
) -> None:
    assert answers[f"{model} {method} Plan"] == (
        'Plan {"need_clarification": false, "question": "offline"}'
    )
    assert answers[f"{model} {method} Topic"] == 'dict {"topic": "offline"}'
    assert answers[f"{model} {method} dict"] == 'dict {"n": 0}'


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("call", ["tools", "stream", "astream"])
def test_tools_and_streams_get_the_scripted_reply(
    answers: dict[str, str], model: str, call: str
) -> None:
    from runtime.testing.offline_models import SCRIPTED_REPLY

    assert answers[f"{model} {call}"] == SCRIPTED_REPLY


@pytest.mark.parametrize("model", MODELS)
def test_a_forced_tool_choice_gets_a_call_of_that_tool(answers: dict[str, str], model: str) -> None:
    assert answers[f"{model} forced Plan"] == [
        ["Plan", {"need_clarification": False, "question": "offline"}]
    ]
    assert answers[f"{model} forced any"] == [["Topic", {"topic": "offline"}]]
