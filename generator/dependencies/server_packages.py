"""LangGraph's server packages, which this runtime replaces: never an agent's requirement.

An agent's ``pyproject.toml`` often lists ``langgraph-cli[inmem]`` or ``langgraph-api`` so that
``langgraph dev`` runs it. Installing them here is pointless (the runtime serves the graph), and
their ranges can make resolution fail (a yanked ``langgraph-api``), so each is left out of the
plugin's requirements with a note, and never proposed (``imports.py``, ``validate/hints.py``).
``langgraph-sdk`` is a client and stays.
"""

from __future__ import annotations

from packaging.utils import canonicalize_name

#: Normalised distribution name -> what it is, as the note says it.
SERVER_PACKAGES = {
    "langgraph-api": "LangGraph's server",
    "langgraph-cli": "LangGraph's server command line",
    "langgraph-runtime-inmem": "the in-memory storage of LangGraph's server",
    "langgraph-api-inmem": "the in-memory storage of LangGraph's server",
}


def is_server_package(name: str) -> bool:
    """Whether distribution ``name`` is LangGraph's server: never declared, and never proposed
    for an undeclared import (``import langgraph_api``) or from a ``pip install`` hint."""
    return canonicalize_name(name) in SERVER_PACKAGES


def server_note(name: str) -> str | None:
    """Why requirement ``name`` is left out, or None when it is not LangGraph's server."""
    what = SERVER_PACKAGES.get(canonicalize_name(name))
    return None if what is None else f"left out: {name} is {what}, which the runtime replaces"
