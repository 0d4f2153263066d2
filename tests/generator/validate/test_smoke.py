"""The smoke test's turns run through the runtime's turn engine (``generator.validate.smoke``):
what the runtime would do to a turn (run policy, masking, rollback), the check does too.

Each check runs in a process of its own, as validation runs it: the offline models it installs
patch every chat model of the process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from generator.validate.smoke import SAMPLE_MESSAGE, CheckResult, CheckResults

PLUGIN = """
from typing import Any

from langgraph.graph import END, START, StateGraph

from runtime.contract.plugin import PluginBase
from runtime.contract.policy import RunPolicy
from runtime.contract.state import CommonState, event

SCREEN = {{"version": "v0.9", "createSurface": {{"surfaceId": "s", "catalogId": "basic"}}}}


class Probe(PluginBase):
    plugin_id = "probe"
    title = "Probe"
    run_policy = RunPolicy(recursion_limit=5)

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(CommonState)
        graph.add_node("answer", answer)
        graph.add_edge(START, "answer")
        graph.add_conditional_edges("answer", route, ["answer", END])
        return graph


def answer(state: CommonState) -> dict[str, Any]:
    heard = state.get("transcript") or ""
    {body}
    return {{"outbox": [
        event("server.a2ui.patch", **SCREEN),
        event("server.voice.say", text=f"heard {{heard}}"),
    ]}}


def route(state: CommonState) -> str:
    return "answer" if {loops} else END
"""


def probe(tmp_path: Path, *, body: str = "pass", loops: str = "False") -> Path:
    folder = tmp_path / "plugins" / "probe"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text('PLUGIN_ID = "probe"\n')
    (folder / "plugin.py").write_text(textwrap.dedent(PLUGIN.format(body=body, loops=loops)))
    return folder


def run_checks(folder: Path, message: str = SAMPLE_MESSAGE) -> list[CheckResult]:
    """``python -m generator.validate.smoke`` on ``folder``, saying ``message`` on its turn."""
    out = folder.parent / "results.json"
    script = (
        "import sys; from generator.validate import smoke; "
        f"smoke.SAMPLE_MESSAGE = {message!r}; sys.exit(smoke.main(sys.argv[1:]))"
    )
    subprocess.run([sys.executable, "-c", script, str(folder), str(out)], timeout=120, check=False)
    return CheckResults.validate_json(out.read_text())


def test_a_turn_runs_under_the_plugins_run_policy(tmp_path: Path) -> None:
    """The plugin's recursion limit of 5 stops the loop as the runtime would (LangGraph's own
    default, run without the engine, is 25)."""
    checks = run_checks(probe(tmp_path, loops="bool(state.get('transcript'))"))
    assert [c.ok for c in checks] == [True, False]
    assert checks[1].summary.startswith(f"message {SAMPLE_MESSAGE!r}: recursion_limit")


def test_the_agents_own_exception_is_reported_with_its_traceback(tmp_path: Path) -> None:
    body = "if heard:\n        raise LookupError('no rate for that')"
    checks = run_checks(probe(tmp_path, body=body))
    assert checks[1].summary == "LookupError: no rate for that"
    assert "raise LookupError('no rate for that')" in (checks[1].traceback or "")


def test_a_card_number_the_customer_types_never_reaches_the_graph(tmp_path: Path) -> None:
    checks = run_checks(probe(tmp_path), "my card is 4929123456734821")
    assert checks[1].ok, checks[1].summary
    said = [line for line in checks[1].transcript if "voice: heard my card" in line]
    assert said == ["message 'my card is 4929123456734821': voice: heard my card is ****4821"]
