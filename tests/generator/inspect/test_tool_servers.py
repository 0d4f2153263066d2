"""MCP tool servers read without running the agent: in its code and its configuration files."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

from generator.models import Inspection

GRAPH = """
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langgraph.graph import END, START, MessagesState, StateGraph
    from mcp import StdioServerParameters

    client = MultiServerMCPClient(
        {
            "browser": {"command": "npx", "args": ["@playwright/mcp@latest"], "transport": "stdio"},
            "search": {"url": "http://localhost:8931/mcp", "transport": "streamable_http"},
        }
    )
    files = StdioServerParameters(command="uvx", args=["mcp-server-filesystem", "/data"])
    not_a_server = {"colours": {"red": "#f00"}}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", lambda state: state)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    graph = builder.compile()
"""


def test_servers_in_code_and_in_an_mcp_config_file_are_listed_once(
    tmp_path: Path, inspect_folder: Callable[..., Inspection]
) -> None:
    (tmp_path / "langgraph.json").write_text('{"graphs": {"agent": "./graph.py:graph"}}')
    (tmp_path / "graph.py").write_text(textwrap.dedent(GRAPH))
    config = {
        "mcpServers": {
            "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
            "browser": {"command": "npx", "args": ["@playwright/mcp@latest"]},
        }
    }
    (tmp_path / "mcp_config.json").write_text(json.dumps(config))

    servers = [(s.describe(), s.origin) for s in inspect_folder(tmp_path).tool_servers]

    assert servers == [
        ("browser: npx @playwright/mcp@latest (stdio)", "graph.py:8"),
        ("search: http://localhost:8931/mcp (streamable_http)", "graph.py:9"),
        ("server: uvx mcp-server-filesystem /data (stdio)", "graph.py:12"),
        ("fetch: uvx mcp-server-fetch (stdio)", "mcp_config.json"),
    ]
