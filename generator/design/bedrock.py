"""One small interface over Bedrock's ``converse`` for asking Claude for JSON of a known shape.

Two ways to get structured JSON out of Claude on Bedrock, behind one ``Conversation``:

* ``structured_output`` (default): ``outputConfig.textFormat`` with a JSON schema; the model's
  decoding is constrained to the schema and the answer comes back as text.
* ``tool_use``: one tool whose input schema is the answer's schema, forced with ``toolChoice``;
  the answer comes back as the tool call's input. Some models reject one mode or the other, so it
  is a switch.

Given ``on_text``, a conversation asks with ``converse_stream`` instead and hands each piece of
the answer to ``on_text`` as it arrives (the import API shows the model's output while it
works); the ``Reply`` is the same either way.

Every failure to *get* an answer (no credentials, access denied, unknown model, a rejected request,
throttling after botocore's retries, timeouts, no network) becomes ``BedrockUnavailable`` with a
one-line reason; the designer turns that into its deterministic fallback at once. Credentials are
looked up before any network call, so a machine without them (CI) never waits on the network.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime import BedrockRuntimeClient

OutputMode = Literal["structured_output", "tool_use"]
#: Receives each piece of a streamed answer as it arrives.
OnText = Callable[[str], None]

#: Used when neither ``--region`` nor the AWS configuration names one; the ``us.`` inference
#: profiles of the default model ids live there.
DEFAULT_REGION = "us-east-1"

#: Bedrock error codes that botocore retries; seeing one here means the retries ran out.
_RETRIED_CODES = {
    "ThrottlingException": "throttled by Bedrock",
    "ServiceUnavailableException": "Bedrock is unavailable",
    "InternalServerException": "Bedrock had an internal error",
    "ModelNotReadyException": "the model is not ready",
}


class BedrockUnavailable(Exception):
    """No answer can be had from Bedrock; ``str(exc)`` is a one-line reason for the user.

    ``everywhere`` is true when no model can answer either (no credentials, no network), as opposed
    to one model refusing (access denied to it, unknown id, throttled).
    """

    def __init__(self, reason: str, *, everywhere: bool = False) -> None:
        super().__init__(reason)
        self.everywhere = everywhere


class BedrockSettings(BaseModel):
    """Where and how to reach Bedrock; ``None`` means the AWS configuration's own choice."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    region: str | None = None
    profile: str | None = None
    output_mode: OutputMode = "structured_output"
    connect_timeout: float = 5.0
    read_timeout: float = 120.0
    #: Attempts per request, first one included (botocore's ``total_max_attempts``).
    max_attempts: int = 3


class Reply(BaseModel):
    """One answer: the JSON text as the model wrote it, and what it cost."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    input_tokens: int
    output_tokens: int
    latency_ms: int
    stop_reason: str


def connect(settings: BedrockSettings) -> BedrockRuntimeClient:
    """A ``bedrock-runtime`` client, after checking that credentials exist (no network yet)."""
    import boto3  # imported here: an offline design never needs it (0.2 s of start-up)
    from botocore.config import Config

    try:
        session = boto3.Session(profile_name=settings.profile, region_name=settings.region)
        if session.get_credentials() is None:
            raise BedrockUnavailable(
                "no AWS credentials found (set AWS_PROFILE or AWS_ACCESS_KEY_ID/"
                "AWS_SECRET_ACCESS_KEY, or pass --profile)",
                everywhere=True,
            )
        config = Config(
            retries={"mode": "standard", "total_max_attempts": settings.max_attempts},
            connect_timeout=settings.connect_timeout,
            read_timeout=settings.read_timeout,
        )
        return session.client(
            "bedrock-runtime", region_name=session.region_name or DEFAULT_REGION, config=config
        )
    except BotoCoreError as exc:
        raise BedrockUnavailable(_one_line(str(exc)), everywhere=True) from exc


class Conversation:
    """One question to one model, then corrections, shaped as the output mode needs.

    ``ask()`` sends the prompt; ``correct(feedback)`` sends the previous answer back with what was
    wrong with it. In tool-use mode the feedback travels as the tool's error result, as the
    Converse API requires after a ``toolUse`` block.
    """

    def __init__(
        self,
        client: BedrockRuntimeClient,
        *,
        model_id: str,
        system: str,
        prompt: str,
        schema: dict[str, Any],
        name: str,
        output_mode: OutputMode = "structured_output",
        max_tokens: int = 12000,
        on_text: OnText | None = None,
    ) -> None:
        self.client = client
        self.model_id = model_id
        self.output_mode = output_mode
        self._system = system
        self._schema = schema
        self._name = name
        self._max_tokens = max_tokens
        self._messages: list[dict[str, Any]] = [{"role": "user", "content": [{"text": prompt}]}]
        self._last_reply: dict[str, Any] | None = None
        self._on_text = on_text

    def ask(self) -> Reply:
        """Send the conversation so far and return the model's answer."""
        started = time.monotonic()
        try:
            if self._on_text is None:
                response: dict[str, Any] = dict(self.client.converse(**self.request()))
            else:
                stream = self.client.converse_stream(**self.request())["stream"]
                response = collect_stream(stream, self._on_text)
        except ClientError as exc:
            raise BedrockUnavailable(_reason(exc, self.model_id, self.output_mode)) from exc
        except BotoCoreError as exc:
            reason = _one_line(f"cannot reach Bedrock: {exc}")
            raise BedrockUnavailable(reason, everywhere=True) from exc
        latency_ms = round((time.monotonic() - started) * 1000)
        message = response["output"].get("message")
        if message is None:
            raise BedrockUnavailable(f"{self.model_id} returned no message")
        self._last_reply = dict(message)
        usage = response["usage"]
        return Reply(
            text=self._answer_text(message["content"]),
            input_tokens=usage["inputTokens"],
            output_tokens=usage["outputTokens"],
            latency_ms=latency_ms,
            stop_reason=response["stopReason"],
        )

    def correct(self, feedback: str) -> Reply:
        """Send the last answer back with ``feedback`` on what was wrong, and ask again."""
        if self._last_reply is None:
            raise RuntimeError("correct() before ask()")
        self._messages.append(self._last_reply)
        tool_use = next((b["toolUse"] for b in self._last_reply["content"] if "toolUse" in b), None)
        if tool_use is None:
            content: list[dict[str, Any]] = [{"text": feedback}]
        else:
            result = {"toolUseId": tool_use["toolUseId"], "content": [{"text": feedback}]}
            content = [{"toolResult": {**result, "status": "error"}}]
        self._messages.append({"role": "user", "content": content})
        return self.ask()

    def request(self) -> dict[str, Any]:
        """The keyword arguments of the next ``converse`` call."""
        request: dict[str, Any] = {
            "modelId": self.model_id,
            "system": [{"text": self._system}],
            "messages": self._messages,
            "inferenceConfig": {"maxTokens": self._max_tokens, "temperature": 0.0},
        }
        if self.output_mode == "tool_use":
            tool = {"name": self._name, "inputSchema": {"json": self._schema}}
            request["toolConfig"] = {
                "tools": [{"toolSpec": tool}],
                "toolChoice": {"tool": {"name": self._name}},
            }
        else:
            json_schema = {"schema": json.dumps(self._schema), "name": self._name}
            request["outputConfig"] = {
                "textFormat": {"type": "json_schema", "structure": {"jsonSchema": json_schema}}
            }
        return request

    def _answer_text(self, content: Any) -> str:
        """The JSON answer in either mode: the tool call's input, or the text blocks."""
        for block in content:
            if "toolUse" in block:
                return json.dumps(block["toolUse"]["input"])
        return "".join(block.get("text", "") for block in content)


def collect_stream(events: Iterable[Mapping[str, Any]], on_text: OnText) -> dict[str, Any]:
    """A ``converse_stream`` event stream as the ``converse`` response it adds up to.

    Text and tool-input deltas go to ``on_text`` as they arrive; an error event raises
    botocore's ``EventStreamError`` (a ``ClientError``) while iterating.
    """
    blocks: dict[int, dict[str, Any]] = {}
    usage = {"inputTokens": 0, "outputTokens": 0}
    response: dict[str, Any] = {"output": {}, "stopReason": "end_turn", "usage": usage}
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            tool = start["start"].get("toolUse")
            if tool is not None:
                blocks[start["contentBlockIndex"]] = {"toolUse": {**tool, "input": ""}}
        elif "contentBlockDelta" in event:
            delta = event["contentBlockDelta"]
            block = blocks.setdefault(delta["contentBlockIndex"], {"text": ""})
            piece = delta["delta"].get("text")
            if piece is not None:
                block["text"] = block.get("text", "") + piece
            elif "toolUse" in delta["delta"]:
                piece = delta["delta"]["toolUse"]["input"]
                block["toolUse"]["input"] += piece
            if piece:
                on_text(piece)
        elif "messageStop" in event:
            response["stopReason"] = event["messageStop"]["stopReason"]
        elif "metadata" in event:
            response["usage"] = event["metadata"]["usage"]
    content = [blocks[index] for index in sorted(blocks)]
    for block in content:
        if "toolUse" in block:
            text = block["toolUse"]["input"]
            try:
                block["toolUse"]["input"] = json.loads(text) if text else {}
            except ValueError:  # cut off mid-answer: the validator reports it
                block["toolUse"]["input"] = {"unparsed": text}
    response["output"] = {"message": {"role": "assistant", "content": content}}
    return response


def _reason(exc: ClientError, model_id: str, output_mode: OutputMode) -> str:
    """A one-line reason for a refused call, naming what the user can change."""
    code = exc.response.get("Error", {}).get("Code", "")
    message = _one_line(exc.response.get("Error", {}).get("Message", ""))
    if code == "AccessDeniedException":
        return f"access denied to {model_id}: {message}"
    if code == "ResourceNotFoundException":
        return f"model {model_id} not found: {message}"
    if code == "ValidationException":
        if "model identifier" in message.lower():
            return f"unknown model id {model_id}: {message}"
        hint = " (the model may not support structured output: try --tool-use)"
        return f"Bedrock rejected the request to {model_id}: {message}" + (
            hint if output_mode == "structured_output" else ""
        )
    if code in _RETRIED_CODES:
        attempts = exc.response.get("ResponseMetadata", {}).get("RetryAttempts", 0) + 1
        plural = "s" if attempts > 1 else ""
        return f"{_RETRIED_CODES[code]} after {attempts} attempt{plural}: {message}"
    return f"Bedrock error {code or 'unknown'} from {model_id}: {message}"


def _one_line(text: str, limit: int = 300) -> str:
    """Collapse whitespace and cut long messages, so a reason always fits one line."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
