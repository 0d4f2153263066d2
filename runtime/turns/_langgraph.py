"""LangGraph's private names the turn engine depends on, imported here and nowhere else.

LangGraph has no public API for what these do, and a release may move them:

* ``CONFIG_KEY_CHECKPOINTER``: the ``configurable`` key of the checkpointer a run writes through;
  the engine puts ``TurnWrites`` there so a turn's writes are kept only if it succeeds
  (``rollback.py``);
* ``NS_SEP``, ``NS_END``: how a checkpoint namespace joins a subgraph's to its parent's, so the
  writes of a turn's subgraphs are found (``rollback.py``);
* ``executor``: the module whose ``get_executor_for_config`` gives each run its thread pool, which
  ``threads.py`` replaces with one shared pool.

``tests/runtime/turns/test_langgraph_private.py`` fails, naming the name, on a LangGraph that
moves or changes one of them, rather than a turn failing at run time.
"""

from __future__ import annotations

import langgraph.pregel._executor as executor
from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER, NS_END, NS_SEP

__all__ = ["CONFIG_KEY_CHECKPOINTER", "NS_END", "NS_SEP", "executor"]
