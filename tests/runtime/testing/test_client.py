"""The client-side surface mirror the demo and the tests read screens with."""

from __future__ import annotations

from runtime.testing.client import Surface


def make_surface() -> Surface:
    surface = Surface("s")
    surface.apply(
        "updateComponents",
        {
            "components": [
                {
                    "id": "root",
                    "component": "Column",
                    "children": {"componentId": "row", "path": "/items"},
                },
                {
                    "id": "row",
                    "component": "Button",
                    "child": "label",
                    "action": {
                        "event": {"name": "p.pick", "context": {"id": {"path": "id"}, "k": 1}}
                    },
                },
                {"id": "label", "component": "Text", "text": {"path": "name"}},
            ]
        },
    )
    surface.apply("updateDataModel", {"value": {"items": [{"id": "a", "name": "A"}]}})
    surface.apply("updateDataModel", {"path": "/items/1", "value": {"id": "b", "name": "B"}})
    return surface


def test_templates_expand_over_the_data_and_bindings_resolve_per_item() -> None:
    surface = make_surface()
    walked = [(depth, c["id"], scope) for depth, c, scope in surface.walk()]
    assert walked == [
        (0, "root", ""),
        (1, "row", "/items/0"),
        (2, "label", "/items/0"),
        (1, "row", "/items/1"),
        (2, "label", "/items/1"),
    ]
    assert surface.resolve({"path": "name"}, "/items/1") == "B"
    assert [(c.name, c.context) for c in surface.clickables()] == [
        ("p.pick", {"id": "a", "k": 1}),
        ("p.pick", {"id": "b", "k": 1}),
    ]


def test_data_model_updates_replace_set_and_remove() -> None:
    surface = make_surface()
    surface.apply("updateDataModel", {"path": "/items/0/name", "value": "Z"})
    assert surface.data["items"][0]["name"] == "Z"
    surface.apply("updateDataModel", {"path": "/extra"})
    surface.apply("updateDataModel", {"path": "/items"})
    assert surface.data == {}
    surface.apply("updateDataModel", {"path": "/", "value": {"x": 1}})
    assert surface.data == {"x": 1}


def test_escaped_keys_keep_their_siblings() -> None:
    """``~1`` is a ``/`` inside one key (RFC 6901): setting below it must not split it again."""
    surface = Surface("s")
    surface.apply("updateDataModel", {"value": {"a/b": {"x": 1}, "c~d": {"y": 1}}})
    surface.apply("updateDataModel", {"path": "/a~1b/y", "value": 2})
    surface.apply("updateDataModel", {"path": "/c~0d/z", "value": 3})
    assert surface.data == {"a/b": {"x": 1, "y": 2}, "c~d": {"y": 1, "z": 3}}
