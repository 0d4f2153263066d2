"""The action namespace: a button click names ``<plugin_id>.<action>``.

A bare id (``select``) is a legacy spelling: it is accepted as ``<plugin_id>.select`` with a
deprecation warning in the log. An id in another plugin's namespace is refused, and so is anything
the plugin's own ``validate_action`` refuses.
"""

from __future__ import annotations

import logging
from typing import Any

from runtime.contract.plugin import PluginBase
from runtime.contract.state import PendingAction

logger = logging.getLogger(__name__)


class ActionRejected(Exception):
    """The click cannot go to this session's graph; the message says why."""


def resolve_action(plugin: PluginBase, action_id: str, data: dict[str, Any]) -> PendingAction:
    """The ``pendingAction`` for a click on ``plugin``'s screens, or ``ActionRejected``."""
    namespace, dot, _ = action_id.partition(".")
    if not dot:
        namespaced = plugin.action_id(action_id)
        logger.warning(
            "deprecated bare action id %r for agent %r; screens should send %r",
            action_id,
            plugin.plugin_id,
            namespaced,
        )
    elif namespace != plugin.plugin_id:
        raise ActionRejected(
            f"action {action_id!r} belongs to {namespace!r}, not to agent {plugin.plugin_id!r}"
        )
    else:
        namespaced = action_id
    reason = plugin.validate_action(namespaced, data)
    if reason is not None:
        raise ActionRejected(reason)
    return PendingAction(id=namespaced, data=data)
