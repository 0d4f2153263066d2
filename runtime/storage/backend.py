"""``Backend``: what a ``--storage`` URL names, decided once and asked everywhere else.

One URL picks the checkpointer, the store and the session locks together:

* ``memory``: all three in this process, gone when it stops;
* ``sqlite:PATH``: one SQLite file, with file locks beside it (``PATH-locks/``);
  ``sqlite::memory:`` is one process's, like ``memory``;
* ``postgres://...`` or ``postgresql://...``: one PostgreSQL database, with advisory locks.

Every question about the backend (may several processes share it, is each call a round trip,
where do its lock files go) is asked of ``Backend``, so no other module reads the URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg.conninfo import conninfo_to_dict

Kind = Literal["memory", "sqlite", "postgres"]

MEMORY: Final = "memory"
SQLITE_PREFIX: Final = "sqlite:"
POSTGRES_SCHEMES: Final = ("postgres://", "postgresql://")
#: What ``--storage`` accepts, for error messages.
FORMS: Final = "'memory', 'sqlite:PATH' or 'postgresql://USER@HOST:PORT/DB'"
#: SQLite's name for a database of one connection, in memory.
SQLITE_IN_MEMORY: Final = Path(":memory:")


@dataclass(frozen=True)
class Backend:
    """The storage one URL names (build it with ``backend(url)``)."""

    url: str
    kind: Kind
    #: The SQLite database file; None for memory, PostgreSQL and ``sqlite::memory:``.
    database: Path | None = None

    @property
    def shared(self) -> bool:
        """Whether processes opening it see the same sessions (``--workers`` needs it)."""
        return self.kind == "postgres" or self.database is not None

    @property
    def remote(self) -> bool:
        """Whether every call is a round trip to a server (so no turn runs on the event loop)."""
        return self.kind == "postgres"

    @property
    def stores_every_channel(self) -> bool:
        """Whether each checkpoint stores every channel's value (SQLite's saver), not only
        those with a new version (memory, PostgreSQL, which inline only immutable values)."""
        return self.kind == "sqlite"

    def lock_folder(self) -> Path | None:
        """Where a SQLite database's lock files live, made if missing: beside it, as its
        ``-wal`` file is; None for the other backends."""
        if self.database is None:
            return None
        folder = self.database.with_name(f"{self.database.name}-locks")
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def redacted(self) -> str:
        """The URL fit for a log line: a PostgreSQL password becomes ``***``."""
        return redacted(self.url)


def backend(url: str) -> Backend:
    """The backend ``url`` names, else ``ValueError`` saying which forms there are (never
    echoing a password)."""
    if url == MEMORY:
        return Backend(url, "memory")
    if url.startswith(SQLITE_PREFIX) and url != SQLITE_PREFIX:
        path = Path(url.removeprefix(SQLITE_PREFIX))
        return Backend(url, "sqlite", None if path == SQLITE_IN_MEMORY else path)
    if url.startswith(POSTGRES_SCHEMES):
        try:
            conninfo_to_dict(url)
        except psycopg.ProgrammingError:
            raise ValueError(f"storage: not a valid PostgreSQL URL: {redacted(url)}") from None
        return Backend(url, "postgres")
    raise ValueError(f"storage must be {FORMS}, not {redacted(url)!r}")


def redacted(url: str) -> str:
    """``url`` fit for a log line: a PostgreSQL password (user info or query) becomes ``***``."""
    if not url.startswith(POSTGRES_SCHEMES):
        return url
    parts = urlsplit(url)
    user, at, host = parts.netloc.rpartition("@")
    if at and ":" in user:
        user = user.split(":", 1)[0] + ":***"
    query = re.sub(r"(^|&)password=[^&]*", r"\1password=***", parts.query)
    return urlunsplit(parts._replace(netloc=f"{user}{at}{host}", query=query))
