"""``a2ui-runtime``: serve the plugins, list them, or play a scripted demo conversation."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import get_args

import uvicorn
from pydantic import SecretStr, ValidationError

from runtime.discovery import DEFAULT_PLUGINS_DIR, discover
from runtime.extensions import IMPORT_API
from runtime.isolated.envs import build_missing
from runtime.serving.launch import uvicorn_config
from runtime.serving.logging import configure_logging
from runtime.serving.processes import (
    AUTO,
    check_processes,
    process_app,
    process_count,
    serve_processes,
)
from runtime.serving.quotes import describe
from runtime.settings import LogLevel, Settings
from runtime.storage.persistence import PersistenceError, probe
from runtime.testing.demo import SCRIPTS, run_demo

PLUGINS_DIR_ENV = "A2UI_PLUGINS_DIR"
#: Keeps a PostgreSQL password off the command line (and out of ``ps``); ``A2UI_CHECKPOINTER`` is
#: its older name, still read.
STORAGE_ENVS = ("A2UI_STORAGE", "A2UI_CHECKPOINTER")
#: Settings the ``serve`` flags may set; unset ones keep ``Settings``' own defaults.
SERVE_SETTINGS = (
    "host",
    "port",
    "storage",
    "audit_file",
    "cors_origins",
    "user_header",
    "offline_models",
    "sandbox",
    "allowed_hosts",
    "trusted_proxies",
    "max_connections",
    "extensions",
)
#: The import API's admin token (an environment variable: a flag would show in ``ps``).
ADMIN_TOKEN_ENV = "A2UI_ADMIN_TOKEN"


def _default(name: str) -> object:
    return Settings.model_fields[name].default


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        given = {name: getattr(args, name, None) for name in SERVE_SETTINGS}
        settings = Settings(
            plugins_dir=args.plugins_dir,
            log_level=args.log_level or args.log_level_default,
            admin_token=SecretStr(token) if (token := os.environ.get(ADMIN_TOKEN_ENV)) else None,
            **{name: value for name, value in given.items() if value is not None},
        )
    except ValidationError as exc:
        print(f"a2ui-runtime: error: {describe(exc)}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    code: int = args.func(args, settings)
    return code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="a2ui-runtime",
        description="The lean A2UI runtime: discovers the plugins in runtime/plugins/ and serves "
        "voice-first sessions over a WebSocket (/ws?agent=<plugin_id>).",
    )
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--plugins-dir",
        type=Path,
        default=os.environ.get(PLUGINS_DIR_ENV) or None,
        metavar="DIR",
        help=f"folder of plugin packages (default: ${PLUGINS_DIR_ENV} or runtime/plugins/)",
    )
    common.add_argument(
        "--log-level",
        type=str.upper,
        choices=get_args(LogLevel),
        help="server log level (default: INFO; WARNING for plugins and demo)",
    )

    serve = commands.add_parser(
        "serve",
        parents=[common],
        help="serve the plugins over HTTP and WebSocket",
        description="Serve every discovered plugin: GET /health, GET /plugins, and WebSocket "
        "/ws?agent=<plugin_id>[&sessionId=<id>][&mode=voice|text]; with --import-api, also the "
        "import wizard on /transfer and its API on /api/import-agent.",
    )
    serve.add_argument(
        "--import-api",
        dest="extensions",
        action="append_const",
        const=IMPORT_API,
        help="also serve the import wizard (/transfer) and its API (/api/import-agent), loading "
        f"the generator; loopback clients only unless ${ADMIN_TOKEN_ENV} is set (docs/wizard.md). "
        "Off by default: without it the runtime never imports the generator",
    )
    serve.add_argument("--host", help=f"interface (default: {_default('host')})")
    serve.add_argument(
        "--allowed-host",
        dest="allowed_hosts",
        action="append",
        metavar="NAME",
        help="a host name requests may be addressed to besides loopback ones (repeatable): the "
        f"import API's (with ${ADMIN_TOKEN_ENV}, to reach the wizard by this name), and /ws and "
        "/agui of a runtime bound to loopback, not behind a proxy (against DNS rebinding)",
    )
    serve.add_argument(
        "--trusted-proxy",
        dest="trusted_proxies",
        action="append",
        metavar="ADDRESS",
        help="an address or network (e.g. 127.0.0.1, 10.0.0.0/8) of a reverse proxy whose "
        "forwarding headers (X-Forwarded-For, X-Forwarded-Proto, Forwarded...) count "
        "(repeatable); none by default: from any other client they change nothing",
    )
    serve.add_argument("--port", type=int, help=f"port; 0 picks one (default: {_default('port')})")
    serve.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help="connections one server process holds at most; more are refused, or with --workers "
        f"wait until one closes (default: {_default('max_connections')}; keep it below ulimit -n)",
    )
    serve.add_argument(
        "--workers",
        type=process_count,
        default=1,
        metavar="N",
        help=f"server processes sharing the port (default: 1; {AUTO!r}: one per core); more than "
        "one needs sqlite: or PostgreSQL storage (see docs/deployment.md)",
    )
    serve.add_argument(
        "--storage",
        "--checkpointer",  # its older name
        dest="storage",
        default=next(filter(None, map(os.environ.get, STORAGE_ENVS)), None),
        metavar="URL",
        help="where sessions and the plugins' store live: 'memory' (default), 'sqlite:PATH' "
        "(survives restarts: a client reconnecting with ?sessionId=<id> resumes its session) or "
        "'postgresql://USER@HOST:PORT/DB' (shared by several runtime processes; see "
        f"docs/deployment.md). Default: ${STORAGE_ENVS[0]} or memory",
    )
    serve.add_argument(
        "--audit-file",
        type=Path,
        metavar="FILE",
        help="append audit events (server.audit.event) to this JSON-lines file",
    )
    serve.add_argument(
        "--cors-origin",
        dest="cors_origins",
        action="append",
        metavar="ORIGIN",
        help="a browser origin allowed to call /agui and open /ws (repeatable; none by default)",
    )
    serve.add_argument(
        "--user-header",
        metavar="NAME",
        help="take each session's user id from this request header of /ws (e.g. X-User-Id); "
        "only behind a gateway that authenticates users and sets it (clients' own are dropped)",
    )
    serve.add_argument(
        "--offline-models",
        action="store_true",
        default=None,
        help="answer every chat model call with a scripted reply (no keys, no network): to try "
        "an imported agent's screens locally or run its scenarios in CI",
    )
    serve.add_argument(
        "--no-sandbox",
        dest="sandbox",
        action="store_false",
        default=None,
        help="run isolated plugins' workers without the sandbox (their files, network and "
        "processes unconfined): only where no sandbox can be made and the plugins are reviewed",
    )
    serve.set_defaults(func=serve_command, log_level_default="INFO")

    plugins = commands.add_parser(
        "plugins",
        parents=[common],
        help="list the plugins found and the broken ones with the reason",
        description="List the discovered plugins (title, actions) and the folders that failed to "
        "load, with the reason. Always exits 0: a broken plugin does not stop the runtime.",
    )
    plugins.add_argument("--json", action="store_true", help="print the same JSON as GET /plugins")
    plugins.set_defaults(func=plugins_command, log_level_default="WARNING")

    envs = commands.add_parser(
        "envs",
        parents=[common],
        help="build the missing environments of plugins that run in their own (with uv)",
        description="Build, with uv, the environment of every plugin whose agent.json asks for "
        "an isolated one and lacks it (or whose requirements.lock changed); built ones are kept. "
        "The runtime never builds them itself: an unbuilt one makes its plugin unavailable. "
        "Exits 1 if one could not be built.",
    )
    envs.set_defaults(func=envs_command, log_level_default="WARNING")

    demo = commands.add_parser(
        "demo",
        parents=[common],
        help="play a scripted conversation and print what a client receives",
        description="Start the runtime on a free port of 127.0.0.1, play the agent's scripted "
        "conversation over a WebSocket and print the voice lines, transcripts and screens a "
        "client receives. Exits non-zero if any turn fails.",
    )
    demo.add_argument(
        "--agent",
        default="mortgage",
        choices=sorted(SCRIPTS),
        help="the agent whose scripted conversation to play (default: mortgage)",
    )
    demo.add_argument("--text", action="store_true", help="text mode: voice lines are suppressed")
    demo.set_defaults(func=demo_command, log_level_default="WARNING")
    return parser


def serve_command(args: argparse.Namespace, settings: Settings) -> int:
    try:  # the common start-up failures, said in one line rather than a start-up traceback
        check_processes(args.workers, settings)
        probe(settings.backend)
    except (ValueError, PersistenceError) as exc:
        print(f"a2ui-runtime: error: {exc}", file=sys.stderr)
        return 2
    if args.workers > 1:
        return serve_processes(settings, args.workers)
    server = uvicorn.Server(uvicorn_config(process_app(settings), settings))
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises Ctrl-C after a clean shutdown
        server.run()
    return 0


def plugins_command(args: argparse.Namespace, settings: Settings) -> int:
    report = discover(settings.plugins_dir).report()
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    for plugin_id, capabilities in report.plugins.items():
        print(f"{plugin_id}  {capabilities.title}")
        print(f"    actions: {', '.join(capabilities.actions) or '(none)'}")
        for need in capabilities.needs:
            print(f"    NOT READY: {need}")
        for warning in capabilities.warnings:
            print(f"    WARNING: {warning}")
    if not report.plugins:
        print("no plugins found")
    for plugin_id, reason in report.broken.items():
        print(f"{plugin_id}  BROKEN: {reason}")
    return 0


def envs_command(args: argparse.Namespace, settings: Settings) -> int:
    plugins_dir = settings.plugins_dir or DEFAULT_PLUGINS_DIR
    failed = build_missing(plugins_dir, progress=lambda line: print(line, flush=True))
    for line in failed:
        print(f"a2ui-runtime: error: {line}", file=sys.stderr)
    return 1 if failed else 0


def demo_command(args: argparse.Namespace, settings: Settings) -> int:
    return run_demo(args.agent, text_mode=args.text, settings=settings, out=sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
