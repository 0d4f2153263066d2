"""Card numbers are masked wherever the runtime hands text on: stored, logged, audited or sent.

The rule is runtime-wide, not a plugin's, so no plugin has to remember it: the turn engine masks a
turn's request before the graph sees it, what a graph writes is masked on its way into the
checkpoint (``TurnWrites``) and the plugin store (``PluginStore``), the WebSocket and AG-UI
encoders mask every event they send, the audit log masks every entry, and every log handler the
runtime sets up carries ``CardNumberFilter``. Text streamed in pieces (AG-UI's deltas of a model's
text and of a tool call's arguments) goes through a ``StreamMasker`` (a ``JsonStreamMasker`` for
the arguments, JSON text), which holds back the end of what it has seen while that end could still
be part of a card number, so a number split across deltas is masked whole.

**What counts as a card number**: 12 to 19 digits that pass the Luhn check, written as one block
or in groups separated by at most ``MAX_SEPARATORS`` separator characters. A digit is any Unicode
decimal digit (fullwidth, Arabic-Indic...), because ``int()`` reads them all, or a keycap (a
digit, U+FE0F and U+20E3, which count as no separators); the kept four are written in ASCII. A
separator is any character that is not a letter or a number, since any of them may stand between
digit groups (``4111|1111``, Swiss ``4111'1111``, ``(4111) [1111]``, ``4111 ~ 1111``): spaces,
punctuation, symbols (the blank braille pattern U+2800 too), marks (variation selectors), format
and control characters (zero-width spaces and joiners, word joiners, tag characters); and the
underscore, ``x``/``X`` and the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), which show
nothing. Colons and ``+`` are not separators: a time (``10:30:15``) and a phone number (``+44``)
join no numbers. Numbers are found in text as it is read, so where text is encoded its escapes
count as the characters they stand for: in log lines, which quote text with ``repr()`` and JSON
(``\\u200b``), and in a tool call's JSON arguments (``redact_json_text``), as ``json.dumps``
escapes every non-ASCII character; elsewhere a backslash is a backslash.

The Luhn check keeps ordinary numbers readable (amounts, dates, sort codes, account and phone
numbers, references): a run of digits that is not a card number passes it only one time in ten.
The price is that a mistyped card number (one wrong digit always fails Luhn) is not masked. When
digits run on around a card number ("order 77: 12 4111 1111 1111 1111 12/27"), every group-aligned
stretch of 12 to 19 digits that passes Luhn is masked, so the card is masked whatever sits next to
it; but digits glued to it with no separator at all make another, longer number. A number written
after ``+`` with at most 15 digits is an international phone number, not a card number.

The last four digits stay (``****1111``), as on a receipt, so support staff can still tell cards
apart.

A log line may also hold a *truncated* representation: websockets logs a long frame at DEBUG as
its head, ``...`` and its tail, which can cut a card number in two. In log lines, any run of five
or more digits that touches an ellipsis may be part of one, so it is masked as well (a tail keeps
its last four digits, a head none).

Identifiers are left alone in structured data (``redact_values``): a value under a key named
``id`` or ending in ``Id``/``_id`` is chosen by software, not typed by a customer, and changing one
(a run id that happens to be a Luhn-valid timestamp) would break the protocol that carries it.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import json
import logging
import re
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final, TypeVar, cast

#: The most separator characters (or escapes) between two digit groups of one number: enough for
#: "4111 / 1111" and for a few invisible characters, few enough that numbers apart in a sentence
#: stay apart.
MAX_SEPARATORS: Final = 8
MIN_DIGITS: Final = 12
MAX_DIGITS: Final = 19
#: A cut number is masked from this many digits on: four are only ever a card's last four.
MIN_CUT_DIGITS: Final = 5
MASK: Final = "****"

#: Colons and plus signs join no numbers: times and phone numbers stay apart.
_COLONS = ":\u2236\ufe13\ufe55\uff1a"
_PLUSES = "+\ufe62\uff0b"
#: Letters that separate: ``x`` (``4111x1111``) and the Hangul fillers, which show nothing.
_SEPARATING_LETTERS = "xX\u115f\u1160\u3164\uffa0"
#: What may stand between digit groups (see the module docstring): not a letter or a number
#: (``\w``), colons and pluses aside; or the underscore, or a separating letter.
_SEPARATOR = rf"(?:[^\w{_COLONS}{_PLUSES}]|[_{_SEPARATING_LETTERS}])"
#: A digit, or a keycap: its U+FE0F and U+20E3 belong to it and count as no separators.
_DIGIT = r"\d(?:\ufe0f?\u20e3)?"
#: The most characters a keycap adds to its digit.
_KEYCAP_MARKS = 2
#: The most characters between two digits of one number, in text as typed.
_MAX_GAP = MAX_SEPARATORS + _KEYCAP_MARKS
#: A character escaped as ``repr()`` and JSON write one (``\xa0``, ``\u200b``, ``\uff14``, ``\n``):
#: in a log line it counts as the character it stands for (a digit, a separator, or neither).
_ESCAPE = r"\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[nrt])"
_ESCAPED_WHITESPACE: Final = {"n": "\n", "r": "\r", "t": "\t"}
_IS_SEPARATOR = re.compile(_SEPARATOR)


@dataclasses.dataclass(frozen=True)
class _Syntax:
    """How numbers are written in some text: ``number`` finds text that may hold one (a digit,
    then digits and separators), ``part`` reads it: ``digits`` (keycaps too), an ``escape``, a
    ``stop`` (a colon or a plus: the number ends there) or separators. Digits and separators
    never overlap (a keycap's marks and an escape's backslash overlap with a separator for at
    most two characters), so both run in linear time on any text."""

    number: re.Pattern[str]
    part: re.Pattern[str]


#: Text as typed: a backslash is a backslash. ``number`` reads from a digit to the last digit
#: before a letter, colons and pluses included (``part`` reads them as stops): one character
#: class reads most text twice as fast as a separator's two and the colons' test; and separators
#: after the last digit would make short text (a date) long enough to be read.
_TEXT = _Syntax(
    re.compile(rf"{_DIGIT}(?:[\d\W_{_SEPARATING_LETTERS}]*{_DIGIT})?"),
    re.compile(rf"(?P<digits>(?:{_DIGIT})+)|(?P<stop>[{_COLONS}{_PLUSES}])|{_SEPARATOR}+"),
)
#: Log lines, which quote text: escapes count as what they stand for.
_LOG = _Syntax(
    re.compile(rf"(?:\d|\\u[0-9A-Fa-f]{{4}}|\\U[0-9A-Fa-f]{{8}})(?:\d|{_ESCAPE}|{_SEPARATOR})*"),
    re.compile(rf"(?P<digits>(?:{_DIGIT})+)|(?P<escape>{_ESCAPE})|{_SEPARATOR}"),
)
_ELLIPSIS = re.compile(r"\.\.\.|\u2026")
#: What text holding a card number always holds (``_TEXT``): 12 digits, each at most
#: ``_MAX_GAP`` characters after the one before. Text without it is returned at once.
_MAY_HOLD_CARD = re.compile(rf"\d(?:\D{{0,{_MAX_GAP}}}\d){{{MIN_DIGITS - 1}}}")
#: The same in JSON text, where a separator may be written as an escape (``\n``, ``\u001f``,
#: ``\\``): an escape counts as one character.
_MAY_HOLD_CARD_JSON = re.compile(
    rf"\d(?:(?>\\u[0-9A-Fa-f]{{4}}|\\.|\D){{0,{_MAX_GAP}}}\d){{{MIN_DIGITS - 1}}}"
)
_AFTER_ELLIPSIS = re.compile(
    rf"(?:\.\.\.|\u2026)(?:{_ESCAPE}|{_SEPARATOR}){{0,{MAX_SEPARATORS}}}\Z"
)
#: How far back ``_AFTER_ELLIPSIS`` may reach: an ellipsis and the longest separators (escapes).
_ELLIPSIS_REACH = 3 + MAX_SEPARATORS * len(r"\U0010ffff")
_PHONE_PREFIXES = frozenset(_PLUSES)
#: A phone number has at most 15 digits (E.164): a longer number after ``+`` may be a card's.
MAX_PHONE_DIGITS: Final = 15
_IDENTIFIER = re.compile(r"(?:^|_)ids?$|[a-z]Ids?$")

#: Attributes every LogRecord has; anything else on a record came in through ``extra=``.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
}

T = TypeVar("T")
#: Values that hold no text: most of a state's leaves, returned at once.
_SCALARS: Final = frozenset({type(None), bool, int, float})
#: Values the walk skips below a length: strings too short to hold a card number, and empty
#: containers (a message's empty ``additional_kwargs``, its empty ``tool_calls``).
_SIZED: Final[dict[type, int]] = {str: MIN_DIGITS, dict: 1, list: 1, tuple: 1}


@dataclasses.dataclass(frozen=True)
class _Group:
    """Consecutive digits: where they are in the text, and their values in ASCII."""

    start: int
    end: int
    digits: str


@dataclasses.dataclass
class _Chain:
    """Digit groups one number may span: at most ``MAX_SEPARATORS`` separators between two."""

    groups: list[_Group] = dataclasses.field(default_factory=list)
    #: For each gap between two groups: whether it holds an ellipsis (a cut, in a log line).
    cuts: list[bool] = dataclasses.field(default_factory=list)
    follows_ellipsis: bool = False
    precedes_ellipsis: bool = False
    #: The chain comes right after a ``+``: an international phone number.
    follows_plus: bool = False


def _ascii(digits: str) -> str:
    """``digits`` (a part's, keycaps' marks and all) as ASCII digits."""
    return digits if digits.isascii() else "".join(str(int(c)) for c in digits if c.isdecimal())


def _unescape(escape: str) -> str:
    if escape[1] in _ESCAPED_WHITESPACE:
        return _ESCAPED_WHITESPACE[escape[1]]
    code = int(escape[2:], 16)
    return chr(code) if code <= sys.maxunicode else ""


def _chains(text: str, number: re.Match[str], syntax: _Syntax) -> list[_Chain]:
    """The chains of digit groups in ``number``, a match of ``syntax.number``."""
    start, end = number.span()
    lookback = _AFTER_ELLIPSIS.search(text, max(0, start - _ELLIPSIS_REACH), start)
    chain = _Chain(
        follows_ellipsis=lookback is not None,
        follows_plus=text[start - 1 : start] in _PHONE_PREFIXES,
    )
    chains = [chain]
    gap_start, gap = start, 0  # the separators since the last group: where they start, how many
    position = start
    while position < end:
        part = syntax.part.match(text, position)
        assert part is not None  # syntax.number matches nothing else
        kind = part.lastgroup  # None: separators
        digits = part.group() if kind == "digits" else None
        separator = kind is None
        if kind == "escape":
            character = _unescape(part.group())
            if character.isdecimal():
                digits = character
            separator = _IS_SEPARATOR.fullmatch(character) is not None
        if digits is not None:
            ellipsis = _ELLIPSIS.search(text, gap_start, part.start()) is not None
            if chain.groups and gap == 0:  # digits right after digits: one group
                last = chain.groups.pop()
                chain.groups.append(_Group(last.start, part.end(), last.digits + _ascii(digits)))
            else:
                if chain.groups and gap > MAX_SEPARATORS:
                    chain.precedes_ellipsis = ellipsis
                    chain = _Chain(follows_ellipsis=ellipsis)
                    chains.append(chain)
                elif chain.groups:
                    chain.cuts.append(ellipsis)
                else:
                    chain.follows_ellipsis = chain.follows_ellipsis or ellipsis
                chain.groups.append(_Group(part.start(), part.end(), _ascii(digits)))
            gap_start, gap = part.end(), 0
        elif separator:  # typed, or one escaped
            gap += 1 if kind == "escape" else part.end() - part.start()
        else:  # a stop, or a letter escaped: the number ends here
            chain.precedes_ellipsis = _ELLIPSIS.search(text, gap_start, part.start()) is not None
            plus = part.group() in _PHONE_PREFIXES and text[part.end() : part.end() + 1].isdecimal()
            chain = _Chain(follows_plus=plus)
            chains.append(chain)
            gap_start, gap = part.end(), 0
        position = part.end()
    chain.precedes_ellipsis = _ELLIPSIS.search(text, gap_start, end) is not None
    return [chain for chain in chains if chain.groups]


def _doubled(digit: int) -> int:
    return digit * 2 - 9 if digit > 4 else digit * 2


class _Luhn:
    """Luhn checks of any stretch of a digit string, each in constant time (prefix sums)."""

    def __init__(self, digits: str) -> None:
        # sums[parity][n]: the Luhn sum of digits[:n] with the digits at even (0) or odd (1)
        # positions doubled; a stretch ending at b doubles the positions of the parity of b.
        self.sums = ([0], [0])
        for position, character in enumerate(digits):
            digit = int(character)
            for parity, sums in enumerate(self.sums):
                sums.append(sums[-1] + (_doubled(digit) if position % 2 == parity else digit))

    def valid(self, start: int, end: int) -> bool:
        sums = self.sums[end % 2]
        return (sums[end] - sums[start]) % 10 == 0


def _masked(groups: list[_Group], *, keep: int = 4) -> tuple[int, int, str]:
    """``(start, end, replacement)``: ``groups`` masked, keeping their last ``keep`` digits."""
    kept = "".join(g.digits for g in groups)[-keep:] if keep else ""
    return groups[0].start, groups[-1].end, MASK + kept


def _card_spans(groups: list[_Group], *, phone: bool) -> list[tuple[int, int, str]]:
    """Every card number among consecutive ``groups``, masked: the union of all group-aligned
    stretches of 12 to 19 digits that pass Luhn. ``phone``: the groups follow a ``+``, so a
    stretch from the first group is a phone number if it has at most 15 digits in all."""
    luhn = _Luhn("".join(g.digits for g in groups))
    offsets = [0]
    for group in groups:
        offsets.append(offsets[-1] + len(group.digits))
    phone = phone and offsets[-1] <= MAX_PHONE_DIGITS
    stretches: list[tuple[int, int]] = []  # (first group, last group)
    for first in range(1 if phone else 0, len(groups)):
        last = None
        for end in range(first, len(groups)):
            count = offsets[end + 1] - offsets[first]
            if count > MAX_DIGITS:
                break
            if count >= MIN_DIGITS and luhn.valid(offsets[first], offsets[end + 1]):
                last = end
        if last is None:
            continue
        if stretches and first <= stretches[-1][1]:
            stretches[-1] = (stretches[-1][0], max(last, stretches[-1][1]))
        else:
            stretches.append((first, last))
    return [_masked(groups[first : last + 1]) for first, last in stretches]


def _cut_spans(chain: _Chain) -> list[tuple[int, int, str]]:
    """A log line's chain, split where an ellipsis cuts it: a piece next to an ellipsis with five
    or more digits is masked (a head whole, a tail but its last four); the card numbers in the
    other pieces are masked."""
    pieces: list[list[_Group]] = [[]]
    for group, cut in zip(chain.groups, [False, *chain.cuts], strict=True):
        if cut:
            pieces.append([])
        pieces[-1].append(group)
    spans = []
    for index, piece in enumerate(pieces):
        head = index < len(pieces) - 1 or chain.precedes_ellipsis
        tail = index > 0 or chain.follows_ellipsis
        if (head or tail) and sum(len(g.digits) for g in piece) >= MIN_CUT_DIGITS:
            spans.append(_masked(piece, keep=0 if head else 4))
        else:
            spans += _card_spans(piece, phone=index == 0 and chain.follows_plus)
    return spans


def _spans(text: str, *, cut: bool) -> Iterator[tuple[int, int, str]]:
    """Where ``text``'s card numbers are, in order, and what replaces each; ``cut``: it is a log
    line (see the module docstring)."""
    syntax = _LOG if cut else _TEXT
    for number in syntax.number.finditer(text):
        if number.end() - number.start() < (MIN_CUT_DIGITS if cut else MIN_DIGITS):
            continue
        for chain in _chains(text, number, syntax):
            yield from (
                _cut_spans(chain) if cut else _card_spans(chain.groups, phone=chain.follows_plus)
            )


def _replaced(text: str, spans: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with ``spans`` (``(start, end, replacement)``, in order) replaced."""
    pieces: list[str] = []
    done = 0
    for start, end, replacement in spans:
        pieces += [text[done:start], replacement]
        done = end
    return "".join([*pieces, text[done:]]) if pieces else text


def _redact(text: str, *, cut: bool) -> str:
    return _replaced(text, _spans(text, cut=cut))


def redact_card_numbers(text: str) -> str:
    """``text`` with every card number replaced by ``****`` and its last four digits (``text``
    itself when it holds none)."""
    if len(text) < MIN_DIGITS or _MAY_HOLD_CARD.search(text) is None:  # most strings: at once
        return text
    return _redact(text, cut=False)


#: A JSON string escape: a surrogate pair (a character beyond the BMP, as a tag character),
#: another ``\uXXXX``, or one of a character of its own (``\n``, ``\"``, ``\\``...).
_JSON_ESCAPE = re.compile(
    r"\\u(?P<high>[dD][89abAB][0-9a-fA-F]{2})\\u(?P<low>[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|\\u(?P<code>[0-9a-fA-F]{4})|\\(?P<character>[\"\\/bfnrt])"
)
_JSON_CHARACTERS: Final = {**_ESCAPED_WHITESPACE, "b": "\b", "f": "\f"}
#: The start of an escape at the end of JSON text that the next piece completes: a part of one,
#: or a surrogate pair's first half (``\ud835``, of the digit U+1D7CE) and a part of the other.
_PARTIAL_JSON_ESCAPE = re.compile(
    r"(?:\\u[dD][89abAB][0-9a-fA-F]{2})?(?:\\(?:u[0-9a-fA-F]{0,3})?)?\Z"
)


def _json_unescaped(escape: re.Match[str]) -> str:
    if escape["high"] is not None:
        high, low = int(escape["high"], 16), int(escape["low"], 16)
        return chr(0x10000 + (high - 0xD800) * 0x400 + (low - 0xDC00))
    if escape["code"] is not None:
        return chr(int(escape["code"], 16))
    return _JSON_CHARACTERS.get(escape["character"], escape["character"])


def _json_decoded(text: str) -> tuple[str, list[int]]:
    """``text``, JSON, with its escapes decoded; and where each character of that starts in
    ``text``, then where ``text`` ends (so a span of one maps to a span of the other)."""
    pieces: list[str] = []
    starts: list[int] = []
    done = 0
    for escape in _JSON_ESCAPE.finditer(text):
        pieces += [text[done : escape.start()], _json_unescaped(escape)]
        starts += [*range(done, escape.start()), escape.start()]
        done = escape.end()
    pieces.append(text[done:])
    starts += range(done, len(text) + 1)
    return "".join(pieces), starts


def redact_json_text(text: str) -> str:
    """JSON ``text`` with the card numbers of what it encodes masked: an escape counts as the
    character it stands for, as ``json.dumps`` escapes every non-ASCII separator or digit."""
    if "\\" not in text:
        return redact_card_numbers(text)
    decoded, starts = _json_decoded(text)
    if _MAY_HOLD_CARD.search(decoded) is None:
        return text
    return _replaced(
        text, ((starts[a], starts[b], mask) for a, b, mask in _spans(decoded, cut=False))
    )


#: The end of a text that a later piece may continue into a card number: a run of digits and
#: separators (and the ``+`` before it, which makes a short number a phone number), or a ``+``.
#: Separators and no digit join none: they go (the closing ``"}`` of a tool call's arguments).
_OPEN_END = re.compile(rf"(?:[{_PLUSES}]?{_SEPARATOR}*\d(?:\d|{_SEPARATOR})*|[{_PLUSES}])?\Z")


class StreamMasker:
    """Masks a text that arrives in pieces (``feed``), giving back what may go out now: all but
    an open end (``_OPEN_END``), which waits for the character that closes it, or ``flush``."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        cut = self._open_end(text)
        self._held = text[cut:]
        return self._masked(text[:cut])

    def flush(self) -> str:
        """What is held, masked: the stream has ended."""
        held, self._held = self._held, ""
        return self._masked(held)

    @staticmethod
    def _open_end(text: str) -> int:
        """Where the end of ``text`` that a later piece may continue starts."""
        match = _OPEN_END.search(text)
        assert match is not None  # it matches the empty end at least
        return match.start()

    @staticmethod
    def _masked(text: str) -> str:
        return redact_card_numbers(text)


class JsonStreamMasker(StreamMasker):
    """A ``StreamMasker`` of JSON text (a tool call's arguments), read as ``redact_json_text``
    reads it: its open end is found in the decoded text, and an escape cut in two waits whole."""

    @staticmethod
    def _open_end(text: str) -> int:
        partial = _PARTIAL_JSON_ESCAPE.search(text)
        assert partial is not None  # it matches the empty end at least
        decoded, starts = _json_decoded(text[: partial.start()])
        return starts[StreamMasker._open_end(decoded)]

    @staticmethod
    def _masked(text: str) -> str:
        return redact_json_text(text)


def redact_values(value: T) -> T:
    """``value`` with every string in it masked (``redact_card_numbers``), at any depth: mappings,
    lists, tuples, dataclasses, pydantic models (v2, and v1 as langchain-core 0.2's messages are)
    and plain objects (``_shape``) holding a card number are copied, anything else is
    returned as it is (the same object: masking a turn's state costs a walk, not a copy). Models
    are recognised by their methods, not by importing pydantic: the isolated worker loads this
    module in an agent's own environment, whatever pydantic it has.
    Keys and identifiers (values under ``id``, ``*Id``, ``*_id``) are never changed.

    A turn's state and screens are hundreds of values, most of them short strings, dicts and
    lists: those are tested by exact type first, and short strings and scalars are skipped by
    the walk itself rather than in a call each."""
    return cast(T, _redacted(value))


def _redacted(value: Any) -> Any:
    kind: type = type(value)
    if kind is str:
        return redact_card_numbers(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        changes = _changed_fields(value.items())
        return {**value, **changes} if changes else value
    if kind is list or kind is tuple:  # not a named tuple: its fields are not positional data
        items = _changed_items(value)
        return value if items is None else items if kind is list else tuple(items)
    if isinstance(value, str):
        return redact_card_numbers(value)
    if isinstance(value, Mapping):
        changes = _changed_fields(value.items())
        return {**value, **changes} if changes else value
    shape = _shape(kind)
    if shape is _Shape.MODEL:
        # Not validated again: every value keeps its type (a string stays a string).
        changes = _changed_fields(_model_fields(value))
        return value.model_copy(update=changes) if changes else value
    if shape is _Shape.MODEL_V1:  # langchain-core 0.2's messages, among others
        changes = _changed_fields(value)
        return value.copy(update=changes) if changes else value
    if shape is _Shape.DATACLASS:
        fields = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value) if f.init)
        changes = _changed_fields(fields)
        return dataclasses.replace(value, **changes) if changes else value
    if shape is _Shape.OBJECT and hasattr(value, "__dict__"):
        return _rebuilt_object(value)
    return value


def _model_fields(model: Any) -> Iterable[tuple[str, Any]]:
    """A pydantic v2 model's fields and extra fields, as iterating it yields them but without its
    generator: a conversation is hundreds of messages, each walked at every checkpoint."""
    fields = getattr(model, "__dict__", None)
    if fields is None:
        return cast(Iterable[tuple[str, Any]], model)
    extra = getattr(model, "__pydantic_extra__", None)
    return [*fields.items(), *extra.items()] if extra else fields.items()


class _Shape(enum.Enum):
    """How a value of some type is masked: copied by its own means, or left as it is (``None``)."""

    MODEL = "pydantic v2 model"
    MODEL_V1 = "pydantic v1 model"
    DATACLASS = "dataclass"
    OBJECT = "plain object"


@functools.lru_cache(maxsize=512)
def _shape(kind: type) -> _Shape | None:
    """Models are recognised by their methods, not by importing pydantic. A plain object is one
    whose instances are their ``__dict__``: of a class of its own module (not a function, module
    or class) that copies and pickles by the default protocol, so a copy with masked attributes is
    the same object but for them. Enums, exceptions and objects with a state of their own
    (``__reduce__``, ``__copy__``, ``__setstate__``...) are left as they are."""
    if hasattr(kind, "model_copy"):
        return _Shape.MODEL
    if hasattr(kind, "__fields_set__") and hasattr(kind, "copy"):
        return _Shape.MODEL_V1
    if dataclasses.is_dataclass(kind) and not issubclass(kind, type):
        return _Shape.DATACLASS
    plain = (
        kind.__module__ != "builtins"
        and not issubclass(kind, type)
        and kind.__reduce_ex__ is object.__reduce_ex__
        and kind.__reduce__ is object.__reduce__
        and getattr(kind, "__getstate__", None) is getattr(object, "__getstate__", None)
        and not hasattr(kind, "__setstate__")
        and not hasattr(kind, "__copy__")
    )
    return _Shape.OBJECT if plain else None


#: The plain objects being walked in this thread: an object reached again through its own
#: attributes (a cycle) is left as it is.
_walking = threading.local()


def _rebuilt_object(value: Any) -> Any:
    walking: set[int] = _walking.__dict__.setdefault("ids", set())
    if id(value) in walking:
        return value
    walking.add(id(value))
    try:
        changes = _changed_fields(vars(value).items())
    finally:
        walking.discard(id(value))
    if not changes:
        return value
    rebuilt = copy.copy(value)
    vars(rebuilt).update(changes)
    return rebuilt


def _changed_fields(fields: Iterable[tuple[Any, Any]]) -> dict[Any, Any]:
    """The fields whose values hold a card number, masked (identifiers are left alone)."""
    changes = {}
    for name, value in fields:
        kind = type(value)
        if kind in _SCALARS or (kind in _SIZED and len(value) < _SIZED[kind]):
            continue
        if isinstance(name, str) and _is_identifier(name):  # never changed, so never walked
            continue
        masked = _redacted(value)
        if masked is not value:
            changes[name] = masked
    return changes


def _changed_items(items: list[Any] | tuple[Any, ...]) -> list[Any] | None:
    """``items`` with their card numbers masked, or ``None`` when none holds one."""
    changed = None
    for index, item in enumerate(items):
        kind = type(item)
        if kind in _SCALARS or (kind in _SIZED and len(item) < _SIZED[kind]):
            continue
        masked = _redacted(item)
        if masked is not item:
            if changed is None:
                changed = list(items)
            changed[index] = masked
    return changed


def dumps_redacted(value: Any) -> str:
    """``value`` as compact JSON (``ensure_ascii=False``), card numbers masked as by
    ``redact_values``. JSON text where no card number can be (``_MAY_HOLD_CARD_JSON``: almost
    every event) is returned as it is: masking a screen costs one scan of its text, not a walk."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if _MAY_HOLD_CARD_JSON.search(text) is None:
        return text
    return json.dumps(redact_values(value), separators=(",", ":"), ensure_ascii=False)


@functools.lru_cache(maxsize=1024)
def _is_identifier(name: str) -> bool:
    return _IDENTIFIER.search(name) is not None


def _redact_log_text(text: str) -> str:
    return _redact(text, cut=True)


def _redact_argument(value: Any) -> Any:
    return _redact_log_text(value) if isinstance(value, str) else value


def redact_record(record: logging.LogRecord) -> None:
    """Redact a record in place: message, arguments, ``extra`` fields, traceback and stack.

    String arguments are redacted one by one so formatters that read ``record.args`` themselves
    (uvicorn's access formatter unpacks them) keep working. If the formatted message still holds a
    card number (an ``int`` argument, or a number split over two arguments), the record collapses
    to its redacted, already formatted message.
    """
    if isinstance(record.msg, str):
        record.msg = _redact_log_text(record.msg)
    if isinstance(record.args, tuple):
        record.args = tuple(_redact_argument(arg) for arg in record.args)
    elif isinstance(record.args, Mapping):
        record.args = {key: _redact_argument(arg) for key, arg in record.args.items()}
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # a bad format call: keep what it said, without the digits
        message = f"{record.msg} {record.args!r}"
        record.msg, record.args = message, ()
    if (redacted := _redact_log_text(message)) != message:
        record.msg, record.args = redacted, ()
    for name, value in list(vars(record).items()):
        if name not in _RECORD_ATTRIBUTES and isinstance(value, str):
            setattr(record, name, _redact_log_text(value))
    if record.exc_info and not record.exc_text:
        # Formatters render a traceback once and reuse ``exc_text``: render it now, redacted.
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = _redact_log_text(record.exc_text)
    if record.stack_info:
        record.stack_info = _redact_log_text(record.stack_info)


class CardNumberFilter(logging.Filter):
    """A handler filter that redacts card numbers from every record the handler emits.

    Install it on *handlers*, not loggers: a logger's filters do not see records propagated from
    its children, a handler's filters see every record it formats.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True
