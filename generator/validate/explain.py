"""A model's explanation of a failed validation, over the deterministic one.

``diagnosis.py`` always classifies a failure and words it from rules. With Bedrock available
(the design step is not ``--offline``), Amazon Nova Lite (``DesignOptions.diagnosis_model``)
reads the classification and the traceback's end and rewrites the explanation for someone who
did not write the agent; the kind, the fix and the location stay the rules'. Any failure to get
an answer (no credentials, no network, a refusal, an answer of the wrong shape) keeps the rules'
text: a diagnosis never fails an import.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from generator.design.bedrock import BedrockUnavailable, Conversation, connect
from generator.design.options import DesignOptions
from generator.validate.diagnosis import TAIL_LINES, Diagnosis
from generator.validate.plugin import Report

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime import BedrockRuntimeClient

#: The longest explanation kept from a model (a few sentences).
MAX_EXPLANATION_CHARS = 800
TOOL_NAME = "explain_failure"
SCHEMA = {
    "type": "object",
    "properties": {
        "explanation": {
            "type": "string",
            "description": "Two or three plain sentences: what went wrong and why.",
        }
    },
    "required": ["explanation"],
}
SYSTEM = (
    "You explain why an imported LangGraph agent failed an offline check, to a developer who "
    "did not write the agent. You get the classification made by rules, the fix they propose "
    "and the end of the traceback. Write two or three plain sentences: what the agent tried to "
    "do and why that failed here. Do not repeat the traceback, do not propose another fix, "
    "no markdown."
)


def explained(
    report: Report, options: DesignOptions, *, client: BedrockRuntimeClient | None = None
) -> Report:
    """``report`` with its diagnosis explained by the model, when one can be asked."""
    if report.diagnosis is None:
        return report
    failed = next((check for check in report.checks if not check.ok), None)
    traceback = (failed.traceback or failed.summary) if failed is not None else ""
    diagnosis = explain(report.diagnosis, traceback, options, client=client)
    return report.model_copy(update={"diagnosis": diagnosis})


def explain(
    diagnosis: Diagnosis,
    traceback: str,
    options: DesignOptions,
    *,
    client: BedrockRuntimeClient | None = None,
) -> Diagnosis:
    """``diagnosis`` with the model's explanation, or as it is when none can be had."""
    if options.offline:
        return diagnosis
    prompt = "\n".join(
        [
            f"Classification: {diagnosis.kind} ({diagnosis.severity})",
            f"What failed: {diagnosis.headline()}",
            f"Fix: {diagnosis.fix}",
            "",
            "End of the traceback:",
            *traceback.splitlines()[-TAIL_LINES:],
        ]
    )
    try:
        conversation = Conversation(
            client or connect(options.bedrock),
            model_id=options.diagnosis_model,
            system=SYSTEM,
            prompt=prompt,
            schema=SCHEMA,
            name=TOOL_NAME,
            output_mode="tool_use",  # Nova answers a forced tool; JSON-schema output is Claude's
            max_tokens=400,
        )
        answer = json.loads(conversation.ask().text)
    except (BedrockUnavailable, ValueError):
        return diagnosis
    text = answer.get("explanation") if isinstance(answer, dict) else None
    if not isinstance(text, str) or not text.strip():
        return diagnosis
    explanation = " ".join(text.split())[:MAX_EXPLANATION_CHARS]
    return diagnosis.model_copy(
        update={"explanation": explanation, "explained_by": options.diagnosis_model}
    )
