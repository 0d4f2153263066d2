"""Checks of plugin folders, run as pre-commit hooks (``.pre-commit-hooks.yaml``) and in CI.

* ``contract`` (``plugin-contract``): the static plugin contract of each plugin folder;
* ``leftovers`` (``no-merge-leftovers``): conflict markers, ``*.rej`` and ``*.orig`` files;
* ``plugins`` (the ``plugins`` nox session): contract, discovery and smoke test of every plugin.

Screen files are checked by ``runtime.a2ui.check`` (``a2ui-screens``). Every error is one line
naming the file (and line, component or property where there is one).
"""
