"""Requirements an agent names only when it runs (an ImportError's ``pip install X``): proposed,
and with ``--approve-deps`` added to ``requirements.txt``, installed and validated again."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fixture_agents import fixture_repo
from plugin_repo import only_index, options, runtime_repo, tree, wheel

from generator.dependencies.environment import approved_env_dir, approved_env_python
from generator.pipeline.importer import ValidationFailed, import_agent
from runtime.contract.layout import PLUGINS_FOLDER


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of wheels as the only package index: the librarian's two optional packages."""
    folder = tmp_path / "index"
    wheel(folder, "encyclo-lite", "encyclo_lite", "1.0")
    wheel(folder, "quotes-db", "quotes_db", "2.0")
    return only_index(folder, monkeypatch)


@pytest.mark.slow
def test_an_unapproved_hint_fails_naming_the_requirement_and_the_flag(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = fixture_repo("lazy_tool_import", tmp_path / "agent")

    with pytest.raises(ValidationFailed, match=r"'encyclo-lite'.*--approve-deps") as failure:
        import_agent(options(agent, "librarian", dry_run=True), root=repo)

    missing = failure.value.report.missing
    assert missing is not None
    assert (missing.module, missing.requirement) == ("encyclo_lite", "encyclo-lite")
    preview = failure.value.preview
    assert preview is not None
    proposed = {r.name: r.proposed_for for r in preview.dependencies.requirements}
    assert proposed == {
        "encyclo-lite": "encyclo_lite (`pip install encyclo-lite` in the turns check)",
        "langgraph": None,
        "quotes-db": "quotes_db (lazy_librarian/tools.py:26: `pip install quotes-db`)",
    }
    assert tree(repo / PLUGINS_FOLDER) == {"README.md": b"Plugins live here.\n"}


@pytest.mark.slow
def test_an_approved_hint_is_recorded_installed_and_validated_again(
    tmp_path: Path, local_index: Path
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = fixture_repo("lazy_tool_import", tmp_path / "agent")

    result = import_agent(options(agent, "librarian", approve_deps=True), root=repo)

    assert result.validation.ok, result.validation.describe()
    plugin = repo / PLUGINS_FOLDER / "librarian"
    lines = (plugin / "requirements.txt").read_text().splitlines()
    assert [line for line in lines if not line.startswith("#")] == [
        "encyclo-lite",
        "langgraph>=1.0",
        "quotes-db",
    ]
    answers = yaml.safe_load((plugin / ".copier-answers.yml").read_text())
    assert "encyclo-lite" in answers["requirements"]
    assert "`encyclo-lite`" in (plugin / "README.md").read_text()
    assert (plugin / "src" / "lazy_librarian" / "tools.py").is_file()  # the vendored copy kept
    validated = next(step for step in result.steps if step.name == "validate").summary
    assert "added encyclo-lite to requirements.txt" in validated, validated
    python = approved_env_python(repo, "librarian")
    assert python is not None and result.validation.python == str(python)
    probe = [str(python), "-c", "import encyclo_lite, quotes_db"]
    assert subprocess.run(probe, capture_output=True).returncode == 0
    heard = " ".join(result.validation.checks[-1].transcript)
    assert "entry 42" in heard and "quotation 42" in heard, heard


@pytest.mark.slow
def test_a_dry_run_with_approval_says_the_import_would_add_the_hint(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = fixture_repo("lazy_tool_import", tmp_path / "agent")

    with pytest.raises(ValidationFailed) as failure:
        import_agent(options(agent, "librarian", dry_run=True, approve_deps=True), root=repo)

    message = str(failure.value)
    assert "approve it with --approve-deps" not in message
    assert "a dry run installs nothing: import without --dry-run (with --approve-deps)" in message
    preview = failure.value.preview
    assert preview is not None
    validated = next(s for s in preview.steps if s.name == "validate").summary
    assert "encyclo-lite; a dry run installs nothing" in validated, validated


@pytest.mark.slow
def test_agent_import_validate_approves_a_hint_as_the_import_does(
    tmp_path: Path, local_index: Path
) -> None:
    """The plugin's requirements.txt lost the hinted line (and its validation environment is
    gone): validate names it and how to approve it; --approve-deps adds it and passes."""
    repo = runtime_repo(tmp_path / "repo")
    agent = fixture_repo("lazy_tool_import", tmp_path / "agent")
    import_agent(options(agent, "librarian", approve_deps=True), root=repo)
    requirements = repo / PLUGINS_FOLDER / "librarian" / "requirements.txt"
    requirements.write_text(requirements.read_text().replace("encyclo-lite\n", ""))
    shutil.rmtree(approved_env_dir(repo, "librarian"))

    def validate(*flags: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "generator.cli", "validate", "librarian", *flags]
        return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=False)

    refused, approved = validate(), validate("--approve-deps")

    assert refused.returncode == 1
    assert "the agent asks for 'encyclo-lite'" in refused.stdout
    assert "approve it with --approve-deps" in refused.stdout
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert "added encyclo-lite to requirements.txt" in approved.stderr
    assert "encyclo-lite" in requirements.read_text().splitlines()
    assert "entry 42" in approved.stdout and "quotation 42" in approved.stdout
