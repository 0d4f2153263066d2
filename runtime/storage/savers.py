"""``SyncBackedSaver``: a checkpoint saver whose async methods are its sync ones.

LangGraph calls a saver's async methods when a graph runs with ``ainvoke`` (an imported agent,
inside a node). The runtime's savers do their work in their sync methods; the async ones only
call those, inline (``TurnWrites``: held writes in memory) or in a worker thread
(``persistence.ThreadedAsync``: SQLite and PostgreSQL, which block).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, ParamSpec, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)

P = ParamSpec("P")
R = TypeVar("R")
V = TypeVar("V", int, float, str)  # as BaseCheckpointSaver allows


class SyncBackedSaver(BaseCheckpointSaver[V]):
    """Mixed into a saver with sync methods: each async method calls its sync one via ``call``."""

    async def call(self, method: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run one sync method; inline here, a subclass may run it elsewhere."""
        return method(*args, **kwargs)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await self.call(self.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        listed = self.list(config, filter=filter, before=before, limit=limit)
        for checkpoint in await self.call(list, listed):
            yield checkpoint

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await self.call(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self.call(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await self.call(self.delete_thread, thread_id)
