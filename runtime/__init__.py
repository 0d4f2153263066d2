"""The lean A2UI runtime: plugin discovery and WebSocket sessions."""
