"""A guessed requirement is proposed only when the configured package index has it; an index
that cannot be reached keeps the guess with a note, never blocks. The indexes here are a
simple-API server on 127.0.0.1 and folders of wheels, never PyPI."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_repo import wheel

from generator.dependencies.distributions import HINT_ORIGIN, USUAL_NAME
from generator.dependencies.index import Found, check_proposals, lookup
from generator.models import Dependency

PROJECTS = {"google-auth", "beautifulsoup4"}
INDEX_VARIABLES = (
    "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX", "UV_EXTRA_INDEX_URL", "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL", "UV_FIND_LINKS", "UV_NO_INDEX", "UV_OFFLINE",
)  # fmt: skip


class SimpleIndex(http.server.BaseHTTPRequestHandler):
    """``/simple/<project>/`` for the projects in ``PROJECTS``, 404 for any other."""

    def do_GET(self) -> None:
        name = self.path.strip("/").removeprefix("simple/")
        self.send_response(200 if name in PROJECTS else 404)
        self.end_headers()
        self.wfile.write(f"<a href='../../{name}-1.0.tar.gz'>{name}</a>".encode())

    def log_message(self, *args: object) -> None:
        """Quiet: the test reads the answers, not the log."""


@pytest.fixture(autouse=True)
def no_configured_index(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in INDEX_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def index_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SimpleIndex)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    server.shutdown()
    server.server_close()


def guess(name: str, module: str) -> Dependency:
    return Dependency(name=name, spec=name, origin=USUAL_NAME, proposed_for=f"{module} (a.py:1)")


def test_a_guess_the_index_lacks_is_left_out_with_a_note(
    index_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_INDEX_URL", index_url)
    hinted = Dependency(name="ddgs", spec="ddgs", origin=HINT_ORIGIN, proposed_for="ddgs (hint)")
    declared = Dependency(name="google-oauth2", spec="google-oauth2", origin="requirements.txt")
    dependencies = [
        guess("google-auth", "google.oauth2"),
        guess("google-oauth2", "google.oauth2"),
        hinted,
        declared,
    ]

    kept, notes = check_proposals(dependencies)

    assert kept == [dependencies[0], hinted, declared]  # only guesses are checked
    assert notes == [
        f"not proposed: google-oauth2 is not a project of the package index ({index_url}); add "
        "the requirement that provides google.oauth2 (a.py:1) to the agent's requirements"
    ]


def test_an_unreachable_index_keeps_the_guess_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("UV_INDEX_URL", f"http://127.0.0.1:{port}/simple")
    dependencies = [guess("google-genai", "google.genai")]

    kept, notes = check_proposals(dependencies)

    assert kept == dependencies
    assert len(notes) == 1 and "google-genai (proposed for google.genai (a.py:1))" in notes[0]
    assert "is a guess not checked: the package index is not reachable" in notes[0]


def test_offline_mode_never_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("UV_OFFLINE", "1")

    assert lookup("anything") == (Found.UNKNOWN, "UV_OFFLINE is set")


def test_a_folder_of_wheels_is_the_index_with_no_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel(tmp_path / "wheels", "azure-identity", "azure_identity")
    (tmp_path / "wheels" / "google_genai-1.2.0.tar.gz").write_bytes(b"")
    monkeypatch.setenv("UV_NO_INDEX", "1")
    monkeypatch.setenv("UV_FIND_LINKS", (tmp_path / "wheels").as_uri())

    assert lookup("Azure_Identity")[0] is Found.YES
    assert lookup("google-genai")[0] is Found.YES
    assert lookup("azure-identity-tools")[0] is Found.NO


def test_find_links_beside_an_index_both_count(
    tmp_path: Path, index_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel(tmp_path / "wheels", "private-tool", "private_tool")
    monkeypatch.setenv("UV_FIND_LINKS", str(tmp_path / "wheels"))
    monkeypatch.setenv("UV_DEFAULT_INDEX", index_url)

    assert lookup("private-tool")[0] is Found.YES
    assert lookup("beautifulsoup4")[0] is Found.YES
    assert lookup("bs4")[0] is Found.NO
