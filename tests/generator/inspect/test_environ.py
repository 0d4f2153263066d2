"""The variables an agent reads, found without running it: literal reads of ``os.environ`` and
the fields of pydantic-settings classes."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

from generator.models import Inspection

GRAPH = """
    import os

    from langgraph.graph import END, START, MessagesState, StateGraph
    from pydantic import SecretStr
    from pydantic_settings import BaseSettings, SettingsConfigDict

    import pydantic_settings


    class Settings(BaseSettings):
        model_config = SettingsConfigDict(env_prefix="svc_", env_file=".env")

        auth_secret: SecretStr
        base_url: str = "http://localhost"
        _cache: dict = {}


    class Plain(pydantic_settings.BaseSettings):
        OPENAI_API_KEY: str


    class NotSettings:
        IGNORED: str

    TIMEOUT = os.environ.get("TIMEOUT")
    settings = Settings()

    builder = StateGraph(MessagesState)
    builder.add_node("answer", lambda state: state)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    graph = builder.compile()
"""


def test_pydantic_settings_fields_are_the_variables_they_read(
    tmp_path: Path, inspect_folder: Callable[..., Inspection]
) -> None:
    (tmp_path / "langgraph.json").write_text('{"graphs": {"agent": "./graph.py:graph"}}')
    (tmp_path / "graph.py").write_text(textwrap.dedent(GRAPH))

    found = {var.name: var.required for var in inspect_folder(tmp_path).environment}

    assert found == {
        "SVC_AUTH_SECRET": True,
        "SVC_BASE_URL": False,
        "OPENAI_API_KEY": True,
        "TIMEOUT": False,
    }
