"""``POST /agui/{plugin_id}``: an AG-UI run over the session's turn engine, as an event stream.

The request is a ``RunAgentInput`` (the ``ag-ui-protocol`` models); ``threadId`` is the session id,
so a conversation continues across runs (and across transports: the same session can be reached
over the WebSocket). What runs is decided by ``runtime.serving.agui.plan``, what the client sees by
``runtime.serving.agui.events``. Errors before the stream starts are HTTP errors with one line
saying
what was wrong: 403 for a web page of another origin (``runtime.serving.origins``), 415 for a body
that is
not ``application/json`` (a browser posts ``text/plain`` and form bodies cross-site without a CORS
preflight), 404 for an unknown agent, 413 for a body over the limit, 422 for an invalid input.
Once streaming, a failure is a ``RUN_ERROR`` with a ``code``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Final

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import ValidationError

from runtime.contract.actions import ActionRejected
from runtime.contract.ids import SESSION_ID_PATTERN
from runtime.contract.plugin import PluginBase
from runtime.redaction import redact_values
from runtime.serving import origins
from runtime.serving.agui.events import RunEvents, data_model
from runtime.serving.agui.plan import client_mode, plan
from runtime.serving.quotes import describe
from runtime.turns import (
    SessionRefused,
    TurnEngine,
    TurnFinished,
    TurnResult,
    UnknownInterrupt,
)
from runtime.turns.context import RuntimeContext
from runtime.turns.outbox import prepare

logger = logging.getLogger(__name__)

#: An AG-UI client sends the whole conversation on every run, so the limit is above a WebSocket
#: frame's (``Settings.max_message_bytes``) by this factor.
HISTORY_FACTOR: Final = 16

router = APIRouter()


@router.post("/agui/{plugin_id}")
async def agui_run(plugin_id: str, request: Request) -> StreamingResponse:
    context: RuntimeContext = request.app.state.runtime
    if refused := origins.refusal(request, context.settings):
        logger.info("/agui: %s", refused)
        raise HTTPException(403, refused)
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json":
        raise HTTPException(415, "a run input must be sent as Content-Type: application/json")
    plugin = context.registry.plugins.get(plugin_id)
    if plugin is None:
        available = ", ".join(sorted(context.registry.plugins)) or "none"
        raise HTTPException(404, f"unknown agent {plugin_id!r}; available: {available}")
    body = await request.body()
    limit = context.settings.max_message_bytes * HISTORY_FACTOR
    if len(body) > limit:
        raise HTTPException(413, f"run input of {len(body)} bytes exceeds the limit of {limit}")
    try:
        run = RunAgentInput.model_validate_json(body)
    except ValidationError as exc:
        raise HTTPException(422, f"invalid RunAgentInput: {describe(exc)}") from None
    if not SESSION_ID_PATTERN.fullmatch(run.thread_id):
        raise HTTPException(422, f"threadId must match {SESSION_ID_PATTERN.pattern}")
    encoder = EventEncoder(accept=request.headers.get("accept", ""))
    stream = (encoder.encode(redact_values(e)) async for e in run_events(context, plugin, run))
    return StreamingResponse(stream, media_type=encoder.get_content_type())


async def run_events(
    context: RuntimeContext, plugin: PluginBase, run: RunAgentInput
) -> AsyncIterator[BaseEvent]:
    """RUN_STARTED, the turn's events as they happen, and how it ended."""
    events = RunEvents(run.thread_id, run.run_id)
    yield events.started()
    try:
        engine = await TurnEngine.create(context, plugin, run.thread_id)
    except Exception:
        logger.exception("agent %r could not build its graph", plugin.plugin_id)
        for item in events.failed("agent_unavailable", f"The {plugin.title} agent is unavailable."):
            yield item
        return
    mode = client_mode(run).mode
    async with engine.lock:
        try:
            opening = await engine.open()
        except SessionRefused as exc:
            for item in events.failed("other_agents_session", str(exc)):
                yield item
            return
        try:
            request = plan(engine, opening, run)
        except ActionRejected as exc:  # refused before anything runs
            for item in events.failed("action_rejected", str(exc)):
                yield item
            return
        if request is None:  # nothing new: redraw the session as it is, and what it waits on
            state, waiting = opening.state, opening.interrupts
            delivery = prepare(engine.redraw(state, waiting), mode=mode, surfaces=frozenset())
            model = data_model(state.get("ui"), plugin.plugin_id)
            for item in events.finished(delivery, model, waiting):
                yield item
            return
        try:
            # a finished turn is committed before its events come (see TurnEngine.stream); a
            # client that leaves mid-run closes this stream, and the unfinished turn leaves no trace
            async with aclosing(engine.stream(request, events=True)) as steps:
                async for step in steps:
                    if isinstance(step, TurnFinished):
                        outcome = finished(context, plugin, run, events, step.result)
                    else:
                        outcome = events.during(step)
                    for item in outcome:
                        yield item
        except UnknownInterrupt as exc:
            for item in events.failed("unknown_interrupt", str(exc)):
                yield item


def finished(
    context: RuntimeContext,
    plugin: PluginBase,
    run: RunAgentInput,
    events: RunEvents,
    result: TurnResult,
) -> list[BaseEvent]:
    """The end of the run: the outbox delivered (audit events to the audit log), the state."""
    delivery = prepare(result.outbox, mode=client_mode(run).mode, surfaces=frozenset())
    context.record_audit(run.thread_id, plugin.plugin_id, delivery.audit)
    error = (result.error.code, result.error.message) if result.error else None
    model = data_model(result.state.get("ui"), plugin.plugin_id)
    return events.finished(delivery, model, result.interrupts, error)
