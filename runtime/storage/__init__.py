"""Where sessions are kept: checkpoints, the store, and the locks that order a session's turns.

``backend`` reads the ``--storage`` URL once into a ``Backend``, which the rest asks:
``persistence`` opens its checkpointer and store; ``locks`` holds one turn of a session at a time,
in one process or across server processes; ``savers`` and ``plugin_store`` adapt LangGraph's
savers and store to the runtime's rules; ``file_lock`` holds a name across processes.
"""
