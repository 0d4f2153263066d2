"""Run metadata and the optional Langfuse handler (never contacted: no network in tests)."""

from __future__ import annotations

import sys
import types

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from runtime.turns.observability import run_config, tracing_callbacks

KEYS = {"LANGFUSE_PUBLIC_KEY": "pk-test", "LANGFUSE_SECRET_KEY": "sk-test"}


def test_run_config_carries_thread_and_metadata() -> None:
    handler = BaseCallbackHandler()
    config = run_config(session_id="s1", plugin_id="mortgage", callbacks=[handler])
    assert config["configurable"] == {"thread_id": "s1"}
    assert config["metadata"]["session_id"] == "s1"
    assert config["metadata"]["agent_id"] == "mortgage"
    assert config["callbacks"] == [handler]


def test_no_tracing_without_the_variables() -> None:
    assert tracing_callbacks({}) == []
    assert tracing_callbacks({"LANGFUSE_PUBLIC_KEY": "pk"}) == []


def test_missing_langfuse_is_one_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "langfuse", None)
    assert tracing_callbacks(KEYS) == []
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1
    assert "langfuse is not installed" in warnings[0].getMessage()


def test_langfuse_handler_is_attached_when_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeHandler(BaseCallbackHandler):
        pass

    package = types.ModuleType("langfuse")
    module = types.ModuleType("langfuse.langchain")
    module.CallbackHandler = FakeHandler  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langfuse", package)
    monkeypatch.setitem(sys.modules, "langfuse.langchain", module)
    [handler] = tracing_callbacks(KEYS)
    assert isinstance(handler, FakeHandler)
