"""A fake Bedrock runtime endpoint: a real HTTP server on 127.0.0.1 answering ``converse`` and
``converse-stream``.

boto3 reaches it through ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``, so requests go through botocore's
real serialisation, signing, retries, timeouts and error parsing. Each model gets a script of
steps; the last step repeats once the script runs out. Every request is recorded. A streamed
answer is the same step sent as AWS event-stream frames (``application/vnd.amazon.eventstream``):
the answer's text in ``chunks`` pieces, ``chunk_delay`` seconds apart.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest


def no_aws_configuration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Hide the machine's AWS configuration (env, ~/.aws, instance metadata); a private cache."""
    for name in list(os.environ):
        if name.startswith(("AWS_", "AGENT_IMPORT_")) or name == "BOTO_CONFIG":
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AGENT_IMPORT_CACHE_DIR", str(tmp_path / "cache"))


def dummy_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")


@dataclass
class Step:
    """One HTTP answer: status, JSON body, error type header, and a delay before answering."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    error_type: str | None = None
    delay: float = 0.0
    chunks: int = 4
    chunk_delay: float = 0.0


def text_answer(text: str, *, input_tokens: int = 1000, output_tokens: int = 200) -> Step:
    """A structured-output answer: the JSON as a text block."""
    return _answer([{"text": text}], input_tokens, output_tokens)


def tool_answer(payload: dict[str, Any], *, name: str, tool_use_id: str = "tooluse_1") -> Step:
    """A forced-tool-use answer: the JSON as the tool call's input."""
    block = {"toolUse": {"toolUseId": tool_use_id, "name": name, "input": payload}}
    return _answer([block], 1000, 200, stop_reason="tool_use")


def error(status: int, error_type: str, message: str, *, delay: float = 0.0) -> Step:
    return Step(status=status, body={"message": message}, error_type=error_type, delay=delay)


def _answer(
    content: list[dict[str, Any]],
    input_tokens: int,
    output_tokens: int,
    stop_reason: str = "end_turn",
) -> Step:
    return Step(
        body={
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": stop_reason,
            "usage": {
                "inputTokens": input_tokens,
                "outputTokens": output_tokens,
                "totalTokens": input_tokens + output_tokens,
            },
            "metrics": {"latencyMs": 5},
        }
    )


@dataclass
class Request:
    model_id: str
    body: dict[str, Any]
    headers: dict[str, str]
    path: str = ""


class FakeBedrock:
    """``with FakeBedrock({"haiku": [...], "sonnet": [...]}) as fake: ... fake.url``.

    ``FakeBedrock.starter(monkeypatch)`` is the tests' fixture body: it starts fakes that boto3
    reaches (``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``, dummy credentials) and stops them at the end.
    """

    def __init__(self, scripts: dict[str, list[Step]]) -> None:
        self.scripts = scripts
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def requests_to(self, model_part: str) -> list[Request]:
        return [r for r in self.requests if model_part in r.model_id]

    def __enter__(self) -> FakeBedrock:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    @classmethod
    def starter(cls, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., FakeBedrock]]:
        fakes: list[FakeBedrock] = []

        def start(**scripts: list[Step]) -> FakeBedrock:
            fake = cls(scripts).__enter__()
            fakes.append(fake)
            monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.url)
            dummy_credentials(monkeypatch)
            return fake

        yield start
        for fake in fakes:
            fake.__exit__(None, None, None)

    def _next_step(self, model_id: str) -> Step:
        for part, steps in self.scripts.items():
            if part in model_id:
                seen = len(self.requests_to(part))
                return steps[min(seen, len(steps)) - 1]
        return error(404, "ResourceNotFoundException", f"no script for {model_id}")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                # /model/<url-encoded model id>/converse
                model_id = unquote(self.path.split("/")[2])
                with fake._lock:
                    fake.requests.append(Request(model_id, body, dict(self.headers), self.path))
                    step = fake._next_step(model_id)
                if step.delay:
                    time.sleep(step.delay)
                if self.path.endswith("/converse-stream") and step.status == 200:
                    self._stream(step)
                    return
                payload = json.dumps(step.body).encode()
                try:
                    self.send_response(step.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    if step.error_type:
                        self.send_header("x-amzn-ErrorType", f"{step.error_type}:http://internal")
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (read timeout)

            def _stream(self, step: Step) -> None:
                """Chunked, like Bedrock: botocore reads each chunk as it arrives."""
                self.protocol_version = "HTTP/1.1"
                self.close_connection = True
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/vnd.amazon.eventstream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for frame in [*stream_events(step), b""]:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
                        self.wfile.flush()
                        time.sleep(step.chunk_delay)
                except OSError:
                    pass

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def stream_events(step: Step) -> list[bytes]:
    """The ``converse`` answer of ``step`` as ``converse-stream`` event frames."""
    body = step.body
    events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
    for index, block in enumerate(body["output"]["message"]["content"]):
        if "toolUse" in block:
            tool = block["toolUse"]
            start = {"toolUse": {"toolUseId": tool["toolUseId"], "name": tool["name"]}}
            events.append(("contentBlockStart", {"contentBlockIndex": index, "start": start}))
            text, key = json.dumps(tool["input"]), "toolUse"
        else:
            text, key = block["text"], "text"
        size = max(1, -(-len(text) // step.chunks))
        for piece in (text[i : i + size] for i in range(0, len(text), size)):
            delta = {"toolUse": {"input": piece}} if key == "toolUse" else {"text": piece}
            events.append(("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}))
        events.append(("contentBlockStop", {"contentBlockIndex": index}))
    events.append(("messageStop", {"stopReason": body["stopReason"]}))
    events.append(("metadata", {"usage": body["usage"], "metrics": {"latencyMs": 5}}))
    return [_frame(name, payload) for name, payload in events]


def _frame(event_type: str, payload: dict[str, Any]) -> bytes:
    """One event-stream message: prelude, string headers, JSON payload, CRC32s."""
    headers = b"".join(
        _header(name, value)
        for name, value in (
            (":event-type", event_type),
            (":content-type", "application/json"),
            (":message-type", "event"),
        )
    )
    data = json.dumps(payload).encode()
    prelude = struct.pack(">II", 12 + len(headers) + len(data) + 4, len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + data
    return message + struct.pack(">I", zlib.crc32(message))


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        struct.pack(">B", len(raw_name))
        + raw_name
        + b"\x07"
        + struct.pack(">H", len(raw_value))
        + raw_value
    )
