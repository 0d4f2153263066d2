"""Manifest of a plugin imported by agent-import (wrapper strategy) whose agent was written for
LangGraph 0.2, so it runs in an environment of its own (``environment`` in agent.json).
"""

PLUGIN_ID = "legacy"
TITLE = "Legacy payments"
DESCRIPTION = "Pays people once the customer approves, on LangGraph 0.2."
