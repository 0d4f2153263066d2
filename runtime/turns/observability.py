"""Run configuration for graph runs: thread id, metadata, and tracing callbacks.

Every run carries ``session_id`` and ``agent_id`` (the plugin id, under the name clients and traces
know) in its metadata, so any LangChain callback (a tracer, a logger, a test double) can tell
sessions and plugins apart. Langfuse is attached when the
standard ``LANGFUSE_PUBLIC_KEY`` and ``LANGFUSE_SECRET_KEY`` variables are set (``LANGFUSE_HOST``
optional); it is the optional extra ``observability`` and is imported only then.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig

logger = logging.getLogger(__name__)

LANGFUSE_KEYS = ("LANGFUSE_PUBLIC_KEY", "LANGFUSE_SECRET_KEY")


def tracing_callbacks(env: Mapping[str, str] | None = None) -> list[BaseCallbackHandler]:
    """The tracing handlers the environment asks for (Langfuse, or none)."""
    env = os.environ if env is None else env
    if not all(env.get(key) for key in LANGFUSE_KEYS):
        return []
    try:
        from langfuse.langchain import CallbackHandler
    except ImportError:
        logger.warning(
            "LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY are set but langfuse is not installed; "
            "tracing is off (install the extra: pip install 'agent-import[observability]')"
        )
        return []
    logger.info("tracing graph runs to Langfuse (%s)", env.get("LANGFUSE_HOST", "default host"))
    handler: BaseCallbackHandler = CallbackHandler()
    return [handler]


def run_config(
    *,
    session_id: str,
    plugin_id: str,
    callbacks: Sequence[BaseCallbackHandler] = (),
    user_id: str | None = None,
) -> RunnableConfig:
    """The config of every run of one session: its thread, metadata (with the deployment's user
    id, if any) and callbacks."""
    user = {"user_id": user_id, "langfuse_user_id": user_id} if user_id else {}
    return RunnableConfig(
        configurable={"thread_id": session_id},
        metadata={
            "session_id": session_id,
            "agent_id": plugin_id,  # the wire name clients and traces know
            # Langfuse groups traces by these keys.
            "langfuse_session_id": session_id,
            "langfuse_tags": [plugin_id],
            **user,
        },
        callbacks=list(callbacks),
        run_name=f"{plugin_id} turn",
    )
