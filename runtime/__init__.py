"""The lean A2UI runtime: plugin discovery, one turn engine, and its transports."""

from runtime import _moved

_moved.install()
