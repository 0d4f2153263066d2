"""Arguments several subcommands share, declared once so their spelling and help never drift.

Heavy modules (the designer, boto3) are imported inside the functions that need them, so
``agent-import --help`` and ``inspect`` stay quick to start.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from generator import gitops
from generator.errors import AgentImportError
from generator.fetch import MB, FetchLimits

if TYPE_CHECKING:
    from generator.design import DesignOptions

_LIMITS = FetchLimits()


def add_source(parser: argparse.ArgumentParser, *, src_help: str) -> None:
    """SRC and the options that pick what to read from it: --ref, --config, --graph, limits."""
    parser.add_argument("src", metavar="SRC", help=src_help)
    parser.add_argument("--ref", type=ref_name, help="git branch, tag or full commit sha of SRC")
    parser.add_argument("--config", metavar="PATH", help="langgraph.json to use, if several")
    parser.add_argument("--graph", metavar="ID", help="graph id in langgraph.json, if several")
    add_fetch_limits(parser)


def add_fetch_limits(parser: argparse.ArgumentParser) -> None:
    """--max-size and --timeout: the bounds on cloning a git source (docs/architecture.md)."""
    parser.add_argument(
        "--max-size",
        type=_positive,
        default=_LIMITS.max_bytes / MB,
        metavar="MB",
        help="clone size limit (default: %(default)g)",
    )
    parser.add_argument(
        "--timeout",
        type=_positive,
        default=_LIMITS.timeout,
        metavar="SECONDS",
        help="fetch time limit (default: %(default)g)",
    )


def add_sandbox(parser: argparse.ArgumentParser) -> None:
    """``--no-sandbox``, for the commands that run an agent's code (its checks)."""
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the agent's code in the checks without the sandbox (with your files, network "
        "and environment variables): only where no sandbox can be made; recorded in the report, "
        "agent.json and the commit message",
    )


def ref_name(text: str) -> str:
    """The ``type`` of --ref: a branch, tag or commit name, never an option (a usage error)."""
    return _usage_error(gitops.check_ref, text)


def branch_name(text: str) -> str:
    """The ``type`` of --branch: a name git takes for a new branch, never an option."""
    return _usage_error(gitops.check_branch, text)


def fetch_limits(args: argparse.Namespace) -> FetchLimits:
    return FetchLimits(max_bytes=int(args.max_size * MB), timeout=args.timeout)


def add_design(parser: argparse.ArgumentParser) -> None:
    """How the screens are designed: Claude on Bedrock (default), --offline, or --design-file."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--offline", action="store_true", help="no model: deterministic design")
    source.add_argument(
        "--design-file", type=Path, metavar="F", help="check and use this design instead"
    )
    parser.add_argument(
        "--sample-output", type=Path, metavar="F", help="an example answer, shown to the model"
    )
    parser.add_argument(
        "--model", metavar="ID", help="design model id [$AGENT_IMPORT_DESIGN_MODEL]"
    )
    parser.add_argument(
        "--mapping-model", metavar="ID", help="field-mapping model id [$AGENT_IMPORT_MAPPING_MODEL]"
    )
    parser.add_argument(
        "--diagnosis-model",
        metavar="ID",
        help="model explaining a failed validation [$AGENT_IMPORT_DIAGNOSIS_MODEL]",
    )
    parser.add_argument("--region", help="AWS region [$AWS_REGION]")
    parser.add_argument("--profile", help="AWS profile [$AWS_PROFILE]")
    parser.add_argument("--no-cache", action="store_true", help="ask the model even if cached")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--structured-output",
        dest="output_mode",
        action="store_const",
        const="structured_output",
        help="JSON-schema structured output (default)",
    )
    mode.add_argument(
        "--tool-use",
        dest="output_mode",
        action="store_const",
        const="tool_use",
        help="forced tool use, for models without structured output",
    )


def design_options(args: argparse.Namespace) -> DesignOptions:
    """The ``DesignOptions`` the flags of ``add_design`` ask for, over the environment's."""
    from generator.design import DesignOptions

    return DesignOptions.from_env(
        offline=args.offline,
        design_model=args.model,
        mapping_model=args.mapping_model,
        diagnosis_model=args.diagnosis_model,
        use_cache=not args.no_cache,
        sample_output=_read(args.sample_output) if args.sample_output else None,
        bedrock={"region": args.region, "profile": args.profile, "output_mode": args.output_mode},
    )


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
    return value


def _usage_error(check: Callable[[str], str], text: str) -> str:
    """``check(text)``, its refusal reported by argparse: one line, exit status 2."""
    try:
        return check(text)
    except AgentImportError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AgentImportError(f"cannot read: {exc}", file=str(path)) from None
