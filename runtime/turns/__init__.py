"""The turn engine: one session's turns, run the same way for every transport.

A transport (the WebSocket ``runtime.serving.websocket.session``, an AG-UI endpoint, ...) only
parses what its client sends and writes what the engine gives back; running the plugin's graph,
its interrupts and its events live here, and so does what the customer's answers mean.

Driving a session::

    engine = await TurnEngine.create(context, plugin, session_id)   # builds the graph (may raise)
    async with engine.lock:                   # one turn of a session at a time, all transports
        opening = await engine.open()         # Opening(state, interrupts); SessionRefused if the
                                              # id is another agent's; {} state: a new session
        request = engine.start(mode="text") if not opening.state else TurnRequest.say("hi")
        async for item in engine.stream(request, events=True):
            ...                               # TextDelta, ToolCall*, NodeFinished as they happen
            if isinstance(item, TurnFinished):
                result = item.result          # TurnResult
    # or: result = await engine.run(request)  (no events; the same TurnResult)

``TurnRequest`` is what starts a turn: ``update`` (a state update: ``TurnRequest.say(text)``,
``TurnRequest.click(pending_action)``, ``engine.start()`` for a new session), or ``resume``
(``TurnRequest.answer({interrupt_id: value})``), plus the client's ``mode`` and ``device`` and
``extras``. A transport that has the customer's words or a button press, while the session may
wait on a question, asks the engine which turn they mean: ``engine.hear(text, waiting)`` (the
answer, a new turn, or ``None``: send ``engine.ask_again(waiting)``), ``engine.press(action_id,
data, waiting)`` (the answer, or a click; ``ActionRejected`` before anything runs), and
``engine.answer(pending, payload, where)`` for a resume payload; ``engine.redraw(state,
waiting)`` is the session as it stands, for a client that comes back.

``RunExtras`` (``user_id``, ``client_tools``, ``context``) is the typed place for what a transport
adds to one run; it travels in ``config["configurable"]`` and nodes read it with
``run_extras(config)``.

``TurnResult``: ``outbox`` (the server events of the turn, in the order the graph wrote them:
A2UI patches, voice lines, transcript, audit; a transport applies ``runtime.turns.outbox`` rules to
it), ``state`` (the plugin's state after the turn), ``interrupts`` (``PendingInterrupt(id, value)``
the graph now waits on) and ``error`` (``TurnError(code, message)`` or ``None``; the outbox then
holds the ``server.error`` event).

Interrupts: a node's ``interrupt(value)`` ends the turn with ``result.interrupts``; the next turn
answers them with ``TurnRequest.answer({id: value, ...})`` (LangGraph's ``Command(resume=...)``).
An id the session is not waiting on raises ``UnknownInterrupt`` before anything runs: an answer is
never applied to another interrupt. ``engine.pending()`` lists what the session waits on now, and
``Opening.interrupts`` what it waited on when the transport connected.

Policy (``runtime.contract.policy.RunPolicy``, per plugin; docs/run-policy.md): each turn is
bounded by a
recursion limit, a deadline, a token budget per session and a number of tool calls; past one, the
result carries ``TurnError(code)`` (``recursion_limit``, ``deadline_exceeded``,
``budget_exhausted``, ``tool_limit``; ``agent_error`` when the plugin raises), the outbox starts
with ``server.error`` and ``state`` is the state from before the turn. Commit before telling: a
successful turn's checkpoints are written (``TurnWrites.commit``) before ``TurnFinished`` is
yielded, so a transport only ever delivers or audits what the database holds; a failed turn, or a
stream closed before its run finished (the run is cancelled), is never written. Iterate ``stream``
inside ``contextlib.aclosing`` so an abandoned run is cancelled at once. Where a run runs (a worker
thread, or the event loop's thread for a plugin whose nodes only compute) is ``runtime.turns.runs``.

Engine events (``runtime.turns.events``) come from LangGraph's ``stream_mode=["messages",
"updates", "values"]`` with ``subgraphs=True``, so an imported agent's tokens and tool calls are
reported too.
"""

from runtime.turns.engine import (
    Opening,
    RunExtras,
    SessionRefused,
    TurnEngine,
    TurnError,
    TurnRequest,
    TurnResult,
    UnknownInterrupt,
    run_extras,
)
from runtime.turns.events import (
    EngineEvent,
    NodeFinished,
    PendingInterrupt,
    TextDelta,
    ToolCallArgs,
    ToolCallEnded,
    ToolCallResult,
    ToolCallStarted,
    TurnFinished,
)

__all__ = [
    "EngineEvent",
    "NodeFinished",
    "Opening",
    "PendingInterrupt",
    "RunExtras",
    "SessionRefused",
    "TextDelta",
    "ToolCallArgs",
    "ToolCallEnded",
    "ToolCallResult",
    "ToolCallStarted",
    "TurnEngine",
    "TurnError",
    "TurnFinished",
    "TurnRequest",
    "TurnResult",
    "UnknownInterrupt",
    "run_extras",
]
