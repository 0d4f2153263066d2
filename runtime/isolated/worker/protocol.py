"""JSON-RPC 2.0 over a pipe, one JSON object per line (as MCP's stdio transport frames it).

Shared by both ends: the runtime imports this module as ``runtime.isolated.worker.protocol`` and
the worker as ``worker.protocol``, so it uses the standard library only. Method names follow
LangChain's Agent Protocol operations; every message about one run carries that run's request id
as ``params["run"]``.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Final

#: The runtime asks the worker to run the agent once (an input, or a resume) from a checkpoint.
RUN: Final = "runs/stream"
#: The worker reports what the run does as it happens (tokens, tool calls, messages).
EVENT: Final = "runs/event"
#: The runtime stops a run (MCP's name): the worker stops at the next step and answers the run
#: with an error.
CANCEL: Final = "notifications/cancelled"
#: The worker asks the runtime for store operations (the plugin's walled-off view).
STORE: Final = "store/batch"
#: The worker's versions, answered once it has loaded the agent.
INFO: Final = "worker/info"

#: JSON-RPC error codes: the agent raised / the run was cancelled.
AGENT_ERROR: Final = -32000
CANCELLED: Final = -32800


def request(id_: int | str, method: str, params: dict[str, Any]) -> bytes:
    return _line({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})


def notification(method: str, params: dict[str, Any]) -> bytes:
    return _line({"jsonrpc": "2.0", "method": method, "params": params})


def result(id_: int | str, value: Any) -> bytes:
    return _line({"jsonrpc": "2.0", "id": id_, "result": value})


def error(id_: int | str, code: int, message: str, data: Any = None) -> bytes:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return _line({"jsonrpc": "2.0", "id": id_, "error": body})


def parse(line: bytes) -> dict[str, Any]:
    message = json.loads(line)
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise ValueError("not a JSON-RPC 2.0 message")
    return message


def pack(data: bytes | None) -> str | None:
    """Opaque bytes (a checkpoint) as JSON text."""
    return None if data is None else base64.b64encode(data).decode("ascii")


def unpack(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _line(message: dict[str, Any]) -> bytes:
    text = json.dumps(message, default=str, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8") + b"\n"
