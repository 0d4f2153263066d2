"""Is a guessed requirement a project of the configured package index?

A requirement proposed from a module's usual distribution name (``google.oauth2`` once became
``google-oauth2``, which does not exist) is checked before it is proposed: a name the index
does not have is left out with a note saying which import needs a requirement, since approving
it would only make the install unsatisfiable. The index is the one uv would use, read from the
same variables: ``UV_INDEX_URL``/``UV_DEFAULT_INDEX``/``UV_INDEX``/``UV_EXTRA_INDEX_URL`` (and
pip's ``PIP_INDEX_URL``), else PyPI; ``UV_FIND_LINKS`` folders or pages, alone with
``UV_NO_INDEX``. Each project is one request to the index's simple API. When the index cannot be
reached (``UV_OFFLINE``, no network), the guess is kept with a note: offline work is never
blocked.
"""

from __future__ import annotations

import base64
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from pathlib import Path
from typing import Literal

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)

from generator.dependencies.distributions import USUAL_NAME
from generator.models import Dependency

DEFAULT_INDEX = "https://pypi.org/simple"
REQUEST_TIMEOUT_S = 5.0
_TRUE = {"1", "true", "yes", "on"}
_HREF = re.compile(r"""href=["']([^"'#]+)""", re.IGNORECASE)


class Found(Enum):
    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


Place = tuple[Literal["links", "index"], str]


def check_proposals(dependencies: list[Dependency]) -> tuple[list[Dependency], list[str]]:
    """``dependencies`` without the guessed names the index does not have, and a note for each
    guess left out or not checked."""
    guesses = [d for d in dependencies if d.origin == USUAL_NAME]
    if not guesses:
        return dependencies, []
    places = _places()
    with ThreadPoolExecutor(max_workers=min(8, len(guesses))) as pool:
        answers = list(pool.map(lambda d: lookup(d.name, places), guesses))
    where = ", ".join(_shown(url) for _, url in places) or "no index configured"
    notes, absent = [], set()
    for guess, (found, why) in zip(guesses, answers, strict=True):
        if found is Found.NO:
            absent.add(guess.name)
            notes.append(
                f"not proposed: {guess.name} is not a project of the package index ({where}); "
                f"add the requirement that provides {guess.proposed_for} to the agent's "
                "requirements"
            )
        elif found is Found.UNKNOWN:
            notes.append(
                f"{guess.name} (proposed for {guess.proposed_for}) is a guess not checked: "
                f"the package index is not reachable ({why})"
            )
    kept = [d for d in dependencies if d.origin != USUAL_NAME or d.name not in absent]
    return kept, notes


def lookup(name: str, places: list[Place] | None = None) -> tuple[Found, str]:
    """Whether any configured place has the project ``name``; why not known, if unknown."""
    if os.environ.get("UV_OFFLINE", "").lower() in _TRUE:
        return Found.UNKNOWN, "UV_OFFLINE is set"
    reasons = []
    for place in _places() if places is None else places:
        found, why = _lookup_in(place, canonicalize_name(name))
        if found is Found.YES:
            return found, ""
        if found is Found.UNKNOWN:
            reasons.append(why)
    return (Found.UNKNOWN, "; ".join(reasons)) if reasons else (Found.NO, "")


def _places() -> list[Place]:
    """Where uv looks, as configured: find-links locations, then indexes (unless no index)."""
    env = os.environ
    links: list[Place] = [
        ("links", p) for p in re.split(r"[,\s]+", env.get("UV_FIND_LINKS", "")) if p
    ]
    if env.get("UV_NO_INDEX", "").lower() in _TRUE:
        return links
    named = [entry.rpartition("=")[2] for entry in env.get("UV_INDEX", "").split()]
    default = (
        env.get("UV_DEFAULT_INDEX")
        or env.get("UV_INDEX_URL")
        or env.get("PIP_INDEX_URL")
        or DEFAULT_INDEX
    )
    extra = (env.get("UV_EXTRA_INDEX_URL") or env.get("PIP_EXTRA_INDEX_URL") or "").split()
    indexes = dict.fromkeys([*named, *extra, default])
    return [*links, *(("index", url) for url in indexes)]


def _lookup_in(place: Place, name: str) -> tuple[Found, str]:
    kind, url = place
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme in ("", "file"):
        folder = Path(urllib.request.url2pathname(parsed.path) if parsed.scheme else url)
        if not folder.is_dir():
            return Found.UNKNOWN, f"{url} is not a folder"
        return _among([p.name for p in folder.iterdir()], name), ""
    if kind == "links":
        status, page = _get(url)
        if status != 200:
            return Found.UNKNOWN, f"{_shown(url)}: {page}"
        files = [urllib.parse.unquote(h.rpartition("/")[2]) for h in _HREF.findall(page)]
        return _among(files, name), ""
    status, why = _get(f"{url.rstrip('/')}/{name}/")
    if status == 200:
        return Found.YES, ""
    if status == 404:
        return Found.NO, ""
    return Found.UNKNOWN, f"{_shown(url)}: {why}"


def _among(files: list[str], name: str) -> Found:
    """Whether a wheel or source archive of ``name`` is among the file names."""
    for file in files:
        try:
            if file.endswith(".whl"):
                found = parse_wheel_filename(file)[0]
            else:
                found = parse_sdist_filename(file)[0]
        except (InvalidWheelFilename, InvalidSdistFilename):
            continue
        if found == name:
            return Found.YES
    return Found.NO


def _get(url: str) -> tuple[int, str]:
    """The status and body of a GET (credentials in the URL become basic auth)."""
    parts = urllib.parse.urlsplit(url)
    headers = {"Accept": "text/html"}
    if parts.username:
        user = urllib.parse.unquote(f"{parts.username}:{parts.password or ''}")
        headers["Authorization"] = "Basic " + base64.b64encode(user.encode()).decode()
        host = f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname or ""
        url = urllib.parse.urlunsplit(parts._replace(netloc=host))
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            return response.status, response.read(2_000_000).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return 0, str(getattr(exc, "reason", exc))


def _shown(place: str) -> str:
    """A place without any password it carries."""
    parts = urllib.parse.urlsplit(place)
    if parts.password:
        return urllib.parse.urlunsplit(parts._replace(netloc=f"***@{parts.hostname}"))
    return place
