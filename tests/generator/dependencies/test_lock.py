"""The lock of an environment of its own: what LangGraph's server image always has (LangGraph),
and the versions of the agent's own lock (``uv.lock``, ``poetry.lock``) where they fit, rather
than whatever is newest."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_repo import only_index, wheel

from generator.dependencies.lock import compile_lock, pinned, project_pins

UV_LOCK = """
version = 1
requires-python = ">=3.11"

[[package]]
name = "beta-pkg"
version = "1.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "Twice"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
resolution-markers = ["python_full_version < '3.12'"]

[[package]]
name = "twice"
version = "2.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "my-agent"
version = "0.1.0"
source = { editable = "." }
"""


def test_the_projects_lock_pins_what_it_locked_once_from_an_index(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "uv.lock").write_text(UV_LOCK)
    (tmp_path / "app" / "poetry.lock").write_text('[[package]]\nname = "gamma"\nversion = "3"\n')

    assert project_pins([tmp_path / "app", tmp_path]) == ["gamma==3"]  # nearest first
    assert project_pins([tmp_path]) == ["beta-pkg==1.0"]
    assert project_pins([tmp_path / "nowhere"]) == []


def test_the_lock_keeps_the_projects_version_where_it_fits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    wheel(index, "beta-pkg", "beta_pkg", "1.0")
    wheel(index, "beta-pkg", "beta_pkg", "2.0")
    wheel(index, "langgraph", "langgraph", "1.2.0")  # what every lock gets (SERVER_IMAGE)
    only_index(index, monkeypatch)

    newest = compile_lock(["beta-pkg>=1"], "3.11", local_packages=[])
    kept = compile_lock(["beta-pkg>=1"], "3.11", local_packages=[], preferred=["beta-pkg==1.0"])
    moved = compile_lock(["beta-pkg>=2"], "3.11", local_packages=[], preferred=["beta-pkg==1.0"])

    assert pinned(newest)["beta-pkg"] == "2.0"
    assert pinned(kept)["beta-pkg"] == "1.0"
    assert pinned(moved)["beta-pkg"] == "2.0"  # a preference, never a constraint


def test_langgraph_is_locked_though_the_agent_never_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder's requirements that list only ``langchain-openai``: the server's image has
    LangGraph, so the agent imports it; its worker does too."""
    index = tmp_path / "index"
    wheel(index, "beta-pkg", "beta_pkg", "1.0")
    wheel(index, "langgraph", "langgraph", "1.0.5")
    wheel(index, "langgraph", "langgraph", "1.2.0")
    only_index(index, monkeypatch)

    locked = pinned(compile_lock(["beta-pkg"], "3.11", local_packages=[]))
    own = pinned(compile_lock(["beta-pkg", "langgraph<1.1"], "3.11", local_packages=[]))

    assert (locked["langgraph"], locked["beta-pkg"]) == ("1.2.0", "1.0")
    assert own["langgraph"] == "1.0.5"  # the agent's own range, never widened
