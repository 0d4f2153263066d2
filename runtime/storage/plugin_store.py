"""``PluginStore``: one plugin's view of the runtime's store, walled off from the others'.

Every plugin's graph is compiled with its own ``PluginStore`` over the one store of the runtime.
It puts ``("plugins", <plugin_id>)`` in front of every namespace on the way in and takes it off on
the way out, so a plugin reads, searches and lists only what it wrote itself, whatever namespace,
prefix, match condition or raw operation it passes. Every ``BaseStore`` method goes through
``batch``/``abatch``, which is where the rewriting happens.

Namespace labels must be non-empty strings without ``.``: SQL stores join a namespace with dots,
and a dotted label could otherwise stand for two labels.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Final

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from runtime.redaction import redact_values

#: The first label of every plugin's namespaces in the shared store.
ROOT: Final = "plugins"


class PluginStore(BaseStore):
    """``store`` as seen by plugin ``plugin_id``: its own namespaces, without their prefix."""

    def __init__(self, store: BaseStore, plugin_id: str) -> None:
        self.store = store
        self.plugin_id = plugin_id
        self.prefix: tuple[str, ...] = (ROOT, plugin_id)
        self.supports_ttl = store.supports_ttl
        self.ttl_config = store.ttl_config

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        inner = [self._inward(op) for op in ops]
        return [
            self._outward(op, result)
            for op, result in zip(inner, self.store.batch(inner), strict=True)
        ]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` in a worker thread: LangGraph's SQLite store has no async methods, and
        async agents (LangChain's memory agent, for one) use the async API."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _inward(self, op: Op) -> Op:
        """``op`` on the plugin's namespaces of the shared store."""
        if isinstance(op, PutOp):  # no card number is stored, whoever wrote it (redaction)
            return op._replace(namespace=self._inside(op.namespace), value=redact_values(op.value))
        if isinstance(op, GetOp):
            return op._replace(namespace=self._inside(op.namespace))
        if isinstance(op, SearchOp):
            return op._replace(namespace_prefix=self._inside(op.namespace_prefix))
        if isinstance(op, ListNamespacesOp):
            conditions = [
                MatchCondition("prefix", self._inside(c.path)) if c.match_type == "prefix" else c
                for c in op.match_conditions or ()
            ]
            if not any(c.match_type == "prefix" for c in conditions):
                conditions.append(MatchCondition("prefix", self.prefix))
            depth = None if op.max_depth is None else op.max_depth + len(self.prefix)
            return op._replace(match_conditions=tuple(conditions), max_depth=depth)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    def _outward(self, op: Op, result: Result) -> Result:
        """``result`` with the plugin's prefix taken off; anything outside it is dropped."""
        if isinstance(op, GetOp):
            return self._item(result) if isinstance(result, Item) else None
        if isinstance(op, SearchOp) and isinstance(result, list):
            items = (self._item(item) for item in result if isinstance(item, Item))
            return [item for item in items if item is not None]
        if isinstance(op, ListNamespacesOp) and isinstance(result, list):
            names = [ns for ns in result if isinstance(ns, tuple)]
            return [ns[len(self.prefix) :] for ns in names if self._owns(ns)]
        return result

    def _inside(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        for label in namespace:
            if not isinstance(label, str) or not label or "." in label:
                raise InvalidNamespaceError(
                    f"namespace labels must be non-empty strings without '.': {namespace!r}"
                )
        return (*self.prefix, *namespace)

    def _owns(self, namespace: tuple[str, ...]) -> bool:
        return tuple(namespace[: len(self.prefix)]) == self.prefix

    def _item(self, item: Item) -> Item | None:
        """A copy of ``item`` in the plugin's terms (the store may hand out its own objects)."""
        if not self._owns(item.namespace):
            return None
        namespace = item.namespace[len(self.prefix) :]
        if isinstance(item, SearchItem):
            return SearchItem(
                namespace, item.key, item.value, item.created_at, item.updated_at, item.score
            )
        return Item(
            value=item.value,
            key=item.key,
            namespace=namespace,
            created_at=item.created_at,
            updated_at=item.updated_at,
        )
