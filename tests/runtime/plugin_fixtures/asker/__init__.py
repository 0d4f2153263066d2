"""Asker: asks for approval with LangGraph's ``interrupt()``; a test plugin."""

PLUGIN_ID = "asker"
