"""The catalog document, the models that mirror it, and the prompt made from it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from runtime.a2ui import CATALOG_ID, COMPONENT_TYPES, catalog_for_prompt, load_catalog
from runtime.a2ui.catalog import component_specs
from runtime.a2ui.models import COMPONENT_MODELS

OURS = {
    "DataCard",
    "BenefitCard",
    "Gauge",
    "ProductCard",
    "ComparisonBadge",
    "StatCard",
    "ProgressBar",
    "Timeline",
    "Map",
}
BASIC = {"Column", "Row", "List", "Card", "Text", "Image", "Divider", "Button"}
COMMON_FIELDS = {"id", "component", "accessibility", "weight"}


def test_catalog_identity() -> None:
    catalog = load_catalog()
    assert catalog["catalogId"] == catalog["$id"] == CATALOG_ID
    assert CATALOG_ID.startswith("https://") and "/v1/" in CATALOG_ID
    assert COMPONENT_TYPES == OURS | BASIC
    assert load_catalog() is catalog  # cached


def test_models_mirror_the_catalog() -> None:
    assert set(COMPONENT_MODELS) == COMPONENT_TYPES
    for name, spec in component_specs().items():
        fields = COMPONENT_MODELS[name].model_fields
        assert set(spec.properties) == set(fields) - COMMON_FIELDS, name
        required = {field for field, info in fields.items() if info.is_required()}
        assert spec.required == required - {"id", "component"}, name


@pytest.mark.parametrize("name", sorted(COMPONENT_TYPES))
def test_enums_agree(name: str) -> None:
    """Each enum value the catalog lists is accepted by the model, and nothing else is."""
    model = COMPONENT_MODELS[name]
    for prop, schema in component_specs()[name].properties.items():
        for value in schema.get("enum", ()):
            model.model_validate(_minimal(name) | {prop: value})
        if "enum" in schema:
            with pytest.raises(ValidationError):
                model.model_validate(_minimal(name) | {prop: "notInTheCatalog"})


def _minimal(name: str) -> dict[str, Any]:
    """A valid instance with only the required props."""
    spec = component_specs()[name]
    component: dict[str, Any] = {"id": "c", "component": name}
    for prop in spec.required:
        if prop in spec.child_props:
            component[prop] = "x" if spec.child_props[prop] == "id" else ["x"]
        elif prop in spec.action_props:
            component[prop] = {"event": {"name": "p.a"}}
        else:
            component[prop] = {"path": "/v"}
    return component


def test_child_and_action_props_come_from_common_type_refs() -> None:
    specs = component_specs()
    assert specs["Column"].child_props == {"children": "ids"}
    assert specs["Card"].child_props == {"child": "id"}
    assert specs["Button"].child_props == {"child": "id"}
    assert specs["Button"].action_props == ("action",)
    assert specs["ProductCard"].action_props == ("action",)
    assert "text" not in specs["Button"].properties


def test_basic_components_are_copied_from_the_official_catalog() -> None:
    from a2ui.core.basic_catalog.v0_9 import BasicCatalog

    official = BasicCatalog().to_json()["components"]

    def props(schema: dict[str, Any]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            for prop, value in part.get("properties", {}).items():
                merged[prop] = {k: v for k, v in value.items() if k != "description"}
        return merged

    for name in BASIC:
        assert props(load_catalog()["components"][name]) == props(official[name]), name


def test_prompt_lists_every_component_and_prop_compactly() -> None:
    lines = catalog_for_prompt().splitlines()
    for spec in component_specs().values():
        index = next(i for i, line in enumerate(lines) if line.startswith(f"- {spec.name}: "))
        listed = [part.split(":")[0].rstrip("?") for part in lines[index + 1].strip().split("; ")]
        assert listed == list(spec.properties), spec.name
    prompt = catalog_for_prompt()
    assert "child: id" in prompt and "children: ids" in prompt
    assert "title: string|binding; value: string|number|binding" in prompt
    assert "items: [{title, date?, description?, status?}]|binding" in prompt
    assert len(prompt) < 4000  # it goes into every design prompt


def test_catalog_json_is_canonical() -> None:
    """The file stays reviewable: 2-space indentation, one trailing newline."""
    from runtime.a2ui.catalog import CATALOG_PATH

    text = CATALOG_PATH.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
