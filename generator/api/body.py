"""The import API's request bodies, bounded before anything parses them.

FastAPI's own body handling reads a whole body into memory, however large, and hands it to
``json.loads``, whose recursion a body of nested brackets exhausts (``RecursionError``: a 500).
Here a body is read as it streams in and refused (413) once it passes ``MAX_BODY_BYTES``, at once
when its ``Content-Length`` says it will; and its nesting is counted by a linear scan before the
parser sees it (400 past ``MAX_DEPTH``). The largest body the API needs is an edited design of
four screens: a few tens of kilobytes, nested about ten deep.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import Request

from generator.api.guard import ApiError

#: The largest body accepted, in bytes.
MAX_BODY_BYTES = 1024 * 1024
#: How deep arrays and objects may nest in a body.
MAX_DEPTH = 32

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


async def _read(request: Request) -> bytes:
    too_large = ApiError(413, f"the body is larger than {MAX_BODY_BYTES} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdecimal() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise too_large
    return bytes(body)


def _check_depth(text: str) -> None:
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            raise ApiError(400, f"the body nests deeper than {MAX_DEPTH} levels")
