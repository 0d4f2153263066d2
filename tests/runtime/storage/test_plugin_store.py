"""Each plugin's store is walled off: every way of reading, listing or writing is tried against
the others' namespaces, on every backend the runtime supports."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)

from runtime.storage.backend import backend
from runtime.storage.persistence import open_persistence
from runtime.storage.plugin_store import PluginStore


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BaseStore]:
    """The runtime's store on one backend, with ``memo`` and ``memo2`` each holding a fact."""
    url = {
        "memory": lambda: "memory",
        "sqlite": lambda: f"sqlite:{tmp_path / 'runtime.sqlite'}",
        "postgres": lambda: request.getfixturevalue("postgres_url"),
    }[request.param]()
    with open_persistence(backend(url)) as persistence:
        PluginStore(persistence.store, "memo").put(("facts", "user"), "secret", {"v": "memo's"})
        PluginStore(persistence.store, "memo2").put(("facts",), "other", {"v": "memo2's"})
        yield persistence.store


def test_a_plugin_sees_its_own_items_without_the_prefix(shared: BaseStore) -> None:
    memo = PluginStore(shared, "memo")
    item = memo.get(("facts", "user"), "secret")
    assert item is not None
    assert (item.namespace, item.value) == (("facts", "user"), {"v": "memo's"})
    assert [i.key for i in memo.search(("facts",))] == ["secret"]
    assert memo.list_namespaces() == [("facts", "user")]
    assert memo.list_namespaces(max_depth=1) == [("facts",)]
    # In the shared store, under the plugin's prefix (and the store's own item is not altered).
    stored = shared.get(("plugins", "memo", "facts", "user"), "secret")
    assert stored is not None
    assert stored.namespace == ("plugins", "memo", "facts", "user")


@pytest.mark.parametrize("plugin_id", ["snoop", "mem", "memo2"])
def test_another_plugin_reads_lists_and_searches_nothing_of_it(
    shared: BaseStore, plugin_id: str
) -> None:
    other = PluginStore(shared, plugin_id)
    # Listing first: InMemoryStore records a namespace that a get merely asked about.
    assert ("facts", "user") not in other.list_namespaces()
    for conditions in [
        (MatchCondition("prefix", ("*",)),),
        (MatchCondition("suffix", ("user",)),),
        (MatchCondition("suffix", ("memo", "facts", "user")),),
        (MatchCondition("prefix", ("*", "*")), MatchCondition("suffix", ("*",))),
    ]:
        found = other.batch([ListNamespacesOp(match_conditions=conditions, max_depth=None)])[0]
        assert ("facts", "user") not in found, conditions
    assert other.get(("facts", "user"), "secret") is None
    assert all(item.key != "secret" for item in other.search(()))
    assert all(item.key != "secret" for item in other.search(("facts",), filter={"v": "memo's"}))
    # Raw operations go through the same rewriting.
    got, searched = other.batch([GetOp(("facts", "user"), "secret"), SearchOp(())])
    assert got is None
    assert isinstance(searched, list)
    assert all(item.key != "secret" for item in searched)


def test_another_plugin_cannot_overwrite_or_delete_it(shared: BaseStore) -> None:
    snoop = PluginStore(shared, "snoop")
    snoop.put(("facts", "user"), "secret", {"v": "overwritten"})
    snoop.delete(("facts", "user"), "secret")
    item = PluginStore(shared, "memo").get(("facts", "user"), "secret")
    assert item is not None
    assert item.value == {"v": "memo's"}


@pytest.mark.parametrize(
    "namespace",
    [("..", "memo"), ("x.plugins.memo",), ("facts", ""), ("plugins.memo", "facts")],
)
def test_labels_that_could_stand_for_other_labels_are_refused(
    shared: BaseStore, namespace: tuple[str, ...]
) -> None:
    snoop = PluginStore(shared, "snoop")
    with pytest.raises(InvalidNamespaceError, match=r"non-empty strings without '\.'"):
        snoop.batch([PutOp(namespace, "k", {"v": 1})])
    with pytest.raises(InvalidNamespaceError):
        snoop.batch([SearchOp(namespace)])
    with pytest.raises(InvalidNamespaceError):
        snoop.batch([ListNamespacesOp((MatchCondition("prefix", namespace),))])


def test_the_async_api_is_walled_off_too(shared: BaseStore) -> None:
    async def attempt() -> tuple[object, list[object], list[tuple[str, ...]]]:
        snoop = PluginStore(shared, "snoop")
        await snoop.aput(("facts",), "mine", {"v": "snoop's"})
        namespaces = await snoop.alist_namespaces()  # first, as above
        keys = [item.key for item in await snoop.asearch(())]
        return await snoop.aget(("facts", "user"), "secret"), keys, namespaces

    got, keys, namespaces = asyncio.run(attempt())
    assert (got, keys, namespaces) == (None, ["mine"], [("facts",)])
