"""``agent-import design`` end to end, offline: fixture agents, inspection files, design files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from design_helpers import model_answer
from fake_bedrock import tool_answer

from generator.cli import main
from generator.design import Design
from generator.design.facts import agent_facts
from generator.design.mapping import heuristic_mapping
from generator.models import Inspection
from runtime.a2ui import validate_screen

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"


@pytest.fixture
def inspection_file(tmp_path: Path, structured: Inspection) -> Path:
    path = tmp_path / "inspection.json"
    path.write_text(structured.model_dump_json(indent=2))
    return path


def _with_design_file(inspection_file: Path, design_file: Path) -> list[str]:
    return [
        "design",
        str(inspection_file),
        "--plugin-id",
        "research",
        "--design-file",
        str(design_file),
    ]


def _design_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Design:
    assert main(["design", *argv, "--json"]) == 0
    return Design.model_validate_json(capsys.readouterr().out)


def test_fixture_agent_without_credentials_prints_a_valid_fallback_design() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["AWS_EC2_METADATA_DISABLED"] = "true"
    command = [sys.executable, "-m", "generator.cli", "design", str(FIXTURES / "compiled_basic")]

    done = subprocess.run(
        [*command, "--plugin-id", "basic_chat", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    result = Design.model_validate_json(done.stdout)
    assert result.provenance.mode == "fallback"
    assert (result.provenance.fallback_reason or "").startswith("no AWS credentials found")
    assert (result.title, result.input_field) == ("Basic chat agent", "messages")
    for screen in result.screens().values():
        assert validate_screen(screen, plugin_id="basic_chat") == []


def test_structured_fixture_offline_from_the_folder(capsys: pytest.CaptureFixture[str]) -> None:
    result = _design_json(
        capsys, str(FIXTURES / "src_layout"), "--plugin-id", "planner", "--offline"
    )

    assert (result.graph_id, result.input_field, result.output_field) == (
        "planner",
        "goal",
        "steps",
    )
    assert result.initial_domain_state["state"] == {"done": None}


def test_inspection_file_and_readable_summary(
    inspection_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["design", str(inspection_file), "--plugin-id", "research", "--offline"]) == 0

    out = capsys.readouterr().out
    assert out.splitlines()[:3] == [
        "design of 'Research Assistant' as plugin research (graph research)",
        "  mode:      fallback: offline: no model was asked (--offline)",
        "  mapping:   topic -> report (heuristic: from field names and node returns: 'topic' "
        "takes the request, 'report' holds the answer)",
    ]
    assert "  actions:   restart, retry" in out


def test_design_file_round_trip(
    inspection_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    earlier = _design_json(capsys, str(inspection_file), "--plugin-id", "research", "--offline")
    design_file = tmp_path / "design.json"
    design_file.write_text(earlier.model_dump_json())

    again = _design_json(
        capsys, str(inspection_file), "--plugin-id", "research", "--design-file", str(design_file)
    )

    assert again.provenance.mode == "file" and again.provenance.mapping == "file"
    assert again.model_dump(exclude={"provenance"}) == earlier.model_dump(exclude={"provenance"})


def test_hand_written_design_file_errors_name_file_screen_component_and_property(
    inspection_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    earlier = _design_json(capsys, str(inspection_file), "--plugin-id", "research", "--offline")
    data = earlier.model_dump(exclude={"provenance", "version", "title", "description"})
    data["result"]["components"][1]["colour"] = "red"
    data["error"]["components"][0]["component"] = "Row"
    design_file = tmp_path / "design.json"
    design_file.write_text(json.dumps(data))

    code = main(_with_design_file(inspection_file, design_file))

    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert captured.err == (
        f"agent-import: error: {design_file}: invalid design, 2 problems: "
        "result: component 'title' property 'colour': Text has no such property (it has: id, "
        "component, text, variant); error: component 'root' property 'component': the root must "
        "be a Column, not 'Row'\n"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not JSON"),
        ("[]", "a design is a JSON object"),
        ('{"plugin_id": "other"}', "the design is for plugin_id 'other', not 'research'"),
        ('{"input_field": "topic"}', "invalid design, 6 problems: welcome: field required"),
    ],
)
def test_broken_design_files(
    inspection_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str,
    message: str,
) -> None:
    design_file = tmp_path / "design.json"
    design_file.write_text(content)

    code = main(_with_design_file(inspection_file, design_file))

    assert code == 1
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("plugin_id", ["../x", "X", "a", "a" * 34, "1abc"])
def test_bad_plugin_ids_are_refused(
    inspection_file: Path, plugin_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["design", str(inspection_file), "--plugin-id", plugin_id, "--offline"]) == 1

    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"plugin id {plugin_id!r} must match" in captured.err


def test_not_an_inspection_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bogus = tmp_path / "bogus.json"
    bogus.write_text('{"graphs": []}')

    assert main(["design", str(bogus), "--plugin-id", "research", "--offline"]) == 1
    assert f"{bogus}: not an inspection: source: Field required" in capsys.readouterr().err


def test_several_graphs_need_graph(
    tmp_path: Path, two_graphs: Inspection, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two.json"
    path.write_text(two_graphs.model_dump_json())

    assert main(["design", str(path), "--plugin-id", "research", "--offline"]) == 1
    assert "choose one with --graph" in capsys.readouterr().err
    assert (
        _design_json(
            capsys, str(path), "--plugin-id", "two", "--graph", "two", "--offline"
        ).graph_id
        == "two"
    )


def test_flags_reach_bedrock_and_the_summary_shows_tokens_and_cost(
    inspection_file: Path, structured: Inspection, endpoint: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = model_answer(structured, "research")
    mapping = {"reasoning": "r", "input_field": "topic", "output_field": "report"}
    fake = endpoint(
        haiku=[tool_answer(mapping, name="field_mapping")],
        sonnet=[tool_answer(answer, name="a2ui_design")],
    )
    argv = ["design", str(inspection_file), "--plugin-id", "research", "--tool-use"]
    model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

    assert main([*argv, "--model", model, "--region", "eu-west-2", "--no-cache"]) == 0

    out = capsys.readouterr().out.splitlines()
    assert out[1] == f"  mode:      bedrock, {model}"
    # Haiku 1,000 in + 200 out at $1/$5, Sonnet the same at $3/$15 per million: $0.008
    assert out[3] == (
        "  model:     2 answers, 1 for the design; 2,000 tokens in, 400 out; "
        f"{out[3].split('; ')[2]}; about $0.0080 (estimate)"
    )
    [request] = fake.requests_to("sonnet")
    assert request.model_id == model
    assert "toolConfig" in request.body
    assert "/eu-west-2/bedrock/aws4_request" in request.headers["Authorization"]


def test_show_prompt_prints_exactly_what_the_design_model_is_sent(
    inspection_file: Path, structured: Inspection, endpoint: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    mapping = heuristic_mapping(agent_facts(structured))
    answer = {
        "reasoning": "r",
        "input_field": mapping.input_field,
        "output_field": mapping.output_field,
    }
    fake = endpoint(
        haiku=[tool_answer(answer, name="field_mapping")],
        sonnet=[tool_answer(model_answer(structured, "research"), name="a2ui_design")],
    )
    argv = ["design", str(inspection_file), "--plugin-id", "research"]

    assert main([*argv, "--show-prompt"]) == 0
    shown = capsys.readouterr().out
    assert fake.requests == []

    assert main([*argv, "--tool-use", "--no-cache"]) == 0
    [request] = fake.requests_to("sonnet")
    system = request.body["system"][0]["text"]
    user = request.body["messages"][0]["content"][0]["text"]
    assert shown.startswith(f"=== system ===\n{system}\n=== user ===\n{user}\n")
