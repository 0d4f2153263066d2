"""Adapters that run an imported LangGraph agent inside a runtime plugin.

``agent-import`` renders thin plugin folders; the logic they share lives here, so a fix reaches
every imported plugin without re-rendering it:

* ``agent``: the ``agent.json`` model (where the agent is, how its fields map);
* ``loader``: loading a ``langgraph.json`` graph spec from the vendored ``src/`` and calling
  factories as LangGraph's server does;
* ``imported``: ``ImportedPlugin``, the turn logic (welcome, answer, error) and the data model;
* ``wrapper`` / ``subgraph``: the two strategies that run the agent's own graph;
* ``voice``: answers made speakable.
"""
