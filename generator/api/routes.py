"""The import API's endpoints: the CLI's ``import_agent`` driven over HTTP, plus the wizard's calls.

``POST /api/import-agent`` runs the whole pipeline as a job (answering when done, or at once
with ``wait: false``); ``GET /api/import-agent/status/{job_id}`` shows a job's progress;
``POST /api/import-agent/inspect`` fetches and inspects only; ``POST
/api/import-agent/validate-screen`` checks one screen with the runtime's validator. Every request
first passes ``guard.check_request``. See ``docs/wizard.md``.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path
from typing import TypeVar

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from generator.api.body import read_json
from generator.api.guard import ApiError, check_request, check_source
from generator.api.jobs import Job, Jobs, details, preview
from generator.api.models import (
    Accepted,
    ImportRequest,
    ImportResponse,
    InspectResponse,
    JobStatus,
    ScreenCheck,
    ScreenIssues,
    SourceRequest,
    Validation,
)
from generator.api.publish import import_root, serve_plugin
from generator.design import DesignOptions
from generator.errors import AgentImportError
from generator.fetch import Workspace, fetch, is_git_url
from generator.inspect import inspect_source
from generator.pipeline.importer import ImportOptions, ImportResult, import_agent
from runtime.a2ui import validate_screen
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.serving.quotes import describe, excerpt
from runtime.settings import Settings
from runtime.turns.context import RuntimeContext

PREFIX = "/api/import-agent"
#: Files listed by ``inspect``, at most (the wizard's file tree).
MAX_TREE_FILES = 500

M = TypeVar("M", bound=BaseModel)

router = APIRouter(prefix=PREFIX)


def _context(request: Request) -> RuntimeContext:
    context: RuntimeContext = request.app.state.runtime
    return context


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.import_settings
    return settings


def _jobs(request: Request) -> Jobs:
    jobs: Jobs = request.app.state.import_jobs
    return jobs


async def _body(request: Request, model: type[M]) -> M:
    """The request's JSON body as ``model``: 413 if too large, 400 if not JSON (or nested too
    deep), 422 naming the bad fields (see ``body.py``)."""
    check_request(request, _settings(request))
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ApiError(400, "send the body as JSON (Content-Type: application/json)")
    data = await read_json(request)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(422, describe(exc)) from None


def _check_url(url: str, request: Request) -> None:
    check_source(url, request)
    if not is_git_url(url) and not Path(url).expanduser().is_dir():
        raise ApiError(400, f"{excerpt(url)}: no such folder (give a local folder or a git URL)")


@router.post(
    "",
    response_model=ImportResponse,
    response_model_exclude_none=True,  # ``files`` and ``binary_files`` only for a dry run
    responses={202: {"model": Accepted}},
)
async def import_agent_endpoint(request: Request) -> ImportResponse | JSONResponse:
    """Import an agent as a plugin: the same pipeline as ``agent-import import``."""
    asked = await _body(request, ImportRequest)
    _check_url(asked.url, request)
    context = _context(request)
    root = import_root(context.settings.plugins_dir)
    if (root / PLUGINS_FOLDER / asked.plugin_id).exists() and not asked.force:
        raise ApiError(409, f"plugin {asked.plugin_id!r} exists; set force to replace it")
    job = Job(plugin_id=asked.plugin_id, dry_run=asked.dry_run)

    def work(job: Job) -> ImportResult:
        return _run_import(asked, root, job)

    def finish(job: Job, result: ImportResult) -> None:
        hint = None
        if not asked.dry_run:
            hint = serve_plugin(context.registry, context.settings.plugins_dir, asked.plugin_id)
        job.finish(
            result=_response(job, result),
            served=not asked.dry_run and hint is None,
            serve_hint=hint,
            **details(result),
        )

    _jobs(request).start(job, work, finish)
    if not asked.wait:
        url = f"{PREFIX}/status/{job.job_id}"
        return JSONResponse(Accepted(job_id=job.job_id, status_url=url).model_dump(), 202)
    await asyncio.to_thread(job.finished.wait)
    status = job.snapshot()
    if status.result is None:
        raise ApiError(status.error_status or 500, status.error or "failed", job_id=job.job_id)
    return status.result


@router.get("/status/{job_id}")
async def job_status(job_id: str, request: Request) -> JobStatus:
    """A job's state, finished steps, streamed model output, and result or error."""
    check_request(request, _settings(request))
    job = _jobs(request).get(job_id)
    if job is None:
        raise ApiError(404, f"no import job {excerpt(job_id)} (unknown, or finished and expired)")
    return job.snapshot()


@router.post("/inspect")
async def inspect_endpoint(request: Request) -> InspectResponse:
    """Fetch and inspect only: the wizard's first step (nothing is designed or written)."""
    asked = await _body(request, SourceRequest)
    _check_url(asked.url, request)
    try:
        return await run_in_threadpool(_inspect, asked)
    except AgentImportError as exc:
        raise ApiError(400, str(exc)) from None


@router.post("/validate-screen")
async def validate_screen_endpoint(request: Request) -> ScreenIssues:
    """One screen checked by the runtime's validator: issues name component and property."""
    asked = await _body(request, ScreenCheck)
    if not isinstance(asked.screen, dict):
        raise ApiError(422, "screen: a screen is a JSON object {components, voice_text}")
    issues = validate_screen(asked.screen, plugin_id=asked.plugin_id)
    return ScreenIssues(ok=not issues, issues=issues)


def _run_import(asked: ImportRequest, root: Path, job: Job) -> ImportResult:
    """``import_agent`` with the request's options; an edited design goes in as a design file."""
    with tempfile.TemporaryDirectory(prefix="agent-import-api-") as scratch:
        design_file = None
        if asked.edited_design is not None:
            design_file = Path(scratch) / "edited_design.json"
            design_file.write_text(json.dumps(asked.edited_design), encoding="utf-8")
        options = ImportOptions.from_asked(
            asked,
            src=asked.url,
            graph=asked.graph_id,
            design_file=design_file,
            design_options=DesignOptions.from_env(offline=asked.design == "offline"),
        )
        try:
            return import_agent(options, root=root, progress=job.on_step, on_text=job.on_text)
        except AgentImportError as exc:
            if design_file is None or exc.file != str(design_file):
                raise
            message = str(exc).removeprefix(f"{exc.file}: ")
            raise ApiError(422, f"edited_design: {message}") from None


def _response(job: Job, result: ImportResult) -> ImportResponse:
    checks = {check.name: check.ok for check in result.validation.checks}
    folder = PLUGINS_FOLDER / result.plugin_id
    return ImportResponse(
        plugin_id=result.plugin_id,
        files_written=[] if result.dry_run else [(folder / f).as_posix() for f in result.files],
        validation=Validation(
            import_ok=checks.get("import", False), smoke_test_ok=checks.get("turns", False)
        ),
        llm_reasoning=result.design.reasoning,
        screens={
            name: screen.model_dump(mode="json") for name, screen in result.design.screens().items()
        },
        job_id=job.job_id,
        **preview(result),
    )


def _inspect(asked: SourceRequest) -> InspectResponse:
    with Workspace() as workspace:
        source = fetch(asked.url, workspace=workspace, ref=asked.ref)
        inspection = inspect_source(source, config=asked.config)
        files = _tree(Path(source.path))
    return InspectResponse(
        source=source,
        inspection=inspection,
        files=files[:MAX_TREE_FILES],
        files_truncated=len(files) > MAX_TREE_FILES,
    )


def _tree(folder: Path) -> list[str]:
    """Every file under ``folder`` (``.git`` left out, symlinks listed, never followed)."""
    found: list[str] = []
    for parent, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        base = Path(parent).relative_to(folder)
        found.extend((base / name).as_posix() for name in sorted(names))
        if len(found) > MAX_TREE_FILES:
            break
    return found
