"""The import API's requests and answers: the boundary, typed once (see ``docs/wizard.md``).

``ImportResponse`` is the one-shot answer of ``POST /api/import-agent``: the API contract's body
(``status: "ok"``, ``plugin_id``, ``files_written``, ``validation``, ``llm_reasoning``,
``screens``), plus ``job_id`` and a dry run's files (``Preview``); ``JobStatus`` is what ``GET
/api/import-agent/status/{job_id}`` shows while a job runs and after. The wizard's extra calls
(inspect, validate a screen) have their own small models.

Strings that reach paths, git's arguments and error messages are capped here (``Location``,
``Name``); designs and screens are bounded by the body's own cap (``body.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from generator import gitops
from generator.api.guard import CONTROL_CHARACTERS
from generator.dependencies.environment import DependencyReport
from generator.design import Design
from generator.errors import AgentImportError
from generator.models import Inspection, Source
from generator.pipeline.steps import Step
from generator.validate.diagnosis import Diagnosis
from generator.validate.plugin import Report
from runtime.a2ui import ValidationIssue
from runtime.contract.ids import PLUGIN_ID_PATTERN
from runtime.contract.layout import Strategy

#: The wizard's states (``data-step`` on its root element); a job goes through most of them.
State = Literal[
    "IDLE", "FETCHING", "PARSED", "DESIGNING", "PREVIEW", "WRITING", "VALIDATING", "DONE", "ERROR"
]

PluginId = Annotated[
    str, Field(pattern=PLUGIN_ID_PATTERN.pattern, description="The plugin's folder name.")
]

#: The longest ``url`` (a git URL or a local folder) and ``config`` (a path in the source).
MAX_LOCATION_CHARS = 2048
#: The longest ``graph_id`` (a key of ``langgraph.json``'s ``graphs``).
MAX_NAME_CHARS = 200


def _no_control_characters(value: str) -> str:
    """These strings reach paths, git's arguments and one-line error messages as they are."""
    if CONTROL_CHARACTERS.search(value):
        raise ValueError("control characters (newlines, tabs...) are not allowed")
    return value


Location = Annotated[
    str, Field(min_length=1, max_length=MAX_LOCATION_CHARS), AfterValidator(_no_control_characters)
]
Name = Annotated[
    str, Field(min_length=1, max_length=MAX_NAME_CHARS), AfterValidator(_no_control_characters)
]


def _git_ref(ref: str) -> str:
    """A branch, tag or commit name by git's rules, never an option such as ``--upload-pack``."""
    try:
        return gitops.check_ref(ref)
    except AgentImportError as exc:
        raise ValueError(str(exc)) from None


GitRef = Annotated[str, Field(max_length=256), AfterValidator(_git_ref)]


class Boundary(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SourceRequest(Boundary):
    """Where the agent is: a git URL (or, from loopback only, a local folder or ``file://``)."""

    url: Location
    ref: GitRef | None = Field(default=None, description="Branch, tag or commit.")
    config: Location | None = Field(default=None, description="langgraph.json to use, if several.")


class ImportRequest(SourceRequest):
    """``POST /api/import-agent``."""

    plugin_id: PluginId
    strategy: Strategy | None = Field(default=None, description="None: the inspector's choice.")
    graph_id: Name | None = None
    dry_run: bool = False
    force: bool = Field(default=False, description="Replace an existing plugin of that id.")
    approve_deps: bool = Field(
        default=False, description="Install missing requirements into the isolated env."
    )
    shared_env: bool = Field(
        default=False,
        description="Refuse requirements that conflict with the runtime's or another plugin's, "
        "rather than give the agent an environment of its own.",
    )
    design: Literal["bedrock", "offline"] = "bedrock"
    edited_design: dict[str, Any] | None = Field(
        default=None,
        description="A design to use instead of designing (the wizard's edited screens): the "
        "content of a Design (four screens, input_field, output_field, initial_domain_state), "
        "checked exactly like agent-import's --design-file.",
    )
    wait: bool = Field(default=True, description="Answer when done (200), or at once (202).")


class Validation(Boundary):
    import_ok: bool
    smoke_test_ok: bool


class Preview(TypedDict, total=False):
    """A dry run's files, as ``ImportResponse`` and ``JobStatus`` show them (empty otherwise)."""

    files: dict[str, str]
    binary_files: list[str]


#: ``Preview.files``.
FILES_DESCRIPTION = "Dry run only: each text file's contents, by path in the plugin folder."
#: ``Preview.binary_files``.
BINARY_FILES_DESCRIPTION = "Dry run only: the files that are not UTF-8 text (not in files)."


class ImportResponse(Boundary):
    """The answer of a finished import (``wait: true``), and a done job's ``result``."""

    status: Literal["ok"] = "ok"
    plugin_id: str
    files_written: list[str] = Field(description="Repository paths; empty for a dry run.")
    validation: Validation
    llm_reasoning: str
    screens: dict[str, dict[str, Any]] = Field(description="welcome, collecting, result, error.")
    job_id: str
    files: dict[str, str] | None = Field(default=None, description=FILES_DESCRIPTION)
    binary_files: list[str] | None = Field(default=None, description=BINARY_FILES_DESCRIPTION)


class Accepted(Boundary):
    """``wait: false``: the job runs; poll its status."""

    job_id: str
    status_url: str


class JobStatus(Boundary):
    """``GET /api/import-agent/status/{job_id}``."""

    job_id: str
    plugin_id: str
    dry_run: bool
    state: State
    history: list[State] = Field(description="Every state the job went through, in order.")
    steps: list[Step] = Field(description="Finished pipeline steps with their times.")
    stream: str = Field(
        description="The design model's output so far (the offline designer's reasoning at once)."
    )
    result: ImportResponse | None = None
    error: str | None = Field(default=None, description="One line, when the state is ERROR.")
    error_status: int | None = Field(default=None, description="The HTTP status of the error.")
    report: Report | None = Field(default=None, description="The validation report, if any.")
    diagnosis: Diagnosis | None = Field(
        default=None,
        description="Why the import failed and the fix (or, after a successful import, a "
        "warning of what validation could not check); the report's, or one made before it.",
    )
    dependencies: DependencyReport | None = None
    design: Design | None = Field(default=None, description="The design, once made.")
    files: dict[str, str] | None = Field(
        default=None, description=f"{FILES_DESCRIPTION} Also when it did not validate."
    )
    binary_files: list[str] | None = Field(default=None, description=BINARY_FILES_DESCRIPTION)
    served: bool = Field(
        default=False, description="The written plugin is live on /ws?agent=<plugin_id> now."
    )
    serve_hint: str | None = Field(default=None, description="How to serve it, when not live.")


class InspectResponse(Boundary):
    """``POST /api/import-agent/inspect``: the agent as the inspector reads it, and its files."""

    source: Source
    inspection: Inspection
    files: list[str] = Field(description="The repository's files (first ones, .git left out).")
    files_truncated: bool = False


class ScreenCheck(Boundary):
    """``POST /api/import-agent/validate-screen``."""

    plugin_id: PluginId
    screen: Any = Field(description="One screen: {components: [...], voice_text: ...}.")


class ScreenIssues(Boundary):
    ok: bool
    issues: list[ValidationIssue]


class ErrorBody(Boundary):
    """Every error answer: one line naming the problem, and what else helps."""

    error: str
    job_id: str | None = None
    report: Report | None = None
    diagnosis: Diagnosis | None = None
