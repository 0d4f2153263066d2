"""Render: a ``Design`` and an ``Inspection`` become one plugin folder.

``template`` drives the Copier template and records the answers, ``vendor`` copies the agent's
source into the plugin, ``staging`` writes the folder atomically under the plugin id's ``claim``
(one writer per id, across processes), and ``screens`` merges screen files three ways on update.
"""
