"""Each rule of ``generator.api.guard``, attacked.

Real uvicorn on 127.0.0.1 for loopback clients; a client from elsewhere is played through httpx's
ASGI transport, which sets the client address the app sees (the guard answers before anything
needs the app's lifespan).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.contract.layout import PLUGINS_FOLDER
from runtime.serving.app import create_app
from tests.generator.api.import_api_fixtures import SAVINGS_HELPER, Server, api_settings

TOKEN = "s3cret-token-for-tests"
STATUS = "/api/import-agent/status/nope"  # 404 once the guard lets a request through
REMOTE = ("203.0.113.9", 40000)


def _remote(
    repo: Path, requests: list[tuple[str, str, dict[str, Any]]], **settings: object
) -> list[httpx.Response]:
    """``(method, path, httpx options)`` sent in order from a non-loopback client address."""
    app = create_app(api_settings(repo, **settings), callbacks=[])

    async def send() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app, client=REMOTE)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return [await client.request(method, path, **kw) for method, path, kw in requests]

    return asyncio.run(send())


def test_a_remote_client_is_refused_without_a_token(repo: Path) -> None:
    answers = _remote(
        repo,
        [
            ("GET", STATUS, {}),
            ("POST", "/api/import-agent", {"json": {"url": "x", "plugin_id": "abc"}}),
            ("GET", "/transfer", {}),
        ],
    )

    for answer in answers:
        assert answer.status_code == 403
        assert answer.json()["error"].startswith("the import API answers loopback clients only")


def test_with_a_token_every_request_needs_it(repo: Path, server: Server) -> None:
    with server(admin_token=TOKEN) as client:
        none = client.get(STATUS)
        wrong = client.get(STATUS, headers={"Authorization": "Bearer nope"})
        right = client.get(STATUS, headers={"Authorization": f"Bearer {TOKEN}"})
    auth = {"headers": {"Authorization": f"Bearer {TOKEN}"}}
    remote_none, remote_right = _remote(
        repo, [("GET", STATUS, {}), ("GET", STATUS, auth)], admin_token=TOKEN
    )

    assert none.status_code == wrong.status_code == remote_none.status_code == 401
    assert none.json()["error"] == (
        "this runtime needs its admin token (Authorization: Bearer <token>)"
    )
    assert right.status_code == remote_right.status_code == 404


def test_the_wizard_link_with_the_token_sets_a_strict_cookie(server: Server) -> None:
    with server(admin_token=TOKEN) as client:
        refused = client.get("/transfer")
        opened = client.get(f"/transfer?token={TOKEN}")
        cookie = opened.headers.get("set-cookie", "")
        page = client.get("/transfer")
        api = client.get(STATUS)
        bad_link = httpx.get(f"{client.base_url}/transfer?token=wrong")

    assert refused.status_code == 401
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert page.status_code == 200 and 'data-step="IDLE"' in page.text
    assert api.status_code == 404  # the cookie carries the token
    assert bad_link.status_code == 401


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io"])
def test_a_rebound_host_name_is_refused(server: Server, host: str) -> None:
    with server() as client:
        answer = client.get(STATUS, headers={"Host": host})
    assert answer.status_code == 403
    assert answer.json()["error"].startswith(f"Host {host!r} is not this runtime's")


@pytest.mark.parametrize(
    "host",
    [
        "evil.example@localhost",  # a URL parser drops the userinfo and sees localhost
        "localhost@evil.example",
        "localhost:80@evil",
        "localhost:8000/",
        "localhost#x",
        "local host",
        "localhost, evil.example",
        "",
        "localhost:http",
        "[localhost]",
    ],
)
def test_a_host_header_is_one_host_and_port_nothing_more(server: Server, host: str) -> None:
    with server() as client:
        answer = client.get(STATUS, headers={"Host": host})
    assert answer.status_code == 400
    assert answer.json() == {"error": f"Host {host!r} is not one host[:port]"}


def test_two_host_headers_are_refused(repo: Path) -> None:
    # h11 refuses a second Host line itself, so this goes through the ASGI transport, whose
    # client is 127.0.0.1 (another server might pass both lines on).
    app = create_app(api_settings(repo), callbacks=[])

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.get(STATUS, headers=[("Host", "localhost"), ("Host", "evil")])

    answer = asyncio.run(send())
    assert answer.status_code == 400
    assert answer.json() == {"error": "Host 'localhost, evil' is not one host[:port]"}


@pytest.mark.parametrize("host", ["localhost", "LocalHost:8000", "127.0.0.1:8000", "[::1]:8000"])
def test_loopback_names_pass_with_or_without_a_port(server: Server, host: str) -> None:
    with server() as client:
        answer = client.get(STATUS, headers={"Host": host})
    assert answer.status_code == 404


def test_allowed_hosts_extend_the_loopback_names(server: Server) -> None:
    with server(allowed_hosts=("wizard.internal",)) as client:
        answer = client.get(STATUS, headers={"Host": "wizard.internal:8000"})
    assert answer.status_code == 404


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
    ],
)
def test_a_cross_site_request_cannot_start_an_import(
    server: Server, repo: Path, headers: dict[str, str]
) -> None:
    with server() as client:
        answer = client.post(
            "/api/import-agent",
            json={"url": SAVINGS_HELPER, "plugin_id": "savings", "design": "offline"},
            headers=headers,
        )
    assert answer.status_code == 403
    assert "refused" in answer.json()["error"]
    assert not (repo / PLUGINS_FOLDER / "savings").exists()


def test_the_pages_own_origin_is_accepted(server: Server) -> None:
    with server() as client:
        origin = str(client.base_url).rstrip("/")
        answer = client.get(STATUS, headers={"Origin": origin, "Sec-Fetch-Site": "same-origin"})
    assert answer.status_code == 404


@pytest.mark.parametrize(
    "header",
    [
        ("Via", "1.1 nginx"),
        ("X-Real-IP", "127.0.0.1"),
        ("Forwarded", "for=127.0.0.1;proto=https"),
        ("X-Forwarded-For", "127.0.0.1"),
    ],
)
def test_a_request_through_a_proxy_is_never_a_loopback_clients(
    server: Server, header: tuple[str, str]
) -> None:
    # A proxy on this machine connects from 127.0.0.1 whoever sent the request.
    with server() as client:
        direct = client.get(STATUS)
        proxied = client.get(STATUS, headers=dict([header]))
    assert direct.status_code == 404
    assert proxied.status_code == 403
    assert proxied.json()["error"].startswith("the import API answers loopback clients only")


def test_behind_a_tls_proxy_on_this_machine_the_customers_origin_and_address_count(
    server: Server,
) -> None:
    # What nginx sends for https://wizard.bank.example (docs/deployment.md): the runtime trusts
    # the forwarded headers from the proxy on 127.0.0.1 (--trusted-proxy), so the page's origin
    # is https and the client is the browser's address, never the proxy's loopback one.
    proxied = {
        "Host": "wizard.bank.example",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-For": REMOTE[0],
        "Origin": "https://wizard.bank.example",
    }
    auth = {"Authorization": f"Bearer {TOKEN}"}
    behind = {"allowed_hosts": ("wizard.bank.example",), "trusted_proxies": ("127.0.0.1",)}
    with server(**behind) as client:
        no_token_configured = client.get(STATUS, headers=proxied)
    with server(allowed_hosts=("wizard.bank.example",), admin_token=TOKEN) as client:
        proxy_not_trusted = client.get(STATUS, headers={**proxied, **auth})  # the page is http
    with server(**behind, admin_token=TOKEN) as client:
        own_page = client.get(STATUS, headers={**proxied, **auth})
        other_site = client.get(
            STATUS, headers={**proxied, **auth, "Origin": "https://evil.example"}
        )
        plain_http = client.get(
            STATUS, headers={**proxied, **auth, "Origin": "http://wizard.bank.example"}
        )

    assert no_token_configured.status_code == 403
    assert no_token_configured.json()["error"].startswith("the import API answers loopback")
    assert own_page.status_code == 404  # through the guard
    assert other_site.status_code == plain_http.status_code == 403
    assert proxy_not_trusted.status_code == 403


@pytest.mark.parametrize("url", [SAVINGS_HELPER, "file:///etc", "./examples"])
def test_local_sources_only_from_loopback(repo: Path, url: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    answers = _remote(
        repo,
        [
            (
                "POST",
                "/api/import-agent",
                {"json": {"url": url, "plugin_id": "abc"}, "headers": auth},
            ),
            ("POST", "/api/import-agent/inspect", {"json": {"url": url}, "headers": auth}),
        ],
        admin_token=TOKEN,
    )

    for answer in answers:
        assert answer.status_code == 403
        assert answer.json()["error"] == (
            "local folders and file:// URLs are accepted only from loopback clients"
        )
