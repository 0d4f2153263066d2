"""The import API and the ``/transfer`` wizard: ``agent-import import`` over HTTP, in a browser.

A runtime extension (``runtime.extensions``), mounted by ``a2ui-runtime serve --import-api``
only: it lives beside the pipeline it drives, so a runtime not asked for it never loads the
generator (LibCST, Copier, Jinja2, the Bedrock client). ``install(app, settings)`` adds the
endpoints (``routes.py``), the wizard's page (``page.py``; the page and its script, built from
``frontend/src/pages/transfer.js``, are static files of the runtime), the in-memory job store
(``jobs.py``) and the JSON error answers; every request passes the checks of ``guard.py``, every
body the bounds of ``body.py``.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from generator.api.body import BodyTooLarge, Refusal
from generator.api.guard import ApiError
from generator.api.jobs import Jobs
from generator.api.models import ErrorBody
from generator.api.page import router as page_router
from generator.api.routes import router
from generator.validate import confinement
from runtime.settings import Settings


def install(app: FastAPI, settings: Settings) -> None:
    """Serve the import API (and its wizard) from ``app``: the ``import-api`` extension."""
    app.state.import_settings = settings
    if not settings.sandbox:  # a start option of the server, never a request's field
        confinement.disable()
    app.state.import_jobs = Jobs(limit=settings.import_jobs, ttl=settings.import_job_ttl)
    app.include_router(router)
    app.include_router(page_router)

    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        body = ErrorBody(error=exc.message, job_id=exc.job_id)
        if exc.job_id is not None:
            job = request.app.state.import_jobs.get(exc.job_id)
            status = job.snapshot() if job is not None else None
            body.report = status.report if status is not None else None
            body.diagnosis = status.diagnosis if status is not None else None
        content = body.model_dump(exclude_none=True)
        if isinstance(exc, BodyTooLarge):
            return Refusal(content, unread=exc.unread)
        return JSONResponse(content, status_code=exc.status)

    app.add_exception_handler(ApiError, api_error)
