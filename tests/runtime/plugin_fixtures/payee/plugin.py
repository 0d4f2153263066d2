"""The class the runtime discovers; how the agent runs is ``runtime.adapters.subgraph``."""

from __future__ import annotations

from runtime.adapters.subgraph import SubgraphPlugin

from . import DESCRIPTION, PLUGIN_ID, TITLE


class PayeePlugin(SubgraphPlugin):
    """Maps the state of the agent vendored in src/ (see agent.json)."""

    plugin_id = PLUGIN_ID
    title = TITLE
    description = DESCRIPTION
