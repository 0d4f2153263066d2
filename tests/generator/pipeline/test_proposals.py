"""An import with approved requirements proposes a guessed requirement only when the package
index has it (a folder of wheels here, never PyPI), and says which guess it left out."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from plugin_repo import agent_repo, echo_agent, only_index, options, runtime_repo, wheel

from generator.pipeline.importer import ValidationFailed, import_agent


def guessing_agent(package: str) -> dict[str, str]:
    """An echo agent importing a namespace module and a module no index project provides."""
    files = echo_agent(package)
    imports = "import google.oauth2\nimport imaginary_sdk\n"
    files["graph.py"] = imports + textwrap.dedent(files["graph.py"]).lstrip("\n")
    return files


@pytest.mark.slow
def test_a_guess_missing_from_the_index_is_not_proposed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel(tmp_path / "index", "google-auth", "google/oauth2")
    only_index(tmp_path / "index", monkeypatch)
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "agent", guessing_agent("guessing_pkg"))

    with pytest.raises(ValidationFailed) as failure:
        import_agent(options(agent, "guesser", approve_deps=True, dry_run=True), root=repo)

    preview = failure.value.preview
    assert preview is not None
    proposed = {r.name: r.proposed_for for r in preview.dependencies.requirements}
    assert proposed == {"google-auth": "google.oauth2 (graph.py:1)", "langgraph": None}
    rendered = next(step for step in preview.steps if step.name == "render").summary
    assert "not proposed: imaginary-sdk is not a project of the package index" in rendered
    assert "imaginary_sdk (graph.py:2)" in rendered
