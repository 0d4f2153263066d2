"""``POST /agui/{plugin_id}``: an AG-UI run over the session's turn engine, as an event stream.

The request is a ``RunAgentInput`` (the ``ag-ui-protocol`` models); ``threadId`` is the session id,
so a conversation continues across runs (and across transports: the same session can be reached
over the WebSocket). What runs is decided by ``runtime.agui.plan``, what the client sees by
``runtime.agui.events``. Errors before the stream starts are HTTP errors with one line saying
what was wrong: 404 for an unknown agent, 413 for a body over the limit, 422 for an invalid input.
Once streaming, a failure is a ``RUN_ERROR`` with a ``code``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Final

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import ValidationError

from runtime.agui.events import RunEvents, data_model
from runtime.agui.plan import delivery_of, plan
from runtime.context import RuntimeContext
from runtime.ids import SESSION_ID_PATTERN
from runtime.outbox import prepare, resume_events
from runtime.plugin import PluginBase
from runtime.turns import SessionRefused, TurnEngine, TurnFinished, UnknownInterrupt
from runtime.wire import describe

logger = logging.getLogger(__name__)

#: An AG-UI client sends the whole conversation on every run, so the limit is above a WebSocket
#: frame's (``Settings.max_message_bytes``) by this factor.
HISTORY_FACTOR: Final = 16

router = APIRouter()


@router.post("/agui/{plugin_id}")
async def agui_run(plugin_id: str, request: Request) -> StreamingResponse:
    context: RuntimeContext = request.app.state.runtime
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
    stream = (encoder.encode(e) async for e in run_events(context, plugin, run))
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
    mode = delivery_of(run).mode
    async with engine.lock:
        try:
            opening = await engine.open()
        except SessionRefused as exc:
            for item in events.failed("other_agents_session", str(exc)):
                yield item
            return
        request = plan(engine, opening, run)
        if request is None:  # nothing new: redraw the session as it is
            state = opening.state
            delivery = prepare(resume_events(state.get("ui")), mode=mode, surfaces=frozenset())
            for item in events.finished(delivery, data_model(state.get("ui"), plugin.plugin_id)):
                yield item
            return
        try:
            async for step in engine.stream(request, events=True):
                if isinstance(step, TurnFinished):
                    result = step.result
                else:
                    for item in events.during(step):
                        yield item
        except UnknownInterrupt as exc:
            for item in events.failed("unknown_interrupt", str(exc)):
                yield item
            return
    delivery = prepare(result.outbox, mode=mode, surfaces=frozenset())
    context.record_audit(run.thread_id, plugin.plugin_id, delivery.audit)
    error = (result.error.code, result.error.message) if result.error else None
    state_model = data_model(result.state.get("ui"), plugin.plugin_id)
    for item in events.finished(delivery, state_model, result.interrupts, error):
        yield item
