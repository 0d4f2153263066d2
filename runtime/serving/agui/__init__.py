"""AG-UI: the runtime's plugins for any AG-UI client (``POST /agui/{plugin_id}``), on the same turn
engine as the WebSocket. ``endpoint`` serves a run, ``plan`` decides which turn it runs, ``events``
says what the client sees of it. See docs/agui.md.
"""

from runtime.serving.agui.endpoint import router

__all__ = ["router"]
