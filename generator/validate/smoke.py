"""The checks ``validate`` runs in a fresh process (a fork of the warm interpreter, or a new one).

``python -m generator.validate.smoke DIR OUT`` runs, in order, with dummy provider keys in the
environment (and for the credentials of ``agent.json`` ``env``; its other variables stay unset,
as they may on LangGraph's server):

* ``import``: import the plugin folder the way the runtime discovers it, then build and compile
  its graph (which imports the agent); nothing is patched yet;
* ``turns`` (if the import passed): with ``runtime.testing.offline_models`` installed, run the first
  turn and one user message through the runtime's turn engine (``runtime.turns``: card numbers
  masked, the plugin's run policy, a failed turn rolled back; in-memory storage), and check what
  a client would receive: valid A2UI messages and a voice line (a turn the agent ends on an
  ``interrupt()``: the approval screen the engine draws for it), no failed turn, and no agent
  error swallowed by an error screen.

The results are written as a JSON list to ``OUT`` (the agent may print to stdout). A process of
their own keeps the agent's imports, patches and ``sys.path`` changes out of the caller; one
process for both checks pays for importing LangChain once (``warm.py`` forks it from an
interpreter that has paid already).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

CheckName = Literal["import", "turns"]

#: What the smoke test says on its one user turn.
SAMPLE_MESSAGE = "Hello! What can you help me with?"
#: The smoke test's session (its thread id).
SESSION_ID = "smoke"
#: The user the smoke test's session is for: a run on LangGraph's server with authentication has
#: one (``configurable["user_id"]``), and agents that remember per user require it.
SMOKE_USER = "smoke-user"
#: How the names of credentials end (and any name holding ``API_KEY``): these get dummy values.
CREDENTIAL_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
#: Credentials that switch an agent to a provider needing more than a key (Azure: its endpoint
#: and deployments): left unset, so the agent keeps the provider it uses without them.
OPT_IN_PREFIXES = ("AZURE_",)


class CheckResult(BaseModel):
    """The outcome of one check."""

    model_config = ConfigDict(extra="forbid")

    name: CheckName
    ok: bool
    seconds: float = 0.0
    summary: str = ""
    traceback: str | None = None
    missing_module: str | None = Field(default=None, description="ModuleNotFoundError.name")
    transcript: list[str] = Field(default_factory=list, description="What a client heard/read.")


CheckResults = TypeAdapter(list[CheckResult])


#: How the ``turns`` check's summary starts when the conversation was not tried because the
#: agent needs a value a reviewer gives (``diagnosis.py`` makes that a warning, not a failure).
NOT_TRIED = "not tried: the plugin "


class _Failed(Exception):
    """A check found a problem that is not an exception of the plugin's own."""


class _ErrorLog(logging.Handler):
    """Keeps the exceptions the plugin logged (an adapter logs the agent's exceptions)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.exceptions: list[BaseException] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self.exceptions.append(record.exc_info[1])


def run_checks(folder: Path) -> list[CheckResult]:
    """The import check, then the smoke test if the plugin imported."""
    imported = run_check("import", folder)
    return [imported, run_check("turns", folder)] if imported.ok else [imported]


def run_check(name: CheckName, folder: Path) -> CheckResult:
    """Run one check on the plugin ``folder``; never raises."""
    errors = _ErrorLog()
    logging.getLogger().addHandler(errors)
    started = time.perf_counter()
    try:
        summary, transcript = _import(folder) if name == "import" else _turns(folder, errors)
    except BaseException as exc:  # report everything, SystemExit from agent code included
        cause = errors.exceptions[-1] if isinstance(exc, _Failed) and errors.exceptions else exc
        return CheckResult(
            name=name,
            ok=False,
            seconds=time.perf_counter() - started,
            summary=str(exc) if isinstance(exc, _Failed) else f"{type(exc).__name__}: {exc}",
            traceback=None if cause is exc and isinstance(exc, _Failed) else _format(cause),
            missing_module=cause.name if isinstance(cause, ModuleNotFoundError) else None,
        )
    return CheckResult(
        name=name,
        ok=True,
        seconds=time.perf_counter() - started,
        summary=summary,
        transcript=transcript,
    )


def _format(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


def _load(folder: Path) -> Any:
    from runtime.discovery import load_plugin, plugins_package

    package, _ = plugins_package(folder.parent)
    return load_plugin(package, folder.name)


def _import(folder: Path) -> tuple[str, list[str]]:
    from runtime.adapters.imported import ImportedPlugin

    plugin = _load(folder)
    if isinstance(plugin, ImportedPlugin):
        # The runtime lists a missing module or an agent that fails to load as a need (an error
        # screen); validation imports the agent itself and fails with the cause, so a missing
        # module names the requirement to approve. A setting left to review is no failure: the
        # import names it and the plugin's README says where to set it.
        plugin.prepare()
    graph = plugin.build_graph().compile()
    nodes = [name for name in graph.get_graph().nodes if not name.startswith("__")]
    return f"{type(plugin).__name__} builds a graph with nodes {', '.join(nodes)}", []


def _turns(folder: Path, errors: _ErrorLog) -> tuple[str, list[str]]:
    from runtime.testing import offline_models as offline

    offline.install()
    plugin = _load(folder)
    if setting := _setting_to_review(plugin):
        raise _Failed(f"{NOT_TRIED}{setting}")
    transcript: list[str] = []
    for label, result, logged in asyncio.run(_converse(plugin, errors)):
        if result.error is not None and logged:
            raise logged[-1]  # what the engine logged: the agent's own exception
        if result.error is not None:
            raise _Failed(f"{label}: {result.error.code}: {result.error.message}")
        transcript += _check_outbox(label, result.outbox, logged)
    return "the first turn and one message ran offline", transcript


async def _converse(plugin: Any, errors: _ErrorLog) -> list[tuple[str, Any, list[BaseException]]]:
    """The first turn and one message, through the turn engine as the runtime runs them (masking,
    run policy, rollback, the approval screen of an interrupt), over in-memory storage, with the
    audit in this check's scratch folder; each with the exceptions logged while it ran."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from runtime.discovery import Registry
    from runtime.settings import Settings
    from runtime.turns import TurnEngine, TurnRequest
    from runtime.turns.audit import AuditLog
    from runtime.turns.context import RuntimeContext
    from runtime.turns.outbox import prepare

    scratch = Path(tempfile.mkdtemp(prefix="agent-import-smoke-"))
    registry = Registry({plugin.plugin_id: plugin}, {}, InMemorySaver(), InMemoryStore())
    context = RuntimeContext(Settings(), registry, AuditLog(scratch / "audit.jsonl"), [])
    engine = await TurnEngine.create(context, plugin, SESSION_ID, user_id=SMOKE_USER)
    results = []
    async with engine.lock:
        await engine.open()
        for label, request in (
            ("first turn", engine.start(mode="voice")),
            (f"message {SAMPLE_MESSAGE!r}", TurnRequest.say(SAMPLE_MESSAGE, mode="voice")),
        ):
            already = len(errors.exceptions)
            result = await engine.run(request)
            delivery = prepare(result.outbox, mode="voice", surfaces=frozenset())
            context.record_audit(SESSION_ID, plugin.plugin_id, delivery.audit)
            results.append((label, result, errors.exceptions[already:]))
    return results


def _setting_to_review(plugin: Any) -> str | None:
    """What an imported plugin still needs set before it can answer (a context field or an input
    with no default and nothing proposed): the runtime shows an error screen naming it until then,
    so the conversation is not tried."""
    from runtime.adapters.imported import ImportedPlugin

    if not isinstance(plugin, ImportedPlugin):
        return None
    return next((need for need in plugin.unmet_needs() if need.startswith("needs a setting")), None)


def _check_outbox(
    label: str, outbox: Sequence[Mapping[str, Any]], logged: Sequence[BaseException]
) -> list[str]:
    """The lines a client would hear or read; ``_Failed`` if the turn is not servable."""
    from runtime.a2ui import validate_message

    failures = [e for e in outbox if e["payload"].get("kind") == "agent_error"]
    if failures:
        raise _Failed(f"{label}: the agent raised {failures[0]['payload'].get('error')}")
    patches = [e["payload"] for e in outbox if e["type"] == "server.a2ui.patch"]
    if not patches:
        raise _Failed(f"{label}: no A2UI screen was sent")
    for message in patches:
        if issues := validate_message(message):
            raise _Failed(f"{label}: invalid A2UI message: {issues[0]}")
    if logged:
        raise _Failed(f"{label}: the plugin logged an error")
    kinds = {"server.voice.say": "voice", "server.transcript.final": "text"}
    return [
        f"{label}: {kinds[e['type']]}: {e['payload'].get('text', '')}"
        for e in outbox
        if e["type"] in kinds
    ]


def agent_env(folder: Path) -> list[str]:
    """The variables an imported plugin's agent reads (``agent.json``)."""
    from runtime.contract.agent import load_agent_spec
    from runtime.contract.layout import AGENT_FILE

    return list(load_agent_spec(folder).env) if (folder / AGENT_FILE).is_file() else []


def is_credential(name: str) -> bool:
    """Whether ``name`` looks like a key, token, secret or password: given a dummy value in the
    checks, so a client that insists on one is built. Other variables are behaviour settings
    (``FETCH_FULL_PAGE``, ``LLM_PROVIDER``), left unset so the agent's own defaults apply: a
    dummy string would not parse as its bool or ``Literal``."""
    if name.startswith(OPT_IN_PREFIXES):
        return False
    return "API_KEY" in name or name.endswith(CREDENTIAL_SUFFIXES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator.validate.smoke")
    parser.add_argument("folder", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    from runtime.testing.offline_models import OFFLINE_ENV

    os.environ.update(OFFLINE_ENV)
    os.environ.update(
        {
            name: "offline-dummy"
            for name in agent_env(args.folder)
            if is_credential(name) and name not in os.environ
        }
    )
    results = run_checks(args.folder.resolve())
    args.out.write_text(CheckResults.dump_json(results).decode(), encoding="utf-8")
    return 0 if all(result.ok for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
