"""One screen breaking each rule, asserting the issue names the right component and property."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from runtime.a2ui import Screen, ValidationIssue, validate_components, validate_screen
from runtime.a2ui.validate import validate_message

Find = Callable[[dict[str, Any], str], dict[str, Any]]


def located(screen: dict[str, Any], plugin_id: str | None = "example") -> list[tuple[Any, ...]]:
    return [
        (issue.component_id, issue.property)
        for issue in validate_screen(screen, plugin_id=plugin_id)
    ]


def test_the_example_screens_are_valid(example_screen: Callable[[str], dict[str, Any]]) -> None:
    for name in ("welcome", "result", "confirm"):
        assert validate_screen(example_screen(name), plugin_id="example") == []


# --- schema -------------------------------------------------------------------------------------


def test_button_text_prop_is_unknown(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "confirm_btn")["text"] = "Confirm"
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == ("confirm_btn", "text")
    assert "Button has no such property" in issue.message
    assert "child" in issue.message  # lists the props it does have, for the repair loop


def test_unknown_component_type(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "heading")["component"] = "Heading"
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == ("heading", "component")
    assert "unknown component type 'Heading'" in issue.message
    assert "DataCard" in issue.message


def test_missing_component_type(confirm_screen: dict[str, Any], component_of: Find) -> None:
    del component_of(confirm_screen, "heading")["component"]
    assert located(confirm_screen) == [("heading", "component")]


def test_missing_required_prop(confirm_screen: dict[str, Any], component_of: Find) -> None:
    del component_of(confirm_screen, "summary")["value"]
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert str(issue) == "component 'summary' property 'value': DataCard requires this property"


def test_wrong_value_type(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "heading")["text"] = 42
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == ("heading", "text")
    assert issue.message == 'expected a string or a binding {"path": "/json/pointer"}, got 42'


def test_bad_binding_is_reported_inside_the_prop(
    confirm_screen: dict[str, Any], component_of: Find
) -> None:
    component_of(confirm_screen, "summary")["value"] = {"path": "/amount", "format": "EUR"}
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert str(issue) == "component 'summary' property 'value': format: unknown property"


def test_invalid_path(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "summary")["value"] = {"path": "/a/~x"}
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == ("summary", "value")
    assert "invalid path '/a/~x'" in issue.message


def test_bad_enum_value(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "heading")["variant"] = "title"
    assert located(confirm_screen) == [("heading", "variant")]


def test_null_is_not_a_value(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "summary")["caption"] = None
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == ("summary", "caption")
    assert "null" in issue.message


def test_nested_error_names_the_path(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "steps")["items"][1]["status"] = "late"
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == ("steps", "items")
    assert issue.message.startswith("[1].status:")


def test_component_without_id(confirm_screen: dict[str, Any]) -> None:
    confirm_screen["components"].append({"component": "Divider"})
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == (None, "id")
    assert issue.message == "components[9]: Divider has no id"


def test_component_that_is_not_an_object(confirm_screen: dict[str, Any]) -> None:
    confirm_screen["components"].append("divider")
    issues = validate_screen(confirm_screen, plugin_id="example")
    assert [issue.property for issue in issues] == ["components[9]"]


# --- integrity ----------------------------------------------------------------------------------


def test_dangling_child(confirm_screen: dict[str, Any]) -> None:
    confirm_screen["components"] = [
        c for c in confirm_screen["components"] if c["id"] != "confirm_txt"
    ]
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert str(issue) == "component 'confirm_btn' property 'child': dangling id 'confirm_txt'"


def test_dangling_template_component(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "actions")["children"] = {"componentId": "row", "path": "/rows"}
    issues = located(confirm_screen)
    assert ("actions", "children") in issues
    # The buttons the template replaced are now unreachable too.
    assert ("confirm_btn", None) in issues


def test_duplicate_id(confirm_screen: dict[str, Any]) -> None:
    confirm_screen["components"].append({"id": "heading", "component": "Divider"})
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == ("heading", "id")
    assert issue.message == "duplicate id (components[1] and components[9])"


def test_missing_root(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "root")["id"] = "main"
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == (None, None)
    assert "no component has id 'root'" in issue.message


def test_orphan(confirm_screen: dict[str, Any]) -> None:
    confirm_screen["components"].append({"id": "footer", "component": "Text", "text": "x"})
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert str(issue) == (
        "component 'footer': unreachable from 'root': no component lists it as a child"
    )


def test_cycle(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "actions")["children"].append("root")
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == ("actions", "children")
    assert issue.message == "cycle: 'root' contains this component"


def test_self_reference(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "actions")["children"].append("actions")
    assert located(confirm_screen) == [("actions", "children")]


def test_a_malformed_child_list_does_not_also_orphan_its_children(
    confirm_screen: dict[str, Any], component_of: Find
) -> None:
    component_of(confirm_screen, "root")["children"] = "heading"
    issues = located(confirm_screen)
    assert issues[0] == ("root", "children")
    assert ("heading", None) not in issues


# --- house rules --------------------------------------------------------------------------------


def test_root_must_be_a_column(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "root")["component"] = "Row"
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (
        str(issue) == "component 'root' property 'component': the root must be a Column, not 'Row'"
    )


def test_at_least_one_data_card(confirm_screen: dict[str, Any], component_of: Find) -> None:
    summary = component_of(confirm_screen, "summary")
    summary.clear()
    summary.update({"id": "summary", "component": "StatCard", "label": "Amount", "value": 1})
    [issue] = validate_screen(confirm_screen, plugin_id="example")
    assert (issue.component_id, issue.property) == (None, None)
    assert "no DataCard" in issue.message


def test_action_name_needs_a_namespace(confirm_screen: dict[str, Any], component_of: Find) -> None:
    component_of(confirm_screen, "confirm_btn")["action"]["event"]["name"] = "confirm"
    for plugin_id in ("example", None):
        [issue] = validate_screen(confirm_screen, plugin_id=plugin_id)
        assert (issue.component_id, issue.property) == ("confirm_btn", "action")
        assert "action name 'confirm' is not" in issue.message


def test_action_namespace_is_the_plugin(confirm_screen: dict[str, Any]) -> None:
    assert located(confirm_screen, plugin_id="mortgage") == [
        ("cancel_btn", "action"),
        ("confirm_btn", "action"),
    ]
    [issue, _] = validate_screen(confirm_screen, plugin_id="mortgage")
    assert issue.message == "action name 'example.cancel' must start with 'mortgage.'"
    assert validate_screen(confirm_screen) == []  # no plugin given: only the shape is checked


def test_actions_on_other_components(confirm_screen: dict[str, Any]) -> None:
    confirm_screen["components"][0]["children"].append("offer")
    confirm_screen["components"].append(
        {
            "id": "offer",
            "component": "ProductCard",
            "title": "Fixed 10y",
            "action": {"event": {"name": "pick"}},
        }
    )
    assert located(confirm_screen) == [("offer", "action")]


@pytest.mark.parametrize(("words", "ok"), [(39, True), (40, False), (0, False)])
def test_voice_text_under_40_words(confirm_screen: dict[str, Any], words: int, ok: bool) -> None:
    confirm_screen["voice_text"] = " ".join(["word"] * words)
    issues = validate_screen(confirm_screen, plugin_id="example")
    assert issues == ([] if ok else [issues[0]])
    if not ok:
        assert (issues[0].component_id, issues[0].property) == (None, "voice_text")


def test_every_issue_at_once(confirm_screen: dict[str, Any], component_of: Find) -> None:
    """The repair loop gets the whole list, not the first problem."""
    component_of(confirm_screen, "root")["component"] = "Card"
    component_of(confirm_screen, "heading")["text"] = 1
    confirm_screen["voice_text"] = ""
    assert located(confirm_screen) == [
        ("root", "child"),
        ("root", "children"),  # a Card has no children prop, but they are not orphaned
        ("heading", "text"),
        ("root", "component"),
        (None, "voice_text"),
    ]


# --- the screen file's shape, formatting, messages ----------------------------------------------


def test_screen_shape(confirm_screen: dict[str, Any]) -> None:
    del confirm_screen["voice_text"]
    confirm_screen["voiceText"] = "hi"
    assert sorted(located(confirm_screen)) == [(None, "voiceText"), (None, "voice_text")]


def test_screen_model_and_dict_agree(confirm_screen: dict[str, Any]) -> None:
    screen = Screen.model_validate(confirm_screen)
    screen.components[0]["component"] = "Row"
    assert located(screen.model_dump()) == [("root", "component")]
    assert [i.property for i in validate_screen(screen)] == ["component"]


def test_issue_str_names_file_component_and_property() -> None:
    full = ValidationIssue(
        component_id="b", property="child", message="dangling id 'x'", file="s.json"
    )
    assert str(full) == "s.json: component 'b' property 'child': dangling id 'x'"
    assert str(ValidationIssue(message="no DataCard")) == "no DataCard"
    assert str(ValidationIssue(property="voice_text", message="m", file="f")) == (
        "f: property 'voice_text': m"
    )


def test_validate_screen_tags_issues_with_the_file(confirm_screen: dict[str, Any]) -> None:
    confirm_screen["voice_text"] = ""
    [issue] = validate_screen(confirm_screen, plugin_id="example", file="screens/confirm.json")
    assert issue.file == "screens/confirm.json"


def test_validate_components_has_no_voice_rule(confirm_screen: dict[str, Any]) -> None:
    assert validate_components(confirm_screen["components"], plugin_id="example") == []


# --- wire messages ------------------------------------------------------------------------------


def update(components: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}}


def test_message_partial_update_skips_integrity() -> None:
    patch = update(
        [{"id": "answer", "component": "DataCard", "title": "t", "value": {"path": "/a"}}]
    )
    assert validate_message(patch) == []


def test_message_with_root_checks_the_tree() -> None:
    message = update([{"id": "root", "component": "Column", "children": ["gone"]}])
    assert [str(i) for i in validate_message(message)] == [
        "component 'root' property 'children': dangling id 'gone'"
    ]


def test_message_component_errors_are_located() -> None:
    message = update([{"id": "b", "component": "Button", "text": "Go", "child": "t", "action": {}}])
    assert sorted((i.component_id, i.property) for i in validate_message(message)) == [
        ("b", "action"),
        ("b", "text"),
    ]


@pytest.mark.parametrize(
    ("message", "where"),
    [
        ({"version": "v0.9"}, None),
        (
            {
                "version": "v0.9",
                "deleteSurface": {"surfaceId": "s"},
                "createSurface": {"surfaceId": "s", "catalogId": "c"},
            },
            None,
        ),
        ({"version": "v0.8", "deleteSurface": {"surfaceId": "s"}}, "version"),
        ({"deleteSurface": {"surfaceId": "s"}}, "version"),
        ({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}, "extra": 1}, "extra"),
        (
            {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": []}},
            "updateComponents.components",
        ),
        ({"version": "v0.9", "createSurface": {"surfaceId": "s"}}, "createSurface.catalogId"),
    ],
)
def test_message_envelope(message: dict[str, Any], where: str | None) -> None:
    [issue] = validate_message(message)
    assert (issue.component_id, issue.property) == (None, where)
