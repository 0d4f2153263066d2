"""The FastAPI app: ``/health``, ``/plugins``, the session WebSocket ``/ws``, AG-UI runs
``POST /agui/{plugin_id}`` (``runtime.serving.agui``; browsers reach it from
``Settings.cors_origins``)
and the browser pages (``/chat``, see ``runtime.serving.web``); plus the extensions
``Settings.extensions`` names (``runtime.extensions``), and nothing else.

``/ws?agent=<plugin_id>[&sessionId=<id>][&mode=voice|text]`` (the plugin id; default ``mortgage``).
When the runtime is started with ``--user-header NAME``, that request header is the session's user
id (a gateway in front of the runtime authenticates the user and sets it); otherwise sessions have
no user id and no header or parameter can claim one.
A handshake from a web page of another origin (``runtime.serving.origins``) is refused with HTTP 403
before any session exists. Otherwise the socket is accepted first, then closed with a reason when
it cannot be served (closing before accepting becomes a bare HTTP 403 under uvicorn, which tells
the client nothing):

* 4000: unknown or broken agent (the reason lists the available agents);
* 4001: a bad ``sessionId`` or ``mode`` query parameter, or a bad user id header;
* 4002: the session id belongs to another agent (or another user);
* 1011: the agent's graph could not be built.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect, status
from fastapi.middleware.cors import CORSMiddleware
from langchain_core.callbacks import BaseCallbackHandler
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime.contract.ids import SESSION_ID_PATTERN
from runtime.contract.state import Mode
from runtime.discovery import PluginsReport, discover
from runtime.extensions import install as install_extensions
from runtime.isolated.process import WORKERS
from runtime.serving import agui, origins
from runtime.serving.quotes import describe
from runtime.serving.web import mount_pages
from runtime.serving.websocket.session import Session
from runtime.serving.websocket.wire import CloseCode, close_reason
from runtime.settings import Settings
from runtime.storage.locks import open_locks
from runtime.storage.persistence import open_persistence
from runtime.turns.audit import AuditLog
from runtime.turns.context import RuntimeContext
from runtime.turns.observability import tracing_callbacks
from runtime.turns.threads import share_run_threads

logger = logging.getLogger(__name__)


class ConnectQuery(BaseModel):
    """The query string of ``/ws``."""

    model_config = ConfigDict(extra="ignore")

    #: The plugin id (``?agent=``, the wire name clients know).
    agent: str | None = None
    sessionId: Annotated[str, Field(pattern=SESSION_ID_PATTERN.pattern)] | None = None
    mode: Mode | None = None


#: What a user id from the gateway header may look like.
USER_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:@|+-]{1,128}$")


def create_app(
    settings: Settings | None = None, *, callbacks: Sequence[BaseCallbackHandler] | None = None
) -> FastAPI:
    """The runtime app. ``callbacks`` replaces the tracing handlers taken from the environment."""
    settings = settings or Settings()
    share_run_threads()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            persistence = stack.enter_context(open_persistence(settings.backend))
            locks = await stack.enter_async_context(open_locks(settings.backend))
            registry = discover(
                settings.plugins_dir,
                checkpointer=persistence.checkpointer,
                store=persistence.store,
            )
            audit = AuditLog(settings.audit_file)
            stack.callback(audit.close)
            stack.callback(WORKERS.close)  # isolated plugins' worker processes end with us
            stack.callback(setattr, WORKERS, "sandboxed", WORKERS.sandboxed)
            WORKERS.sandboxed = settings.sandbox
            if not settings.sandbox:
                logger.warning(
                    "--no-sandbox: isolated plugins' workers run unconfined, with this user's "
                    "files, processes and network"
                )
            handlers = tracing_callbacks() if callbacks is None else list(callbacks)
            app.state.runtime = RuntimeContext(settings, registry, audit, handlers, locks)
            # Checking needs may import the agents (and run async factories): off the loop.
            report = await asyncio.to_thread(registry.report)
            for plugin_id, capabilities in report.plugins.items():
                for line in (*capabilities.needs, *capabilities.warnings):
                    logger.warning("agent %r %s", plugin_id, line)
            logger.info(
                "serving agents %s (checkpointer %s); broken: %s",
                sorted(registry.plugins) or "none",
                settings.backend.redacted(),
                sorted(registry.broken) or "none",
            )
            yield

    app = FastAPI(title="A2UI runtime", lifespan=lifespan)
    app.include_router(agui.router)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Content-Type", "Accept"],
        )
    install_extensions(app, settings)  # only those asked for (runtime.extensions)

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
        return await asyncio.to_thread(_context(app).registry.report)

    @app.websocket("/ws")
    async def websocket_session(websocket: WebSocket) -> None:
        context = _context(app)
        if refused := origins.refusal(websocket, context.settings):
            logger.info("/ws: handshake refused: %s", refused)
            await websocket.close(status.WS_1008_POLICY_VIOLATION)  # before accept(): HTTP 403
            return
        await websocket.accept()
        try:
            query = ConnectQuery.model_validate(dict(websocket.query_params))
        except ValidationError as exc:
            await websocket.close(CloseCode.BAD_QUERY, close_reason(f"bad query: {describe(exc)}"))
            return
        user_id = None
        if context.settings.user_header is not None:
            user_id = websocket.headers.get(context.settings.user_header)
            if user_id is not None and not USER_ID_PATTERN.match(user_id):
                reason = f"bad {context.settings.user_header} header: not a user id"
                await websocket.close(CloseCode.BAD_QUERY, close_reason(reason))
                return
        plugin_id = query.agent or context.settings.default_agent  # ?agent= is the plugin id
        plugin = context.registry.plugins.get(plugin_id)
        if plugin is None:
            available = ", ".join(sorted(context.registry.plugins)) or "none"
            reason = f"unknown agent {plugin_id!r}; available: {available}"
            await websocket.close(CloseCode.UNKNOWN_AGENT, close_reason(reason))
            return
        session = Session(
            websocket, context, plugin, query.sessionId or uuid.uuid4().hex, query.mode, user_id
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
