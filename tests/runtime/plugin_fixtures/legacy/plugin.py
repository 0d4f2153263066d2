"""The class the runtime discovers; how the agent runs is ``runtime.adapters.wrapper``.

The deadline and the token budget are read from ``LEGACY_DEADLINE_S`` and
``LEGACY_TOKEN_BUDGET`` so a test can make them small."""

from __future__ import annotations

import os

from runtime.adapters.wrapper import WrapperPlugin
from runtime.contract.policy import RunPolicy

from . import DESCRIPTION, PLUGIN_ID, TITLE


class LegacyPlugin(WrapperPlugin):
    """Wraps the message-based agent vendored in src/ (see agent.json)."""

    plugin_id = PLUGIN_ID
    title = TITLE
    description = DESCRIPTION
    run_policy = RunPolicy(
        deadline_s=float(os.environ.get("LEGACY_DEADLINE_S", "60")),
        token_budget=int(os.environ.get("LEGACY_TOKEN_BUDGET", "200000")),
        max_tool_calls=3,
    )
