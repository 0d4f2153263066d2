"""Plugins whose agents run in an environment of their own, in a worker process.

``envs`` builds and finds each isolated plugin's environment (uv, from its ``requirements.lock``),
``worker/`` is the program that runs the agent there (stdlib and the environment's own LangGraph,
0.2 through 1.x), and ``process`` starts and keeps one worker per plugin;
``runtime.adapters.isolated`` runs the agent's turns through it with the same guarantees as an
in-process agent. The boundary is
JSON-RPC 2.0 over the worker's stdin/stdout (docs/architecture.md says why).
"""
