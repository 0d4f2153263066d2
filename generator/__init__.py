"""The agent-import generator: fetch, inspect, design, render, validate."""

__version__ = "0.1.0"
