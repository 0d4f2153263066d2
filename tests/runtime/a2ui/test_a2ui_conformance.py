"""Conformance with the official A2UI validator (``a2ui-agent-sdk``, a dev dependency only).

Every screen the project ships, turned into the wire messages the runtime sends, must pass the
official ``validate_payload`` against our catalog; screens that break the spec must fail it (so
these tests can fail); and on random components our schema verdict must equal the official one.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from a2ui.core import A2uiValidationError
from a2ui.utils import validate_payload
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime.a2ui import (
    CATALOG_ID,
    COMPONENT_TYPES,
    Screen,
    create_surface_message,
    load_screen,
    screen_events,
    validate_message,
    validate_screen,
)
from runtime.a2ui.catalog import component_specs

REPO = Path(__file__).parents[3]
SHIPPED = sorted(
    [
        *REPO.glob("runtime/plugins/*/screens/*.json"),
        *REPO.glob("examples/**/screens/*.json"),
        *REPO.glob("runtime/a2ui/examples/*.json"),
    ]
)

# Every component in the catalog at least once, with templates, bindings and an action context.
SAMPLE_SCREEN: dict[str, Any] = {
    "components": [
        {
            "id": "root",
            "component": "Column",
            "children": ["title", "hero", "card", "offers", "more"],
        },
        {"id": "title", "component": "Text", "text": "Your savings", "variant": "h1"},
        {"id": "hero", "component": "Image", "url": {"path": "/hero"}, "fit": "cover"},
        {"id": "card", "component": "Card", "child": "card_body"},
        {"id": "card_body", "component": "Column", "children": ["answer", "stats", "divider"]},
        {
            "id": "answer",
            "component": "DataCard",
            "title": "Saved so far",
            "value": {"path": "/answer"},
            "accessibility": {"label": "Saved so far", "description": {"path": "/answer"}},
        },
        {"id": "stats", "component": "Row", "children": {"componentId": "stat", "path": "/stats"}},
        {
            "id": "stat",
            "component": "StatCard",
            "label": {"path": "label"},
            "value": {"path": "value"},
            "weight": 1,
        },
        {"id": "divider", "component": "Divider", "axis": "horizontal"},
        {
            "id": "offers",
            "component": "List",
            "children": ["offer", "benefit"],
            "direction": "vertical",
        },
        {
            "id": "offer",
            "component": "ProductCard",
            "title": "Easy saver",
            "price": 2.5,
            "features": ["No fees", "Instant access"],
            "action": {
                "event": {
                    "name": "savings.open",
                    "context": {"product": "easy", "rate": 2.5, "ok": True},
                }
            },
        },
        {
            "id": "benefit",
            "component": "BenefitCard",
            "title": "Tax free",
            "highlight": "0 EUR tax",
        },
        {
            "id": "more",
            "component": "Column",
            "children": ["gauge", "progress", "badge", "plan", "map", "go"],
        },
        {"id": "gauge", "component": "Gauge", "value": 42, "min": 0, "max": 100, "unit": "%"},
        {"id": "progress", "component": "ProgressBar", "value": {"path": "/saved"}, "max": 5000},
        {
            "id": "badge",
            "component": "ComparisonBadge",
            "label": "Above average",
            "direction": "better",
        },
        {"id": "plan", "component": "Timeline", "items": {"path": "/plan"}},
        {
            "id": "map",
            "component": "Map",
            "latitude": 52.37,
            "longitude": 4.89,
            "zoom": 13,
            "markers": [{"latitude": 52.37, "longitude": 4.89, "label": "Branch"}],
        },
        {
            "id": "go",
            "component": "Button",
            "child": "go_txt",
            "action": {"event": {"name": "savings.start"}},
        },
        {"id": "go_txt", "component": "Text", "text": "Start saving"},
    ],
    "voice_text": "You have saved a good amount. Two offers could help you save more.",
}


def messages_for(screen: Screen, surface_id: str = "plugin") -> list[dict[str, Any]]:
    """What a connection receives for a screen: createSurface, then the screen's patches."""
    patches = screen_events(surface_id, screen, {"answer": "1,200 EUR", "stats": [], "plan": []})
    return [create_surface_message(surface_id), *(event["payload"] for event in patches)]


def test_sample_screen_covers_the_catalog() -> None:
    used = {component["component"] for component in SAMPLE_SCREEN["components"]}
    assert used == COMPONENT_TYPES
    assert validate_screen(SAMPLE_SCREEN, plugin_id="savings") == []


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: str(path.relative_to(REPO)))
def test_shipped_screens_pass_the_official_validator(path: Path, official_catalog: Any) -> None:
    plugin_id = "example" if path.parent.name == "examples" else None
    screen = load_screen(path, plugin_id=plugin_id)  # raises, naming the issue, if ours rejects it
    validate_payload([official_catalog], messages_for(screen))


def test_sample_screen_passes_the_official_validator(official_catalog: Any) -> None:
    validate_payload([official_catalog], messages_for(Screen.model_validate(SAMPLE_SCREEN)))


def _drop(component_id: str) -> Callable[[list[dict[str, Any]]], None]:
    def mutate(components: list[dict[str, Any]]) -> None:
        components[:] = [c for c in components if c["id"] != component_id]

    return mutate


def _set(component_id: str, **props: Any) -> Callable[[list[dict[str, Any]]], None]:
    def mutate(components: list[dict[str, Any]]) -> None:
        next(c for c in components if c["id"] == component_id).update(props)

    return mutate


def _pop(component_id: str, prop: str) -> Callable[[list[dict[str, Any]]], None]:
    def mutate(components: list[dict[str, Any]]) -> None:
        del next(c for c in components if c["id"] == component_id)[prop]

    return mutate


BREAKAGES: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "button with a text prop": _set("go", text="Start"),
    "dangling child": _drop("go_txt"),
    "dangling template": _drop("stat"),
    "orphan": lambda components: components.append({"id": "lost", "component": "Divider"}),
    "unknown component": _set("badge", component="Badge"),
    "unknown prop": _set("answer", subtitle="x"),
    "missing required prop": _pop("answer", "value"),
    "wrong value type": _set("gauge", value="42"),
    "null prop": _set("title", variant=None),
    "bad enum": _set("title", variant="huge"),
    "bad path": _set("answer", value={"path": "/a~b"}),
    "missing root": _set("root", id="main"),
    "duplicate id": lambda components: components.append({"id": "title", "component": "Divider"}),
    "cycle": _set("more", children=["gauge", "root"]),
    "bad action": _set("go", action={"event": {"context": {}}}),
}


@pytest.mark.parametrize("breakage", BREAKAGES, ids=str)
def test_broken_screens_fail_both_validators(breakage: str, official_catalog: Any) -> None:
    data = copy.deepcopy(SAMPLE_SCREEN)
    BREAKAGES[breakage](data["components"])
    assert validate_screen(data, plugin_id="savings") != []
    screen = Screen.model_validate(data)
    messages = [
        create_surface_message("plugin"),
        {
            "version": "v0.9",
            "updateComponents": {"surfaceId": "plugin", "components": screen.components},
        },
    ]
    with pytest.raises(A2uiValidationError):
        validate_payload([official_catalog], messages)


# --- differential: random components, same verdict ---------------------------------------------

VALUES: list[Any] = [
    "x",
    "",
    0,
    3,
    -2.5,
    True,
    None,
    [],
    ["x"],
    ["x", 1],
    {},
    {"path": "/a/b"},
    {"path": "item"},
    {"path": "/a~2"},
    {"path": 1},
    {"path": "/a", "x": 1},
    {"componentId": "x", "path": "/rows"},
    {"componentId": "x"},
    {"event": {"name": "p.a"}},
    {"event": {"name": "p.a", "context": {"k": {"path": "/v"}, "n": 1, "l": [1]}}},
    {"event": {"name": "p.a", "context": {"k": {"nested": 1}}}},
    {"event": {}},
    {"label": "x", "description": {"path": "/d"}},
    {"label": 1},
    [{"title": "t", "status": "done", "date": "May"}],
    [{"title": 1}],
    [{"latitude": 1, "longitude": 2.5, "label": "b"}],
    [{"latitude": 1}],
]


def _update(components: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}}


@functools.cache
def _candidates(component_type: str, prop: str) -> tuple[list[Any], list[Any]]:
    """(every value, the values our validator accepts for this prop): sampling mostly from the
    second keeps about half the components valid, so both verdicts get exercised."""
    schema = component_specs()[component_type].properties.get(prop, {})
    values = [*VALUES, *schema.get("enum", ()), "notInTheEnum"]

    def fits(value: Any) -> bool:
        issues = validate_message(_update([{"id": "c", "component": component_type, prop: value}]))
        return all(issue.property != prop for issue in issues)

    return values, [value for value in values if fits(value)]


@st.composite
def random_component(draw: st.DrawFn) -> dict[str, Any]:
    """A component of a catalog type, its props drawn mostly from fitting values, some from any."""
    component_type = draw(st.sampled_from(sorted(COMPONENT_TYPES)))
    spec = component_specs()[component_type]
    component: dict[str, Any] = {"id": "c", "component": component_type}
    for prop in [*spec.properties, "weight", "accessibility"]:
        if draw(st.floats(0, 1)) < (0.95 if prop in spec.required else 0.4):
            every, fitting = _candidates(component_type, prop)
            pool = fitting if fitting and draw(st.floats(0, 1)) < 0.9 else every
            component[prop] = draw(st.sampled_from(pool))
    if draw(st.floats(0, 1)) < 0.1:
        component["unknown"] = "x"
    return component


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(component=random_component())
def test_schema_verdicts_match_the_official_validator(
    component: dict[str, Any], official_catalog: Any
) -> None:
    """A partial update (no root) is checked for its components' schema only, by both sides."""
    message = _update([component])
    ours = validate_message(message)
    try:
        validate_payload([official_catalog], [message], surface_catalog_ids={"s": CATALOG_ID})
    except A2uiValidationError as exc:
        assert ours, f"official validator rejects, ours accepts: {exc}"
    else:
        # Deliberately stricter: the spec leaves AccessibilityAttributes open to unknown keys.
        stricter = [i for i in ours if i.property == "accessibility" and "unknown" in i.message]
        assert ours == stricter, f"ours rejects, official validator accepts: {ours}"
