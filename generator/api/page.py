"""``/transfer``: the wizard's page, behind the same guard as the API.

With an admin token configured, ``/transfer?token=<token>`` stores it in a strict, HTTP-only
cookie and redirects to ``/transfer``, so the page's own API calls carry it (and no other site's
requests do: ``SameSite=Strict``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, RedirectResponse, Response

from generator.api.guard import TOKEN_COOKIE, check_request
from runtime.serving.web import STATIC_DIR
from runtime.settings import Settings

PAGE = STATIC_DIR / "transfer.html"

router = APIRouter()


@router.get("/transfer", include_in_schema=False)
async def transfer(request: Request, token: str | None = None) -> Response:
    settings: Settings = request.app.state.import_settings
    check_request(request, settings, token=token)
    if token is not None and settings.admin_token is not None:
        response = RedirectResponse("/transfer", status_code=303)
        response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return response
    return FileResponse(PAGE, media_type="text/html", headers={"Cache-Control": "no-cache"})
