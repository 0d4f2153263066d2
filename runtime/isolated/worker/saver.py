"""The worker's checkpointer: the latest checkpoint of each namespace of one run, as bytes.

The worker keeps nothing between runs: the runtime sends the agent's checkpoint with each run and
keeps the one it returns in the session's own state, so durability, rollback of a failed turn and
restarts are the runtime's. Written against ``BaseCheckpointSaver`` as LangGraph 0.2 through 1.x
define it (signatures taken loosely: later versions add parameters), and serialized with the
environment's own serde, since only this environment reads it back. Card numbers are masked on
the way in (channel values, pending writes, and the metadata, which holds the writes in LangGraph
0.2), as the runtime's ``TurnWrites`` masks an in-process agent's writes: ``mask`` is the
runtime's own ``redact_values``, which the worker loads from ``runtime/redaction.py`` by path.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

try:
    from langgraph.checkpoint.base import WRITES_IDX_MAP
except ImportError:  # older releases
    WRITES_IDX_MAP = {}

#: Masks the card numbers in a value (set once by the worker's ``main``; none: kept as written).
mask: Callable[[Any], Any] | None = None


def _masked(value: Any) -> Any:
    return value if mask is None else mask(value)


class SnapshotSaver(BaseCheckpointSaver):  # type: ignore[type-arg]
    """Keeps the latest checkpoint of each namespace of one thread, and its pending writes."""

    def __init__(self, snapshot: bytes | None = None) -> None:
        super().__init__()
        #: namespace -> {"checkpoint", "metadata", "parent", "writes": {(task, index): write}}
        self.saved: dict[str, dict[str, Any]] = {}
        if snapshot:
            framed = json.loads(snapshot)
            data = base64.b64decode(framed["data"])
            self.saved = self.serde.loads_typed((framed["type"], data))
            for entry in self.saved.values():
                entry["writes"] = {(w[0], int(w[3])): tuple(w[:3]) for w in entry["writes"]}

    def dump(self) -> bytes:
        plain = {
            ns: {**entry, "writes": [[*w, k[1]] for k, w in entry["writes"].items()]}
            for ns, entry in self.saved.items()
        }
        kind, data = self.serde.dumps_typed(plain)
        return json.dumps({"type": kind, "data": base64.b64encode(data).decode()}).encode()

    @staticmethod
    def _where(config: Any) -> tuple[str, str, str | None]:
        configurable = config.get("configurable") or {}
        ns = str(configurable.get("checkpoint_ns", ""))
        return str(configurable.get("thread_id", "")), ns, configurable.get("checkpoint_id")

    def _tuple(self, thread: str, ns: str, entry: dict[str, Any]) -> Any:
        def config(checkpoint_id: str) -> Any:
            ids = {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}
            return {"configurable": ids}

        parent = config(entry["parent"]) if entry["parent"] else None
        writes = list(entry["writes"].values())
        checkpoint = entry["checkpoint"]
        return CheckpointTuple(
            config(checkpoint["id"]), checkpoint, entry["metadata"], parent, writes
        )

    def get_tuple(self, config: Any) -> Any:
        thread, ns, checkpoint_id = self._where(config)
        entry = self.saved.get(ns)
        if entry is None or (checkpoint_id and entry["checkpoint"]["id"] != checkpoint_id):
            return None
        return self._tuple(thread, ns, entry)

    def list(self, config: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        found = self.get_tuple(config) if config else None
        if found is not None:
            yield found

    def put(self, config: Any, checkpoint: Any, metadata: Any, *args: Any, **kwargs: Any) -> Any:
        thread, ns, parent = self._where(config)
        # Every channel, as it is kept whole: a node may have changed one in place (a dict of the
        # state it was given) without writing it.
        values = {k: _masked(v) for k, v in (checkpoint.get("channel_values") or {}).items()}
        kept = {**checkpoint, "channel_values": values}
        # LangGraph 0.2 copies each step's writes into its metadata.
        entry = {"checkpoint": kept, "metadata": _masked(metadata), "parent": parent}
        self.saved[ns] = {**entry, "writes": {}}
        ids = {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": checkpoint["id"]}
        return {"configurable": ids}

    def put_writes(self, config: Any, writes: Any, task_id: str, *args: Any, **kwargs: Any) -> None:
        _, ns, checkpoint_id = self._where(config)
        entry = self.saved.get(ns)
        if entry is None or entry["checkpoint"]["id"] != checkpoint_id:
            return
        for index, (channel, value) in enumerate(writes):
            key = (task_id, WRITES_IDX_MAP.get(channel, index))
            if channel in WRITES_IDX_MAP or key not in entry["writes"]:
                entry["writes"][key] = (task_id, channel, _masked(value))

    def get_next_version(self, current: Any, channel: Any = None) -> Any:
        if current is None:
            return 1
        return int(str(current).split(".")[0]) + 1

    def delete_thread(self, thread_id: str) -> None:
        self.saved.clear()

    async def aget_tuple(self, config: Any) -> Any:
        return self.get_tuple(config)

    async def alist(self, config: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        for found in self.list(config):
            yield found

    async def aput(
        self, config: Any, checkpoint: Any, metadata: Any, *args: Any, **kwargs: Any
    ) -> Any:
        return self.put(config, checkpoint, metadata, *args, **kwargs)

    async def aput_writes(
        self, config: Any, writes: Any, task_id: str, *args: Any, **kwargs: Any
    ) -> None:
        self.put_writes(config, writes, task_id, *args, **kwargs)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(thread_id)
