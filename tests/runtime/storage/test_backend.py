"""``backend(url)``: the one place a storage URL is read (``runtime.storage.backend``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.storage.backend import backend, redacted


@pytest.mark.parametrize(
    ("url", "kind", "shared", "remote", "every_channel"),
    [
        ("memory", "memory", False, False, False),
        ("sqlite::memory:", "sqlite", False, False, True),
        ("sqlite:{tmp}/sessions.db", "sqlite", True, False, True),
        ("postgres://db/sessions", "postgres", True, True, False),
        ("postgresql://app@db:5432/sessions", "postgres", True, True, False),
    ],
)
def test_each_url_is_one_backend_with_its_properties(
    tmp_path: Path, url: str, kind: str, shared: bool, remote: bool, every_channel: bool
) -> None:
    storage = backend(url.format(tmp=tmp_path))
    assert (storage.kind, storage.shared, storage.remote) == (kind, shared, remote)
    assert storage.stores_every_channel == every_channel


def test_a_sqlite_database_keeps_its_locks_beside_it(tmp_path: Path) -> None:
    assert backend(f"sqlite:{tmp_path / 'a.db'}").lock_folder() == tmp_path / "a.db-locks"
    assert (tmp_path / "a.db-locks").is_dir()
    assert backend("sqlite::memory:").lock_folder() is None
    assert backend("postgres://db/x").lock_folder() is None


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("redis://x", "storage must be 'memory', 'sqlite:PATH' or"),
        ("sqlite:", "storage must be"),
        ("postgresql://app:s3cret@db:notaport/x?=", "storage: not a valid PostgreSQL URL"),
    ],
)
def test_anything_else_is_refused_in_one_line_without_a_password(url: str, said: str) -> None:
    with pytest.raises(ValueError, match=said) as caught:
        backend(url)
    assert "s3cret" not in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://app:s3cret@db:5432/x", "postgresql://app:***@db:5432/x"),
        (
            "postgres://db/x?password=s3cret&sslmode=require",
            "postgres://db/x?password=***&sslmode=require",
        ),
        ("postgres://app@db/x", "postgres://app@db/x"),
        ("sqlite:runtime.sqlite", "sqlite:runtime.sqlite"),
    ],
)
def test_urls_are_logged_without_their_password(url: str, shown: str) -> None:
    assert redacted(url) == shown
    assert backend(url).redacted() == shown
