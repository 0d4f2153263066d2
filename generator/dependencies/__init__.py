"""The dependencies step: what an agent needs, whether it fits, and where it is installed.

* what the agent declares (``declared``, with ``poetry``'s constraints, ``local_packages`` it
  depends on by path, and LangGraph's ``server_packages``, which are never its requirements), and
  what it imports without declaring (``undeclared``, ``distributions``: module → project);
* what the runtime's environment already gives (``runtime_packages``) and what is missing
  (``environment``: the report, the approved validation environment; ``additions`` and
  ``prefill``: filling it fast, while the plugin renders); whether a guessed requirement exists in
  the index (``index``);
* whether the requirements fit beside the runtime's and other plugins' (``conflicts``), and if
  not, an environment of its own (``isolation``, pinned by ``lock``), on the Python the agent asks
  for (``python_version``).

The inspector reads the declared ones statically; nothing is installed before approval, and never
into the runtime's own environment.
"""
