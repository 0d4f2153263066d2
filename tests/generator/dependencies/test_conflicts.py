"""The conflict check: an import's requirements resolved with the runtime's and every other
plugin's, against a local package index (a folder of wheels), never PyPI."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_repo import only_index, wheel

from generator.dependencies.conflicts import RUNTIME_OWNER, RequirementsConflict, check_conflicts
from generator.dependencies.isolation import conflict_reason
from generator.dependencies.runtime_packages import runtime_requirements
from generator.errors import AgentImportError
from runtime.contract.layout import PLUGINS_FOLDER


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """uv resolves from this folder only (no index), as ``--find-links DIR --no-index``."""
    folder = tmp_path / "wheels"
    wheel(folder, "alpha-pkg", "alpha_pkg", "1.0", requires=("beta-pkg<2",))
    wheel(folder, "beta-pkg", "beta_pkg", "1.0")
    wheel(folder, "beta-pkg", "beta_pkg", "2.0")
    wheel(folder, "gamma-pkg", "gamma_pkg", "1.0", requires=("beta-pkg>=2",))
    wheel(folder, "helper-lib", "helper_lib", "1.0", requires=("shared",))
    wheel(folder, "shared", "shared", "9.9")
    return only_index(folder, monkeypatch)


def with_plugin(root: Path, plugin_id: str, *requirements: str) -> Path:
    folder = root / PLUGINS_FOLDER / plugin_id
    folder.mkdir(parents=True)
    (folder / "requirements.txt").write_text("".join(f"{r}\n" for r in requirements))
    return root


def test_requirements_that_fit_together_are_accepted(tmp_path: Path, local_index: Path) -> None:
    root = with_plugin(tmp_path / "repo", "other", "beta-pkg==1.0")

    note = check_conflicts(root, "new", ["alpha-pkg"], local_packages=[])

    assert note.startswith("resolved with the runtime's and other plugins'")


def test_a_conflict_with_another_plugin_refuses_the_import_in_one_line(
    tmp_path: Path, local_index: Path
) -> None:
    root = with_plugin(tmp_path / "repo", "other", "gamma-pkg")

    with pytest.raises(AgentImportError) as refused:
        check_conflicts(root, "new", ["alpha-pkg"], local_packages=[])

    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("the requirements of 'new' conflict")
    for name in ("alpha-pkg", "beta-pkg<2", "beta-pkg>=2", "gamma-pkg"):
        assert name in message
    assert message.endswith("(new requires alpha-pkg; other requires gamma-pkg)")


def test_a_conflict_with_the_runtime_names_the_runtime_package(
    tmp_path: Path, local_index: Path
) -> None:
    langgraph = next(r for r in runtime_requirements() if r.startswith("langgraph>="))

    with pytest.raises(AgentImportError) as refused:
        check_conflicts(tmp_path, "new", ["langgraph<0.1"], local_packages=[])

    assert f"the runtime requires {langgraph}" in str(refused.value)
    assert "new requires langgraph<0.1" in str(refused.value)


def test_a_conflict_with_the_runtime_is_named_before_other_plugins_pins(
    tmp_path: Path, local_index: Path
) -> None:
    """An agent written for LangGraph 0.2 pins LangSmith too; the plugins already sharing the
    environment pin a newer LangSmith. Resolved all together, uv names the LangSmith pins; the
    real cause is the runtime's LangGraph, so that is the conflict named."""
    wheel(local_index, "langsmith", "langsmith", "0.1.0")
    wheel(local_index, "langsmith", "langsmith", "0.3.0")
    root = tmp_path / "repo"
    for plugin_id in ("first", "second", "third"):
        with_plugin(root, plugin_id, "langsmith>=0.3")
    langgraph = next(r for r in runtime_requirements() if r.startswith("langgraph>="))

    with pytest.raises(RequirementsConflict) as refused:
        check_conflicts(root, "new", ["langgraph<0.3", "langsmith<0.2"], local_packages=[])

    assert refused.value.owners == [("new", "langgraph<0.3"), (RUNTIME_OWNER, langgraph)]
    assert conflict_reason("new", refused.value) == (
        f"langgraph<0.3 conflicts with the runtime's {langgraph}"
    )


def test_a_conflict_with_one_other_plugin_names_that_plugin_alone(
    tmp_path: Path, local_index: Path
) -> None:
    """The runtime's requirements fit; of three plugins, only ``clash`` cannot share."""
    root = with_plugin(tmp_path / "repo", "fits", "beta-pkg==1.0")
    with_plugin(root, "clash", "gamma-pkg")
    with_plugin(root, "also-fits", "alpha-pkg")

    with pytest.raises(RequirementsConflict) as refused:
        check_conflicts(root, "new", ["alpha-pkg"], local_packages=[])

    assert refused.value.owners == [("new", "alpha-pkg"), ("clash", "gamma-pkg")]
    assert (
        conflict_reason("new", refused.value) == "alpha-pkg conflicts with plugin clash's gamma-pkg"
    )


def test_a_local_package_is_never_fetched_by_name_even_as_a_dependency(
    tmp_path: Path, local_index: Path
) -> None:
    """``helper-lib`` from the index depends on ``shared``; the agent's repository has its own
    ``shared`` folder: resolving would install the index's ``shared``, so the import stops."""
    with pytest.raises(AgentImportError, match="shared would be installed from the package index"):
        check_conflicts(tmp_path, "new", ["helper-lib"], local_packages=["shared"])

    assert check_conflicts(tmp_path, "new", ["helper-lib"], local_packages=[]).startswith(
        "resolved"
    )


def test_an_unreachable_index_skips_the_check_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("UV_HTTP_RETRIES", "0")
    monkeypatch.setenv("UV_HTTP_TIMEOUT", "5")

    note = check_conflicts(tmp_path, "new", ["surely-absent-pkg-xyz"], local_packages=[])

    assert note.startswith("conflict check skipped: the package index is not reachable")
