"""Serving the plugins: the app, its transports, and the processes that run it.

* ``app``: the FastAPI app (``create_app``), its routes and start-up;
* transports, each a thin adapter over the turn engine (``runtime.turns``): ``websocket/`` (the
  session protocol of ``/ws``) and ``agui/`` (AG-UI runs);
* ``launch``: running the app under uvicorn; ``processes``: ``serve --workers N`` server processes,
  and ``_handoff``, the connections the supervisor hands them;
* ``origins``, ``proxies``: which pages and proxies the runtime trusts; ``web``: the browser pages;
* ``logging``, ``quotes``: log set-up, and how errors quote what a client sent.
"""
