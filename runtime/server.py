"""The FastAPI app: ``/health``, ``/plugins``, the session WebSocket ``/ws`` and the browser pages
(``/chat``, see ``runtime.web``).

``/ws?agent=<plugin_id>[&sessionId=<id>][&mode=voice|text]`` (agent defaults to ``mortgage``).
The socket is always accepted first, then closed with a reason when it cannot be served (closing
before accepting becomes a bare HTTP 403 under uvicorn, which tells the client nothing):

* 4000: unknown or broken agent (the reason lists the available agents);
* 4001: a bad ``sessionId`` or ``mode`` query parameter;
* 4002: the session id belongs to another agent;
* 1011: the agent's graph could not be built.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import ExitStack, asynccontextmanager
from typing import Annotated, Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from langchain_core.callbacks import BaseCallbackHandler
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime.audit import AuditLog
from runtime.checkpointing import open_checkpointer
from runtime.contracts import Mode
from runtime.discovery import PluginsReport, discover
from runtime.import_api import install as install_import_api
from runtime.observability import tracing_callbacks
from runtime.session import RuntimeContext, Session
from runtime.settings import Settings
from runtime.web import mount_pages
from runtime.wire import CloseCode, close_reason, describe

logger = logging.getLogger(__name__)


class ConnectQuery(BaseModel):
    """The query string of ``/ws``."""

    model_config = ConfigDict(extra="ignore")

    agent: str | None = None
    sessionId: Annotated[str, Field(pattern=r"^[A-Za-z0-9._:-]{1,128}$")] | None = None
    mode: Mode | None = None


def create_app(
    settings: Settings | None = None, *, callbacks: Sequence[BaseCallbackHandler] | None = None
) -> FastAPI:
    """The runtime app. ``callbacks`` replaces the tracing handlers taken from the environment."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        with ExitStack() as stack:
            checkpointer = stack.enter_context(open_checkpointer(settings.sqlite_path))
            registry = discover(settings.plugins_dir, checkpointer=checkpointer)
            audit = AuditLog(settings.audit_file)
            stack.callback(audit.close)
            handlers = tracing_callbacks() if callbacks is None else list(callbacks)
            app.state.runtime = RuntimeContext(settings, registry, audit, handlers)
            logger.info(
                "serving agents %s (checkpointer %s); broken: %s",
                sorted(registry.plugins) or "none",
                settings.checkpointer,
                sorted(registry.broken) or "none",
            )
            yield

    app = FastAPI(title="A2UI runtime", lifespan=lifespan)
    install_import_api(app, settings)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        registry = _context(app).registry
        return {
            "status": "ok",
            "plugins": sorted(registry.plugins),
            "broken": sorted(registry.broken),
        }

    @app.get("/plugins")
    async def plugins() -> PluginsReport:
        return _context(app).registry.report()

    @app.websocket("/ws")
    async def websocket_session(websocket: WebSocket) -> None:
        await websocket.accept()
        context = _context(app)
        try:
            query = ConnectQuery.model_validate(dict(websocket.query_params))
        except ValidationError as exc:
            await websocket.close(CloseCode.BAD_QUERY, close_reason(f"bad query: {describe(exc)}"))
            return
        agent = query.agent or context.settings.default_agent
        plugin = context.registry.plugins.get(agent)
        if plugin is None:
            available = ", ".join(sorted(context.registry.plugins)) or "none"
            reason = f"unknown agent {agent!r}; available: {available}"
            await websocket.close(CloseCode.UNKNOWN_AGENT, close_reason(reason))
            return
        session = Session(
            websocket, context, plugin, query.sessionId or uuid.uuid4().hex, query.mode
        )
        try:
            await session.serve()
        except WebSocketDisconnect:
            logger.info("session %s: client went away", session.session_id)

    mount_pages(app)
    return app


def _context(app: FastAPI) -> RuntimeContext:
    context: RuntimeContext = app.state.runtime
    return context
