"""Device tools over the WebSocket: tools one connection's client runs (its location, a biometric
check), called by the plugin in the middle of a turn.

The client offers them with ``client.tools.register {tools: [{name, description, parameters}]}``
(at any time; each replaces the set). A plugin's ``call_client_tool`` interrupts the turn; the
session sends ``server.tool.call {toolCallId, name, args}`` and waits for ``client.tool.result
{toolCallId, content}`` (or ``{toolCallId, error}``) while its receive loop keeps reading frames,
then resumes the turn with the answer. A call unanswered after ``Settings.client_tool_timeout_s``
is answered with an error the plugin handles; a disconnect cancels every waiting call (the turn
that asked is dropped, and the call fails as the plugin handles it when the session next opens).
A result for a call that is not waiting (unknown, answered, timed out) changes nothing.

The tools are the connection's own: they travel with each of its turns (``RunExtras``) and are
never stored in the session, so they reach no other connection or session.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from runtime.client_tools import ClientToolAnswer, ClientToolCall
from runtime.contract.state import ServerEventDict, event
from runtime.serving.websocket.frames import ClientTool, ToolResult

logger = logging.getLogger(__name__)

#: The error a call fails with when the client that was asked has gone.
DEVICE_GONE = "the device went away before it answered"


class UnknownToolCall(Exception):
    """A ``client.tool.result`` for a call that is not waiting for one."""


class DeviceTools:
    """One connection's device tools and the calls waiting on its client."""

    def __init__(
        self, send: Callable[[ServerEventDict], Awaitable[None]], timeout_s: float
    ) -> None:
        self._send = send
        self._timeout_s = timeout_s
        self.offered: tuple[dict[str, Any], ...] = ()
        self._waiting: dict[str, asyncio.Future[ClientToolAnswer]] = {}
        self._gone: str | None = None

    def register(self, tools: list[ClientTool]) -> None:
        """The client's tools from now on (replacing those it offered before)."""
        self.offered = tuple(tool.model_dump() for tool in tools)

    def answer(self, result: ToolResult) -> None:
        """Hand the client's result to the call waiting for it, or ``UnknownToolCall``."""
        waiting = self._waiting.get(result.toolCallId)
        if waiting is None or waiting.done():
            raise UnknownToolCall(
                f"no tool call {result.toolCallId!r} is waiting for a result "
                "(unknown, already answered or timed out)"
            )
        waiting.set_result(ClientToolAnswer(content=result.content, error=result.error))

    async def call(self, call: ClientToolCall) -> dict[str, Any]:
        """Ask the client to run ``call``; its answer (an error answer on timeout or disconnect)."""
        if self._gone is not None:
            return ClientToolAnswer(error=self._gone).model_dump()
        waiting: asyncio.Future[ClientToolAnswer] = asyncio.get_running_loop().create_future()
        self._waiting[call.toolCallId] = waiting
        try:
            await self._send(
                event(
                    "server.tool.call", toolCallId=call.toolCallId, name=call.name, args=call.args
                )
            )
            answer = await asyncio.wait_for(waiting, self._timeout_s)
        except TimeoutError:
            logger.info("device tool %s (%s) timed out", call.name, call.toolCallId)
            answer = ClientToolAnswer(
                error=f"the device did not answer {call.name} within {self._timeout_s:g} s"
            )
        finally:
            del self._waiting[call.toolCallId]
        return answer.model_dump()

    def cancel_all(self, reason: str) -> None:
        """The client is gone: every waiting call, and any later one, fails with ``reason``."""
        self._gone = reason
        for waiting in self._waiting.values():
            if not waiting.done():
                waiting.set_result(ClientToolAnswer(error=reason))
