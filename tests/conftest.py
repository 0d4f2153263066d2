"""What every test shares: git that never reads the developer's configuration, and the order
test files are handed to the workers in.

Tests make real git repositories and commits. They must pass on a machine with no git identity
(CI, a new laptop) and must not depend on, or write with, the developer's own: git reads no
global or system configuration, and commits are made as the test identity below, from the
environment, which subprocesses inherit.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

TEST_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with a ``slow`` test first, each file's own order kept. The workers take one file
    at a time in this order (``--dist loadfile --no-loadscope-reorder``): the long files start at
    once and the short ones fill in around them, instead of a long one running alone at the end.
    """
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(scope="session", autouse=True)
def hermetic_git(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    config = tmp_path_factory.mktemp("git") / "gitconfig"
    config.write_text("")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_CONFIG_GLOBAL", str(config))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        for name, value in TEST_IDENTITY.items():
            patch.setenv(name, value)
        yield


@pytest.fixture
def no_git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine where git knows nobody: no configuration, no identity in the environment."""
    for name in [*TEST_IDENTITY, "EMAIL"]:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def sandbox_available() -> None:
    """Tests of the sandbox need one: skipped with the reason where none can be made, failed
    instead on CI (``CI=true``), where a skip would hide that nothing was tested."""
    import os

    from runtime import sandbox

    why = sandbox.unavailable()
    if why and os.environ.get("CI") == "true":
        pytest.fail(f"no sandbox on CI: {why}")
    if why:
        pytest.skip(f"no sandbox here: {why}")


@pytest.fixture(autouse=True)
def chat_models_left_alone() -> Iterator[None]:
    """A test that installs the offline models in the test process would swap the chat models of
    every later test in it (and start isolated workers with them): such checks run in a process of
    their own, as validation runs them."""
    yield
    from runtime.testing import offline_models

    assert not offline_models.active(), "this test left the offline models installed in-process"
