"""The subgraph strategy: a structured agent whose state keys are mapped to the plugin's.

What the user says goes into the agent's ``input_field`` (a text field of its state), and the
first run of a conversation also gets the reviewed values of its other input fields (``inputs`` in
``agent.json``, e.g. a data-enrichment agent's ``extraction_schema``); the answer
is its ``output_field`` and the ``result_fields`` (typed results such as amounts or verdicts) go
into the data model under ``/state/<field>``, where the result screen shows them. The agent's state
is kept per session, so fields it does not overwrite carry over to the next turn, as in a thread
of LangGraph's server.
"""

from __future__ import annotations

from typing import Any

from runtime.adapters.imported import AgentPlugin


class SubgraphPlugin(AgentPlugin):
    """Base class of plugins that map a structured agent's state."""

    def agent_input(self, text: str, *, fresh: bool) -> dict[str, Any]:
        return {**self.settled_inputs(fresh), self.agent.input_field: text}
