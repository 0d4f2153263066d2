"""The plugin contract, declared once: what a plugin provides and what both halves read.

The runtime serves plugins and ``agent-import`` writes them; both import these names from here and
nowhere else (a test holds every import to the module that defines the name):

* ``plugin``: ``PluginBase``, the class a plugin subclasses, and its ``Capabilities``;
* ``state``: ``CommonState``, the graph state every plugin runs on, and the outbox ``event``;
* ``actions``: button clicks, namespaced ``<plugin_id>.<action>``;
* ``policy``: ``RunPolicy``, the limits of a plugin's turns;
* ``layout``: a plugin folder's files; ``ids``: the identifier rules;
* ``screens``: an imported plugin's screens and the data model they bind to;
* ``agent``: ``agent.json``, where an imported plugin's agent is and how its fields map.

``layout``, ``ids`` and ``screens`` import nothing heavy: the pre-commit hooks and the generator's
CLI read them on every run.
"""
