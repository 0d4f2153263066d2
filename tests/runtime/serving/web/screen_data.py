"""A data model for any screen, made from its bindings and the catalog, and the texts it shows.

Every ``{"path": ...}`` a screen binds gets a value of the type its prop declares in the catalog
(a unique text for a string, a number, a list of items for a ``Timeline``'s ``items``...), and
every template (``{"componentId", "path"}``) a list of two items. The unique texts, with the
literal texts of the same props, are what the rendered screen must show: so the test needs no
hand-written data per screen, and a new plugin's screens are covered as soon as they ship.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Any

from runtime.a2ui.catalog import component_specs, load_catalog

TEMPLATE_ITEMS = 2
#: Props drawn as an image or a link rather than as text.
NOT_TEXT = frozenset({"url", "imageUrl"})


def _ref(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _kind(schema: dict[str, Any]) -> str:
    """``text``, ``texts``, ``number``, ``bool``, ``items:<Def>`` or ``other`` for a prop schema."""
    ref = _ref(schema)
    simple = {
        "DynamicString": "text",
        "DynamicValue": "text",
        "DynamicStringList": "texts",
        "DynamicNumber": "number",
        "DynamicBoolean": "bool",
    }
    if ref in simple:
        return simple[ref]
    for branch in schema.get("oneOf", []):
        if branch.get("type") in {"string", "number"}:
            return "text"
        if branch.get("type") == "array" and _ref(branch["items"]):
            return f"items:{_ref(branch['items'])}"
    return "other"


def _set(data: dict[str, Any], pointer: str, value: Any) -> None:
    """Set ``value`` at JSON pointer ``pointer``, making the objects on the way."""
    *parents, last = [part for part in pointer.split("/") if part]
    target: Any = data
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target.setdefault(part, {})
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


@dataclass
class ScreenData:
    """``data`` to bind a screen to and ``texts`` the drawn screen must contain."""

    components: list[dict[str, Any]]
    data: dict[str, Any] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    _numbers: count[int] = field(default_factory=lambda: count(40))
    _labels: count[int] = field(default_factory=lambda: count(1))

    def __post_init__(self) -> None:
        self._by_id = {component["id"]: component for component in self.components}
        self._visit("root", "")

    def _text(self, owner: str) -> str:
        return f"{owner.replace('_', '-')}-sample-{next(self._labels)}"

    def _value(self, kind: str, owner: str, shown: bool) -> Any:
        if kind == "number":
            return next(self._numbers)
        if kind == "bool":
            return True
        if kind == "texts":
            values = [self._text(owner) for _ in range(2)]
            self.texts.extend(values if shown else [])
            return values
        if kind.startswith("items:"):
            return [self._item(kind.removeprefix("items:"), owner) for _ in range(2)]
        value = self._text(owner)
        if shown:
            self.texts.append(value)
        return value

    def _item(self, definition: str, owner: str) -> dict[str, Any]:
        """One object of the catalog's ``$defs[definition]`` (a timeline step, a map marker)."""
        item: dict[str, Any] = {}
        for name, schema in load_catalog()["$defs"][definition]["properties"].items():
            if "enum" in schema:
                item[name] = schema["enum"][0]
            elif schema.get("type") == "number":
                item[name] = next(self._numbers) / 100
            else:
                item[name] = self._value("text", owner, shown=True)
        return item

    def _visit(self, component_id: str, scope: str) -> None:
        component = self._by_id[component_id]
        spec = component_specs()[component["component"]]
        for prop, value in component.items():
            if prop in {"id", "component"}:
                continue
            if prop in spec.child_props:
                self._children(value, scope)
            elif prop in spec.action_props:
                for bound in value.get("event", {}).get("context", {}).values():
                    self._bind(bound, scope, "text", component_id, shown=False)
            else:
                kind = _kind(spec.properties.get(prop, {}))
                shown = prop not in NOT_TEXT and kind in {"text", "texts"}
                if isinstance(value, dict) and "path" in value:
                    self._bind(value, scope, kind, component_id, shown)
                elif shown and isinstance(value, str):
                    self.texts.append(value)

    def _bind(self, value: Any, scope: str, kind: str, owner: str, shown: bool) -> None:
        if isinstance(value, dict) and "path" in value:
            _set(self.data, self._pointer(value["path"], scope), self._value(kind, owner, shown))

    def _pointer(self, path: str, scope: str) -> str:
        return path if path.startswith("/") else f"{scope}/{path}"

    def _children(self, value: Any, scope: str) -> None:
        if isinstance(value, str):
            self._visit(value, scope)
        elif isinstance(value, list):
            for child in value:
                self._visit(child, scope)
        else:  # a template: one child per item of the bound list
            pointer = self._pointer(value["path"], scope)
            _set(self.data, pointer, [{} for _ in range(TEMPLATE_ITEMS)])
            for index in range(TEMPLATE_ITEMS):
                self._visit(value["componentId"], f"{pointer}/{index}")
