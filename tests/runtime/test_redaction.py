"""Card numbers never reach a log line: the masking rule and the handler filter that applies it."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from uvicorn.logging import AccessFormatter

from runtime.logging import RuntimeLogHandler, configure_logging
from runtime.redaction import CARD_NUMBER, CardNumberFilter, redact_card_numbers

CARD = "4929123456784821"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (CARD, "****4821"),
        ("my card is 4929 1234 5678 4821, thanks", "my card is ****4821, thanks"),
        ("4929-1234-5678-4821", "****4821"),
        ("4929 - 1234 - 5678 - 4821", "****4821"),
        ("4929\u20131234\u20135678\u20134821", "****4821"),  # en dashes
        ("371449635398431", "****8431"),  # 15 digits (Amex)
        ("123456789012", "****9012"),  # 12 digits, the shortest card number
        ("6304 0000 0000 0000 018", "****0018"),  # 19 digits, the longest
        ("cards 4929123456784821 and 5500000000000004", "cards ****4821 and ****0004"),
    ],
)
def test_card_numbers_are_masked_to_their_last_four(text: str, expected: str) -> None:
    assert redact_card_numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-22 05:36:39,123 INFO",  # timestamps
        "call 0306 999 0123",  # an 11-digit phone number
        "£649.99 at ElectroWorld Online",
        "the last four digits are 4821",
        "session 3f2a9c1e-8b7d-4e6f-a1b2-c3d4e5f6a7b8",
        "12345678901",  # 11 digits
    ],
)
def test_other_numbers_are_left_alone(text: str) -> None:
    assert redact_card_numbers(text) == text


SEPARATORS = st.sampled_from(["", "", "", " ", "-", "  ", " - ", "\u2013", "\u00a0"])
NO_DIGITS = st.text(st.characters(blacklist_categories=("Nd",)), max_size=30)


@st.composite
def card_numbers(draw: st.DrawFn) -> str:
    """12 to 19 digits, grouped any way, with any of the separators people type."""
    digits = draw(st.text("0123456789", min_size=12, max_size=19))
    return digits[0] + "".join(draw(SEPARATORS) + digit for digit in digits[1:])


@given(prefix=NO_DIGITS, number=card_numbers(), suffix=NO_DIGITS)
def test_any_card_number_shape_keeps_only_its_last_four(
    prefix: str, number: str, suffix: str
) -> None:
    redacted = redact_card_numbers(f"{prefix}{number}{suffix}")
    last4 = re.sub(r"\D", "", number)[-4:]
    assert re.sub(r"\D", "", redacted) == last4
    assert f"****{last4}" in redacted
    assert CARD_NUMBER.search(redacted) is None
    assert redact_card_numbers(redacted) == redacted


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('< TEXT \'{"text": ...5678 4821 was stolen"}\' [98 bytes]', "...****4821 was stolen"),
        ('< TEXT \'{"text": "my card 4929 1234 5...', "my card ****..."),
        ("ends \u20265678 4821", "ends \u2026****4821"),
        ("...4821", "...4821"),  # four digits are only the last four
    ],
)
def test_numbers_cut_by_an_ellipsis_are_masked(text: str, expected: str) -> None:
    assert expected in redact_card_numbers(text)


@given(number=card_numbers(), data=st.data())
def test_a_card_number_cut_anywhere_leaves_at_most_four_digits_together(
    number: str, data: st.DataObject
) -> None:
    """A truncated repr keeps a head and a tail of the text: neither may show 5+ of its digits."""
    cut_from = data.draw(st.integers(0, len(number)))
    cut_to = data.draw(st.integers(cut_from, len(number)))
    text = f"card {number[:cut_from]}...{number[cut_to:]} end"
    for run in re.findall(r"\d(?:[\s\-\u2010-\u2015]{0,3}\d)*", redact_card_numbers(text)):
        assert len(re.sub(r"\D", "", run)) <= 4, text


@given(text=st.text(st.characters(blacklist_categories=("Nd",))))
def test_text_without_digits_is_unchanged(text: str) -> None:
    assert redact_card_numbers(text) == text


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
    logger.info("%(card)s by name", {"card": "4929-1234-5678-4821"})
    logger.info(ValueError(f"a message that is an object {CARD}"))
    logger.info("a bad format call %d", "4929 1234 5678 4821")
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


@pytest.fixture
def runtime_logging() -> Iterator[None]:
    """Restore the root logger after ``configure_logging`` has changed it."""
    root = logging.getLogger()
    level = root.level
    yield
    for handler in [h for h in root.handlers if isinstance(h, RuntimeLogHandler)]:
        root.removeHandler(handler)
    root.setLevel(level)


@pytest.mark.usefixtures("runtime_logging")
def test_the_runtime_log_setup_redacts_every_logger(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("DEBUG")
    logging.getLogger("uvicorn.error").info('"WebSocket /ws?agent=lost_card&n=%s" [accepted]', CARD)
    logging.getLogger("websockets.server").debug("< TEXT %r", f'{{"text": "{CARD}"}}')
    logging.getLogger("runtime.session").warning(f"no formatting args: {CARD}")
    err = capsys.readouterr().err
    assert CARD not in err
    assert err.count("****4821") == 3
