"""The three-way screen merge: by component id, property by property, child lists as sets."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jinja2_ansible_filters.core_filters import to_nice_json

from generator.render.screens import OURS_LABEL, THEIRS_LABEL, format_screen, merge_screen
from runtime.a2ui import validate_screen

FILE = "runtime/plugins/demo/screens/result.json"

BASE: dict[str, Any] = {
    "components": [
        {"id": "root", "component": "Column", "children": ["title", "answer", "again"]},
        {"id": "title", "component": "Text", "text": "Budget", "variant": "h2"},
        {
            "id": "answer",
            "component": "DataCard",
            "title": "Summary",
            "value": {"path": "/answer"},
        },
        {"id": "again", "component": "Text", "text": "Ask something else"},
    ],
    "voice_text": "Here is what I found.",
}


def edited(screen: dict[str, Any], **changes: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of ``screen`` with components changed (a dict of props), added, or removed (None).

    A property set to None is removed; a new component is appended.
    """
    result = copy.deepcopy(screen)
    components = {c["id"]: c for c in result["components"]}
    for component_id, props in changes.items():
        if props is None:
            result["components"].remove(components[component_id])
            continue
        if component_id not in components:
            components[component_id] = {"id": component_id}
            result["components"].append(components[component_id])
        for prop, value in props.items():
            if value is None:
                components[component_id].pop(prop, None)
            else:
                components[component_id][prop] = value
    return result


def component(screen: dict[str, Any], component_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in screen["components"] if c["id"] == component_id)
    return found


def merged(base: Any, ours: Any, theirs: Any) -> dict[str, Any]:
    """The merge, which must be clean and a valid screen."""
    result = merge_screen(base, ours, theirs, file=FILE)
    assert result.conflicts == []
    assert result.text is not None
    screen: dict[str, Any] = json.loads(result.text)
    assert validate_screen(screen, plugin_id="demo") == []
    return screen


def resolved(text: str, *, keep: str) -> str:
    """The text with every conflict resolved to one side (``ours`` or ``theirs``)."""
    lines, side = [], None
    for line in text.splitlines():
        if line == f"<<<<<<< {OURS_LABEL}":
            side = "ours"
        elif line == "=======" and side:
            side = "theirs"
        elif line == f">>>>>>> {THEIRS_LABEL}":
            side = None
        elif side in (None, keep):
            lines.append(line)
    return "\n".join(lines) + "\n"


def test_the_base_screen_is_valid() -> None:
    assert validate_screen(BASE, plugin_id="demo") == []


def test_format_is_the_templates_to_nice_json() -> None:
    screen = edited(BASE, title={"text": "Caf\u00e9 \u00a3"})
    assert format_screen(screen) == to_nice_json(screen, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    ("ours", "theirs", "expected"),
    [
        (BASE, BASE, BASE),
        (edited(BASE, title={"text": "Mine"}), BASE, edited(BASE, title={"text": "Mine"})),
        (BASE, edited(BASE, title={"text": "New"}), edited(BASE, title={"text": "New"})),
        (edited(BASE, title={"text": "Same"}), edited(BASE, title={"text": "Same"}), None),
    ],
    ids=["unchanged", "ours-only", "theirs-only", "same-edit"],
)
def test_one_sided_and_identical_edits_merge_cleanly(
    ours: dict[str, Any], theirs: dict[str, Any], expected: dict[str, Any] | None
) -> None:
    assert merged(BASE, ours, theirs) == (expected or ours)


def test_a_reviewers_component_and_a_redesigned_card_do_not_conflict() -> None:
    ours = edited(
        BASE,
        root={"children": ["title", "note", "answer", "again"]},
        note={"component": "Text", "text": "Figures are estimates."},
    )
    theirs = edited(
        BASE,
        root={"children": ["title", "answer", "stat", "again"]},
        answer={"title": "Your budget", "caption": {"path": "/question"}},
        stat={"component": "StatCard", "label": "Surplus", "value": {"path": "/state/surplus"}},
    )
    screen = merged(BASE, ours, theirs)
    assert component(screen, "root")["children"] == ["title", "note", "answer", "stat", "again"]
    assert component(screen, "note")["text"] == "Figures are estimates."
    assert component(screen, "answer")["title"] == "Your budget"
    assert component(screen, "answer")["caption"] == {"path": "/question"}
    assert component(screen, "stat")["label"] == "Surplus"


def test_different_properties_of_one_component_merge() -> None:
    ours = edited(BASE, title={"text": "My budget"})
    theirs = edited(BASE, title={"variant": "h1"})
    assert component(merged(BASE, ours, theirs), "title") == {
        "id": "title",
        "component": "Text",
        "text": "My budget",
        "variant": "h1",
    }


def test_a_property_removed_on_one_side_is_removed() -> None:
    theirs = edited(BASE, title={"variant": None})
    ours = edited(BASE, title={"text": "My budget"})
    assert "variant" not in component(merged(BASE, ours, theirs), "title")


def test_the_same_property_changed_on_both_sides_is_a_conflict_naming_it() -> None:
    ours = edited(BASE, title={"text": "Our title"}, again={"text": "Ours too"})
    theirs = edited(BASE, title={"text": "Their title"}, answer={"title": "Redesigned"})
    result = merge_screen(BASE, ours, theirs, file=FILE)

    assert [str(c) for c in result.conflicts] == [
        f"{FILE}: component 'title' property 'text': changed here (\"Our title\") "
        'and by the new design ("Their title")'
    ]
    assert result.text is not None
    assert result.text.count(f"<<<<<<< {OURS_LABEL}") == 1
    marked = result.text[result.text.index("<<<<<<<") : result.text.index(">>>>>>>")]
    assert '"text": "Our title",' in marked and '"text": "Their title",' in marked
    for keep, title in (("ours", "Our title"), ("theirs", "Their title")):
        screen = json.loads(resolved(result.text, keep=keep))
        assert component(screen, "title")["text"] == title
        assert component(screen, "again")["text"] == "Ours too"
        assert component(screen, "answer")["title"] == "Redesigned"


def test_voice_text_changed_on_both_sides_is_a_conflict_without_component() -> None:
    ours = {**BASE, "voice_text": "Our words."}
    theirs = {**BASE, "voice_text": "Their words."}
    result = merge_screen(BASE, ours, theirs, file=FILE)
    assert [(c.component_id, c.property) for c in result.conflicts] == [(None, "voice_text")]
    assert result.text is not None
    assert json.loads(resolved(result.text, keep="theirs"))["voice_text"] == "Their words."


def test_a_component_edited_here_and_removed_by_the_design_is_a_conflict() -> None:
    ours = edited(BASE, again={"text": "Ask me anything"})
    theirs = edited(BASE, root={"children": ["title", "answer"]}, again=None)
    result = merge_screen(BASE, ours, theirs, file=FILE)

    assert [str(c) for c in result.conflicts] == [
        f"{FILE}: component 'again': changed here, removed by the new design"
    ]
    assert result.text is not None
    assert "again" not in [
        c["id"] for c in json.loads(resolved(result.text, keep="theirs"))["components"]
    ]
    kept = json.loads(resolved(result.text, keep="ours"))
    assert component(kept, "again")["text"] == "Ask me anything"


def test_a_component_removed_here_and_changed_by_the_design_is_a_conflict() -> None:
    ours = edited(BASE, root={"children": ["title", "answer"]}, again=None)
    theirs = edited(BASE, again={"text": "Ask again"})
    result = merge_screen(BASE, ours, theirs, file=FILE)
    assert [(c.component_id, c.property, c.message) for c in result.conflicts] == [
        ("again", None, "removed here, changed by the new design")
    ]


def test_a_component_removed_on_one_side_and_unchanged_on_the_other_is_removed() -> None:
    ours = edited(BASE, root={"children": ["title", "answer"]}, again=None)
    theirs = edited(BASE, title={"text": "New"})
    screen = merged(BASE, ours, theirs)
    assert [c["id"] for c in screen["components"]] == ["root", "title", "answer"]
    assert component(screen, "title")["text"] == "New"


def test_children_reordered_here_keep_their_order_and_gain_the_designs_child() -> None:
    ours = edited(BASE, root={"children": ["answer", "title", "again"]})
    theirs = edited(
        BASE,
        root={"children": ["title", "answer", "hint", "again"]},
        hint={"component": "Text", "text": "Say 'again' to start over"},
    )
    screen = merged(BASE, ours, theirs)
    assert component(screen, "root")["children"] == ["answer", "hint", "title", "again"]


def test_children_reordered_differently_on_both_sides_is_a_conflict() -> None:
    ours = edited(BASE, root={"children": ["answer", "title", "again"]})
    theirs = edited(BASE, root={"children": ["title", "again", "answer"]})
    result = merge_screen(BASE, ours, theirs, file=FILE)
    assert [(c.component_id, c.property) for c in result.conflicts] == [("root", "children")]


def test_a_child_removed_on_one_side_and_another_added_on_the_other() -> None:
    ours = edited(BASE, root={"children": ["title", "answer"]}, again=None)
    theirs = edited(
        BASE,
        root={"children": ["title", "answer", "again", "more"]},
        more={"component": "Text", "text": "More"},
    )
    screen = merged(BASE, ours, theirs)
    assert component(screen, "root")["children"] == ["title", "answer", "more"]


def test_the_same_new_component_added_on_both_sides_differently_conflicts_per_property() -> None:
    ours = edited(BASE, note={"component": "Text", "text": "Ours"})
    theirs = edited(BASE, note={"component": "Text", "text": "Theirs"})
    result = merge_screen(BASE, ours, theirs, file=FILE)
    assert [(c.component_id, c.property) for c in result.conflicts] == [("note", "text")]


def test_whole_files() -> None:
    changed = edited(BASE, title={"text": "New"})
    assert merge_screen(BASE, None, BASE, file=FILE).text is None
    assert merge_screen(BASE, BASE, None, file=FILE).text is None
    assert merge_screen(None, None, BASE, file=FILE).text == format_screen(BASE)
    assert merge_screen(None, BASE, None, file=FILE).text == format_screen(BASE)

    removed_here = merge_screen(BASE, None, changed, file=FILE)
    assert [c.message for c in removed_here.conflicts] == [
        "removed here, changed by the new design"
    ]
    assert removed_here.text is not None
    assert json.loads(resolved(removed_here.text, keep="theirs")) == changed
    assert resolved(removed_here.text, keep="ours") == "\n"

    removed_there = merge_screen(BASE, changed, None, file=FILE)
    assert [c.message for c in removed_there.conflicts] == [
        "changed here, removed by the new design"
    ]
