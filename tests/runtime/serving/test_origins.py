"""The ``Origin`` rule of ``/ws`` and ``/agui`` (``runtime.serving.origins``) over a real uvicorn on
127.0.0.1: only native clients and the runtime's own or listed pages start a turn; everyone else
is refused before a session exists. The audit file (every echo turn writes one entry) shows which
sessions ran."""

from __future__ import annotations

import json
import logging
import socket
import uuid
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from runtime.serving.quotes import EXCERPT_CHARS
from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import ServerFactory

LISTED = "https://app.example"
PUBLIC = "chat.bank.example"


def refused_origins(address: str) -> list[str]:
    """Pages that are not the runtime's at ``address`` nor ``LISTED``."""
    host, _, port = address.rpartition(":")
    return [
        "http://evil.example",
        "null",
        f"http://{address}.evil.example",
        f"http://{host}:{int(port) + 1}",
        f"https://{address}",  # the same host and port, another scheme
        f"http://localhost:{port}",  # the same machine, under a name this request did not use
        "http://app.example",  # the listed site over http
        f"http://{'a' * 500}.example",
    ]


def handshake(
    address: str, origin: str, *, host: str | None = None, headers: dict[str, str] | None = None
) -> int:
    """The HTTP status answering a WebSocket handshake to ``address`` (``Host: host``)."""
    name, _, port = address.rpartition(":")
    with socket.create_connection((name, int(port))) as sock:
        url = f"ws://{host or address}/ws?agent=echo"
        try:
            with connect(url, sock=sock, additional_headers={"Origin": origin, **(headers or {})}):
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code


def audited_sessions(audit_file: Path) -> set[str]:
    """The sessions that ran a turn."""
    if not audit_file.exists():
        return set()
    return {json.loads(line)["sessionId"] for line in audit_file.read_text().splitlines()}


def post_run(url: str, thread: str, content_type: str | None, **headers: str) -> httpx.Response:
    """One AG-UI run saying "hi" on ``thread``, its JSON body sent as ``content_type``."""
    body = {
        "threadId": thread,
        "runId": uuid.uuid4().hex,
        "state": {},
        "messages": [{"id": uuid.uuid4().hex, "role": "user", "content": "hi"}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    if content_type is not None:
        headers["Content-Type"] = content_type
    return httpx.post(url, content=json.dumps(body), headers=headers, timeout=30)


def test_only_native_clients_and_the_runtimes_own_or_listed_pages_open_a_session(
    start_server: ServerFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runtime.serving.app")
    audit_file = tmp_path / "audit.jsonl"
    with start_server(audit_file=audit_file, cors_origins=[LISTED]) as address:
        accepted = {
            "native": {},
            "own": {"Origin": f"http://{address}"},
            "listed": {"Origin": LISTED},
        }
        for session_id, headers in accepted.items():
            with RuntimeClient(address, agent="echo", session_id=session_id, headers=headers) as c:
                c.receive_turn()
        refused = refused_origins(address)
        statuses = {origin: handshake(address, origin) for origin in refused}

    assert statuses == dict.fromkeys(refused, 403)
    assert audited_sessions(audit_file) == set(accepted)
    for origin in refused[:-1]:
        assert (
            f"/ws: handshake refused: cross-origin request from {origin!r} refused" in caplog.text
        )
    cut = refused[-1][:EXCERPT_CHARS]
    assert f"/ws: handshake refused: cross-origin request from {cut!r}… refused" in caplog.text


def test_behind_a_tls_proxy_the_public_https_page_opens_a_session(
    start_server: ServerFactory,
) -> None:
    # What nginx sends for https://chat.bank.example (docs/deployment.md); the runtime trusts
    # X-Forwarded-Proto from the proxy on 127.0.0.1, so the handshake is wss, its page https.
    proxied = {"X-Forwarded-Proto": "https"}
    with start_server(trusted_proxies=["127.0.0.1"]) as address:
        statuses = {
            origin: handshake(address, origin, host=PUBLIC, headers=proxied)
            for origin in (f"https://{PUBLIC}", f"http://{PUBLIC}", "https://evil.example")
        }
    assert statuses == {
        f"https://{PUBLIC}": 101,
        f"http://{PUBLIC}": 403,
        "https://evil.example": 403,
    }


def test_forwarding_headers_from_a_client_not_a_trusted_proxy_change_nothing(
    start_server: ServerFactory,
) -> None:
    """Without ``--trusted-proxy`` the scheme is the connection's own: ``X-Forwarded-Proto`` does
    not make a page https."""
    with start_server(trusted_proxies=["10.0.0.0/8"]) as address:
        statuses = {
            origin: handshake(address, origin, headers={"X-Forwarded-Proto": "https"})
            for origin in (f"https://{address}", f"http://{address}")
        }
    assert statuses == {f"https://{address}": 403, f"http://{address}": 101}


REBOUND = "rebound.evil.example"


def test_a_page_whose_name_was_rebound_to_loopback_is_refused(
    start_server: ServerFactory, tmp_path: Path
) -> None:
    """DNS rebinding: the page at http://rebound.evil.example:PORT, its name now pointing at
    127.0.0.1, is its own origin; a loopback-bound runtime refuses the Host it addressed."""
    audit_file = tmp_path / "audit.jsonl"
    with start_server(audit_file=audit_file) as address:
        port = address.rpartition(":")[2]
        page = f"http://{REBOUND}:{port}"
        ws = handshake(address, page, host=f"{REBOUND}:{port}")
        agui = post_run(
            f"http://{address}/agui/echo",
            "rebound",
            "application/json",
            Origin=page,
            Host=f"{REBOUND}:{port}",
        )
        loopback_names = {
            name: handshake(address, f"http://{name}:{port}", host=f"{name}:{port}")
            for name in ("localhost", "127.0.0.1")
        }
    with start_server(audit_file=audit_file, allowed_hosts=[REBOUND]) as address:
        named = f"{REBOUND}:{address.rpartition(':')[2]}"
        allowed = handshake(address, f"http://{named}", host=named)

    assert ws == 403
    assert agui.status_code == 403
    assert agui.json() == {
        "detail": f"Host '{REBOUND}:{port}' is not this runtime's "
        "(serve with --allowed-host NAME if it is)"
    }
    assert loopback_names == {"localhost": 101, "127.0.0.1": 101}
    assert allowed == 101
    assert "rebound" not in audited_sessions(audit_file)


@pytest.mark.parametrize(
    "forwarding",
    [{"X-Forwarded-For": "203.0.113.7"}, {"X-Real-IP": "203.0.113.7"}, {"Forwarded": "for=x"}],
    ids=["X-Forwarded-For", "X-Real-IP", "Forwarded"],
)
def test_a_rebound_page_claiming_a_proxy_is_refused_unless_the_proxy_is_trusted(
    start_server: ServerFactory, tmp_path: Path, forwarding: dict[str, str]
) -> None:
    """A rebound page's own fetch may add forwarding headers (it is same-origin: no preflight);
    they count only from a ``--trusted-proxy`` address, here 127.0.0.1, the tests' own."""
    audit_file = tmp_path / "audit.jsonl"
    outcomes = {}
    for trusted in ([], ["127.0.0.1"]):
        with start_server(audit_file=audit_file, trusted_proxies=trusted) as address:
            named = f"{REBOUND}:{address.rpartition(':')[2]}"
            page = f"http://{named}"
            ws = handshake(address, page, host=named, headers=forwarding)
            agui = post_run(
                f"http://{address}/agui/echo",
                f"trusting-{len(trusted)}",
                "application/json",
                Origin=page,
                Host=named,
                **forwarding,
            )
            outcomes[len(trusted)] = (ws, agui.status_code)

    assert outcomes == {0: (403, 403), 1: (101, 200)}
    assert "trusting-0" not in audited_sessions(audit_file)


def test_agui_runs_only_for_native_clients_and_the_runtimes_own_or_listed_pages(
    start_server: ServerFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runtime.serving.agui.endpoint")
    audit_file = tmp_path / "audit.jsonl"
    with start_server(audit_file=audit_file, cors_origins=[LISTED]) as address:
        url = f"http://{address}/agui/echo"
        accepted = {
            "native": {},
            "own": {"Origin": f"http://{address}"},
            "listed": {"Origin": LISTED},
        }
        ran = {
            thread: post_run(url, thread, "application/json", **headers).status_code
            for thread, headers in accepted.items()
        }
        refused = refused_origins(address)
        answers = {
            origin: post_run(url, f"refused-{i}", "application/json", Origin=origin)
            for i, origin in enumerate(refused)
        }

    assert ran == dict.fromkeys(accepted, 200)
    assert {origin: answer.status_code for origin, answer in answers.items()} == dict.fromkeys(
        refused, 403
    )
    assert answers["null"].json() == {"detail": "cross-origin request from 'null' refused"}
    assert audited_sessions(audit_file) == set(accepted)
    assert "/agui: cross-origin request from 'http://evil.example' refused" in caplog.text


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None],
)
def test_agui_takes_only_a_json_body(
    start_server: ServerFactory, tmp_path: Path, content_type: str | None
) -> None:
    # text/plain and form bodies are what a page may post cross-site without a CORS preflight
    audit_file = tmp_path / "audit.jsonl"
    with start_server(audit_file=audit_file) as address:
        url = f"http://{address}/agui/echo"
        refused = post_run(url, "refused", content_type)
        json_run = post_run(url, "json", "application/json; charset=utf-8")

    assert refused.status_code == 415
    assert refused.json() == {
        "detail": "a run input must be sent as Content-Type: application/json"
    }
    assert json_run.status_code == 200
    assert audited_sessions(audit_file) == {"json"}
