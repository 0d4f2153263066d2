"""One AG-UI run posted by hand, as it is on the wire: for what the official client never sends."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx


def post_run(url: str, thread: str, **fields: Any) -> list[dict[str, Any]]:
    """Post one run (``fields`` over an empty run on ``thread``); its events, as JSON."""
    body = {"threadId": thread, "runId": uuid.uuid4().hex, "state": {}, "messages": []}
    body |= {"tools": [], "context": [], "forwardedProps": {}, **fields}
    reply = httpx.post(url, json=body, timeout=30)
    reply.raise_for_status()
    return [json.loads(line[5:]) for line in reply.text.splitlines() if line.startswith("data:")]
