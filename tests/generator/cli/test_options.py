"""The shared source and design flags mean the same thing for every command that takes them."""

from __future__ import annotations

import pytest

from generator.cli import build_parser
from generator.cli.options import design_options, fetch_limits
from generator.fetch import MB

DESIGN_FLAGS = [
    "--model", "m-design", "--mapping-model", "m-map", "--region", "eu-west-2",
    "--profile", "bank", "--no-cache", "--tool-use", "--max-size", "2", "--timeout", "7",
]  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [
        ["design", "agent", "--plugin-id", "demo", *DESIGN_FLAGS],
        ["import", "agent", "--plugin-id", "demo", *DESIGN_FLAGS],
        ["update", "demo", *DESIGN_FLAGS],
    ],
)
def test_design_and_fetch_flags_reach_the_options(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_REGION", "AGENT_IMPORT_DESIGN_MODEL", "AGENT_IMPORT_MAPPING_MODEL"):
        monkeypatch.delenv(name, raising=False)
    args = build_parser().parse_args(argv)
    options = design_options(args)
    assert (options.design_model, options.mapping_model) == ("m-design", "m-map")
    assert (options.bedrock.region, options.bedrock.profile) == ("eu-west-2", "bank")
    assert options.bedrock.output_mode == "tool_use"
    assert options.use_cache is False
    limits = fetch_limits(args)
    assert (limits.max_bytes, limits.timeout) == (2 * MB, 7.0)


def test_offline_and_design_file_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(
            ["import", "agent", "--plugin-id", "demo", "--offline", "--design-file", "d.json"]
        )
    assert exit_.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["0", "-1", "lots"])
def test_limits_must_be_positive_numbers(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["inspect", "agent", "--max-size", bad])
    assert "--max-size" in capsys.readouterr().err
