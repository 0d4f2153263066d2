"""The import API's request bodies, bounded before anything parses them.

FastAPI's own body handling reads a whole body into memory, however large, and hands it to
``json.loads``, whose recursion a body of nested brackets exhausts (``RecursionError``: a 500).
Here a body is read as it streams in and refused (413) once it passes ``MAX_BODY_BYTES``, at once
when its ``Content-Length`` says it will; and its nesting is counted by a linear scan before the
parser sees it (400 past ``MAX_DEPTH``). The largest body the API needs is an edited design of
four screens: a few tens of kilobytes, nested about ten deep.

A refused body's 413 is sent at once, for the clients that read while they send (curl), and the
rest of the body is then read and dropped for up to ``DRAIN_SECONDS`` before the connection is
closed: a client that reads no answer before its body is sent (urllib, requests, httpx) would
otherwise have the connection reset under it, the 413 unread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from generator.api.guard import ApiError

#: The largest body accepted, in bytes.
MAX_BODY_BYTES = 1024 * 1024
#: How deep arrays and objects may nest in a body.
MAX_DEPTH = 32
#: How long the rest of a refused body is read (and dropped) after its 413: time enough for a
#: client on a fast link to finish sending, too short for one trickling bytes to hold the server.
DRAIN_SECONDS = 2.0

#: A JSON string, escapes included; an unterminated one runs to the end (so the scan never
#: backtracks: it is linear in the body's length).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


async def read_json(request: Request) -> Any:
    """The request's body parsed as JSON: 413 if too large, 400 if not JSON or nested too deep."""
    body = await _read(request)
    try:
        text = body.decode("utf-8")
        _check_depth(text)
        return json.loads(text)
    except ValueError:  # UnicodeDecodeError and json.JSONDecodeError are ValueErrors
        raise ApiError(400, "the body is not JSON") from None


class BodyTooLarge(ApiError):
    """413: the body passed ``MAX_BODY_BYTES``; ``unread`` when the client is still sending it."""

    def __init__(self, *, unread: bool) -> None:
        super().__init__(413, f"the body is larger than {MAX_BODY_BYTES} bytes")
        self.unread = unread


class Refusal(JSONResponse):
    """A ``BodyTooLarge`` answer: sent whole at once, then the rest of the body is drained (see
    the module docstring) before the response ends and the connection closes."""

    def __init__(self, content: Any, *, unread: bool) -> None:
        super().__init__(content, status_code=413, headers={"Connection": "close"})
        self.unread = unread

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        await send({"type": "http.response.body", "body": self.body, "more_body": self.unread})
        if self.unread:
            await _drain(receive)
            await send({"type": "http.response.body", "body": b""})


async def _read(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdecimal() and int(declared) > MAX_BODY_BYTES:
        raise BodyTooLarge(unread=True)
    body = bytearray()
    more = True
    while more:  # not request.stream(): a refusal needs to know whether the body has ended
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        body += message.get("body", b"")
        more = message.get("more_body", False)
        if len(body) > MAX_BODY_BYTES:
            raise BodyTooLarge(unread=more)
    return bytes(body)


async def _drain(receive: Receive) -> None:
    """Read and drop what is left of the body, for at most ``DRAIN_SECONDS``."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(DRAIN_SECONDS):
            while (await receive()).get("more_body", False):  # a disconnect has none
                pass


def _check_depth(text: str) -> None:
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            raise ApiError(400, f"the body nests deeper than {MAX_DEPTH} levels")
