"""A field's default as written: which fields a run needs, and which defaults agent.json records."""

from __future__ import annotations

import pytest

from generator.inspect.defaults import has_default, literal_default
from generator.models import StateField


@pytest.mark.parametrize(
    ("default", "value", "given"),
    [
        ('"x"', "x", True),
        ("5", 5, True),
        ('field(default="x")', "x", True),
        ('Field("x", description="d")', "x", True),
        ("Field(default_factory=list)", None, True),
        ('Field(description="d")', None, False),
        ("Field(..., description='d')", None, False),
        ("os.environ['X']", None, True),
        ("{1, 2}", None, True),
        (None, None, False),
    ],
)
def test_literal_defaults(default: str | None, value: object, given: bool) -> None:
    field = StateField(name="f", type="str", default=default)

    found = literal_default(field)

    assert (found if value is not None else None) == value
    assert has_default(field) is given
