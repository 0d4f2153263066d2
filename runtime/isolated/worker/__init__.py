"""The worker: runs one isolated plugin's agent in the plugin's own environment.

Started by the runtime as ``<env python> -s -m worker AGENT_FILE SOURCE_FOLDER ...`` with only
``runtime/isolated`` and the agent's source folders on ``sys.path``, so nothing here may import
the runtime or anything the agent's environment does not have: the standard library and the
environment's own ``langgraph`` / ``langchain_core`` (LangGraph 0.2 through 1.x), plus two of the
runtime's files loaded by path because they need no more than that (``redaction.py``: the
card-number masking; ``offline_models.py``: the scripted models). The runtime speaks to it with
JSON-RPC 2.0 over stdin/stdout (``protocol``); ``runs`` runs the agent, ``saver`` holds its
checkpoint for one run, ``agent`` loads it.
"""
