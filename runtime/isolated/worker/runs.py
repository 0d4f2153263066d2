"""One run of the agent: restore its checkpoint, stream it, report, return the new checkpoint.

What the run does is forwarded to the runtime as it happens (``runs/event`` notifications): a
model's start, token chunks and end (with its usage), a tool's start, and the messages nodes
write without a model streaming them. The runtime replays them into its own callbacks, so its
token stream, token budget and tool-call limit see an isolated agent as they see an in-process
one. Store operations go to the runtime (``store/batch``), which owns the plugin's store.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage

from . import protocol
from .agent import build_context, compiled
from .saver import SnapshotSaver

#: The tags that keep a model's tokens out of LangGraph's ``messages`` stream (old and new name).
NOSTREAM = {"nostream", "langsmith:nostream"}
#: Message types worth reporting: what the runtime turns into text and tool calls.
REPORTED = {"ai", "AIMessageChunk", "tool"}

Call = Callable[[str, dict[str, Any]], Any]
Notify = Callable[[str, dict[str, Any]], None]


class Cancelled(Exception):
    """The runtime cancelled the run."""


def dump(message: BaseMessage) -> dict[str, Any]:
    """A message's fields as JSON-safe data (pydantic v1 or v2 messages alike)."""
    fields = message.model_dump() if hasattr(message, "model_dump") else message.dict()
    encoded: dict[str, Any] = encode(fields)
    return encoded


def encode(value: Any) -> Any:
    """``value`` as JSON-safe data; messages become ``{"lc_message": fields}``."""
    if isinstance(value, BaseMessage):
        return {"lc_message": dump(value)}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [encode(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode(dataclasses.asdict(value))
    if hasattr(value, "model_dump"):
        return encode(value.model_dump())
    if hasattr(value, "dict") and hasattr(value, "__fields__"):
        return encode(value.dict())
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


class Forwarder(BaseCallbackHandler):
    """Reports models and tools as they run; stops the run once it is cancelled."""

    raise_error = True
    run_inline = True

    def __init__(self, notify: Notify, run: Any, cancelled: threading.Event) -> None:
        self._send = notify
        self.run = run
        self.cancelled = cancelled
        self.streaming: set[str] = set()
        self.seen: set[str] = set()

    def notify(self, kind: str, **data: Any) -> None:
        self._send(protocol.EVENT, {"run": self.run, "kind": kind, **data})

    def check(self) -> None:
        if self.cancelled.is_set():
            raise Cancelled("cancelled by the runtime")

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: Any, tags: Any = None, **kwargs: Any
    ) -> None:
        self.check()
        if not NOSTREAM & set(tags or ()):
            self.streaming.add(str(run_id))
            self.notify("model_start", id=str(run_id))

    def on_llm_new_token(  # type: ignore[override]
        self, token: str, *, chunk: Any = None, run_id: Any = None, **kwargs: Any
    ) -> None:
        self.check()
        message = getattr(chunk, "message", None)
        if str(run_id) in self.streaming and isinstance(message, BaseMessage):
            if message.id:
                self.seen.add(message.id)
            self.notify("token", id=str(run_id), message=dump(message))

    def on_llm_end(self, response: Any, *, run_id: Any = None, **kwargs: Any) -> None:
        generations = getattr(response, "generations", None) or [[]]
        message = getattr(generations[0][0], "message", None) if generations[0] else None
        if str(run_id) in self.streaming and isinstance(message, BaseMessage):
            if message.id:
                self.seen.add(message.id)
            self.notify("model_end", id=str(run_id), message=dump(message))
        self.streaming.discard(str(run_id))
        self.check()

    def on_llm_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        if str(run_id) in self.streaming:
            self.streaming.discard(str(run_id))
            self.notify("model_error", id=str(run_id), error=f"{type(error).__name__}: {error}")

    def on_tool_start(
        self, serialized: Any, input_str: str, *, run_id: Any = None, **kwargs: Any
    ) -> None:
        self.check()
        name = str((serialized or {}).get("name") or "")
        self.notify("tool_start", id=str(run_id), name=name, input=input_str)

    def on_tool_end(self, output: Any, *, run_id: Any = None, **kwargs: Any) -> None:
        self.notify("tool_end", id=str(run_id), output=str(getattr(output, "content", output)))

    def on_tool_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        self.notify("tool_error", id=str(run_id), error=f"{type(error).__name__}: {error}")

    def node_wrote(self, update: Any) -> None:
        """Report the messages a node wrote that no model streamed (offline replies, tools)."""
        values = update.values() if isinstance(update, dict) else [update]
        for value in values:
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(item, BaseMessage) and item.type in REPORTED:
                    if item.id and item.id in self.seen:
                        continue
                    if item.id:
                        self.seen.add(item.id)
                    self.notify("message", message=dump(item))


def remote_store(call: Call, run: Any) -> Any:
    """The plugin's store, which lives in the runtime: each batch is one ``store/batch`` request."""
    try:
        from langgraph.store.base import BaseStore, Item
    except ImportError:  # LangGraph releases before the store
        return None
    import langgraph.store.base as store_base

    search_item: Any = getattr(store_base, "SearchItem", None)

    def item(data: Any) -> Any:
        if not isinstance(data, dict) or "key" not in data:
            if isinstance(data, list):
                return [item(d) if isinstance(d, dict) else tuple(d) for d in data]
            return data
        fields = {
            "value": data["value"],
            "key": data["key"],
            "namespace": tuple(data["namespace"]),
            "created_at": datetime.fromisoformat(data["created_at"]),
            "updated_at": datetime.fromisoformat(data["updated_at"]),
        }
        if "score" in data and search_item is not None:
            return search_item(**fields, score=data["score"])
        return Item(**fields)

    class RemoteStore(BaseStore):
        def batch(self, ops: Any) -> list[Any]:
            encoded = [{"op": type(op).__name__, **encode(op._asdict())} for op in ops]
            return [item(r) for r in call(protocol.STORE, {"run": run, "ops": encoded})]

        async def abatch(self, ops: Any) -> list[Any]:
            return self.batch(ops)

    return RemoteStore()


async def run(
    export: Any,
    params: dict[str, Any],
    run_id: Any,
    call: Call,
    notify: Notify,
    cancelled: threading.Event,
) -> dict[str, Any]:
    """Run the agent once (an input, or ``resume``) from ``params["checkpoint"]``; the worker
    gives each run an event loop of its own: agents' nodes are often async (sync ones run in its
    executor)."""
    thread = str(params["thread_id"])
    saver = _restore(thread, protocol.unpack(params.get("checkpoint")))
    forwarder = Forwarder(notify, run_id, cancelled)
    configurable = {**params.get("configurable", {}), "thread_id": params["thread_id"]}
    config: dict[str, Any] = {
        "configurable": configurable,
        "recursion_limit": params.get("recursion_limit", 25),
        "callbacks": [forwarder],
    }
    async with compiled(export, config, saver, remote_store(call, run_id)) as graph:
        if "resume" in params:
            from langgraph.types import Command

            inputs: Any = Command(resume=params["resume"])
        else:
            inputs = _input(params.get("input"))
        options: dict[str, Any] = {"stream_mode": ["updates", "values"]}
        if "context" in inspect.signature(graph.astream).parameters:
            options["context"] = build_context(
                getattr(graph, "context_schema", None), params.get("context") or {}
            )
        before = None
        async for mode, chunk in graph.astream(inputs, config, **options):
            forwarder.check()
            if mode == "values":
                before = chunk if before is None else before
                continue
            for node, update in (chunk or {}).items():
                if not str(node).startswith("__"):
                    forwarder.node_wrote(update)
        snapshot = await graph.aget_state({"configurable": configurable})
        interrupts = [i.value for task in snapshot.tasks for i in getattr(task, "interrupts", ())]
    checkpoint = saver.dump()
    _keep(thread, checkpoint, saver)
    started, final = compact(before or {}, snapshot.values or {})
    return {
        "before": started,
        "values": final,
        "interrupts": encode(interrupts),
        "checkpoint": protocol.pack(checkpoint),
    }


def _input(value: Any) -> Any:
    """The run's input: a dict of input fields, or a functional-API entrypoint's bare list of
    messages (made messages again: no reducer coerces an entrypoint's input) or text."""
    if isinstance(value, list):
        from langchain_core.messages import convert_to_messages

        return convert_to_messages(value)
    return {} if value is None else value


def compact(before: Any, after: Any) -> tuple[dict[str, Any], Any]:
    """What the runtime needs of a run's states, as JSON: the final state with each
    conversation cut to the messages the run added (by id, else by equality), and the state the
    run started from with its conversations emptied (the runtime compares the other fields and
    takes the new messages' last answer). Encoding whole conversations would cost every turn
    more as they grow. A functional-API entrypoint's final state is what it returned, as it is."""
    if not isinstance(after, dict):
        return {}, encode(after)
    started: dict[str, Any] = {}
    final: dict[str, Any] = {}
    for name, value in dict(after).items():
        old = before.get(name) if isinstance(before, dict) else None
        if _is_messages(value):
            previous = list(old or ()) if _is_messages(old) else []
            ids = {m.id for m in previous if m.id}
            final[name] = encode([m for m in value if not (m.id in ids if m.id else m in previous)])
            started[name] = []
            continue
        final[name] = encode(value)
        if isinstance(before, dict) and name in before:
            try:
                same = bool(old == value)
            except Exception:
                same = False
            started[name] = final[name] if same else encode(old)
    return started, final


def _is_messages(value: Any) -> bool:
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and all(isinstance(item, BaseMessage) for item in value)
    )


#: The saver each recent thread's last run left, by the checkpoint it returned: the next run of
#: the thread, sent that checkpoint back, skips reading it (a turn the runtime rolled back sends an
#: older one, which is read). At most ``KEPT`` threads.
_kept: OrderedDict[str, tuple[bytes, SnapshotSaver]] = OrderedDict()
_kept_lock = threading.Lock()
KEPT = 64


def _restore(thread: str, checkpoint: bytes | None) -> SnapshotSaver:
    digest = hashlib.sha256(checkpoint).digest() if checkpoint else b""
    with _kept_lock:
        kept = _kept.pop(thread, None)
    if checkpoint and kept is not None and kept[0] == digest:
        return kept[1]
    return SnapshotSaver(checkpoint)


def _keep(thread: str, checkpoint: bytes, saver: SnapshotSaver) -> None:
    with _kept_lock:
        _kept[thread] = (hashlib.sha256(checkpoint).digest(), saver)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
