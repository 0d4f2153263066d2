"""The browser pages over a real uvicorn on 127.0.0.1: each page and every file it links is
served; nothing outside ``runtime/static/`` is."""

from __future__ import annotations

import re

import httpx
import pytest

from runtime.serving.web import PAGES


@pytest.mark.parametrize("path", sorted(PAGES))
def test_a_page_and_everything_it_links_are_served(real_server: str, path: str) -> None:
    with httpx.Client(base_url=f"http://{real_server}") as client:
        page = client.get(path, params={"agent": "mortgage"})
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert page.headers["cache-control"] == "no-cache"
        linked = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
        assert any(link.endswith(".js") for link in linked)
        for link in linked:
            response = client.get(link)
            assert response.status_code == 200, link
            assert response.content, link


def test_the_renderer_module_is_served_as_javascript(real_server: str) -> None:
    response = httpx.get(f"http://{real_server}/static/js/renderer.js")
    assert response.status_code == 200
    assert "javascript" in response.headers["content-type"]
    assert "mountSurfaces" in response.text


@pytest.mark.parametrize(
    "path",
    [
        "/static/../web.py",
        "/static/%2e%2e/web.py",
        "/static/..%2fweb.py",
        "/static/%2e%2e/%2e%2e/pyproject.toml",
        "/static/",
        "/static/js/",
    ],
)
def test_nothing_outside_the_static_folder_is_served(real_server: str, path: str) -> None:
    # A raw request line: an HTTP client would normalise the dots away before sending.
    with httpx.Client() as client:
        request = client.build_request("GET", f"http://{real_server}/")
        request.url = request.url.copy_with(raw_path=path.encode())
        response = client.send(request)
    assert response.status_code == 404, response.text[:80]
