"""Where a customer says they are: a town's name or a postcode, as a point on the map.

A small gazetteer, enough for the demo to find the nearest branch by voice when the device cannot
give its location: UK towns by name, and postcode areas (the letters a postcode starts with, the
area's main town) for a postcode said in full or in part ("LS6 2AB", "M2").
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Place(NamedTuple):
    name: str
    latitude: float
    longitude: float


TOWNS: dict[str, Place] = {
    place.name.lower(): place
    for place in (
        Place("Leeds", 53.8008, -1.5491),
        Place("Bradford", 53.7960, -1.7594),
        Place("Harrogate", 53.9921, -1.5418),
        Place("York", 53.9600, -1.0873),
        Place("Sheffield", 53.3811, -1.4701),
        Place("Manchester", 53.4808, -2.2426),
        Place("Liverpool", 53.4084, -2.9916),
        Place("Newcastle", 54.9783, -1.6178),
        Place("London", 51.5072, -0.1276),
        Place("Oxford", 51.7520, -1.2577),
        Place("Cambridge", 52.2053, 0.1218),
        Place("Birmingham", 52.4862, -1.8904),
        Place("Coventry", 52.4068, -1.5197),
        Place("Nottingham", 52.9548, -1.1581),
        Place("Bristol", 51.4545, -2.5879),
        Place("Bath", 51.3751, -2.3617),
        Place("Cardiff", 51.4816, -3.1791),
        Place("Swansea", 51.6214, -3.9436),
        Place("Edinburgh", 55.9533, -3.1883),
        Place("Glasgow", 55.8642, -4.2518),
        Place("Aberdeen", 57.1497, -2.0943),
    )
}
#: Postcode areas by their letters, each at its main town.
POSTCODE_AREAS: dict[str, str] = {
    "LS": "leeds", "BD": "bradford", "HG": "harrogate", "YO": "york", "S": "sheffield",
    "M": "manchester", "L": "liverpool", "NE": "newcastle", "OX": "oxford", "CB": "cambridge",
    "B": "birmingham", "CV": "coventry", "NG": "nottingham", "BS": "bristol", "BA": "bath",
    "CF": "cardiff", "SA": "swansea", "EH": "edinburgh", "G": "glasgow", "AB": "aberdeen",
    "EC": "london", "WC": "london", "E": "london", "N": "london", "NW": "london", "SE": "london",
    "SW": "london", "W": "london",
}  # fmt: skip
#: A postcode's outward part (area letters, district digits), alone or with its inward part.
_POSTCODE = re.compile(r"\b([A-Z]{1,2})\d[A-Z\d]?(?:\s*\d[A-Z]{2})?\b")
_WORD = re.compile(r"[a-z]+")


def locate(text: str) -> Place | None:
    """The place ``text`` names (a postcode first, then a town), or ``None``."""
    for match in _POSTCODE.finditer(text.upper()):
        town = POSTCODE_AREAS.get(match.group(1))
        if town is not None:
            return TOWNS[town]
    for word in _WORD.findall(text.lower()):
        if word in TOWNS:
            return TOWNS[word]
    return None
