"""The wire models: what they accept is what goes on the wire, byte for byte."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from runtime.a2ui import ClientAction, Component, ServerMessage
from runtime.a2ui.models import (
    Action,
    Button,
    DataBinding,
    DataCard,
    EventAction,
    Text,
    UpdateComponents,
)

COMPONENT = TypeAdapter[Any](Component)


def wire(model: Any) -> Any:
    return model.model_dump(mode="json", exclude_none=True)


@pytest.mark.parametrize("name", ["welcome", "result", "confirm"])
def test_components_round_trip(name: str, example_screen: Callable[[str], dict[str, Any]]) -> None:
    for raw in example_screen(name)["components"]:
        assert (
            COMPONENT.dump_python(COMPONENT.validate_python(raw), mode="json", exclude_none=True)
            == raw
        )


def test_python_construction_gives_the_wire_json() -> None:
    button = Button(
        id="confirm_btn",
        child="confirm_txt",
        action=Action(
            event=EventAction(
                name="example.confirm", context={"amount": DataBinding(path="/amount")}
            )
        ),
    )
    assert wire(button) == {
        "id": "confirm_btn",
        "component": "Button",
        "child": "confirm_txt",
        "action": {
            "event": {"name": "example.confirm", "context": {"amount": {"path": "/amount"}}}
        },
    }
    assert list(wire(button))[:2] == ["id", "component"]


def test_numbers_keep_their_json_type() -> None:
    assert wire(DataCard(id="a", title="t", value=3))["value"] == 3
    assert isinstance(wire(DataCard(id="a", title="t", value=3))["value"], int)
    assert wire(DataCard(id="a", title="t", value=2.5))["value"] == 2.5


@pytest.mark.parametrize(
    "raw",
    [
        {"id": "t", "component": "Text", "text": "5", "variant": None},  # explicit null
        {"id": "t", "component": "Text", "text": 5},  # no coercion
        {"id": "t", "component": "Text", "text": True},
        {"id": "t", "component": "Text", "text": "x", "weight": True},
        {"id": "t", "component": "Text", "text": "x", "color": "red"},  # unknown prop
        {"id": "t", "component": "Text", "text": {"path": "/x", "default": "y"}},
        {
            "id": "b",
            "component": "Button",
            "text": "Go",
            "child": "t",
            "action": {"event": {"name": "a.b"}},
        },
        {
            "id": "b",
            "component": "Button",
            "child": "t",
            "action": {"functionCall": {"call": "openUrl"}},
        },
    ],
)
def test_invalid_components(raw: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        COMPONENT.validate_python(raw)


def test_component_models_are_selected_by_type() -> None:
    assert isinstance(
        COMPONENT.validate_python({"id": "t", "component": "Text", "text": "x"}), Text
    )


MESSAGES: list[dict[str, Any]] = [
    {
        "version": "v0.9",
        "createSurface": {
            "surfaceId": "s",
            "catalogId": "c",
            "theme": {"primaryColor": "#00AAFF", "agentDisplayName": "Bank", "density": "compact"},
        },
    },
    {
        "version": "v0.9",
        "createSurface": {"surfaceId": "s", "catalogId": "c", "sendDataModel": True},
    },
    {
        "version": "v0.9",
        "updateComponents": {
            "surfaceId": "s",
            "components": [
                {
                    "id": "root",
                    "component": "Column",
                    "children": {"componentId": "r", "path": "/rows"},
                }
            ],
        },
    },
    {
        "version": "v0.9",
        "updateDataModel": {"surfaceId": "s", "path": "/", "value": {"a": None, "b": [1]}},
    },
    {"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/a"}},
    {"version": "v0.9", "deleteSurface": {"surfaceId": "s"}},
]


@pytest.mark.parametrize("message", MESSAGES)
def test_server_messages_round_trip(message: dict[str, Any]) -> None:
    assert wire(ServerMessage.model_validate(message)) == message


@pytest.mark.parametrize(
    "message",
    [
        {"version": "v0.9"},
        {"createSurface": {"surfaceId": "s", "catalogId": "c"}},
        {"version": "v0.9.1", "deleteSurface": {"surfaceId": "s"}},
        {
            "version": "v0.9",
            "deleteSurface": {"surfaceId": "s"},
            "updateDataModel": {"surfaceId": "s"},
        },
        {"version": "v0.9", "deleteSurface": {"surfaceId": "s", "reason": "done"}},
        {"version": "v0.9", "deleteSurface": {"surfaceId": "s"}, "id": 1},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": []}},
        {"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "~"}},
        {
            "version": "v0.9",
            "createSurface": {
                "surfaceId": "s",
                "catalogId": "c",
                "theme": {"primaryColor": "blue"},
            },
        },
    ],
)
def test_invalid_server_messages(message: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ServerMessage.model_validate(message)


def test_update_components_validates_its_components() -> None:
    with pytest.raises(ValidationError, match="Chart"):
        UpdateComponents.model_validate(
            {"surfaceId": "s", "components": [{"id": "root", "component": "Chart"}]}
        )


def test_client_action_round_trips_and_rejects_extra_keys() -> None:
    message = {
        "version": "v0.9",
        "action": {
            "name": "example.confirm",
            "surfaceId": "example",
            "sourceComponentId": "confirm_btn",
            "timestamp": "2026-01-01T12:00:00Z",
            "context": {"amount": 250000},
        },
    }
    assert wire(ClientAction.model_validate(message)) == message
    with pytest.raises(ValidationError):
        ClientAction.model_validate({**message, "sessionId": "x"})
    with pytest.raises(ValidationError):
        ClientAction.model_validate(
            {"version": "v0.9", "action": {**message["action"], "context": None}}
        )
