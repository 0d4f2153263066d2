"""Turn what the customer says into one of the plugin's actions, deterministically.

A spoken or typed turn becomes the same ``{"id": "lost_card.<action>", "data": {...}}`` a button
click would send, so the graph has one path for both. Context decides what short answers mean, as
it would for a person: "yes" and "no" answer a question only while one is open, and four digits
("4821", "four eight two one", "double four two one") are an identity answer only while the
identity check is open. Otherwise the first matching rule wins, most specific first (a fraud report
beats "no"; "unfreeze" beats "freeze"; "haven't found it" is a lost card, not a found one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from runtime.contract.state import PendingAction
from runtime.plugins.lost_card import PLUGIN_ID
from runtime.plugins.lost_card.places import locate
from runtime.plugins.lost_card.state import Step

_DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_DIGIT_WORDS = {word: str(n) for n, word in enumerate(_DIGIT_NAMES)} | {"nought": "0", "oh": "0"}
_TENS = {"twenty": "2", "thirty": "3", "forty": "4", "fifty": "5", "sixty": "6", "seventy": "7",
         "eighty": "8", "ninety": "9"}  # fmt: skip
_REPEATS = {"double": 2, "triple": 3}
_TOKEN = re.compile(r"\d+|[a-z]+")


def _rule(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(rf"\b(?:{p})\b" for p in patterns))


_FRAUD = _rule(
    r"fraud\w*",
    r"unauthori[sz]ed",
    r"suspicious",
    r"scam\w*",
    r"(?:don'?t|do not|didn'?t|did not|can'?t|cannot|never) "
    r"(?:recogni[sz]e|make|made|authori[sz]e)",
    r"not (?:me|mine)",
    r"someone (?:else )?(?:has )?(?:used|is using|been using|spent)",
)
_YES = _rule(
    r"yes", r"yeah", r"yep", r"yup", r"ok(?:ay)?", r"sure", r"go ahead", r"please do", r"do it",
    r"confirm\w*", r"correct", r"that'?s right",
)  # fmt: skip
_NO = _rule(
    r"no", r"nope", r"nah", r"cancel", r"not now", r"don'?t", r"do not", r"leave it",
    r"never ?mind",
)  # fmt: skip
_RESET = _rule(r"start (?:again|over)", r"reset", r"from the (?:start|beginning)")
_UNFREEZE = _rule(r"unfreeze", r"unblock", r"unlock", r"reactivate", r"turn (?:it|my card) back on")
_NOT_FOUND = _rule(
    r"(?:haven'?t|have not|not|never|can'?t|cannot|couldn'?t|could not) (?:find|found)"
)
_FOUND = _rule(r"found", r"turned up", r"got it back", r"have it back", r"it was in my")
_STOLEN = _rule(r"stol(?:en|e)", r"nicked", r"pickpocket\w*", r"mugged", r"robbed", r"theft")
_LOST = _rule(
    r"lost", r"lose", r"misplaced", r"missing", r"dropped", r"left my (?:card|wallet|purse)"
)
_NO_FREEZE = _rule(r"(?:don'?t|do not|no need to) (?:freeze|block|lock)")
_FREEZE = _rule(r"freeze", r"frozen", r"block", r"lock", r"stop (?:my|the) card")
_REPLACE = _rule(r"replace\w*", r"new card", r"another card", r"send (?:me )?a card")
_TRANSACTIONS = _rule(
    r"transactions?", r"payments?", r"spending", r"statement", r"purchases?", r"activity"
)
_BRANCH = _rule(r"branch(?:es)?", r"in person", r"nearest", r"speak to someone", r"visit")


def _request(action: str, **data: str) -> PendingAction:
    return PendingAction(id=f"{PLUGIN_ID}.{action}", data=dict(data))


def digit_runs(text: str) -> Iterator[str]:
    """Runs of digits as typed or spoken: "4821", "48 21", "four eight two one", "double four"."""
    run: list[str] = []
    repeat = 1
    for token in _TOKEN.findall(text.lower()):
        digits: str | None = None
        if token.isdigit():
            digits = token
        elif token in _DIGIT_WORDS and (token != "oh" or run):
            digits = _DIGIT_WORDS[token]
        elif token in _TENS:
            digits = _TENS[token] + "0"
        elif token in _REPEATS:
            repeat = _REPEATS[token]
            continue
        if digits is None:
            if run:
                yield "".join(run)
            run, repeat = [], 1
            continue
        if run and run[-1].endswith("0") and run[-1][:-1] in _TENS.values() and len(digits) == 1:
            run[-1] = run[-1][:-1] + digits  # "forty" "eight" → "48"
        else:
            run.append(digits * repeat)
        repeat = 1
    if run:
        yield "".join(run)


def spoken_last4(text: str) -> str | None:
    """Four digits said on their own, or the last four of a whole card number read out."""
    for run in digit_runs(text):
        if len(run) == 4 or len(run) >= 12:
            return run[-4:]
    return None


def understand(
    text: str,
    *,
    awaiting_confirmation: Step | None = None,
    expecting_digits: bool = False,
    awaiting_place: bool = False,
) -> PendingAction | None:
    """The action ``text`` asks for, or ``None`` when it is not about the card; a town or
    postcode finds a branch when asked for one (``awaiting_place``) or with a branch."""
    said = " ".join(text.lower().replace("\u2019", "'").split())
    last4 = spoken_last4(said) if expecting_digits else None
    if last4 is not None:
        return _request("verify_identity", last4=last4)
    if _FRAUD.search(said):
        return _request("report_fraud")
    if awaiting_confirmation is not None:
        yes, no = bool(_YES.search(said)), bool(_NO.search(said))
        if yes != no:  # both at once ("yes, no, wait") answers nothing
            return _request("confirm", step=awaiting_confirmation) if yes else _request("cancel")
    if _RESET.search(said):
        return _request("reset")
    if _UNFREEZE.search(said):
        return _request("unfreeze_card")
    if _NOT_FOUND.search(said):
        return _request("freeze_card", reason="lost")
    if _FOUND.search(said):
        return _request("unfreeze_card", reason="found")
    if _STOLEN.search(said):
        return _request("freeze_card", reason="stolen")
    if _LOST.search(said):
        return _request("freeze_card", reason="lost")
    if _NO_FREEZE.search(said):
        return _request("cancel")
    if _FREEZE.search(said):
        return _request("freeze_card")
    if _REPLACE.search(said):
        return _request("order_replacement")
    if _TRANSACTIONS.search(said):
        return _request("view_transactions")
    place = locate(said) if awaiting_place or _BRANCH.search(said) else None
    if place is not None:
        return _request("find_branch", place=place.name)
    if _BRANCH.search(said):
        return _request("find_branch")
    return None
