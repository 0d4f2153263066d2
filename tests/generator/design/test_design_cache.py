"""The answer cache: the same prompt is answered from disk, another model or ``--no-cache`` asks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from design_helpers import model_answer
from fake_bedrock import FakeBedrock, text_answer

from generator.design import DesignOptions, design
from generator.design.bedrock import BedrockSettings
from generator.design.cache import AnswerCache
from generator.models import Inspection

MAPPING = json.dumps({"reasoning": "r", "input_field": "topic", "output_field": "report"})
OPTIONS = DesignOptions(bedrock=BedrockSettings(read_timeout=0.5))


@pytest.fixture
def fake(structured: Inspection, monkeypatch: pytest.MonkeyPatch, dummy_credentials: None) -> Any:
    answer = json.dumps(model_answer(structured, "research"))
    with FakeBedrock({"haiku": [text_answer(MAPPING)], "sonnet": [text_answer(answer)]}) as server:
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.url)
        yield server


def test_second_run_is_answered_from_the_cache(
    structured: Inspection, fake: FakeBedrock, clean_aws: Path
) -> None:
    first = design(structured, plugin_id="research", options=OPTIONS)
    second = design(structured, plugin_id="research", options=OPTIONS)

    assert len(fake.requests) == 2  # one mapping, one design; none the second time
    assert (first.provenance.cached, second.provenance.cached) == (False, True)
    assert second.provenance.mode == "bedrock"
    assert second.provenance.calls == [] and second.provenance.attempts == 0
    assert second.provenance.prompt_sha256 == first.provenance.prompt_sha256
    assert second.model_dump(exclude={"provenance"}) == first.model_dump(exclude={"provenance"})
    stored = clean_aws / "designs" / f"{first.provenance.prompt_sha256}.json"
    assert json.loads(stored.read_text())["model_id"] == "us.anthropic.claude-sonnet-4-6"


def test_no_cache_asks_again(structured: Inspection, fake: FakeBedrock) -> None:
    design(structured, plugin_id="research", options=OPTIONS)
    again = design(
        structured, plugin_id="research", options=OPTIONS.model_copy(update={"use_cache": False})
    )

    assert len(fake.requests) == 4
    assert again.provenance.cached is False


def test_another_design_model_is_a_miss(structured: Inspection, fake: FakeBedrock) -> None:
    design(structured, plugin_id="research", options=OPTIONS)
    other = OPTIONS.model_copy(update={"design_model": "us.anthropic.claude-sonnet-4-5-v1:0"})
    design(structured, plugin_id="research", options=other)

    assert [r.model_id for r in fake.requests_to("sonnet")] == [
        "us.anthropic.claude-sonnet-4-6",
        "us.anthropic.claude-sonnet-4-5-v1:0",
    ]
    assert len(fake.requests_to("haiku")) == 1


def test_an_entry_invalid_under_todays_rules_is_asked_again(
    structured: Inspection, fake: FakeBedrock, clean_aws: Path
) -> None:
    first = design(structured, plugin_id="research", options=OPTIONS)
    entry = clean_aws / "designs" / f"{first.provenance.prompt_sha256}.json"
    stored = json.loads(entry.read_text())
    stored["answer"]["result"]["components"] = []
    entry.write_text(json.dumps(stored))

    again = design(structured, plugin_id="research", options=OPTIONS)

    assert len(fake.requests_to("sonnet")) == 2
    assert again.provenance.cached is False


def test_corrupt_or_missing_entries_are_misses(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path)
    cache.path("designs", "abc").parent.mkdir(parents=True)
    cache.path("designs", "abc").write_text("{not json")

    assert cache.get("designs", "abc", "m") is None
    assert cache.get("designs", "missing", "m") is None
    cache.put("designs", "abc", "m", {"x": 1})
    assert cache.get("designs", "abc", "m") == {"x": 1}
    assert cache.get("designs", "abc", "other-model") is None
    assert sorted(p.name for p in cache.path("designs", "abc").parent.iterdir()) == ["abc.json"]


def test_default_cache_dir_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("AGENT_IMPORT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))

    assert AnswerCache().root == tmp_path / "xdg" / "agent-import"
