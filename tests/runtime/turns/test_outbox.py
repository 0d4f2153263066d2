"""The outbox rules, as pure functions."""

from __future__ import annotations

from runtime.a2ui import CATALOG_ID
from runtime.contract.state import ServerEventDict, event
from runtime.turns.outbox import merge_voice, prepare, resume_events, thinking, turn_delivery


def patch(kind: str, surface_id: str) -> ServerEventDict:
    return event("server.a2ui.patch", version="v0.9", **{kind: {"surfaceId": surface_id}})


def types(events: list[ServerEventDict]) -> list[str]:
    return [e["type"] for e in events]


def test_consecutive_voice_lines_are_merged_in_order() -> None:
    events = [
        event("server.voice.say", text="Hello."),
        event("server.voice.say", text="How can I help?"),
        event("server.transcript.final", text="x"),
        event("server.voice.say", text="Bye."),
    ]
    merged = merge_voice(events)
    assert merged == [
        event("server.voice.say", text="Hello. How can I help?"),
        event("server.transcript.final", text="x"),
        event("server.voice.say", text="Bye."),
    ]


def test_voice_lines_separated_only_by_audit_become_one() -> None:
    events = [
        event("server.voice.say", text="a"),
        event("server.audit.event", what="x"),
        event("server.voice.say", text="b"),
    ]
    delivery = prepare(events, mode="voice", surfaces=frozenset())
    assert delivery.client == [event("server.voice.say", text="a b")]


def test_text_mode_drops_voice_and_keeps_the_rest() -> None:
    events = [
        event("server.voice.say", text="spoken"),
        event("server.transcript.final", text="written"),
    ]
    delivery = prepare(events, mode="text", surfaces=frozenset())
    assert delivery.client == [event("server.transcript.final", text="written")]


def test_audit_events_never_reach_the_client_but_are_returned_for_the_log() -> None:
    audit = event("server.audit.event", action="card.block", card="1234")
    delivery = prepare(
        [audit, event("server.error", message="m")], mode="voice", surfaces=frozenset()
    )
    assert "server.audit.event" not in types(delivery.client)
    assert delivery.audit == [audit]


def test_create_surface_precedes_the_first_patch_of_a_surface_only() -> None:
    events = [
        patch("updateComponents", "main"),
        patch("updateDataModel", "main"),
        patch("updateComponents", "side"),
    ]
    delivery = prepare(events, mode="voice", surfaces=frozenset())
    kinds = [next(k for k in e["payload"] if k != "version") for e in delivery.client]
    assert kinds == [
        "createSurface",
        "updateComponents",
        "updateDataModel",
        "createSurface",
        "updateComponents",
    ]
    created = delivery.client[0]["payload"]["createSurface"]
    assert created == {"surfaceId": "main", "catalogId": CATALOG_ID}
    assert delivery.surfaces == {"main", "side"}
    again = prepare([patch("updateComponents", "main")], mode="voice", surfaces=delivery.surfaces)
    assert len(again.client) == 1


def test_a_plugins_own_create_surface_is_not_doubled_and_delete_reopens() -> None:
    own = patch("createSurface", "main")
    delivery = prepare([own, patch("updateComponents", "main")], mode="voice", surfaces=frozenset())
    assert len(delivery.client) == 2
    deleted = prepare([patch("deleteSurface", "main")], mode="voice", surfaces=delivery.surfaces)
    assert deleted.surfaces == frozenset()


def test_a_turn_is_closed_by_thinking_false_after_its_events() -> None:
    delivery = turn_delivery(
        [event("server.voice.say", text="hi")], mode="voice", surfaces=frozenset()
    )
    assert delivery.client == [event("server.voice.say", text="hi"), thinking(False)]
    assert turn_delivery([], mode="text", surfaces=frozenset()).client == [thinking(False)]
    assert thinking(True) == event("server.agent.thinking", thinking=True)


def test_resume_events_replay_the_screens_kept_in_ui_and_ignore_the_rest() -> None:
    message = {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": []}}
    ui = {"s": [message, {"not": "a2ui"}], "other": "junk"}
    assert resume_events(ui) == [event("server.a2ui.patch", **message)]
    assert resume_events(None) == []
    assert resume_events({"screen": "products"}) == []
