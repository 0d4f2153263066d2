"""Tools for development and tests: models that answer offline, a WebSocket client, the demo.

Nothing here serves customers: ``offline_models`` is what ``serve --offline-models`` and the
generator's smoke test install, ``client`` drives the WebSocket from Python, and ``demo`` plays a
scripted conversation against a real server.
"""
