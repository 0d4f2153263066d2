"""Our A2UI v0.9 catalog: ``catalog.json`` and what the validator and prompts read from it.

A v0.9 surface uses exactly one catalog, and ours (Column, Text, Button... copied from the official
basic catalog, plus the bank's DataCard, Gauge, Timeline...) is not the basic one, so it ships here
under a versioned id that is never fetched. Change a component compatibly or bump the id.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

CATALOG_ID = "https://a2ui.voice-bank.invalid/catalogs/bank/v1/catalog.json"
CATALOG_PATH = Path(__file__).with_name("catalog.json")

ChildKind = Literal["id", "ids"]

# Common-type names as the catalog references them (``...common_types.json#/$defs/<name>``).
_CHILD_KINDS: dict[str, ChildKind] = {"ComponentId": "id", "ChildList": "ids"}
_COMMON_PROPS = ("id", "accessibility", "weight")


@dataclass(frozen=True)
class ComponentSpec:
    """One catalog component, as the validator and the prompt need it."""

    name: str
    description: str
    properties: dict[str, dict[str, Any]]
    required: frozenset[str]
    #: Props holding other components' ids: ``id`` (``ComponentId``) or ``ids`` (``ChildList``).
    child_props: dict[str, ChildKind]
    #: Props holding an ``Action`` (their event names follow the ``<plugin_id>.<action>`` rule).
    action_props: tuple[str, ...]


@cache
def load_catalog() -> dict[str, Any]:
    """The catalog document (shared: read it, never mutate it)."""
    document: dict[str, Any] = json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
    if document.get("catalogId") != CATALOG_ID:
        raise RuntimeError(f"{CATALOG_PATH}: catalogId is not {CATALOG_ID!r}")
    return document


def _ref_name(schema: dict[str, Any]) -> str | None:
    """``"…#/$defs/ChildList"`` → ``"ChildList"``."""
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _spec(name: str, schema: dict[str, Any]) -> ComponentSpec:
    own = [part for part in schema.get("allOf", [schema]) if "properties" in part]
    properties: dict[str, dict[str, Any]] = {}
    required: set[str] = set()
    description = ""
    for part in own:
        properties.update(part["properties"])
        required.update(part.get("required", ()))
        description = part.get("description", description)
    properties.pop("component", None)
    required.discard("component")
    refs = {prop: _ref_name(prop_schema) for prop, prop_schema in properties.items()}
    return ComponentSpec(
        name=name,
        description=re.split(r"\.\s+(?=[A-Z])", description)[0].rstrip("."),
        properties=properties,
        required=frozenset(required),
        child_props={prop: _CHILD_KINDS[ref] for prop, ref in refs.items() if ref in _CHILD_KINDS},
        action_props=tuple(prop for prop, ref in refs.items() if ref == "Action"),
    )


@cache
def component_specs() -> dict[str, ComponentSpec]:
    """Every catalog component by type name."""
    return {name: _spec(name, schema) for name, schema in load_catalog()["components"].items()}


COMPONENT_TYPES: frozenset[str] = frozenset(component_specs())

_DEF_HINTS = {
    "DynamicString": "string|binding",
    "DynamicNumber": "number|binding",
    "DynamicStringList": "string[]|binding",
    "DataBinding": "binding",
    "ComponentId": "id",
    "ChildList": "ids",
    "Action": "action",
}


def _type_hint(schema: dict[str, Any]) -> str:
    """A compact type for a prop schema: ``string|binding``, ``a|b|c``, ``[{title, date?}]``."""
    ref = _ref_name(schema)
    if ref in _DEF_HINTS:
        return _DEF_HINTS[ref]
    if ref is not None:
        definition = load_catalog()["$defs"][ref]
        required = set(definition.get("required", ()))
        fields = (f"{p}{'' if p in required else '?'}" for p in definition["properties"])
        return "{" + ", ".join(fields) + "}"
    if "enum" in schema:
        return "|".join(schema["enum"])
    if "oneOf" in schema:
        return "|".join(_type_hint(branch) for branch in schema["oneOf"])
    if schema.get("type") == "array":
        return f"[{_type_hint(schema['items'])}]"
    return str(schema.get("type", "any"))


_PROMPT_HEADER = f"""\
A2UI v0.9 components (catalog {CATALOG_ID}).
A component is a flat JSON object {{"id": "<unique id>", "component": "<Type>", ...props}}; \
props not listed are invalid. Every component may also set weight?: number (flex-grow inside a \
Row or Column) and accessibility?: {{label?, description?}}.
Types: binding = {{"path": "/json/pointer"}} into the surface's data model (a relative path like \
"name" inside a template); id = another component's id; ids = a list of ids or a template \
{{"componentId": "<id>", "path": "/list"}} repeating one component per list item; \
action = {{"event": {{"name": "<plugin_id>.<action>", "context": {{...}}}}}}. \
? marks optional props.
"""


@cache
def catalog_for_prompt() -> str:
    """The catalog in a few hundred tokens, for an LLM that designs screens."""
    lines = [_PROMPT_HEADER]
    for spec in component_specs().values():
        props = "; ".join(
            f"{prop}{'' if prop in spec.required else '?'}: {_type_hint(schema)}"
            for prop, schema in spec.properties.items()
            if prop not in _COMMON_PROPS
        )
        lines.append(f"- {spec.name}: {spec.description}.\n    {props}")
    return "\n".join(lines) + "\n"
