"""Skip tests whose optional packages are missing, without importing them at collection.

``pytest.importorskip`` imports the package in every test worker while it collects, even when
only a child process uses it (LangChain's Anthropic provider alone took 3.6 s per worker).
"""

from __future__ import annotations

from importlib.util import find_spec

import pytest


def unless_installed(*modules: str) -> pytest.MarkDecorator:
    """A ``skipif`` mark for when any of ``modules`` cannot be found (nothing is imported)."""
    missing = [module for module in modules if find_spec(module) is None]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {', '.join(missing)}")
