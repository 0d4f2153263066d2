"""Who may drive an import: the checks every import API and wizard request goes through.

An import fetches code and writes into the repository, so the API is not for the network at large:

* without ``Settings.admin_token`` only loopback clients are answered; with one, every request
  must present it (``Authorization: Bearer <token>``, or the cookie ``/transfer?token=`` sets);
  a request that came through a reverse proxy (it carries ``Forwarded``, ``X-Forwarded-For``,
  ``X-Real-IP`` or ``Via``, from whichever address) is never a loopback client's, whatever
  address the proxy connects from (the browser's address and scheme are taken from the headers
  of ``Settings.trusted_proxies`` only: ``runtime.serving.proxies``);
* the ``Host`` header must name this machine (loopback names, the bound host, ``allowed_hosts``),
  so a page whose DNS name was rebound to 127.0.0.1 is refused;
* a browser's cross-site request is refused (``Origin`` other than the page's own, or
  ``Sec-Fetch-Site: cross-site``), so a web page open in the user's browser cannot post an import
  to localhost (CSRF); requests without ``Origin`` are scripts and CI, which the two rules above
  already cover;
* local folders and ``file://`` URLs are read only for loopback clients.
"""

from __future__ import annotations

import hmac
import re

from fastapi import Request

from generator.fetch import is_git_url
from runtime.serving import origins
from runtime.serving.quotes import excerpt
from runtime.settings import Settings

TOKEN_COOKIE = "a2ui_admin_token"
#: The longest error message an answer carries.
MAX_ERROR_CHARS = 1000
#: Control characters and Unicode's line and paragraph separators: never in a one-line message.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class ApiError(Exception):
    """An answer other than success: the HTTP status and one line naming the problem."""

    def __init__(self, status: int, message: str, *, job_id: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = one_line(message)
        self.job_id = job_id


def one_line(message: str) -> str:
    """``message`` fit for an error answer: control characters escaped, cut to
    ``MAX_ERROR_CHARS``. Our own messages quote input with ``quotes.excerpt``; this bounds those
    of ``agent-import``, which may quote a bad design's keys whole."""
    line = CONTROL_CHARACTERS.sub(lambda match: match[0].encode("unicode_escape").decode(), message)
    return line if len(line) <= MAX_ERROR_CHARS else line[: MAX_ERROR_CHARS - 1] + "…"


def client_is_loopback(request: Request) -> bool:
    if origins.came_through_proxy(request):  # a loopback address is the proxy's, not the person's
        return False
    return origins.is_loopback(request.client.host if request.client else None)


def check_request(request: Request, settings: Settings, *, token: str | None = None) -> None:
    """Raise ``ApiError`` unless this request may use the import API (see the module docstring).

    ``token`` is one presented another way (the wizard's ``?token=`` link).
    """
    _check_client(request, settings, token)
    _check_host(request, settings)
    _check_origin(request)


def check_source(url: str, request: Request) -> None:
    """Local folders and ``file://`` URLs are read only for loopback clients."""
    local = url.startswith("file://") or not is_git_url(url)
    if local and not client_is_loopback(request):
        raise ApiError(
            403, "local folders and file:// URLs are accepted only from loopback clients"
        )


def _check_client(request: Request, settings: Settings, presented: str | None) -> None:
    token = settings.admin_token
    if token is None and (networked := _networked_workers(request)):
        raise ApiError(
            403,
            f"the import API needs an admin token (A2UI_ADMIN_TOKEN) while isolated plugins "
            f"run with the network ({', '.join(networked)}): their workers could reach loopback",
        )
    if token is None:
        if not client_is_loopback(request):
            raise ApiError(
                403,
                "the import API answers loopback clients only; configure an admin token "
                "(A2UI_ADMIN_TOKEN) to use it from elsewhere",
            )
        return
    given = presented or _presented_token(request)
    if given is None or not hmac.compare_digest(given.encode(), token.get_secret_value().encode()):
        raise ApiError(401, "this runtime needs its admin token (Authorization: Bearer <token>)")


def _networked_workers(request: Request) -> list[str]:
    """The isolated plugins this runtime serves whose workers may connect out: a worker shares
    the host's network, loopback included, so a loopback client may be one of them."""
    context = getattr(request.app.state, "runtime", None)
    plugins = context.registry.plugins if context is not None else {}
    return sorted(
        plugin_id
        for plugin_id, plugin in plugins.items()
        if (agent := getattr(plugin, "isolated", None)) is not None and agent.spec.network
    )


def _presented_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value:
        return value.strip()
    return request.cookies.get(TOKEN_COOKIE)


def _check_host(request: Request, settings: Settings) -> None:
    hosts = request.headers.getlist("host")
    shown = excerpt(", ".join(hosts))
    name = origins.host_name(hosts[0]) if len(hosts) == 1 else None
    if name is None:
        raise ApiError(400, f"Host {shown} is not one host[:port]")
    if name not in origins.own_hosts(settings):
        raise ApiError(
            403, f"Host {shown} is not this runtime's (serve with --allowed-host NAME if it is)"
        )


def _check_origin(request: Request) -> None:
    if request.headers.get("sec-fetch-site") == "cross-site":
        raise ApiError(403, "cross-site request refused")
    origin = request.headers.get("origin")
    if origin is not None and not origins.is_own(request, origin):
        raise ApiError(403, f"cross-origin request from {excerpt(origin)} refused")
