"""Card numbers are masked wherever the runtime hands text on: the rule, the log filter, structured
values, and real sessions whose database, log, audit file and frames are searched for them."""

from __future__ import annotations

import dataclasses
import enum
import io
import json
import logging
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic.v1
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import BaseModel
from uvicorn.logging import AccessFormatter

from runtime.redaction import (
    MASK,
    MAX_SEPARATORS,
    CardNumberFilter,
    JsonStreamMasker,
    StreamMasker,
    dumps_redacted,
    redact_card_numbers,
    redact_json_text,
    redact_values,
)
from runtime.serving.logging import RuntimeLogHandler, configure_logging
from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import PluginWriter, ServerFactory, runtime_server
from tests.runtime.serving.agui.wire import post_run

CARD = "4929123456734821"


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, digit in enumerate(int(c) for c in reversed(digits)):
        doubled = digit * 2 if position % 2 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return total % 10 == 0


def with_check_digit(body: str) -> str:
    return next(body + d for d in "0123456789" if luhn_valid(body + d))


def digits_of(text: str) -> str:
    """Every decimal digit of ``text``, in ASCII."""
    return "".join(str(int(c)) for c in text if c.isdecimal())


# -- the rule ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my card is 4111.1111.1111.1111, freeze it", "my card is ****1111, freeze it"),
        ("4111/1111/1111/1111", "****1111"),
        ("4111_1111_1111_1111", "****1111"),
        ("4111,1111,1111,1111", "****1111"),
        ("4111    1111    1111    1111", "****1111"),  # runs of four spaces
        ("4111 / 1111 / 1111 / 1111", "****1111"),
        ("4111\u22121111\u22121111\u22121111", "****1111"),  # minus sign
        ("4111\u00b71111\u00b71111\u00b71111", "****1111"),  # middle dot
        ("4111\u200b1111\u200c1111\u200d1111", "****1111"),  # zero-width space, (non-)joiner
        ("4111\u20601111\ufeff1111\u00ad1111", "****1111"),  # word joiner, BOM, soft hyphen
        ("4111 1111 1111 1111 12/27 123", "****1111 12/27 123"),  # expiry and code run on
        ("ref 77 4111 1111 1111 1111 thanks", "ref 77 ****1111 thanks"),  # digits before it
        ("+44 4111 1111 1111 1111", "+44 ****1111"),  # over 15 digits: no phone number
        ("ref 12 + 4222 2222 22222", "ref 12 + ****2222"),  # "+" then a space: no phone number
    ],
)
def test_card_numbers_are_masked_to_their_last_four(text: str, expected: str) -> None:
    assert redact_card_numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2024-11-25, 25/11/2024 and 25.11.2024",  # dates
        "2026-11-22 05:36:39,123 INFO",  # a log timestamp
        "2026-11-22T05:36:39.123456+00:00",  # ISO 8601
        "£1,234,567.89 and 4,111,111.11",  # amounts
        "sort code 12-34-56, account 12345678",
        "12-34-56 12345678",  # a sort code right before an account number
        "call +44 20 7946 0958 or 07700 900123",  # phone numbers
        "ref 12 +4222 2222 22222",  # 13 digits after "+": a phone number
        "4929123456784821",  # 16 digits failing Luhn: a mistyped card number is not masked
        "4111 1111 1111 1112",
        "session 3f2a9c1e-8b7d-4e6f-a1b2-c3d4e5f6a7b8",
        "4111\\u200b1111\\u200b1111\\u200b1111",  # typed text: a backslash is a backslash
    ],
)
def test_other_numbers_are_left_alone(text: str) -> None:
    assert redact_card_numbers(text) == text


#: Separators, one class per line (see ``runtime.redaction``).
SEPARATORS = (
    " \u00a0\u2009\u3000\t\n"
    "-\u2010\u2013\u2014\u2212\uff0d"
    ".\u00b7\u2022\u2027\uff0e"
    ",\u3001\uff0c"
    "/\\\u2215\uff0f"
    "_\uff3f"
    "\u200b\u200c\u200d\u2060\ufeff\u00ad"
    "|'\u2019*~#"  # bars, Swiss grouping, stars, tildes, hashes
    '()[]{}<>"\u201c\u201d\u00ab\u00bb'  # brackets and quotes
    "xX$%&=@\u00a7\u2605"  # x, other symbols
    "\u115f\u1160\u3164\uffa0\u2800"  # Hangul fillers, the blank braille pattern
    "\ufe0f\ufe00\U000e0100\u034f\u180e"  # variation selectors, the grapheme joiner
    "\U000e0001\U000e0020\U000e0041\U000e007f\u2061\u2063"  # tags, invisible operators
)
#: Decimal digits of a few scripts: ASCII, fullwidth, Arabic-Indic, Devanagari.
SCRIPTS = tuple(
    "".join(chr(zero + d) for d in range(10)) for zero in (ord("0"), 0xFF10, 0x0660, 0x0966)
)


@st.composite
def card_numbers(draw: st.DrawFn) -> str:
    """A Luhn-valid card number of 12 to 19 digits (in ASCII)."""
    return with_check_digit(draw(st.text("0123456789", min_size=11, max_size=18)))


@st.composite
def written(draw: st.DrawFn, number: str) -> str:
    """``number`` as someone may write it: in one script, grouped 4-4-4-4, 4-6-5, as one block
    or anyhow, each gap a run of one to ``MAX_SEPARATORS`` separators."""
    script = draw(st.sampled_from(SCRIPTS))
    shown = "".join(script[int(d)] for d in number)
    fours = set(range(4, len(number), 4))
    cuts = draw(
        st.one_of(
            st.just(set()),
            st.just(fours),
            st.just({4, 10} if len(number) == 15 else fours),
            st.sets(st.integers(1, len(number) - 1)),
        )
    )
    gaps = st.text(st.sampled_from(SEPARATORS), min_size=1, max_size=MAX_SEPARATORS)
    return "".join(
        (draw(gaps) if position in cuts else "") + digit for position, digit in enumerate(shown)
    )


#: Text around a number: words, punctuation, separators, and other numbers.
AROUND = st.lists(
    st.one_of(
        st.text(st.characters(categories=["L"]), min_size=1, max_size=8),
        st.text(st.sampled_from(SEPARATORS + ":;()\"'+*#?!"), min_size=1, max_size=3),
        st.sampled_from(["25/11/2024", "£1,234.56", "12-34-56", "07700 900123", "12", "3"]),
        st.integers(0, 10**8).map(str),
    ),
    max_size=6,
).map("".join)


#: A separator (see ``runtime.redaction``): not a letter or a number, a colon or a ``+``; or one
#: of the letters that separate.
SEPARATOR = r"(?:[^\w:+\uff0b]|[_xX\u115f\u1160\u3164\uffa0])"
#: Text after a number that joins its digits to the number's.
RUNS_ON = re.compile(rf"{SEPARATOR}{{0,{MAX_SEPARATORS}}}\d")


def is_subsequence(needle: str, haystack: str) -> bool:
    rest = iter(haystack)
    return all(c in rest for c in needle)


@given(number=card_numbers(), data=st.data(), prefix=AROUND, suffix=AROUND)
def test_any_card_number_written_anyhow_keeps_at_most_its_last_four_digits(
    number: str, data: st.DataObject, prefix: str, suffix: str
) -> None:
    """Whatever surrounds it, the number is masked: redacting only ever removes digits, so the
    number could only survive if the other digits and the kept four could spell it."""
    assume(not prefix.endswith(("+", "\uff0b")))  # a number after "+" is a phone number's
    assume(not prefix[-1:].isdecimal() and not suffix[:1].isdecimal())  # glued: another number
    assume(not is_subsequence(number, digits_of(prefix) + number[-4:] + digits_of(suffix)))
    text = prefix + data.draw(written(number)) + suffix
    redacted = redact_card_numbers(text)
    assert number not in digits_of(redacted), text
    if not RUNS_ON.match(suffix):  # else a stretch ending in the suffix may be masked with it
        assert MASK + number[-4:] in redacted


@given(number=card_numbers(), data=st.data(), prefix=AROUND, suffix=AROUND)
def test_text_streamed_in_pieces_is_masked_as_the_whole_text(
    number: str, data: st.DataObject, prefix: str, suffix: str
) -> None:
    """However a stream cuts the text, ``StreamMasker`` gives out what masking it whole gives."""
    text = prefix + data.draw(written(number)) + suffix
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=12)))
    masker = StreamMasker()
    out = [masker.feed(text[a:b]) for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    assert "".join(out) + masker.flush() == redact_card_numbers(text)


#: One card number written with each kind of separator a probe slipped past an older masker.
DISGUISED = {
    "six spaces": "4111      1111      1111      1111",
    "bars": "4111|1111|1111|1111",
    "Swiss grouping": "4111'1111'1111'1111",
    "right quotes": "4111\u20191111\u20191111\u20191111",
    "stars": "4111*1111*1111*1111",
    "tildes": "4111~1111~1111~1111",
    "hashes": "4111#1111#1111#1111",
    "brackets": "4111)(1111] [1111}{1111",
    "quotes": '4111" "1111\u201d \u201c1111\u00bb\u00ab1111',
    "x": "4111x1111X1111 x 1111",
    "Hangul fillers": "4111\u31641111\u115f1111\u1160\uffa01111",
    "blank braille": "4111\u28001111\u2800\u28001111\u28001111",
    "variation selectors": "4111\ufe0f1111\ufe001111\U000e01001111",
    "keycaps": "4\ufe0f\u20e31\ufe0f\u20e31\u20e31\u20e3 " + "1\ufe0f\u20e3" * 4 + "1\u20e3" * 8,
    "tag characters": "4111\U000e00201111\U000e0041\U000e00421111\U000e007f1111",
    "word joiners": "4111\u2060\u2060\u2060\u2060\u2060\u20601111\u20601111\u20601111",
    "eight of them": "4111 \u200b\u2060|\u3164\ufe0f~ 1111 \u200b\u2060|\u3164\ufe0f~ 1111-1111",
    "digits of four scripts": (
        "\u0664\u0661\u0661\u0661 \uff11\uff11\uff11\uff11 \u0967\u0967\u0967\u0967 1111"
    ),
}


@pytest.mark.parametrize("written", DISGUISED.values(), ids=DISGUISED.keys())
def test_card_numbers_are_masked_whatever_separates_their_digits(written: str) -> None:
    assert (
        redact_card_numbers(f"my card is {written}, freeze it") == "my card is ****1111, freeze it"
    )


#: Decimal digits of more scripts: each digit of a number may be of any of them.
MORE_SCRIPTS = SCRIPTS + tuple(
    "".join(chr(zero + d) for d in range(10))
    for zero in (0x06F0, 0x07C0, 0x09E6, 0x0E50, 0x1D7CE, 0x1D7F6)
)
#: What a keycap adds to its digit: U+20E3, and U+FE0F before it or not.
KEYCAPS = ("\u20e3", "\ufe0f\u20e3")


@st.composite
def disguised(draw: st.DrawFn, digits: str) -> str:
    """``digits`` written to slip past a masker: each digit of any script, or a keycap, and
    every gap zero to ``MAX_SEPARATORS`` separators of any class."""
    gaps = st.text(st.sampled_from(SEPARATORS), max_size=MAX_SEPARATORS)
    written = []
    for position, digit in enumerate(digits):
        shown = draw(st.sampled_from(MORE_SCRIPTS))[int(digit)]
        written += [draw(gaps) if position else "", shown + draw(st.sampled_from(("", *KEYCAPS)))]
    return "".join(written)


#: Words: letters, but those that separate.
WORDS = st.text(
    st.characters(categories=["L"], exclude_characters="xX\u115f\u1160\u3164\uffa0"),
    min_size=1,
    max_size=8,
)


@st.composite
def ordinary_numbers(draw: st.DrawFn) -> str:
    """A date, a time, a date and time, an amount or a phone number, its digits written as
    ``disguised`` writes them, a time's colons and a phone number's ``+`` as they are. A phone
    number has at most 12 digits: the 12 after a longer one's first digit may be a card's."""
    date = draw(st.dates()).strftime(draw(st.sampled_from(["%d%m%Y", "%Y%m%d", "%d%m%y"])))
    time = [f"{n:02}" for n in draw(st.lists(st.integers(0, 59), min_size=2, max_size=3))]
    amount = str(draw(st.integers(0, 10**11 - 1)))
    phone = draw(st.text("0123456789", min_size=10, max_size=12))
    currency = draw(st.sampled_from("£$€"))
    prefix, fields = draw(
        st.sampled_from(
            [
                ("", [date]),
                ("", time),
                ("", [date + time[0], *time[1:]]),
                (currency, [amount]),
                ("+", [phone]),
            ]
        )
    )
    return prefix + ":".join(draw(disguised(field)) for field in fields)


#: Text around a number: words, separators, and ordinary numbers with words between them.
SENTENCES = st.lists(
    st.tuples(WORDS, st.text(st.sampled_from(SEPARATORS), max_size=3), ordinary_numbers()).map(
        "".join
    ),
    max_size=3,
).map("".join)


@given(
    number=card_numbers(),
    data=st.data(),
    prefix=st.tuples(SENTENCES, WORDS, st.text(st.sampled_from(SEPARATORS), max_size=3)),
    suffix=st.tuples(st.text(st.sampled_from(SEPARATORS), max_size=3), WORDS, SENTENCES),
)
def test_a_disguised_card_number_keeps_only_its_last_four_digits(
    number: str, data: st.DataObject, prefix: tuple[str, ...], suffix: tuple[str, ...]
) -> None:
    """Its digits of any script or keycaps, any separators between them: the number is masked
    whole, and nothing around it changes."""
    before, after = "".join(prefix), "".join(suffix)
    text = before + data.draw(disguised(number)) + after
    assert redact_card_numbers(text) == before + MASK + number[-4:] + after, text


@given(text=SENTENCES)
def test_dates_times_amounts_and_phone_numbers_stay_as_they_are(text: str) -> None:
    assert redact_card_numbers(text) == text


@given(number=card_numbers(), data=st.data(), prefix=AROUND, suffix=AROUND)
def test_json_text_streamed_in_pieces_is_masked_as_the_values_it_encodes(
    number: str, data: st.DataObject, prefix: str, suffix: str
) -> None:
    """A tool call's arguments, as ``json.dumps`` writes them: every non-ASCII separator and digit
    escaped (``4501\\u00a05919``, a tag character as a surrogate pair), cut anywhere, even inside
    an escape; what goes out is the JSON of the masked values."""
    value = {"card": prefix + data.draw(disguised(number)) + suffix, "reason": prefix}
    text = json.dumps(value)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(text) - 1), max_size=12)))
    masker = JsonStreamMasker()
    out = [masker.feed(text[a:b]) for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    assert "".join(out) + masker.flush() == json.dumps(redact_values(value))
    assert redact_json_text(text) == json.dumps(redact_values(value))


@given(text=st.text(st.characters(exclude_categories=["Nd"])))
def test_text_without_digits_is_unchanged(text: str) -> None:
    assert redact_card_numbers(text) is text


@pytest.mark.parametrize(
    "text",
    [
        "1" * 100_000,
        "1 " * 50_000,
        "1." * 50_000,
        "1" + "." * 100_000,
        "1\\" * 50_000,
        "...1 " * 20_000,
        "1\\u200b" * 14_000,
        "\\u0031" * 16_000,
        "4111\u200b" * 20_000,
        "1" + "      1" * 14_000,
    ],
    ids=lambda text: repr(text[:12]),
)
def test_adversarial_text_of_100_kb_is_read_once(text: str) -> None:
    """No pattern backtracks over what it read: each of these would take minutes if one did."""
    redact_card_numbers(text)
    logged(text)


# -- log lines --------------------------------------------------------------------------------


def logged(text: str) -> str:
    """``text`` as a log line after the runtime's filter."""
    record = logging.LogRecord("tests", logging.INFO, __file__, 0, text, (), None)
    CardNumberFilter().filter(record)
    return record.getMessage()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('< TEXT \'{"text": ...5673 4821 was stolen"}\' [98 bytes]', "...****4821 was stolen"),
        ('< TEXT \'{"text": "my card 4929 1234 5...', "my card ****..."),
        ("ends \u20265673 4821", "ends \u2026****4821"),
        ("...4821", "...4821"),  # four digits are only the last four
        ("'4929.1234...5673.4821'", "'****...****4821'"),
        # repr() and JSON escapes count as the characters they stand for
        ("'my card 4111\\xa01111\\u200b1111\\n1111'", "'my card ****1111'"),
        ('"\\uff14\\uff11\\uff11\\uff11 1111 1111 1111"', '"****1111"'),
        ("'\\\\u200b4111\\\\u200b1111\\\\u200b1111\\\\u200b1111'", "'\\\\u200b****1111'"),
    ],
)
def test_log_lines_mask_cut_numbers_and_escaped_ones(text: str, expected: str) -> None:
    assert expected in logged(text)


@given(number=card_numbers(), data=st.data())
def test_a_card_number_cut_anywhere_leaves_at_most_four_digits_together(
    number: str, data: st.DataObject
) -> None:
    """A truncated repr keeps a head and a tail of the text: neither may show 5+ of its digits."""
    shown = data.draw(written(number))
    cut_from = data.draw(st.integers(0, len(shown)))
    cut_to = data.draw(st.integers(cut_from, len(shown)))
    line = logged(f"card {shown[:cut_from]}...{shown[cut_to:]} end")
    for piece in re.split(r"\.\.\.|[^\d" + re.escape(SEPARATORS) + "]", line):
        assert len(digits_of(piece)) <= 4, line


@pytest.fixture
def log() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger whose one handler formats like the runtime's and carries the filter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(CardNumberFilter())
    logger = logging.getLogger("tests.redaction")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    yield logger, stream
    logger.removeHandler(handler)


def test_arguments_of_every_shape_are_redacted(log: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = log
    logger.debug("heard %r", f"my card is {CARD}")
    logger.info("as int %d", int(CARD))
    logger.info("split %s%s", CARD[:8], CARD[8:])
    logger.info("%(card)s by name", {"card": "4929-1234-5673-4821"})
    logger.info(ValueError(f"a message that is an object {CARD}"))
    logger.info("a bad format call %d", "4929 1234 5673 4821")
    output = stream.getvalue()
    assert CARD not in re.sub(r"[\s-]", "", output)
    assert output.count("****4821") == 6
    assert "heard 'my card is ****4821'" in output
    assert "****4821 by name" in output


def test_tracebacks_and_extra_fields_are_redacted(log: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = log
    handler = logger.handlers[0]
    handler.setFormatter(logging.Formatter("%(message)s card=%(card)s"))
    try:
        raise ValueError(f"no such card {CARD}")
    except ValueError:
        logger.exception("lookup failed", extra={"card": CARD})
    output = stream.getvalue()
    assert CARD not in output
    assert "ValueError: no such card ****4821" in output
    assert "lookup failed card=****4821" in output


def test_uvicorn_access_lines_keep_their_format(log: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = log
    logger.handlers[0].setFormatter(
        AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False)
    )
    logger.info(
        '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", f"/health?card={CARD}", "1.1", 200
    )
    assert stream.getvalue() == '127.0.0.1:5000 - "GET /health?card=****4821 HTTP/1.1" 200 OK\n'


#: Loggers the log tests write to; a server started earlier in the same process may have left
#: a level on them (uvicorn sets ``uvicorn.error``'s from its ``log_level``).
LOGGERS = ("uvicorn.error", "websockets.server", "runtime.serving.websocket.session")


@pytest.fixture
def runtime_logging() -> Iterator[None]:
    """The loggers as a fresh process has them; the root logger restored after
    ``configure_logging`` has changed it."""
    root = logging.getLogger()
    level = root.level
    levels = {name: logging.getLogger(name).level for name in LOGGERS}
    for name in LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET)
    yield
    for handler in [h for h in root.handlers if isinstance(h, RuntimeLogHandler)]:
        root.removeHandler(handler)
    root.setLevel(level)
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)


@pytest.mark.usefixtures("runtime_logging")
def test_the_runtime_log_setup_redacts_every_logger(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("DEBUG")
    logging.getLogger("uvicorn.error").info('"WebSocket /ws?agent=lost_card&n=%s" [accepted]', CARD)
    logging.getLogger("websockets.server").debug("< TEXT %r", f'{{"text": "{CARD}"}}')
    logging.getLogger("runtime.serving.websocket.session").warning(f"no formatting args: {CARD}")
    err = capsys.readouterr().err
    assert CARD not in err
    assert err.count("****4821") == 3


# -- structured values ------------------------------------------------------------------------


class Said(BaseModel):
    message_id: str
    text: str


@dataclasses.dataclass(frozen=True)
class Turn:
    user_id: str
    said: Said
    update: dict[str, Any]


def test_every_string_at_any_depth_is_masked_but_identifiers_and_keys() -> None:
    number = "4111 1111 1111 1111"
    turn = Turn(
        user_id=number,
        said=Said(message_id=number, text=f"card {number}"),
        update={
            number: [f"a {number}", (number, 4111111111111111)],
            "id": number,
            "toolCallId": number,
            "pending_ids": [number],
            "paid": number,
        },
    )
    assert redact_values(turn) == Turn(
        user_id=number,
        said=Said(message_id=number, text="card ****1111"),
        update={
            number: ["a ****1111", ("****1111", 4111111111111111)],
            "id": number,
            "toolCallId": number,
            "pending_ids": [number],
            "paid": "****1111",
        },
    )


class Note:
    """A plain object, as agents put in their state."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.again = self  # a cycle: walked once


class Kind(enum.Enum):
    CARD = "4111 1111 1111 1111"


def test_pydantic_v1_models_and_plain_objects_are_copied_masked_but_enums_kept() -> None:
    """As langchain-core 0.2's messages are (``pydantic.v1``), in an isolated agent's worker."""

    class Message(pydantic.v1.BaseModel):
        content: str
        id: str

    number = "4111 1111 1111 1111"
    message, note = Message(content=f"card {number}", id=number), Note(f"card {number}")
    masked = redact_values([message, note, Kind.CARD, ValueError(number)])
    assert masked[0] == Message(content="card ****1111", id=number)
    assert masked[1].text == "card ****1111" and note.text == f"card {number}"
    assert masked[2] is Kind.CARD and masked[3].args == (number,)  # their own state: kept


#: Separators JSON writes as escapes (``\t``, ``\u001f``, ``\\``): its scan must read them too.
ESCAPED_SEPARATORS = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\\"


@given(
    number=card_numbers(),
    gaps=st.lists(
        st.text(st.sampled_from(SEPARATORS + ESCAPED_SEPARATORS), max_size=MAX_SEPARATORS),
        min_size=19,
        max_size=19,
    ),
    prefix=AROUND,
    suffix=AROUND,
)
def test_json_is_masked_as_the_values_it_encodes(
    number: str, gaps: list[str], prefix: str, suffix: str
) -> None:
    """``dumps_redacted`` skips the walk only when its JSON cannot hold a card number: whatever
    separates the digits, its text is that of the masked values."""
    text = prefix + "".join(gap + digit for gap, digit in zip(gaps, number, strict=False)) + suffix
    value = {"id": text, "said": [text, {"text": text}], "at": 1.5}
    assert dumps_redacted(value) == json.dumps(
        redact_values(value), separators=(",", ":"), ensure_ascii=False
    )


# -- end to end -------------------------------------------------------------------------------

#: The forms of ``CARD`` a customer may type (the first as in the report that found the leak).
TYPED = (
    "4111.1111.1111.1111",
    "4929.1234.5673.4821",
    "4929/1234/5673/4821",
    "4929_1234_5673_4821",
    "4929,1234,5673,4821",
    "4929    1234    5673    4821",
    "4929 / 1234 / 5673 / 4821",
    "4929\u22121234\u22125673\u22124821",
    "4929\u200b1234\u200c5673\u200d4821",
    "4929\u20601234\ufeff5673\u00b74821",
    "\uff14\uff19\uff12\uff19 \uff11\uff12\uff13\uff14 5673 4821",
)
NUMBERS = ("4111111111111111", CARD)
_ESCAPED = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8}))")


def leaked(text: str) -> list[str]:
    """The lines of ``text`` holding 12 digits of a number of ``NUMBERS`` in a row, whatever
    separates them, escaped or not (the kept last four can never make 12)."""
    found = []
    for line in text.splitlines():
        line = _ESCAPED.sub(lambda m: chr(int("".join(filter(None, m.groups())), 16)), line)
        # Every separator dropped, letters too (x, Hangul fillers); a mask's stars stay, so the
        # kept last four never join what precedes them.
        plain = re.sub(r"[^0-9*]", "", "".join(digits_of(c) or c for c in line))
        windows = {n[i : i + 12] for n in NUMBERS for i in range(len(n) - 11)}
        if any(window in plain for window in windows):
            found.append(line)
    return found


def database_text(folder: Path) -> str:
    """The raw bytes of every SQLite file in ``folder`` (the database, its -wal, -shm), as text."""
    return "\n".join(
        path.read_bytes().decode("utf-8", errors="replace")
        for path in sorted(folder.glob("sessions.db*"))
        if path.is_file()  # not the folder of session locks beside it
    )


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``a2ui-runtime serve`` over the project's plugins at DEBUG, with an SQLite checkpointer
    and an audit file in ``tmp_path``; yields its address and ``tmp_path`` (``server.log``)."""
    database = f"sqlite:{tmp_path / 'sessions.db'}"
    args = ("--log-level", "DEBUG", "--storage", database)
    with (
        (tmp_path / "server.log").open("wb") as log,
        runtime_server(*args, "--audit-file", str(tmp_path / "audit.jsonl"), log=log) as served,
    ):
        yield served[0], tmp_path


def test_a_lost_card_session_stores_logs_audits_and_sends_no_card_number(
    served: tuple[str, Path],
) -> None:
    address, folder = served
    frames = []
    for typed in TYPED:  # a session each: a second request would wait for the first's answer
        with RuntimeClient(address, agent="lost_card") as client:
            client.receive_turn()
            client.say(f"my card is {typed}, freeze it")
            frames += client.received
    thread = uuid.uuid4().hex
    said = {"id": "m1", "role": "user", "content": f"my card is {TYPED[0]}, freeze it"}
    frames += post_run(f"http://{address}/agui/lost_card", thread, messages=[said])
    stored, log = database_text(folder), (folder / "server.log").read_text()
    assert "heard 'my card is ****1111, freeze it'" in log  # the words were logged, masked
    assert "my card is ****4821, freeze it" in stored  # and stored, masked
    assert leaked(stored) == []
    assert leaked(log) == []
    assert leaked((folder / "audit.jsonl").read_text()) == []
    assert leaked("\n".join(json.dumps(f, ensure_ascii=False) for f in frames)) == []


#: A plugin whose agent recalls a card number by itself (as a model echoing a tool's answer).
LEAKY = {
    "__init__.py": "",
    "plugin.py": f'''
from typing import Any

from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph

from runtime.contract.state import CommonState, event
from runtime.contract.plugin import PluginBase

CARD = "{" ".join(CARD[i : i + 4] for i in range(0, 16, 4))}"


class LeakyPlugin(PluginBase):
    plugin_id = "leaky"
    title = "Leaky"

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(CommonState)
        graph.add_node("recall", recall)
        graph.add_edge(START, "recall")
        graph.add_edge("recall", END)
        return graph


def recall(state: CommonState) -> dict[str, Any]:
    get_store().put(("cards",), "recalled", {{"number": CARD}})
    line = f"Your card {{CARD}} is frozen."
    update = {{"surfaceId": "leaky", "value": {{"card": CARD}}}}
    model = {{"version": "v0.9", "updateDataModel": update}}
    return {{
        "ui": {{"leaky": [model]}},
        "outbox": [
            event("server.voice.say", text=line),
            event("server.transcript.final", text=line),
            event("server.a2ui.patch", **model),
            event("server.audit.event", action="leaky.recalled", card=CARD),
        ],
    }}
''',
}


def test_what_a_plugin_writes_itself_is_masked_everywhere(
    start_server: ServerFactory, plugins_dir: Path, write_plugin: PluginWriter, tmp_path: Path
) -> None:
    """Its state (the checkpoint), its store, the wire and the audit log."""
    write_plugin(plugins_dir, "leaky", LEAKY)
    audit = tmp_path / "audit.jsonl"
    database = f"sqlite:{tmp_path / 'sessions.db'}"
    with start_server(audit_file=audit, storage=database) as address:
        with RuntimeClient(address, agent="leaky") as client:
            client.receive_turn()
            client.say("what is my card?")
            frames = list(client.received)
        frames += post_run(f"http://{address}/agui/leaky", uuid.uuid4().hex)
    assert "****4821" in json.dumps(frames)
    assert leaked("\n".join(json.dumps(f, ensure_ascii=False) for f in frames)) == []
    assert "****4821" in audit.read_text()
    assert leaked(audit.read_text()) == []
    stored = database_text(tmp_path)
    assert '{"number":"****4821"}' in stored  # the store's row
    assert "Your card ****4821 is frozen." in stored  # the checkpoint's outbox
    assert leaked(stored) == []


#: A plugin whose agent calls a tool with a card number, its groups apart by no-break spaces:
#: the arguments' JSON text escapes them (``4929\\u00a01234``).
CALLER = {
    "__init__.py": "",
    "plugin.py": f'''
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph

from runtime.contract.state import CommonState
from runtime.contract.plugin import PluginBase

CARD = "\\u00a0".join("{CARD}"[i : i + 4] for i in range(0, 16, 4))


class CallerPlugin(PluginBase):
    plugin_id = "caller"
    title = "Caller"

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(CommonState)
        graph.add_node("call", call)
        graph.add_edge(START, "call")
        graph.add_edge("call", END)
        return graph


def call(state: CommonState) -> dict[str, Any]:
    block = {{"name": "block_card", "args": {{"card": CARD}}, "id": "call-1"}}
    return {{"messages": [AIMessage(content="", tool_calls=[block])]}}
''',
}


def test_tool_call_arguments_with_an_escaped_separator_are_sent_masked(
    start_server: ServerFactory, plugins_dir: Path, write_plugin: PluginWriter
) -> None:
    write_plugin(plugins_dir, "caller", CALLER)
    with start_server() as address:
        frames = post_run(f"http://{address}/agui/caller", uuid.uuid4().hex)
    args = "".join(f["delta"] for f in frames if f["type"] == "TOOL_CALL_ARGS")
    assert json.loads(args) == {"card": "****4821"}
    assert leaked("\n".join(json.dumps(f) for f in frames)) == []


def test_click_data_is_masked_before_the_plugin_sees_it(
    start_server: ServerFactory, tmp_path: Path
) -> None:
    with start_server(storage=f"sqlite:{tmp_path / 'sessions.db'}") as address:
        with RuntimeClient(address, agent="echo") as client:
            client.receive_turn()
            client.send("client.ui.action", actionId="echo.press", data={"card": TYPED[2]})
            client.receive_turn()
        stored = database_text(tmp_path)
    assert "pressed echo.press {'card': '****4821'}" in stored
    assert leaked(stored) == []
