"""Chatty: a model that calls a tool, then answers; a test plugin."""

PLUGIN_ID = "chatty"
