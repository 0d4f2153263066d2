"""The environment variables an imported agent reads (``agent.json`` ``env``): never a gate.

LangGraph's server runs an agent whatever its environment holds, and so does the runtime: many
recorded names are optional (tracing keys, one provider's key among several, behaviour settings
with defaults in code). An unset one is a warning at start-up and in ``/plugins``; a run that then
fails on one (``KeyError: 'X'``, a provider's "set the X environment variable") is told apart from
other failures by its name, so the error says which variable to set instead of only that the
agent failed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator

#: Causes followed when looking for a variable's name (an agent's error may wrap the first one).
CAUSES_FOLLOWED = 5
#: Tracing and observability settings: without them an agent runs, untraced, so they are never
#: warned about (LangSmith's and Langfuse's clients stay off when their keys are unset).
OBSERVABILITY_PREFIXES = ("LANGSMITH_", "LANGCHAIN_", "LANGFUSE_")


def is_observability(name: str) -> bool:
    """A tracing setting (``LANGSMITH_PROJECT``, ``LANGFUSE_SECRET_KEY``, ...): always optional."""
    return name.startswith(OBSERVABILITY_PREFIXES)


def unset(names: Iterable[str]) -> list[str]:
    """The ``names`` this process's environment lacks (or holds empty)."""
    return [name for name in names if not os.environ.get(name)]


def unset_warning(names: Iterable[str]) -> str | None:
    """``reads X, Y, which are not set: ...`` for the unset ``names``, or ``None``; tracing
    settings are left out, since the agent runs the same without them."""
    missing = [name for name in unset(names) if not is_observability(name)]
    if not missing:
        return None
    are, them = ("is", "it") if len(missing) == 1 else ("are", "them")
    return (
        f"reads {', '.join(missing)}, which {are} not set: it may fail when it uses {them} "
        f"({how_to_set(them)})"
    )


def missing_variable(exc: BaseException, names: Iterable[str]) -> str | None:
    """The first unset variable of ``names`` that ``exc`` (or what caused it) names: a
    ``KeyError``'s key, or a whole word of its message."""
    candidates = unset(names)
    for error in _chain(exc):
        if isinstance(error, KeyError) and error.args and error.args[0] in candidates:
            return str(error.args[0])
        text = str(error)
        for name in candidates:
            if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text):
                return name
    return None


def needs_variable(name: str) -> str:
    """What a failure on the unset variable ``name`` tells the user and the log."""
    return f"needs {name}, which is not set: {how_to_set('it')}"


def how_to_set(them: str) -> str:
    """Where variables are set: the runtime reads every agent's from its own environment."""
    return f"set {them} in the environment the runtime is started in, then restart the runtime"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    error: BaseException | None = exc
    for _ in range(CAUSES_FOLLOWED):
        if error is None:
            return
        yield error
        error = error.__cause__ or error.__context__
