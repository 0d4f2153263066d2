"""Design-step benchmarks: the offline designer, the prompt, and the model loop without a model.

* the deterministic fallback design of each fixture agent (the import's ``--offline`` path);
* the design prompt: its build time and size (characters, and tokens at ~4 characters each);
* one full ``design()`` against a local fake Bedrock endpoint answering at once: the overhead
  of boto3, checks and the cache around the model's own latency.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from generator.design import DesignOptions, design
from generator.design.facts import AgentFacts, agent_facts
from generator.design.fallback import fallback_content
from generator.design.mapping import heuristic_mapping
from generator.design.prompt import Prompt, design_prompt
from generator.fetch import Workspace, fetch
from generator.inspect import inspect_source
from generator.models import Inspection

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "agents"
ROUNDS = 200


def _median_ms(call: Callable[[], object], rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _inspections() -> dict[str, Inspection]:
    found = {}
    with Workspace() as workspace:
        for folder in sorted(p for p in FIXTURES.iterdir() if (p / "langgraph.json").is_file()):
            found[folder.name] = inspect_source(fetch(str(folder), workspace=workspace))
    return found


def _fake_endpoint_run(inspection: Inspection, plugin_id: str) -> float:
    """Median ms of ``design()`` against a fake endpoint answering valid JSON at once."""
    from tests.generator.design.design_helpers import wire  # the tests' model answers
    from tests.generator.design.fake_bedrock import FakeBedrock, text_answer

    facts = agent_facts(inspection)
    content = fallback_content(facts, plugin_id=plugin_id, **_fields(facts))
    scripts = {
        "haiku": [text_answer(json.dumps({"reasoning": "r", **_fields(facts)}))],
        "sonnet": [text_answer(json.dumps(wire(content)))],
    }
    saved = dict(os.environ)
    with FakeBedrock(scripts) as fake, tempfile.TemporaryDirectory() as cache:
        os.environ.update(
            AWS_ENDPOINT_URL_BEDROCK_RUNTIME=fake.url,
            AWS_ACCESS_KEY_ID="AKIDEXAMPLE",
            AWS_SECRET_ACCESS_KEY="secret",
            AWS_EC2_METADATA_DISABLED="true",
        )
        try:
            options = DesignOptions(use_cache=False, cache_dir=Path(cache))
            return _median_ms(lambda: design(inspection, plugin_id=plugin_id, options=options), 20)
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _fields(facts: AgentFacts) -> dict[str, str]:
    """The heuristic mapping as keyword arguments (``input_field``, ``output_field``)."""
    mapping = heuristic_mapping(facts)
    return {"input_field": mapping.input_field, "output_field": mapping.output_field}


def _prompt(facts: AgentFacts, plugin_id: str) -> Prompt:
    prompt = design_prompt(facts, plugin_id=plugin_id, **_fields(facts))
    _ = prompt.sha256  # part of every use: the cache key and the provenance
    return prompt


def main(argv: list[str]) -> None:
    offline = DesignOptions(offline=True)
    graphs = [
        (f"{name} / {graph.graph_id}", inspection.model_copy(update={"graphs": [graph]}))
        for name, inspection in _inspections().items()
        for graph in inspection.graphs
    ]
    print(f"{'fixture / graph':36} {'offline design':>15} {'prompt+sha':>11} {'prompt size':>22}")
    for label, one in graphs:
        plugin_id = re.sub(r"[^a-z0-9_]", "_", f"x_{one.graphs[0].graph_id.lower()}")[:32]
        facts = agent_facts(one)
        prompt = _prompt(facts, plugin_id)
        size = len(prompt.system) + len(prompt.user) + len(json.dumps(prompt.response_schema))
        offline_ms = _median_ms(partial(design, one, plugin_id=plugin_id, options=offline))
        prompt_ms = _median_ms(partial(_prompt, facts, plugin_id))
        tokens = f"{size:,} ch (~{size // 4:,} tok)"
        print(f"{label:36} {offline_ms:12.2f} ms {prompt_ms:8.2f} ms {tokens:>22}")
    for label, one in graphs[:2]:
        fake_ms = _fake_endpoint_run(one, "x_bench")
        print(f"design() via fake HTTP, {label}: {fake_ms:.1f} ms (median of 20; 2 calls)")
