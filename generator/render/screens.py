"""Three-way merge of screen files by component id, so a hand edit and a new design both survive.

Copier merges lines; a screen is a tree of components, and a line merge of two edits of the same
list (a reviewer's extra component, a re-designed card) conflicts for no reason. Here the three
versions of one ``screens/<name>.json`` are merged the way a reviewer reads them:

* **base**: what the last import generated (``.copier-answers.yml`` records its git blob id);
* **ours**: the file in the repository, with the reviewers' edits;
* **theirs**: what the new design generates.

Components are matched by ``id`` and merged property by property: a property changed on one side
only takes that side's value; changed on both sides to different values, it is a conflict naming
the file, the component and the property. Child lists (the catalog's ``ChildList`` props, such as
``children``) merge as ordered sets, so both sides may add and remove children; only two different
reorderings of the same children conflict. A component removed on one side and changed on the
other is a conflict too. Top-level keys other than ``components`` (``voice_text``) merge like
properties. ``agent.json``, an object without components, merges the same way (its keys like
a screen's top-level keys).

The merged screen is written as the generator writes screens (``format_screen``). A conflict is
written as Git writes one, around the conflicting property or component only, with Copier's labels
(``before updating`` is ours, ``after updating`` is theirs), so reviewers resolve it like any
other conflict of an update; until then the file is not valid JSON, and the hooks say so.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from runtime.a2ui.catalog import component_specs
from runtime.a2ui.validate import ValidationIssue

#: The labels Copier gives the two sides of an inline conflict.
OURS_LABEL = "before updating"
THEIRS_LABEL = "after updating"
COMPONENTS = "components"

Json = Any
Screen = dict[str, Json]


class _Missing:
    """A value that is not there (a property not set, a component or file that does not exist)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class ScreenMerge(BaseModel):
    """The merged file: its text (None: the file is deleted) and the conflicts marked in it.

    A conflict is a ``ValidationIssue``: the same location (file, component, property) and the
    same one-line form as every other problem a screen can have.
    """

    model_config = ConfigDict(extra="forbid")

    text: str | None
    conflicts: list[ValidationIssue]


def format_screen(screen: Screen) -> str:
    """A screen file as the template writes it: ``to_nice_json(indent=2)``, keys sorted."""
    return _dumps(screen) + "\n"


def merge_screen(
    base: Screen | None,
    ours: Screen | None,
    theirs: Screen | None,
    *,
    file: str,
    by: str = "the new design",
) -> ScreenMerge:
    """Merge three versions of one screen file (None: the file does not exist on that side);
    ``by`` names what made ``theirs`` in conflict messages."""
    if ours == theirs or theirs == base:
        return ScreenMerge(text=None if ours is None else format_screen(ours), conflicts=[])
    if ours == base:
        return ScreenMerge(text=None if theirs is None else format_screen(theirs), conflicts=[])
    if ours is None or theirs is None:
        conflict = ValidationIssue(file=file, message=_removal(by, removed_here=ours is None))
        sides = (MISSING if ours is None else ours, MISSING if theirs is None else theirs)
        return ScreenMerge(text="\n".join([*_marked(*sides), ""]), conflicts=[conflict])
    merger = _Merger(file, by)
    merged = merger.screen(base or {}, ours, theirs)
    return ScreenMerge(text=merger.render(merged), conflicts=merger.conflicts)


class _Merger:
    """One merge: collects the conflicts, and both sides of each to mark in the text."""

    def __init__(self, file: str, by: str) -> None:
        self.file = file
        self.by = by
        self.conflicts: list[ValidationIssue] = []
        self._sides: dict[str, tuple[Json, Json]] = {}
        self._token = f"@@merge-{uuid.uuid4().hex}-"

    def screen(self, base: Screen, ours: Screen, theirs: Screen) -> Screen:
        merged: Screen = {}
        for key in _union(base, ours, theirs):
            value: Json
            b, o, t = _three(key, base, ours, theirs)
            if key == COMPONENTS and all(isinstance(v, list) or v is MISSING for v in (b, o, t)):
                value = self.components(_listed(b), _listed(o), _listed(t))
            else:
                value = self.value(b, o, t, component_id=None, prop=key)
            if value is not MISSING:
                merged[key] = value
        return merged

    def components(self, base: list[Json], ours: list[Json], theirs: list[Json]) -> list[Json]:
        sides = [_by_id(side) for side in (base, ours, theirs)]
        # Where a component sits in the list does not matter (the tree is built from ids):
        # ours' order, with the new design's components after those they follow there.
        order = _with_additions(list(sides[1]), list(sides[2]), known=set())
        merged: list[Json] = []
        for component_id in order:
            value: Json
            b, o, t = _three(component_id, *sides)
            if o == t or t == b:
                value = o
            elif o == b:
                value = t
            elif o is MISSING or t is MISSING:
                message = _removal(self.by, removed_here=o is MISSING)
                value = self.clash(o, t, component_id=component_id, prop=None, message=message)
            else:
                value = self.component(component_id, {} if b is MISSING else b, o, t)
            if value is not MISSING:
                merged.append(value)
        # A component without an id cannot be matched; a hand-written one is kept, not lost.
        return merged + [c for c in ours if not _has_id(c)]

    def component(
        self,
        component_id: str,
        base: dict[str, Json],
        ours: dict[str, Json],
        theirs: dict[str, Json],
    ) -> dict[str, Json]:
        kind = ours.get("component", theirs.get("component"))
        merged: dict[str, Json] = {}
        for prop in _union(base, ours, theirs):
            b, o, t = _three(prop, base, ours, theirs)
            value: Json
            if _is_child_list(kind, prop) and all(_is_ids(v) for v in (b, o, t)):
                order, reordered_both = _merge_order(_listed(b), _listed(o), _listed(t))
                message = f"children reordered differently here and by {self.by}"
                value = (
                    self.clash(o, t, component_id=component_id, prop=prop, message=message)
                    if reordered_both
                    else order
                )
            else:
                value = self.value(b, o, t, component_id=component_id, prop=prop)
            if value is not MISSING:
                merged[prop] = value
        return merged

    def value(self, b: Json, o: Json, t: Json, *, component_id: str | None, prop: str) -> Json:
        if o == t or t == b:
            return o
        if o == b:
            return t
        message = f"changed here ({_brief(o)}) and by {self.by} ({_brief(t)})"
        return self.clash(o, t, component_id=component_id, prop=prop, message=message)

    def clash(
        self, ours: Json, theirs: Json, *, component_id: str | None, prop: str | None, message: str
    ) -> str:
        """Record a conflict; the returned placeholder holds its place in the merged tree."""
        self.conflicts.append(
            ValidationIssue(
                file=self.file, component_id=component_id, property=prop, message=message
            )
        )
        placeholder = f"{self._token}{len(self._sides)}@@"
        self._sides[placeholder] = (ours, theirs)
        return placeholder

    def render(self, merged: Screen) -> str:
        """The formatted file, each placeholder's line replaced by both sides, marked.

        When a side has nothing where the last item of a list or object stood, the comma ending
        the item before belongs to the conflict too, so either side taken alone is valid JSON.
        """
        placeholder = re.compile(
            rf'(?P<indent> *)(?:(?P<key>"[^"]*"): )?"(?P<token>{re.escape(self._token)}\d+@@)"'
            r"(?P<comma>,?)"
        )
        lines: list[str] = []
        for line in format_screen(merged).split("\n"):
            match = placeholder.fullmatch(line)
            if match is None:
                lines.append(line)
                continue
            ours, theirs = self._sides[match["token"]]
            one_sided = ours is MISSING or theirs is MISSING
            before = (
                lines.pop() if one_sided and not match["comma"] and lines[-1][-1:] == "," else ""
            )
            lines += _marked(ours, theirs, match["indent"], match["key"], match["comma"], before)
        return "\n".join(lines)


def _marked(
    ours: Json,
    theirs: Json,
    indent: str = "",
    key: str | None = None,
    comma: str = "",
    before: str = "",
) -> list[str]:
    """Both sides of a conflict between Git's markers, each as it would appear in the file;
    ``before`` is the line ending the previous item, whose comma only a present side keeps."""

    def side(value: Json) -> list[str]:
        if value is MISSING:
            return [before[:-1]] if before else []
        text = (f"{key}: " if key else "") + _dumps(value) + comma
        return [before] * bool(before) + [indent + line for line in text.split("\n")]

    return [
        f"<<<<<<< {OURS_LABEL}",
        *side(ours),
        "=======",
        *side(theirs),
        f">>>>>>> {THEIRS_LABEL}",
    ]


def _removal(by: str, *, removed_here: bool) -> str:
    if removed_here:
        return f"removed here, changed by {by}"
    return f"changed here, removed by {by}"


def _dumps(value: Json) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, separators=(",", ": "))


def _merge_order(base: list[str], ours: list[str], theirs: list[str]) -> tuple[list[str], bool]:
    """An ordered union of two edits of ``base``, and whether both reordered it differently.

    Items removed on either side are dropped; the items kept are in the order of the side that
    reordered them (ours when both did, with the clash flagged); an item a side added follows
    the item it follows on that side.
    """
    removed = (set(base) - set(ours)) | (set(base) - set(theirs))
    kept = [item for item in base if item not in removed]
    kept_ours = [item for item in ours if item in kept]
    kept_theirs = [item for item in theirs if item in kept]
    clash = kept_ours != kept and kept_theirs != kept and kept_ours != kept_theirs
    merged = kept_theirs if kept_ours == kept else kept_ours
    for side in (ours, theirs):
        merged = _with_additions(merged, side, known=set(base))
    return merged, clash


def _with_additions(items: list[str], side: list[str], *, known: set[str]) -> list[str]:
    """``items`` plus the items of ``side`` that neither holds nor ``known`` has, each placed
    after the item it follows in ``side`` (first if none)."""
    merged = list(items)
    for index, item in enumerate(side):
        if item in known or item in merged:
            continue
        after = next((x for x in reversed(side[:index]) if x in merged), None)
        merged.insert(0 if after is None else merged.index(after) + 1, item)
    return merged


def _three(key: str, *sides: dict[str, Json]) -> tuple[Json, Json, Json]:
    """The value at ``key`` in base, ours and theirs (``MISSING`` where it is not set)."""
    b, o, t = (side.get(key, MISSING) for side in sides)
    return b, o, t


def _union(*sides: dict[str, Json]) -> list[str]:
    return list(dict.fromkeys(key for side in sides for key in side))


def _has_id(component: Json) -> bool:
    return isinstance(component, dict) and isinstance(component.get("id"), str)


def _by_id(components: list[Json]) -> dict[str, dict[str, Json]]:
    return {c["id"]: c for c in components if _has_id(c)}


def _listed(value: Json) -> list[Json]:
    return [] if value is MISSING else list(value)


def _is_ids(value: Json) -> bool:
    return value is MISSING or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _is_child_list(kind: Json, prop: str) -> bool:
    spec = component_specs().get(kind) if isinstance(kind, str) else None
    return spec is not None and spec.child_props.get(prop) == "ids"


def _brief(value: Json) -> str:
    if value is MISSING:
        return "removed"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 40 else text[:39] + "…"
