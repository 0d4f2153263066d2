"""The one A2UI validator: schema, integrity and house rules, with errors naming component and prop.

Used on every designed screen (and by its repair loop), in pre-commit hooks, and on the messages the
runtime emits, so every issue says which component and which property to fix, in one line.

* schema: the catalog's pydantic models (``models.py``): known types, known props, right values;
* integrity: unique ids, one ``root``, no dangling child ids, nothing unreachable from ``root``, no
  cycles (child-id props are the ones the catalog types ``ComponentId``/``ChildList``);
* house rules: the root is a Column, a screen shows at least one DataCard, every action is named
  ``<plugin_id>.<action>``, and voice text stays under 40 words.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from runtime.a2ui.catalog import COMPONENT_TYPES, ComponentSpec, component_specs
from runtime.a2ui.models import Component, Screen, ServerMessage
from runtime.contract.ids import ACTION_NAME_PATTERN

ROOT_ID = "root"
MAX_VOICE_WORDS = 40

_COMPONENT = TypeAdapter[Any](Component)


class ValidationIssue(BaseModel):
    """One problem, located as precisely as the input allows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    component_id: str | None = None
    property: str | None = None
    message: str
    file: str | None = None

    def __str__(self) -> str:
        where = [f"component '{self.component_id}'"] if self.component_id is not None else []
        if self.property is not None:
            where.append(f"property '{self.property}'")
        line = f"{' '.join(where)}: {self.message}" if where else self.message
        return f"{self.file}: {line}" if self.file else line


def validate_components(
    components: list[dict[str, Any]], *, plugin_id: str | None = None
) -> list[ValidationIssue]:
    """Every issue of one screen's components; given ``plugin_id``, action prefixes are checked."""
    return [
        *_schema_issues(components),
        *_integrity_issues(components),
        *_house_rule_issues(components, plugin_id),
    ]


def validate_screen(
    screen: dict[str, Any] | Screen, *, plugin_id: str | None = None, file: str | None = None
) -> list[ValidationIssue]:
    """Every issue of a screen (its components and its voice text), each tagged with ``file``."""
    if isinstance(screen, Screen):
        parsed = screen
    else:
        try:
            parsed = Screen.model_validate(screen)
        except ValidationError as exc:
            return [_located(_shape_issue(error), file) for error in exc.errors()]
    issues = [
        *validate_components(parsed.components, plugin_id=plugin_id),
        *_voice_issues(parsed.voice_text),
    ]
    return [_located(issue, file) for issue in issues]


def validate_message(message: dict[str, Any]) -> list[ValidationIssue]:
    """Issues of one server→client wire message: its schema, plus integrity for a full tree.

    An ``updateComponents`` may patch part of a surface, so the tree is checked only when the
    message carries ``root`` (then it must be complete on its own).
    """
    try:
        parsed = ServerMessage.model_validate(message)
    except ValidationError as exc:
        return [_message_issue(error, message) for error in exc.errors()]
    update = parsed.updateComponents
    if update is None or not any(component.id == ROOT_ID for component in update.components):
        return []
    return _integrity_issues(message["updateComponents"]["components"])


def _located(issue: ValidationIssue, file: str | None) -> ValidationIssue:
    return issue if file is None else issue.model_copy(update={"file": file})


# --- schema -------------------------------------------------------------------------------------


def _schema_issues(components: list[dict[str, Any]]) -> Iterator[ValidationIssue]:
    for index, raw in enumerate(components):
        try:
            _COMPONENT.validate_python(raw)
        except ValidationError as exc:
            for error in exc.errors():
                yield _component_issue(error, raw, index)


def _component_issue(error: ErrorDetails, raw: Any, index: int) -> ValidationIssue:
    """Turn a pydantic error on one component (``loc`` = ``(type, prop, ...)``) into an issue."""
    if not isinstance(raw, dict):
        return ValidationIssue(message=f"components[{index}]: a component is a JSON object")
    component_id = _id_of(raw)
    prefix = "" if component_id is not None else f"components[{index}]: "
    kind, loc = error["type"], error["loc"]
    if kind in ("union_tag_not_found", "union_tag_invalid"):
        got = raw.get("component")
        what = f"unknown component type {got!r}" if got is not None else "no component type"
        known = ", ".join(sorted(COMPONENT_TYPES))
        return ValidationIssue(
            component_id=component_id,
            property="component",
            message=f"{prefix}{what}; the catalog has {known}",
        )
    if len(loc) < 2:
        return ValidationIssue(component_id=component_id, message=prefix + _error_message(error))
    component_type, prop, rest = str(loc[0]), str(loc[1]), loc[2:]
    if kind == "missing" and prop == "id":
        message = f"{component_type} has no id"
    elif kind == "extra_forbidden" and not rest:
        props = ", ".join(["id", "component", *component_specs()[component_type].properties])
        message = f"{component_type} has no such property (it has: {props})"
    elif kind == "missing" and not rest:
        message = f"{component_type} requires this property"
    else:
        message = _error_message(error)
        if rest:
            message = f"{_dotted(rest)}: {message}"
    return ValidationIssue(component_id=component_id, property=prop, message=prefix + message)


def _message_issue(error: ErrorDetails, message: dict[str, Any]) -> ValidationIssue:
    """A pydantic error on a wire message; errors inside a component are located on it."""
    loc = error["loc"]
    if loc[:2] == ("updateComponents", "components") and len(loc) > 2:
        index = int(loc[2])
        raw = message["updateComponents"]["components"][index]
        located: ErrorDetails = {**error, "loc": loc[3:]}
        return _component_issue(located, raw, index)
    return ValidationIssue(property=_dotted(loc) or None, message=_error_message(error))


def _shape_issue(error: ErrorDetails) -> ValidationIssue:
    """A pydantic error on a screen file's top level (``components``/``voice_text``)."""
    return ValidationIssue(property=_dotted(error["loc"]) or None, message=_error_message(error))


def _error_message(error: ErrorDetails) -> str:
    if error["type"] == "string_pattern_mismatch":
        return f"invalid path {error['input']!r}; write a JSON pointer like '/loan/amount'"
    if error["type"] == "extra_forbidden":
        return "unknown property"
    message = error["msg"]
    return message[:1].lower() + message[1:]


def _dotted(loc: tuple[int | str, ...]) -> str:
    """``("items", 0, "title")`` → ``items[0].title``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.lstrip(".")


# --- integrity ----------------------------------------------------------------------------------


def _id_of(raw: dict[str, Any]) -> str | None:
    component_id = raw.get("id")
    return component_id if isinstance(component_id, str) else None


def _spec_of(raw: dict[str, Any]) -> ComponentSpec | None:
    component_type = raw.get("component")
    return component_specs().get(component_type) if isinstance(component_type, str) else None


def _child_refs(raw: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(prop, child id)`` for each child the component names, read leniently from raw JSON.

    Besides the catalog's child props, ``child``/``children`` count wherever they appear, and any
    shape of value is read, so one schema error (a Card given ``children``, ``"children": "a"``)
    does not also orphan the children.
    """
    spec = _spec_of(raw)
    for prop in {"child": None, "children": None, **(spec.child_props if spec else {})}:
        value = raw.get(prop)
        if isinstance(value, str):
            yield prop, value
        elif isinstance(value, list):
            yield from ((prop, item) for item in value if isinstance(item, str))
        elif isinstance(value, dict) and isinstance(value.get("componentId"), str):
            yield prop, value["componentId"]


def _integrity_issues(components: list[dict[str, Any]]) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    by_id: dict[str, dict[str, Any]] = {}
    first_index: dict[str, int] = {}
    for index, raw in enumerate(components):
        component_id = _id_of(raw) if isinstance(raw, dict) else None
        if component_id is None:
            continue  # the schema check reports it
        if component_id in by_id:
            issues.append(
                ValidationIssue(
                    component_id=component_id,
                    property="id",
                    message=f"duplicate id (components[{first_index[component_id]}] "
                    f"and components[{index}])",
                )
            )
            continue
        by_id[component_id] = raw
        first_index[component_id] = index

    edges: dict[str, list[tuple[str, str]]] = {}
    for component_id, raw in by_id.items():
        edges[component_id] = []
        for prop, child in _child_refs(raw):
            if child in by_id:
                edges[component_id].append((prop, child))
            else:
                issues.append(
                    ValidationIssue(
                        component_id=component_id, property=prop, message=f"dangling id {child!r}"
                    )
                )

    if ROOT_ID not in by_id:
        issues.append(
            ValidationIssue(
                message=f"no component has id {ROOT_ID!r} (a renderer waits for it forever)"
            )
        )
        return issues
    issues.extend(_tree_issues(edges))
    return issues


def _tree_issues(edges: dict[str, list[tuple[str, str]]]) -> list[ValidationIssue]:
    """Cycles (a renderer would recurse forever) and components unreachable from root."""
    issues: list[ValidationIssue] = []
    visited: set[str] = {ROOT_ID}
    on_path: list[str] = [ROOT_ID]
    stack: list[Iterator[tuple[str, str]]] = [iter(edges[ROOT_ID])]
    while stack:
        step = next(stack[-1], None)
        if step is None:
            stack.pop()
            on_path.pop()
            continue
        prop, child = step
        if child in on_path:
            issues.append(
                ValidationIssue(
                    component_id=on_path[-1],
                    property=prop,
                    message=f"cycle: {child!r} contains this component",
                )
            )
        elif child not in visited:
            visited.add(child)
            on_path.append(child)
            stack.append(iter(edges[child]))
    issues.extend(
        ValidationIssue(
            component_id=orphan,
            message=f"unreachable from {ROOT_ID!r}: no component lists it as a child",
        )
        for orphan in edges
        if orphan not in visited
    )
    return issues


# --- house rules --------------------------------------------------------------------------------


def _house_rule_issues(
    components: list[dict[str, Any]], plugin_id: str | None
) -> Iterator[ValidationIssue]:
    dicts = [raw for raw in components if isinstance(raw, dict)]
    for raw in dicts:
        if raw.get("id") == ROOT_ID and raw.get("component") != "Column":
            yield ValidationIssue(
                component_id=ROOT_ID,
                property="component",
                message=f"the root must be a Column, not {raw.get('component')!r}",
            )
    if not any(raw.get("component") == "DataCard" for raw in dicts):
        yield ValidationIssue(message="no DataCard: every screen shows at least one")
    for raw in dicts:
        yield from _action_issues(raw, plugin_id)


def _action_issues(raw: dict[str, Any], plugin_id: str | None) -> Iterator[ValidationIssue]:
    spec = _spec_of(raw)
    for prop in spec.action_props if spec else ():
        action = raw.get(prop)
        event = action.get("event") if isinstance(action, dict) else None
        name = event.get("name") if isinstance(event, dict) else None
        if not isinstance(name, str):
            continue  # the schema check reports it
        match = ACTION_NAME_PATTERN.fullmatch(name)
        if match is None:
            expected = f"'{plugin_id}.<action>'" if plugin_id else "'<plugin_id>.<action>'"
            message = f"action name {name!r} is not {expected}"
        elif plugin_id is not None and match.group(1) != plugin_id:
            message = f"action name {name!r} must start with '{plugin_id}.'"
        else:
            continue
        yield ValidationIssue(component_id=_id_of(raw), property=prop, message=message)


def _voice_issues(voice_text: str) -> Iterator[ValidationIssue]:
    words = len(voice_text.split())
    if words == 0:
        yield ValidationIssue(property="voice_text", message="voice text is empty")
    elif words >= MAX_VOICE_WORDS:
        yield ValidationIssue(
            property="voice_text",
            message=f"{words} words; voice text must stay under {MAX_VOICE_WORDS}",
        )
