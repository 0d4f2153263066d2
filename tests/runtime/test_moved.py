"""Plugins written against the runtime's old module paths keep working (``runtime._moved``)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runtime._moved import MOVED

ROOT = Path(__file__).resolve().parents[2]

#: A plugin as one was written before the runtime was grouped by audience.
OLD_PLUGIN = {
    "__init__.py": 'PLUGIN_ID = "old_paths"\n',
    "plugin.py": textwrap.dedent(
        """
        from typing import Any

        from langgraph.graph import END, START, StateGraph

        from runtime.contracts import CommonState, event
        from runtime.plugin import PluginBase
        from runtime.policy import RunPolicy


        class OldPaths(PluginBase):
            plugin_id = "old_paths"
            title = "Old paths"
            run_policy = RunPolicy(recursion_limit=5)

            def build_graph(self) -> StateGraph[Any]:
                graph = StateGraph(CommonState)
                graph.add_node("say", lambda _: {"outbox": [event("server.voice.say", text="hi")]})
                graph.add_edge(START, "say")
                graph.add_edge("say", END)
                return graph
        """
    ),
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_is_the_module_at_its_new_home(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)


def test_no_old_path_names_a_module_that_still_exists_there() -> None:
    """An alias must never hide a real module (it would be imported instead of it)."""
    shadowing = [old for old in MOVED if (ROOT / old.replace(".", "/")).with_suffix(".py").exists()]
    assert shadowing == []


def test_a_plugin_on_the_old_paths_is_served_and_told_where_they_moved(tmp_path: Path) -> None:
    folder = tmp_path / "plugins" / "old_paths"
    folder.mkdir(parents=True)
    for name, text in OLD_PLUGIN.items():
        (folder / name).write_text(text)
    script = textwrap.dedent(
        f"""
        import logging
        logging.basicConfig(level=logging.WARNING, format="%(message)s")
        from runtime.discovery import discover
        from pathlib import Path
        registry = discover(Path({str(tmp_path / "plugins")!r}))
        assert not registry.broken, registry.broken
        plugin = registry.plugins["old_paths"]
        state = plugin.create_initial_state()
        result = registry.graph("old_paths").invoke(
            state, {{"configurable": {{"thread_id": "t"}}}}
        )
        print(result["outbox"][0]["payload"]["text"])
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hi"
    assert "runtime.plugin moved to runtime.contract.plugin; import it from there" in done.stderr
    assert "runtime.contracts moved to runtime.contract.state" in done.stderr
