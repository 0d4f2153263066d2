"""A small synchronous client of the runtime's WebSocket: what the demo and the tests drive.

``RuntimeClient`` speaks the envelope protocol and mirrors every A2UI surface it receives
(``Surface``: components and data model), so a caller can read a screen or click one of its
buttons the way a renderer would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from websockets.sync.client import ClientConnection, connect

DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Clickable:
    """A component with an action, and the action's context resolved against the data model."""

    component: dict[str, Any]
    name: str
    context: dict[str, Any]


@dataclass
class Surface:
    """A client's copy of one surface: flat components by id and the data model."""

    surface_id: str
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    data: Any = field(default_factory=dict)

    def apply(self, kind: str, body: dict[str, Any]) -> None:
        """Apply one ``updateComponents`` or ``updateDataModel`` body."""
        if kind == "updateComponents":
            self.components.update({c["id"]: c for c in body["components"]})
        elif kind == "updateDataModel":
            self.data = _set_pointer(self.data, body.get("path") or "/", body.get("value"))

    def resolve(self, value: Any, scope: str = "") -> Any:
        """A literal as is; a binding ``{"path"}`` read from the data model (relative to scope)."""
        if isinstance(value, dict) and set(value) == {"path"}:
            path = value["path"]
            return _get_pointer(self.data, path if path.startswith("/") else f"{scope}/{path}")
        return value

    def walk(self) -> Iterator[tuple[int, dict[str, Any], str]]:
        """Components from ``root`` in render order: ``(depth, component, data scope)``."""
        yield from self._walk("root", 0, "", frozenset())

    def clickables(self) -> list[Clickable]:
        """Every component with an action, in render order."""
        found = []
        for _, component, scope in self.walk():
            action = component.get("action")
            if isinstance(action, dict) and isinstance(action.get("event"), dict):
                context = action["event"].get("context") or {}
                resolved = {key: self.resolve(value, scope) for key, value in context.items()}
                found.append(Clickable(component, action["event"]["name"], resolved))
        return found

    def _walk(
        self, component_id: str, depth: int, scope: str, seen: frozenset[tuple[str, str]]
    ) -> Iterator[tuple[int, dict[str, Any], str]]:
        component = self.components.get(component_id)
        if component is None or (component_id, scope) in seen:
            return
        seen = seen | {(component_id, scope)}
        yield depth, component, scope
        for child, child_scope in self._children(component, scope):
            yield from self._walk(child, depth + 1, child_scope, seen)

    def _children(self, component: dict[str, Any], scope: str) -> list[tuple[str, str]]:
        children = component.get("children")
        refs = [(c, scope) for c in children] if isinstance(children, list) else []
        if isinstance(children, dict):  # a template: one child per item of a data list
            base = (
                children["path"]
                if children["path"].startswith("/")
                else f"{scope}/{children['path']}"
            )
            items = _get_pointer(self.data, base)
            count = len(items) if isinstance(items, list) else 0
            refs = [(children["componentId"], f"{base}/{i}") for i in range(count)]
        if isinstance(component.get("child"), str):
            refs.insert(0, (component["child"], scope))
        return refs


@dataclass
class RuntimeClient:
    """One session over ``ws://<address>/ws``; every received frame is kept in ``received``."""

    address: str
    agent: str | None = None
    session_id: str | None = None
    mode: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    #: Extra request headers (e.g. the user id a gateway would set).
    headers: dict[str, str] = field(default_factory=dict)
    received: list[dict[str, Any]] = field(default_factory=list)
    surfaces: dict[str, Surface] = field(default_factory=dict)
    _connection: ClientConnection | None = field(default=None, init=False, repr=False)
    _exit: ExitStack = field(default_factory=ExitStack, init=False, repr=False)

    @property
    def url(self) -> str:
        query = {"agent": self.agent, "sessionId": self.session_id, "mode": self.mode}
        params = urlencode({k: v for k, v in query.items() if v is not None})
        return f"ws://{self.address}/ws" + (f"?{params}" if params else "")

    def __enter__(self) -> RuntimeClient:
        connection = connect(
            self.url, open_timeout=self.timeout, max_size=None, additional_headers=self.headers
        )
        self._connection = self._exit.enter_context(connection)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._exit.close()

    @property
    def connection(self) -> ClientConnection:
        if self._connection is None:
            raise RuntimeError("RuntimeClient is used outside its 'with' block")
        return self._connection

    def send(self, type_: str, **payload: Any) -> None:
        """Send one client message (no ``ts``/``sessionId``: the connection carries them)."""
        self.send_raw(json.dumps({"type": type_, "payload": payload}))

    def send_raw(self, text: str) -> None:
        self.connection.send(text)

    def receive(self) -> dict[str, Any]:
        """The next server frame; A2UI patches are applied to ``surfaces`` on the way."""
        frame: dict[str, Any] = json.loads(self.connection.recv(timeout=self.timeout))
        self.received.append(frame)
        self.session_id = frame.get("sessionId") or self.session_id
        if frame["type"] == "server.a2ui.patch":
            self._apply(frame["payload"])
        return frame

    def receive_turn(self) -> list[dict[str, Any]]:
        """Frames up to and including the ``thinking`` false that closes a graph run."""
        frames = [self.receive()]
        while not _ends_turn(frames[-1]):
            frames.append(self.receive())
        return frames

    def say(self, text: str) -> list[dict[str, Any]]:
        self.send("client.transcript.final", text=text)
        return self.receive_turn()

    def click(self, clickable: Clickable) -> list[dict[str, Any]]:
        self.send("client.ui.action", actionId=clickable.name, data=clickable.context)
        return self.receive_turn()

    def _apply(self, message: dict[str, Any]) -> None:
        for kind, body in message.items():
            if kind == "version" or not isinstance(body, dict):
                continue
            surface_id = body.get("surfaceId", "")
            if kind == "deleteSurface":
                self.surfaces.pop(surface_id, None)
            else:
                self.surfaces.setdefault(surface_id, Surface(surface_id)).apply(kind, body)


def _ends_turn(frame: dict[str, Any]) -> bool:
    return frame["type"] == "server.agent.thinking" and frame["payload"].get("thinking") is False


def _pointer_parts(path: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in path.strip("/").split("/") if p]


def _get_pointer(data: Any, path: str) -> Any:
    for part in _pointer_parts(path):
        data = _child(data, part)
    return data


def _child(node: Any, part: str) -> Any:
    """One step down: ``part`` is an already unescaped key or index."""
    if isinstance(node, list) and part.isdigit() and int(part) < len(node):
        return node[int(part)]
    if isinstance(node, dict):
        return node.get(part)
    return None


def _set_pointer(data: Any, path: str, value: Any) -> Any:
    """``data`` with ``value`` at ``path`` (``None`` removes it); ``/`` replaces everything."""
    *parents, last = _pointer_parts(path) or [""]
    if not last:
        return {} if value is None else value
    root = data if isinstance(data, dict | list) else {}
    node = root
    for part in parents:
        child = _child(node, part)
        if not isinstance(child, dict | list):
            child = {}
            _put(node, part, child)
        node = child
    if value is None and isinstance(node, dict):
        node.pop(last, None)
    elif value is not None:
        _put(node, last, value)
    return root


def _put(node: dict[str, Any] | list[Any], key: str, value: Any) -> None:
    if isinstance(node, dict):
        node[key] = value
    elif key.isdigit() and int(key) < len(node):
        node[int(key)] = value
    elif key in {"-", str(len(node))}:
        node.append(value)
