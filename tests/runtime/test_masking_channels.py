"""A card number written with the separators and digits the masker learned to read in 85716a8
(bars, Swiss apostrophes, Hangul fillers, keycaps, ``x``, tag characters...) reaches none of the
places a real runtime hands a customer's words on to: the WebSocket frames, the AG-UI text
events, the SQLite file, the log and the audit file.

The rule's own tests (``test_redaction.py``) prove the masker reads these forms; this module
proves every channel goes through it. Its search reads digits only, so a separator that is a
letter (``x``, U+3164) hides nothing: ``leaked`` there keeps letters and would miss those forms.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import FIXTURE_PLUGINS, runtime_server
from tests.runtime.serving.agui.wire import post_run
from tests.runtime.test_redaction import database_text, digits_of, luhn_valid

#: Luhn-valid; masked, it keeps its last four.
CARD = "4501591934567805"
MASKED = "****7805"
KEYCAP = "\ufe0f\u20e3"  # after a digit: that digit's keycap emoji (4️⃣)

#: ``CARD`` as a customer may type it; every form is one ``redact_card_numbers`` masks now and
#: left whole before 85716a8.
FORMS = [
    pytest.param("4501|5919|3456|7805", id="bars"),
    pytest.param("4501\u31645919\u31643456\u31647805", id="hangul-filler"),
    pytest.param("".join(d + KEYCAP for d in "4501") + " 5919 3456 7805", id="keycap-group"),
    pytest.param("4'501'591'934'567'805", id="swiss-apostrophes"),
    pytest.param("4501x5919X3456x7805", id="x"),
    pytest.param("4501\U000e00205919\u2060\ufe0f3456\U000e00207805", id="tags-joiner-selector"),
    pytest.param("4501\u28005919\u115f3456\uffa07805", id="braille-blank-hangul"),
    pytest.param('[4501] "5919" (3456) #7805', id="brackets-quotes-hash"),
    pytest.param("4501 |*~#'| 5919~3456*7805", id="eight-separators"),
]
CHANNELS = ["websocket", "agui_text", "database", "log", "audit"]

#: ``\xHH``, ``\uHHHH`` and ``\UHHHHHHHH``, as JSON and ``repr`` write what they escape.
_ESCAPE = re.compile(
    r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U(000[0-9A-Fa-f]{5}|0010[0-9A-Fa-f]{4}))"
)


def unescaped(line: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int("".join(filter(None, m.groups())), 16)), line)


def spelling_the_card(text: str) -> list[str]:
    """The lines of ``text`` whose digits, escaped or not and whatever lies between them, hold
    12 of ``CARD``'s in a row (the kept last four can never make 12)."""
    windows = {CARD[i : i + 12] for i in range(len(CARD) - 11)}
    return [
        line
        for line in text.splitlines()
        if any(window in digits_of(unescaped(line)) for window in windows)
    ]


@dataclass(frozen=True)
class Channels:
    """What one runtime handed on after a customer gave it the card number, per channel."""

    websocket: str
    agui_text: str
    database: str
    log: str
    audit: str


def as_lines(frames: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(frame, ensure_ascii=False) for frame in frames)


def tell_the_card(typed: str, folder: Path) -> Channels:
    """Start ``a2ui-runtime serve`` over the ``echo`` fixture (it repeats the customer's words
    in its voice lines, screen, transcript and an audit event) at DEBUG, with an SQLite
    checkpointer and an audit file in ``folder``; tell it ``typed`` once over ``/ws`` and once
    over ``/agui``. The log and the audit file are read once the process has stopped."""
    plugins, log_file, audit_file = (
        folder / "plugins",
        folder / "server.log",
        folder / "audit.jsonl",
    )
    plugins.mkdir()
    (plugins / "echo").symlink_to(FIXTURE_PLUGINS / "echo", target_is_directory=True)
    said = f"my card is {typed}, freeze it"
    args = ["--plugins-dir", str(plugins), "--log-level", "DEBUG"]
    args += ["--storage", f"sqlite:{folder / 'sessions.db'}", "--audit-file", str(audit_file)]
    with log_file.open("wb") as log, runtime_server(*args, log=log) as (address, _):
        with RuntimeClient(address, agent="echo") as client:
            client.receive_turn()
            client.say(said)
        message = {"id": "m1", "role": "user", "content": said}
        events = post_run(f"http://{address}/agui/echo", uuid.uuid4().hex, messages=[message])
        database = database_text(folder)  # while it runs: the -wal still holds the session
    texts = [event for event in events if event["type"].startswith("TEXT_MESSAGE")]
    return Channels(
        websocket=as_lines(client.received),
        agui_text=as_lines(texts),
        database=database,
        log=log_file.read_text(errors="replace"),
        audit=audit_file.read_text(),
    )


@pytest.fixture(scope="module", params=FORMS)
def channels(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Channels]:
    """One runtime per form, searched by every test of the module."""
    yield tell_the_card(request.param, tmp_path_factory.mktemp("masking"))


def test_the_card_number_is_luhn_valid() -> None:
    """Else the masker would rightly leave it alone and the tests below prove nothing."""
    assert luhn_valid(CARD)


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_channel_holds_the_words_masked_and_never_the_card_number(
    channels: Channels, channel: str
) -> None:
    text: str = getattr(channels, channel)
    assert spelling_the_card(text) == []
    assert MASKED in text  # the customer's words got there: the search above was not vacuous
