"""Card numbers never reach a log line.

The rule is runtime-wide, not a plugin's: whatever a user types or says can end up in a log record
(a transcript logged at DEBUG, a query string in uvicorn's access line, a traceback quoting a
value), so every handler the runtime sets up carries ``CardNumberFilter``.

A card number here is 12 or more digits, optionally separated by spaces or dashes (up to three
separator characters between two digits, so "4929 - 1234" counts). Card numbers have 12 to 19
digits; longer runs are masked too, because a 16-digit number glued to other digits is still a card
number. The last four digits stay, as on a receipt, so support staff can still tell cards apart.

A log line may also hold a *truncated* representation: websockets logs a long frame at DEBUG as its
head, ``...`` and its tail, which can cut a card number in two. Any run of five or more digits that
touches an ellipsis may be part of one, so it is masked as well (keeping at most four digits).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

#: Separators accepted between digits: whitespace, the ASCII hyphen and the Unicode dashes.
_SEPARATOR = r"[\s\-\u2010-\u2015]{0,3}"
CARD_NUMBER = re.compile(rf"(?<!\d)\d(?:{_SEPARATOR}\d){{11,}}(?!\d)")
_ELLIPSIS = r"(?:\.\.\.|\u2026)"
#: Five or more digits just after an ellipsis: the tail of a cut number, which keeps its last four.
_CUT_TAIL = re.compile(rf"({_ELLIPSIS}{_SEPARATOR})(\d(?:{_SEPARATOR}\d){{4,}})(?!\d)")
#: Five or more digits just before an ellipsis: the head of a cut number, masked whole.
_CUT_HEAD = re.compile(rf"(?<!\d)\d(?:{_SEPARATOR}\d){{4,}}(?={_SEPARATOR}{_ELLIPSIS})")
MASK = "****"

#: Attributes every LogRecord has; anything else on a record came in through ``extra=``.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
}


def _masked(number: str) -> str:
    return MASK + "".join(c for c in number if c.isdigit())[-4:]


def redact_card_numbers(text: str) -> str:
    """Replace every card number in ``text`` by ``****`` and its last four digits.

    Cut numbers are masked too: a tail keeps its last four digits, a head keeps none.
    """
    text = CARD_NUMBER.sub(lambda m: _masked(m.group()), text)
    text = _CUT_TAIL.sub(lambda m: m.group(1) + _masked(m.group(2)), text)
    return _CUT_HEAD.sub(MASK, text)


def _redact_value(value: Any) -> Any:
    return redact_card_numbers(value) if isinstance(value, str) else value


def redact_record(record: logging.LogRecord) -> None:
    """Redact a record in place: message, arguments, ``extra`` fields, traceback and stack.

    String arguments are redacted one by one so formatters that read ``record.args`` themselves
    (uvicorn's access formatter unpacks them) keep working. If the formatted message still holds a
    card number (an ``int`` argument, or a number split over two arguments), the record collapses
    to its redacted, already formatted message.
    """
    if isinstance(record.msg, str):
        record.msg = redact_card_numbers(record.msg)
    if isinstance(record.args, tuple):
        record.args = tuple(_redact_value(arg) for arg in record.args)
    elif isinstance(record.args, Mapping):
        record.args = {key: _redact_value(arg) for key, arg in record.args.items()}
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # a bad format call: keep what it said, without the digits
        message = f"{record.msg} {record.args!r}"
        record.msg, record.args = message, ()
    if (redacted := redact_card_numbers(message)) != message:
        record.msg, record.args = redacted, ()
    for name, value in list(vars(record).items()):
        if name not in _RECORD_ATTRIBUTES and isinstance(value, str):
            setattr(record, name, redact_card_numbers(value))
    if record.exc_info and not record.exc_text:
        # Formatters render a traceback once and reuse ``exc_text``: render it now, redacted.
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact_card_numbers(record.exc_text)
    if record.stack_info:
        record.stack_info = redact_card_numbers(record.stack_info)


class CardNumberFilter(logging.Filter):
    """A handler filter that redacts card numbers from every record the handler emits.

    Install it on *handlers*, not loggers: a logger's filters do not see records propagated from
    its children, a handler's filters see every record it formats.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True
