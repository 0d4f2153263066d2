"""``TurnWrites``: a turn's checkpoints are kept only if the turn succeeds.

The engine runs each turn with a ``TurnWrites`` in front of the runtime's checkpointer (LangGraph
lends a run's checkpointer to its subgraphs, so an imported agent's own state is covered too).
Reads see the turn's writes; ``commit`` writes them through, in order, once the turn has finished
and before its result reaches the transport. A failed turn (an exception, a limit, the deadline, a
run abandoned before it finished) is never committed, so the session stays as it was before the
turn: no rollback I/O, and with ``durability="exit"`` a successful turn writes what it wrote
before. A plugin that handles a subgraph's failure itself (an imported agent that raised, shown on
an error screen) drops what that subgraph wrote with ``forget_writes``, and keeps the rest of the
turn. Every value is held with its card numbers masked (``runtime.redaction``), so none reaches
the database, whichever node wrote it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterator, Sequence
from functools import partial
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    PendingWrite,
    copy_checkpoint,
    get_checkpoint_id,
)

from runtime.redaction import redact_values
from runtime.storage.persistence import stores_every_channel
from runtime.storage.savers import SyncBackedSaver
from runtime.turns._langgraph import CONFIG_KEY_CHECKPOINTER, NS_END, NS_SEP

Key = tuple[str, str, str]  # thread id, checkpoint namespace, checkpoint id
Where = tuple[str, str]  # thread id, checkpoint namespace


def merge_writes(kept: list[PendingWrite], new: Sequence[PendingWrite]) -> list[PendingWrite]:
    """Writes as a checkpointer keeps them: a special channel's (error, interrupt, ...) latest
    write replaces the one before; a task's other writes are stored once, the first time."""
    merged = list(kept)
    for task_id, channel, value in new:
        if channel in WRITES_IDX_MAP:
            merged = [w for w in merged if (w[0], w[1]) != (task_id, channel)]
        elif any(w[0] == task_id and w[1] not in WRITES_IDX_MAP for w in kept):
            continue
        merged.append((task_id, channel, value))
    return merged


def forget_writes(config: RunnableConfig, namespace: str) -> None:
    """Drop what the running turn wrote in the subgraph ``namespace`` (a node's name) and below
    it: that subgraph's state stays as it was before the turn. Nothing to do outside the engine
    (no ``TurnWrites`` is the run's checkpointer)."""
    writes = (config.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINTER)
    if isinstance(writes, TurnWrites):
        writes.discard(_where(config)[0], namespace)


def _where(config: RunnableConfig) -> Where:
    configurable = config.get("configurable") or {}
    return str(configurable["thread_id"]), str(configurable.get("checkpoint_ns", ""))


class TurnWrites(SyncBackedSaver[Any]):
    """One turn's checkpoint writes, held in memory in front of ``inner`` until ``commit``.

    Subgraphs run by async agents call the async methods: they call these sync ones inline (the
    held writes are in memory; the runtime's checkpointer is used through its sync methods, as
    for the rest of the turn)."""

    def __init__(self, inner: BaseCheckpointSaver[Any]) -> None:
        super().__init__(serde=inner.serde)
        self.inner = inner
        # Shared by the clones ``with_allowlist`` makes: one turn, one log.
        self._log: list[tuple[Where, Callable[[], object]]] = []
        self._held: dict[Key, CheckpointTuple] = {}
        self._latest: dict[tuple[str, str], str] = {}
        self._writes: dict[Key, list[PendingWrite]] = {}

    def commit(self) -> None:
        """Write the turn's checkpoints and writes through to the runtime's checkpointer. Made
        again, it writes the same rows again (a checkpointer replaces them): a transaction that
        held them and was rolled back is made good by committing again."""
        for _, write in self._log:
            write()

    def discard(self, thread: str, namespace: str) -> None:
        """Forget this turn's checkpoints and writes in ``namespace`` and the namespaces below it
        (its own subgraphs); reads there see the committed state again."""

        def below(ns: str) -> bool:
            return ns == namespace or ns.startswith((namespace + NS_SEP, namespace + NS_END))

        for store in (self._held, self._writes):
            for key in [k for k in store if k[0] == thread and below(k[1])]:
                del store[key]
        for where in [w for w in self._latest if w[0] == thread and below(w[1])]:
            del self._latest[where]
        self._log[:] = [
            (w, write) for w, write in self._log if not (w[0] == thread and below(w[1]))
        ]

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> TurnWrites:
        clone = copy.copy(self)
        clone.inner = self.inner.with_allowlist(extra_allowlist)
        clone.serde = clone.inner.serde
        return clone

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread, ns = _where(config)
        checkpoint_id = get_checkpoint_id(config) or self._latest.get((thread, ns))
        held = self._held.get((thread, ns, checkpoint_id or ""))
        found = held or self.inner.get_tuple(config)
        if found is None:
            return None
        extra = self._writes.get((thread, ns, found.checkpoint["id"]))
        if not extra:
            return found
        return found._replace(pending_writes=merge_writes(found.pending_writes or [], extra))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """The committed history only: a turn never lists its own checkpoints."""
        return self.inner.list(config, filter=filter, before=before, limit=limit)

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        thread, ns = _where(config)
        kept = copy_checkpoint(checkpoint)
        values = kept["channel_values"]
        if stores_every_channel(self.inner):
            # One a node changed in place without writing it (a dict of the state it was given)
            # is stored again, so all are masked.
            changed: Collection[str] = list(values)
        else:
            # Only the channels that changed (``new_versions``) are stored, which are all that
            # can hold something new: the others were masked when written.
            changed = [k for k in new_versions if k in values]
        values.update({k: redact_values(values[k]) for k in changed})
        # Savers add the run's config metadata to a checkpoint's, and a run may put anything there.
        metadata = redact_values(metadata)
        if "metadata" in config:
            config = {**config, "metadata": redact_values(config["metadata"])}
        saved: RunnableConfig = {
            "configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": kept["id"]}
        }
        parent_id = get_checkpoint_id(config)
        parent: RunnableConfig | None = (
            {"configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": parent_id}}
            if parent_id
            else None
        )
        self._held[(thread, ns, kept["id"])] = CheckpointTuple(saved, kept, metadata, parent, [])
        self._latest[(thread, ns)] = kept["id"]
        self._log.append(
            ((thread, ns), partial(self.inner.put, config, kept, metadata, new_versions))
        )
        return saved

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        thread, ns = _where(config)
        key = (thread, ns, str(get_checkpoint_id(config)))
        writes = [(channel, redact_values(value)) for channel, value in writes]
        self._writes[key] = merge_writes(
            self._writes.get(key, []), [(task_id, c, v) for c, v in writes]
        )
        write = partial(self.inner.put_writes, config, list(writes), task_id, task_path)
        self._log.append(((thread, ns), write))

    def get_next_version(self, current: Any, channel: None) -> Any:
        return self.inner.get_next_version(current, channel)

    def delete_thread(self, thread_id: str) -> None:
        self.inner.delete_thread(thread_id)
