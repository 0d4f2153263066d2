"""Bodies the import API refuses before they cost anything: too large, nested too deep, or
holding strings too long to be what they claim; and errors that quote only a little of them.

Over real uvicorn on 127.0.0.1: a large body is streamed through a plain socket, which stops
sending as soon as an answer arrives, so the test sees whether the server answered before it had
read the body (the socket stays open: the server closes it when it has drained the rest for
``DRAIN_SECONDS``); and sent whole by urllib, which reads the answer only then.
"""

from __future__ import annotations

import json
import select
import socket
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator

import httpx
import pytest

from generator.api.body import MAX_BODY_BYTES, MAX_DEPTH
from generator.api.guard import MAX_ERROR_CHARS
from generator.api.models import MAX_NAME_CHARS
from tests.generator.api.import_api_fixtures import SAVINGS_HELPER, Server

IMPORT = "/api/import-agent"
#: The body the tests stream: 200 MiB, far past the cap.
HUGE = 200 * 1024 * 1024
#: A body a client sends whole before it reads the answer: 64 MiB.
WHOLE = 64 * 1024 * 1024
PIECE = b" " * (64 * 1024)
#: An error answer quoting a little of what was sent fits in this.
SHORT = 1024


def _pieces(total: int) -> Iterator[bytes]:
    for _ in range(total // len(PIECE)):
        yield PIECE


def _chunked(total: int) -> Iterator[bytes]:
    for piece in _pieces(total):
        yield b"%x\r\n%s\r\n" % (len(piece), piece)


def _stream(client: httpx.Client, headers: str, body: Iterable[bytes]) -> tuple[int, bytes]:
    """POST ``body`` to the import API piece by piece, stopping once an answer arrives:
    ``(bytes of body sent, the raw answer)``."""
    address = (client.base_url.host, client.base_url.port or 80)
    head = f"POST {IMPORT} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    sent = 0
    with socket.create_connection(address) as sock:
        sock.sendall(f"{head}{headers}\r\n".encode())
        try:
            for piece in body:
                if select.select([sock], [], [], 0)[0]:
                    break  # answered
                sock.sendall(piece)
                sent += len(piece)
        except OSError:  # the server closed the connection: it will read no more
            pass
        answer = b""
        try:
            while data := sock.recv(65536):
                answer += data
        except ConnectionResetError:  # closed with the rest of the body unread
            pass
    return sent, answer


def _status_and_body(answer: bytes) -> tuple[int, bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body


@pytest.mark.parametrize(
    ("framing", "body"),
    [
        (f"Content-Length: {HUGE}\r\n", _pieces),
        ("Transfer-Encoding: chunked\r\n", _chunked),
    ],
    ids=["content-length", "chunked"],
)
def test_a_body_over_the_cap_is_413_before_it_is_read(
    server: Server, framing: str, body: Callable[[int], Iterator[bytes]]
) -> None:
    with server() as client:
        sent, answer = _stream(client, framing, body(HUGE))
        still_serving = client.get(f"{IMPORT}/status/nope")

    status, error = _status_and_body(answer)
    assert status == 413
    assert json.loads(error) == {"error": f"the body is larger than {MAX_BODY_BYTES} bytes"}
    assert sent < HUGE  # answered while the client was still sending
    assert still_serving.status_code == 404


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_client_that_sends_the_whole_body_first_reads_the_413(
    server: Server, chunked: bool
) -> None:
    # urllib (like requests) reads no answer before its body is sent: the server reads the rest
    # of the body, so the client gets to read the 413 rather than a connection reset.
    body = _pieces(WHOLE) if chunked else b" " * WHOLE
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with server() as client:
        request = urllib.request.Request(
            f"{client.base_url}{IMPORT}", data=body, headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            opener.open(request, timeout=60)

    assert refused.value.code == 413
    assert json.loads(refused.value.read()) == {
        "error": f"the body is larger than {MAX_BODY_BYTES} bytes"
    }


@pytest.mark.parametrize("body", ["[" * 100_000, '{"a":' * 100_000], ids=["arrays", "objects"])
def test_a_body_nested_too_deep_is_400_not_500(server: Server, body: str) -> None:
    brackets_in_a_string = json.dumps({"url": SAVINGS_HELPER, "plugin_id": "x", "note": body})
    with server() as client:
        deep = client.post(IMPORT, content=body, headers={"Content-Type": "application/json"})
        shallow = client.post(
            IMPORT, content=brackets_in_a_string, headers={"Content-Type": "application/json"}
        )

    assert deep.status_code == 400
    assert deep.json() == {"error": f"the body nests deeper than {MAX_DEPTH} levels"}
    assert shallow.status_code == 422  # parsed: brackets inside a string are not nesting
    assert shallow.json()["error"].startswith("plugin_id: String should match pattern")


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"graph_id": "g" * 20_000_000}, 413, "the body is larger than"),
        (
            {"graph_id": "g" * 500_000},
            422,
            f"graph_id: String should have at most {MAX_NAME_CHARS}",
        ),
        ({"url": "/no/such/" + "x" * 2_000}, 400, "'/no/such/xxxxxxxx"),
        ({"url": "/no/such\nfolder"}, 422, "url: Value error, control characters"),
        ({"x\n" * 250_000: 1}, 422, r"'x\nx\nx\n"),
    ],
    ids=["huge-graph-id", "long-graph-id", "long-url", "newline-in-url", "long-extra-key"],
)
def test_an_error_quotes_little_of_what_was_sent(
    server: Server, body: dict[str, object], status: int, error: str
) -> None:
    with server() as client:
        answer = client.post(
            IMPORT,
            json={"url": SAVINGS_HELPER, "plugin_id": "savings", "design": "offline", **body},
        )

    assert answer.status_code == status
    assert len(answer.content) < SHORT
    assert error in answer.json()["error"]
    assert "\n" not in answer.json()["error"]


def test_an_unknown_job_id_is_quoted_short(server: Server) -> None:
    with server() as client:
        answer = client.get(f"{IMPORT}/status/{'j' * 5_000}")

    assert answer.status_code == 404
    assert answer.json()["error"] == (
        f"no import job {'j' * 40!r}… (unknown, or finished and expired)"
    )


def test_an_agent_import_error_quoting_a_bad_design_stays_one_short_line(server: Server) -> None:
    # agent-import names a design's unknown keys whole; the answer cuts and escapes its message.
    with server() as client:
        answer = client.post(
            IMPORT,
            json={
                "url": SAVINGS_HELPER,
                "plugin_id": "savings",
                "design": "offline",
                "dry_run": True,
                "edited_design": {"k\n" * 100_000: 1},
            },
        )

    error = answer.json()["error"]
    assert answer.status_code == 422
    assert error.startswith("edited_design: invalid design")
    assert len(error) <= MAX_ERROR_CHARS
    assert "\n" not in error
