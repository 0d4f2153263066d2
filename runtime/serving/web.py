"""The browser pages: static HTML and the bundles built from ``frontend/`` (no Node at run time).

``/static/...`` serves ``runtime/static/`` (the pages' CSS and ``js/``, the esbuild output that is
committed); each entry of ``PAGES`` serves one HTML file at its own path. A page reads its query
string itself (``/chat?agent=<id>``), so the server only hands out files.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR: Final = Path(__file__).parents[1] / "static"

#: URL path -> HTML file under ``STATIC_DIR``.
PAGES: Final = {"/chat": "chat.html"}


def mount_pages(app: FastAPI) -> None:
    """Serve ``/static`` and every page of ``PAGES`` on ``app``."""
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    for path, filename in PAGES.items():
        app.add_api_route(path, _page(STATIC_DIR / filename), include_in_schema=False)


def _page(file: Path) -> Callable[[], Awaitable[FileResponse]]:
    async def page() -> FileResponse:
        # Pages are small and change with the bundles: always revalidate.
        return FileResponse(file, media_type="text/html", headers={"Cache-Control": "no-cache"})

    return page
