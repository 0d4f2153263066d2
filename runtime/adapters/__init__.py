"""Adapters that run an imported LangGraph agent inside a runtime plugin.

``agent-import`` renders thin plugin folders; the logic they share lives here, so a fix reaches
every imported plugin without re-rendering it:

* ``loader``: loading a ``langgraph.json`` graph spec from the vendored ``src/`` and calling
  factories as LangGraph's server does, each agent's modules under their own names
  (``namespaces``);
* ``run_context``, ``variables``: the run context (context, configurable, ``ServerRuntime``) the
  server gives a run, and the environment variables an agent reads;
* ``imported``: ``ImportedPlugin``, the turn logic (welcome, answer, error) and the data model;
* ``wrapper`` / ``subgraph``: the two strategies that run the agent's own graph;
* ``isolated``: the agent of a plugin with an environment of its own, run in its worker;
* ``breakpoints``, ``changes``: static breakpoints as approvals, and what a run changed;
* ``voice``: answers made speakable.

The ``agent.json`` model they read is the plugin contract's (``runtime.contract.agent``).
"""
