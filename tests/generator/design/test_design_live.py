"""Against the real Bedrock, with the machine's AWS credentials: ``AGENT_IMPORT_LIVE_TESTS=1``.

Costs a few cents per run (one Haiku and one to three Sonnet answers). Models and region come from
the usual variables (``AGENT_IMPORT_DESIGN_MODEL``, ``AGENT_IMPORT_MAPPING_MODEL``, ``AWS_REGION``).
"""

from __future__ import annotations

import os

import pytest

from generator.design import DesignOptions, design
from generator.design.checks import check_design
from generator.design.facts import agent_facts
from generator.models import Inspection

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        os.environ.get("AGENT_IMPORT_LIVE_TESTS") != "1",
        reason="live Bedrock: set AGENT_IMPORT_LIVE_TESTS=1 (uses AWS credentials, costs money)",
    ),
    pytest.mark.timeout(900),
]


@pytest.mark.parametrize("output_mode", ["structured_output", "tool_use"])
def test_sonnet_designs_valid_screens(structured: Inspection, output_mode: str) -> None:
    options = DesignOptions.from_env(use_cache=False, bedrock={"output_mode": output_mode})

    result = design(structured, plugin_id="research", options=options)

    assert result.provenance.mode == "bedrock", result.provenance.fallback_reason
    assert result.provenance.mapping == "bedrock", result.provenance.mapping_reason
    assert check_design(result, facts=agent_facts(structured), plugin_id="research") == []
    assert result.provenance.input_tokens > 0 and result.provenance.output_tokens > 0
