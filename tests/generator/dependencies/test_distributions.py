"""Module → distribution: namespace packages and renamed distributions map to the project that
provides them, and the repository's own projects are never proposed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from generator.dependencies.distributions import distribution, module_of, pip_install_specs
from generator.models import Inspection


@pytest.mark.parametrize(
    ("imported", "expected"),
    [
        ("google.oauth2.service_account", "google-auth"),
        ("google.auth.transport.requests", "google-auth"),
        ("google.cloud.bigquery.client", "google-cloud-bigquery"),
        ("google.cloud.secret_manager", "google-cloud-secret-manager"),
        ("google.genai.types", "google-genai"),
        ("google.generativeai", "google-generativeai"),
        ("google.protobuf.json_format", "protobuf"),
        ("azure.identity", "azure-identity"),
        ("langgraph.checkpoint.postgres.aio", "langgraph-checkpoint-postgres"),
        ("langgraph.store.redis", "langgraph-checkpoint-redis"),
        ("langgraph.graph.message", "langgraph"),
        ("azure.ai.inference.models", "azure-ai-inference"),
        ("azure.storage.blob", "azure-storage-blob"),
        ("azure.storage.filedatalake", "azure-storage-file-datalake"),
        ("azure.cosmos.aio", "azure-cosmos"),
        ("opentelemetry.sdk.trace", "opentelemetry-sdk"),
        ("yaml", "pyyaml"),
        ("bs4.element", "beautifulsoup4"),
        ("langchain_openai.chat_models", "langchain-openai"),
    ],
)
def test_a_module_maps_to_the_distribution_that_provides_it(imported: str, expected: str) -> None:
    assert distribution(module_of(imported)) == expected


@pytest.mark.parametrize(
    ("message", "specs"),
    [
        ("Please install it with `pip install wikipedia`.", ["wikipedia"]),
        ("Please install it with `pip install -U ddgs`.", ["ddgs"]),
        ("Please install it with `pip install -U duckduckgo-search`.", ["duckduckgo-search"]),
        ("run pip install tiktoken to count tokens", ["tiktoken"]),
        ("'pip install \"langchain[openai]>=1\" faiss-cpu'", ["langchain[openai]>=1", "faiss-cpu"]),
        ("`pip install tool@https://example.invalid/tool.whl`", []),
        ("`pip install ./vendor/tool`", []),
        ("pip install", []),
        ("no hint here", []),
    ],
)
def test_a_pip_install_hint_names_its_requirements(message: str, specs: list[str]) -> None:
    assert pip_install_specs(message) == specs


GOOGLE_AGENT = {
    "langgraph.json": '{"dependencies": ["."], "graphs": {"mail": "./mail_agent/graph.py:graph"}}',
    "pyproject.toml": '[project]\nname = "panel-monitoring"\nversion = "1"\n',
    "mail_agent/__init__.py": "",
    "mail_agent/graph.py": """
from google import genai
from google.cloud import bigquery
from google.oauth2.credentials import Credentials
from azure.ai.inference import ChatCompletionsClient
from panel_monitoring.alerts import notify
from langgraph.graph import START, MessagesState, StateGraph

builder = StateGraph(MessagesState)
builder.add_node("noop", lambda state: {})
builder.add_edge(START, "noop")
graph = builder.compile()
""",
}


def test_namespace_imports_are_proposed_as_their_distributions_and_the_project_never(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    inspection = inspect_folder(make_project(GOOGLE_AGENT))

    proposed = {d.name: d.proposed_for for d in inspection.dependencies}
    assert proposed == {
        "google-genai": "google.genai (mail_agent/graph.py:1)",
        "google-cloud-bigquery": "google.cloud.bigquery (mail_agent/graph.py:2)",
        "google-auth": "google.oauth2 (mail_agent/graph.py:3)",
        "azure-ai-inference": "azure.ai.inference (mail_agent/graph.py:4)",
    }  # panel_monitoring is the project's own name: not a requirement
    assert "panel-monitoring" in inspection.local_packages


def test_a_requirement_naming_the_project_itself_is_left_out(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    files = {
        **GOOGLE_AGENT,
        "pyproject.toml": (
            '[tool.poetry]\nname = "Panel_Monitoring"\nversion = "1"\n'
            '[tool.poetry.dependencies]\npython = "^3.11"\nlanggraph = "^1.0"\n'
        ),
        "requirements.txt": "panel-monitoring\nlanggraph>=1.0\n",
    }

    inspection = inspect_folder(make_project(files))

    assert "panel-monitoring" not in {d.name for d in inspection.dependencies}
    assert any("panel-monitoring is a folder of this repository" in w.message
               for w in inspection.warnings)  # fmt: skip
