"""An isolated plugin's turns: the agent runs in its worker, the session stays the runtime's.

The worker keeps nothing between runs. The agent's checkpoint (opaque bytes, in the worker's own
serde) lives in the session's state, in a small stateful subgraph of the plugin's ``agent`` node
(``call``, then ``ask`` while the agent waits on an ``interrupt()``), so the runtime's
checkpointer holds it in its own namespace: SQLite or PostgreSQL durability, a failed turn that
leaves no trace (``TurnWrites``, ``forget_writes``), commit before telling and restarts all come
from the turn engine as for an in-process agent. ``ask`` raises the agent's interrupt as the
runtime's own, so the approval screen and its answers (id, words, buttons) work unchanged, and
resumes the agent with the answer.

While a run goes on, what the worker reports is replayed into the node's callbacks (a model's
start, tokens, end; a tool's start), so the token stream, the token budget and the tool-call limit
work as in process; the worker's store requests are answered from the plugin's own view of the
store. Past the deadline (or any stop), the run is cancelled, and the worker killed if it has not
answered within ``CANCEL_GRACE_S``; a worker that died fails the turn (the error screen) and the
next turn starts a new one.
"""

from __future__ import annotations

import logging
import queue
import uuid
from collections.abc import Mapping
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Final, TypedDict, cast

from langchain_core.callbacks import (
    CallbackManager,
    CallbackManagerForLLMRun,
    CallbackManagerForToolRun,
)
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, LLMResult
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_callback_manager_for_config
from langgraph.config import get_store
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import get_runtime
from langgraph.store.base import GetOp, Item, ListNamespacesOp, MatchCondition, PutOp, SearchOp
from langgraph.types import interrupt

from runtime.adapters.run_context import AUTH_USER_KEY, RunContext
from runtime.contract.agent import AgentSpec
from runtime.isolated.envs import BUILD_COMMAND, ready_python
from runtime.isolated.process import CRASHED, WORKERS, Call, Worker, WorkerCrashed, worker_spec
from runtime.isolated.worker import protocol
from runtime.testing import offline_models
from runtime.turns.limits import TurnStopped

logger = logging.getLogger(__name__)

#: How often a waiting turn looks whether it was stopped (the deadline, a limit, a client gone).
POLL_S: Final = 0.05
#: How long a cancelled run may take to stop before its worker is killed.
CANCEL_GRACE_S: Final = 2.0
MESSAGE_TYPES: Final[dict[str, type[BaseMessage]]] = {
    "ai": AIMessage,
    "AIMessageChunk": AIMessageChunk,
    "tool": ToolMessage,
    "human": HumanMessage,
    "system": SystemMessage,
}
STORE_OPS: Final = {op.__name__: op for op in (GetOp, PutOp, SearchOp, ListNamespacesOp)}


class AgentFailed(RuntimeError):
    """The agent raised in its worker; the message is the worker's ``Type: message``."""


class _Turn(TypedDict, total=False):
    """The subgraph's state: the run asked for, the agent's checkpoint, what it waits on."""

    request: dict[str, Any]
    checkpoint: str | None
    pending: list[Any]
    result: dict[str, Any]


class IsolatedAgent:
    """Runs one isolated plugin's agent in its worker."""

    def __init__(self, plugin_id: str, folder: Path, spec: AgentSpec) -> None:
        self.plugin_id = plugin_id
        self.folder = folder
        self.spec = spec

    def needs(self) -> list[str]:
        """What stops the plugin here: its environment is not built (the runtime never builds)."""
        if ready_python(self.folder, self.plugin_id, self.spec) is None:
            return [f"needs its own Python environment, which is not built: run {BUILD_COMMAND}"]
        if why := WORKERS.unconfined_reason():
            return [f"its worker cannot run in a sandbox: {why}"]
        return []

    def worker(self) -> Worker:
        def start() -> Worker:
            python = ready_python(self.folder, self.plugin_id, self.spec)
            if python is None:
                raise WorkerCrashed(self.needs()[0])
            offline = Path(offline_models.__file__) if offline_models.active() else None
            confinement = None
            if WORKERS.confine():
                network = self.spec.network
                confinement = worker_spec(
                    self.folder, python, network=network, offline_models=offline
                )
            return Worker(
                self.plugin_id,
                self.folder,
                python,
                env_names=self.spec.env,
                offline_models=offline,
                confinement=confinement,
            )

        return WORKERS.get(self.plugin_id, start)

    @cached_property
    def graph(self) -> Any:
        """The stateful subgraph a turn runs: ``call`` the worker, then ``ask`` (the agent's
        interrupt, raised here) and resume it, while the agent waits on one."""
        builder = StateGraph(_Turn)
        builder.add_node("call", self._call)
        builder.add_node("ask", self._ask)
        builder.add_edge(START, "call")
        for node in ("call", "ask"):
            builder.add_conditional_edges(node, _waiting, ["ask", END])
        return builder.compile(checkpointer=True, name="isolated")

    def run(
        self, inputs: Any, run_context: RunContext, config: RunnableConfig
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """One run of the agent (call it inside the plugin's node): the state it started from
        (its input applied) and its final state (a functional-API entrypoint's is what it
        returned, the value of its output field)."""
        fresh, encoded = _encode_input(inputs)
        configurable = {k: v for k, v in run_context.configurable.items() if k != AUTH_USER_KEY}
        params = {
            "input": encoded,
            "thread_id": str((config.get("configurable") or {}).get("thread_id", "")),
            "recursion_limit": config.get("recursion_limit", 25),
            "configurable": configurable,
            "context": run_context.values,
        }
        state = self.graph.invoke({"request": {"params": params, "fresh": fresh}})
        result = _decode(state.get("result") or {})
        values = result.get("values")
        if values is not None and not isinstance(values, dict):
            return {}, {self.spec.output_field: values}
        return dict(result.get("before") or {}), dict(values or {})

    def _call(self, state: _Turn, config: RunnableConfig) -> _Turn:
        request = state["request"]
        checkpoint = None if request["fresh"] else state.get("checkpoint")
        return self._exchange({**request["params"], "checkpoint": checkpoint}, config)

    def _ask(self, state: _Turn, config: RunnableConfig) -> _Turn:
        answer = interrupt(state["pending"][0])
        params = {**state["request"]["params"], "input": None, "resume": answer}
        return self._exchange({**params, "checkpoint": state.get("checkpoint")}, config)

    def _exchange(self, params: dict[str, Any], config: RunnableConfig) -> _Turn:
        """Run once in the worker, answering its store requests and replaying its events."""
        worker = self.worker()
        call = worker.request(protocol.RUN, params)
        replay = Replay(get_callback_manager_for_config(config))
        try:
            reply = self._follow(worker, call, replay)
        except BaseException:
            _stop(worker, call)
            raise
        finally:
            worker.forget(call)
        if reply is CRASHED:
            raise WorkerCrashed(f"{worker.exit_reason()}, during the run")
        if "error" in reply:
            error = reply["error"]
            if (error.get("data") or {}).get("type") == "GraphRecursionError":
                raise GraphRecursionError(error["message"])
            raise AgentFailed(error["message"])
        result = reply["result"]
        return {
            "checkpoint": result["checkpoint"],
            "pending": result["interrupts"],
            "result": {"before": result["before"], "values": result["values"]},
        }

    def _follow(self, worker: Worker, call: Call, replay: Replay) -> dict[str, Any]:
        """Until the run's reply: events replayed, store requests answered, stops obeyed."""
        runtime = get_runtime()
        while True:
            try:
                message = call.inbox.get(timeout=POLL_S)
            except queue.Empty:
                if runtime.drain_requested:
                    raise TurnStopped("deadline_exceeded", "the run was stopped") from None
                continue
            if message is CRASHED or "method" not in message:
                return message
            if "id" in message:  # the worker asks: the store
                worker.send(_store_reply(message))
            else:
                replay.event(message["params"])


def _waiting(state: _Turn) -> str:
    return "ask" if state.get("pending") else END


def _stop(worker: Worker, call: Call) -> None:
    """Cancel the run; kill the worker when it does not stop in time."""
    if not worker.alive:
        return
    worker.cancel(call)
    try:
        while "method" in call.inbox.get(timeout=CANCEL_GRACE_S):
            pass
    except queue.Empty:
        logger.warning("the %r worker ignored a cancel: killing it", worker.plugin_id)
        worker.kill()


class Replay:
    """The worker's model and tool events, replayed into the node's callbacks (each run of the
    worker's is one run here, ended as it ended there)."""

    def __init__(self, manager: CallbackManager) -> None:
        self.manager = manager
        self.runs: dict[str, CallbackManagerForLLMRun] = {}
        self.tools: dict[str, CallbackManagerForToolRun] = {}

    def event(self, data: Mapping[str, Any]) -> None:
        kind = data.get("kind")
        if kind == "model_start":
            self._run(data["id"])
        elif kind == "token":
            chunk = cast(AIMessageChunk, _message(data["message"], chunk=True))
            generation = ChatGenerationChunk(message=chunk)
            self._run(data["id"]).on_llm_new_token(generation.text, chunk=generation)
        elif kind == "model_end":
            self._end(data["id"], _message(data["message"]))
        elif kind == "message":
            key = str(uuid.uuid4())
            self._run(key)
            self._end(key, _message(data["message"]))
        elif kind == "model_error" and (run := self.runs.pop(data["id"], None)):
            run.on_llm_error(AgentFailed(data["error"]))
        elif kind == "tool_start":
            tool = {"name": data.get("name", "")}
            self.tools[data["id"]] = self.manager.on_tool_start(tool, str(data.get("input", "")))
        elif kind == "tool_end" and (ran := self.tools.pop(data["id"], None)):
            ran.on_tool_end(data.get("output", ""))
        elif kind == "tool_error" and (ran := self.tools.pop(data["id"], None)):
            ran.on_tool_error(AgentFailed(data["error"]))

    def _run(self, key: str) -> CallbackManagerForLLMRun:
        if key not in self.runs:
            self.runs[key] = self.manager.on_chat_model_start({"name": "isolated"}, [[]])[0]
        return self.runs[key]

    def _end(self, key: str, message: BaseMessage) -> None:
        run = self._run(key)
        del self.runs[key]
        run.on_llm_end(LLMResult(generations=[[ChatGeneration(message=message)]]))


def _message(data: Mapping[str, Any], *, chunk: bool = False) -> BaseMessage:
    kind = MESSAGE_TYPES.get(str(data.get("type")), AIMessage)
    if chunk and kind is AIMessage:
        kind = AIMessageChunk
    fields = {k: v for k, v in data.items() if k in kind.model_fields and k != "type"}
    if data.get("id") is None:
        fields.pop("id", None)
    return kind(**fields)


def _decode(value: Any) -> Any:
    """The worker's JSON-safe values back: ``{"lc_message": ...}`` is a message again."""
    if isinstance(value, dict):
        if set(value) == {"lc_message"}:
            return _message(value["lc_message"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _encode_input(inputs: Any) -> tuple[bool, Any]:
    """The input as JSON (messages as LangGraph's server takes them: a dict of input fields, or
    a functional-API entrypoint's bare list or text), and whether it starts the conversation
    afresh (a ``RemoveMessage`` of all messages, which the worker cannot assume its LangGraph
    knows: a fresh run simply starts from no checkpoint)."""
    if isinstance(inputs, list):
        return _encode_messages(inputs)
    if not isinstance(inputs, Mapping):
        return False, inputs
    fresh = False
    encoded: dict[str, Any] = {}
    for name, value in inputs.items():
        if isinstance(value, list) and any(isinstance(v, BaseMessage) for v in value):
            cleared, encoded[name] = _encode_messages(value)
            fresh = fresh or cleared
        else:
            encoded[name] = value
    return fresh, encoded


def _encode_messages(messages: list[Any]) -> tuple[bool, list[dict[str, Any]]]:
    fresh = False
    kept = []
    for item in messages:
        if isinstance(item, RemoveMessage) and item.id == REMOVE_ALL_MESSAGES:
            fresh = True
        elif isinstance(item, BaseMessage):
            fields = {"type", "content", "id", "name", "tool_call_id"}
            kept.append(item.model_dump(include=fields, exclude_none=True))
    return fresh, kept


def _store_reply(message: Mapping[str, Any]) -> bytes:
    """The answer to the worker's ``store/batch``, from the plugin's view of the store."""
    try:
        ops = [_store_op(op) for op in message["params"]["ops"]]
        results = get_store().batch(ops)
    except Exception as exc:  # the worker raises it in the agent, as a store would
        return protocol.error(message["id"], protocol.AGENT_ERROR, f"{type(exc).__name__}: {exc}")
    return protocol.result(message["id"], [_store_value(r) for r in results])


def _store_op(data: Mapping[str, Any]) -> Any:
    kind = STORE_OPS[str(data["op"])]
    fields = {k: v for k, v in data.items() if k in kind._fields}
    for name in ("namespace", "namespace_prefix"):
        if name in fields:
            fields[name] = tuple(fields[name])
    if fields.get("match_conditions"):
        fields["match_conditions"] = tuple(
            MatchCondition(match_type=m[0], path=tuple(m[1])) for m in fields["match_conditions"]
        )
    return kind(**fields)


def _store_value(value: Any) -> Any:
    if isinstance(value, Item):
        data = value.dict()
        return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in data.items()}
    if isinstance(value, list):
        return [_store_value(v) for v in value]
    if isinstance(value, tuple):
        return list(value)
    return value
