"""The MCP tool servers an agent starts or connects to, read without running it.

An MCP agent's tools live in servers it starts over stdio (``npx @playwright/mcp``, ``uvx
mcp-server-fetch``, ``python server.py``) or reaches over SSE or HTTP. They are what the agent
needs beside its requirements, so the reviewer sees them (``agent.json`` ``tool_servers``, the
pull request), and validation, which runs offline in a sandbox, can name a failed connection as
"needs a tool server" rather than a bug. Found in the agent's code (a server entry of
``MultiServerMCPClient({...})`` or any dict with a ``command`` and ``args`` or a ``url`` and
``transport``; ``StdioServerParameters(command=..., args=[...])``) and in the repository's MCP
configuration files (``*mcp*.json`` with ``mcpServers`` or ``servers``).
"""

from __future__ import annotations

import json

import libcst as cst

from generator.inspect.modules import Module, Project, find_nodes
from generator.models import ToolServer

#: How many configuration files are read at most (a repository may hold many examples).
MAX_CONFIG_FILES = 20


def tool_servers(project: Project, modules: list[Module]) -> list[ToolServer]:
    """Every server once (by what it runs or where it is), in the order found in the agent's
    ``modules``, then in the repository's configuration files."""
    found: dict[str, ToolServer] = {}
    for module in modules:
        for server in _in_code(module):
            found.setdefault(server.target, server)
    for server in _in_config_files(project):
        found.setdefault(server.target, server)
    return list(found.values())


def _in_code(module: Module) -> list[ToolServer]:
    servers: list[ToolServer] = []
    for node in find_nodes(module.tree, cst.Dict):
        for element in node.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.value, cst.Dict):
                name = _text(element.key) or "server"
                entry = _entry(_literal_dict(element.value))
                if entry is not None:
                    servers.append(_server(name, *entry, f"{module.rel}:{module.line(element)}"))
    for call in find_nodes(module.tree, cst.Call):
        if _called(call.func) == "StdioServerParameters":
            fields = {
                arg.keyword.value: _value(arg.value) for arg in call.args if arg.keyword is not None
            }
            entry = _entry({**fields, "transport": "stdio"})
            if entry is not None:
                where = f"{module.rel}:{module.line(call)}"
                servers.append(_server("server", *entry, where))
    return servers


def _in_config_files(project: Project) -> list[ToolServer]:
    servers: list[ToolServer] = []
    files = sorted(
        path
        for path in project.root.rglob("*mcp*.json")
        if not any(part.startswith(".") or part == "node_modules" for part in path.parts)
    )[:MAX_CONFIG_FILES]
    for path in files:
        text = project.read_optional(path)
        try:
            data = json.loads(text) if text else None
        except ValueError:
            continue
        table = data.get("mcpServers") or data.get("servers") if isinstance(data, dict) else None
        if not isinstance(table, dict):
            continue
        rel = path.relative_to(project.root).as_posix()
        for name, fields in table.items():
            entry = _entry(fields) if isinstance(fields, dict) else None
            if entry is not None:
                servers.append(_server(str(name), *entry, rel))
    return servers


def _entry(fields: dict[str, object]) -> tuple[str, str] | None:
    """``(transport, what it runs or where it is)`` of one server's settings, if they are one."""
    command, url = fields.get("command"), fields.get("url")
    if isinstance(command, str) and command:
        args = fields.get("args")
        words = [command, *(str(a) for a in args)] if isinstance(args, list) else [command]
        return str(fields.get("transport") or "stdio"), " ".join(words)
    if isinstance(url, str) and url and ("transport" in fields or "type" in fields):
        return str(fields.get("transport") or fields.get("type")), url
    return None


def _server(name: str, transport: str, target: str, origin: str) -> ToolServer:
    return ToolServer(name=name, transport=transport, target=target, origin=origin)


def _literal_dict(node: cst.Dict) -> dict[str, object]:
    """The string keys of a dict literal with their literal values (others: None)."""
    return {
        key: _value(element.value)
        for element in node.elements
        if isinstance(element, cst.DictElement) and (key := _text(element.key))
    }


def _value(node: cst.BaseExpression) -> object:
    """A string, or a list of strings (an unreadable item as ``...``); None otherwise."""
    if isinstance(node, cst.List):
        items = [element for element in node.elements if isinstance(element, cst.Element)]
        return [_text(element.value) or "..." for element in items]
    return _text(node)


def _text(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _called(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return ""
