"""``design()``: an ``Inspection`` in, a validated ``Design`` out, with or without a model.

1. The facts of the chosen graph are read from the inspection.
2. The field mapping: Haiku picks the input and output fields among the real ones, else the
   heuristic does.
3. The design prompt (instructions, catalog, rules, examples, the agent's facts and the mapping)
   goes to Sonnet; each answer is checked with the runtime's validator and the design rules, and
   the exact errors go back for at most ``options.repairs`` repairs.
4. Without a valid answer (offline, no credentials, refused, throttled, timed out, still invalid)
   the deterministic fallback designs the screens, and ``provenance.fallback_reason`` says why.

Valid answers are cached under their prompt's sha256, so the same prompt is never paid for twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import ValidationError

from generator.design.answer import parse_design_answer, pydantic_problem
from generator.design.bedrock import BedrockUnavailable, Conversation, OnText, connect
from generator.design.cache import AnswerCache
from generator.design.checks import check_design
from generator.design.facts import AgentFacts, agent_facts
from generator.design.fallback import fallback_content
from generator.design.mapping import FieldMapping, heuristic_mapping, mapping_prompt, parse_mapping
from generator.design.models import Design, DesignContent, DesignHeader, Provenance
from generator.design.options import DesignOptions
from generator.design.prompt import Prompt, design_prompt
from generator.design.repair import InvalidAnswer, ModelResult, ask_valid
from generator.errors import AgentImportError
from generator.models import Inspection
from generator.repository import check_plugin_id

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime import BedrockRuntimeClient

T = TypeVar("T")

#: Keys of a ``Design`` that ``load_design`` recomputes instead of reading.
_DESIGN_HEADER = {*DesignHeader.model_fields, "provenance"}

OFFLINE_REASON = "offline: no model was asked (--offline)"


def design(
    inspection: Inspection,
    *,
    plugin_id: str,
    graph_id: str | None = None,
    options: DesignOptions | None = None,
    client: BedrockRuntimeClient | None = None,
    on_text: OnText | None = None,
) -> Design:
    """Design the screens of one graph (``graph_id``, or the only one) as plugin ``plugin_id``.

    ``client`` replaces the ``bedrock-runtime`` client built from ``options.bedrock`` (tests,
    or callers with their own session). Given ``on_text``, the design model's answer streams
    to it as it is written, and a fallback design's reasoning is handed to it at once.
    Raises ``AgentImportError`` for a bad plugin id or graph.
    """
    check_plugin_id(plugin_id)
    options = options or DesignOptions()
    facts = agent_facts(inspection, graph_id, sample_output=options.sample_output)
    if options.offline:
        mapping = heuristic_mapping(facts)
        provenance = Provenance(
            mode="fallback", mapping_reason=mapping.reason, fallback_reason=OFFLINE_REASON
        )
        return _fallback(facts, plugin_id, mapping, provenance, on_text)

    models = _Models(options, client)
    mapping, mapping_outcome = models.map_fields(facts)
    prompt = design_prompt(
        facts,
        plugin_id=plugin_id,
        input_field=mapping.input_field,
        output_field=mapping.output_field,
    )
    outcome = models.ask(
        "design",
        prompt,
        options.design_model,
        lambda text: _checked(parse_design_answer(text), facts, plugin_id),
        repairs=options.repairs,
        on_text=on_text,
    )
    calls = [*mapping_outcome.calls, *outcome.calls]
    provenance = Provenance(
        mode="bedrock" if outcome.value is not None else "fallback",
        design_model=options.design_model,
        mapping_model=options.mapping_model,
        mapping=mapping.mode,
        mapping_reason=None if mapping.mode == "bedrock" else mapping.reason,
        output_mode=options.bedrock.output_mode,
        attempts=len(outcome.calls),
        input_tokens=sum(call.input_tokens for call in calls),
        output_tokens=sum(call.output_tokens for call in calls),
        latency_ms=sum(call.latency_ms for call in calls),
        prompt_sha256=prompt.sha256,
        cached=outcome.cached,
        fallback_reason=outcome.failure,
        calls=calls,
    )
    if outcome.value is None:
        return _fallback(facts, plugin_id, mapping, provenance, on_text)
    return _assemble(facts, plugin_id, outcome.value, provenance)


def preview_prompt(
    inspection: Inspection,
    *,
    plugin_id: str,
    graph_id: str | None = None,
    sample_output: str | None = None,
) -> Prompt:
    """The design prompt as it would be sent, with the heuristic field mapping; no model call.

    For review: what leaves the machine is the agent's facts and our instructions, nothing else.
    """
    check_plugin_id(plugin_id)
    facts = agent_facts(inspection, graph_id, sample_output=sample_output)
    mapping = heuristic_mapping(facts)
    return design_prompt(
        facts,
        plugin_id=plugin_id,
        input_field=mapping.input_field,
        output_field=mapping.output_field,
    )


def load_design(
    path: Path, inspection: Inspection, *, plugin_id: str, graph_id: str | None = None
) -> Design:
    """A hand-written or earlier design, checked exactly like a model's (provenance ``file``).

    The file holds a ``Design`` as ``design --json`` prints it, or just its content (the four
    screens, ``input_field``, ``output_field``, ``initial_domain_state``, optional ``reasoning``).
    Raises ``AgentImportError`` naming the file and every problem (screen, component, property).
    """
    check_plugin_id(plugin_id)
    facts = agent_facts(inspection, graph_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AgentImportError(f"cannot read the design: {exc.strerror}", file=str(path)) from None
    except ValueError as exc:
        raise AgentImportError(f"not JSON: {exc}", file=str(path)) from None
    if not isinstance(data, dict):
        raise AgentImportError("a design is a JSON object", file=str(path))
    for key, expected in (("plugin_id", plugin_id), ("graph_id", facts.graph.graph_id)):
        if data.get(key, expected) != expected:
            raise AgentImportError(
                f"the design is for {key} {data[key]!r}, not {expected!r}", file=str(path)
            )
    content = {key: value for key, value in data.items() if key not in _DESIGN_HEADER}
    content.setdefault("reasoning", "Written by hand.")
    try:
        parsed = DesignContent.model_validate(content)
        return _validated(parsed, facts, plugin_id, Provenance(mode="file", mapping="file"))
    except ValidationError as exc:
        problems = [pydantic_problem(error) for error in exc.errors()]
    except InvalidAnswer as exc:
        problems = exc.errors
    count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
    raise AgentImportError(f"invalid design, {count}: " + "; ".join(problems), file=str(path))


def _validated(
    content: DesignContent, facts: AgentFacts, plugin_id: str, provenance: Provenance
) -> Design:
    """The ``Design`` of checked ``content``; raises ``InvalidAnswer`` with every problem."""
    _checked(content, facts, plugin_id)
    return _assemble(facts, plugin_id, content, provenance)


def _checked(content: DesignContent, facts: AgentFacts, plugin_id: str) -> DesignContent:
    problems = check_design(content, facts=facts, plugin_id=plugin_id)
    if problems:
        raise InvalidAnswer(problems)
    return content


def _assemble(
    facts: AgentFacts, plugin_id: str, content: DesignContent, provenance: Provenance
) -> Design:
    return Design(
        **dict(content),
        plugin_id=plugin_id,
        graph_id=facts.graph.graph_id,
        title=facts.title,
        description=facts.description,
        provenance=provenance,
    )


def _fallback(
    facts: AgentFacts,
    plugin_id: str,
    mapping: FieldMapping,
    provenance: Provenance,
    on_text: OnText | None = None,
) -> Design:
    content = fallback_content(
        facts,
        plugin_id=plugin_id,
        input_field=mapping.input_field,
        output_field=mapping.output_field,
    )
    if on_text is not None:
        on_text(content.reasoning)
    try:
        return _validated(content, facts, plugin_id, provenance)
    except InvalidAnswer as exc:  # a bug in the fallback designer, never the user's input
        raise RuntimeError(f"the fallback design is invalid: {exc}") from exc


class _Models:
    """The models of one design run: one client, the answer cache, and what already failed."""

    def __init__(self, options: DesignOptions, client: BedrockRuntimeClient | None) -> None:
        self.options = options
        self._client = client
        self._down: str | None = None  # why no model can answer, once known
        self.cache = AnswerCache(options.cache_dir) if options.use_cache else None

    def map_fields(self, facts: AgentFacts) -> tuple[FieldMapping, ModelResult[FieldMapping]]:
        """The model's mapping, else the heuristic one with the model's failure as its reason."""
        outcome = self.ask(
            "mapping",
            mapping_prompt(facts),
            self.options.mapping_model,
            lambda text: parse_mapping(text, facts),
            repairs=0,
        )
        if outcome.value is not None:
            return outcome.value, outcome
        heuristic = heuristic_mapping(facts)
        if outcome.failure_everywhere:  # said once, as the design's fallback reason
            return heuristic, outcome
        reason = f"{heuristic.reason} ({self.options.mapping_model}: {outcome.failure})"
        return heuristic.model_copy(update={"reason": reason}), outcome

    def ask(
        self,
        purpose: Literal["mapping", "design"],
        prompt: Prompt,
        model_id: str,
        parse: Callable[[str], T],
        *,
        repairs: int,
        on_text: OnText | None = None,
    ) -> ModelResult[T]:
        """A valid answer from the cache or the model, or why there is none."""
        kind = f"{purpose}s"
        if self.cache is not None:
            cached = self.cache.get(kind, prompt.sha256, model_id)
            if cached is not None:
                try:
                    return ModelResult(value=parse(json.dumps(cached)), cached=True)
                except InvalidAnswer:
                    pass  # valid when stored, not under today's rules: ask again
        if self._down is not None:
            return ModelResult(failure=self._down, failure_everywhere=True)
        try:
            client = self._client or connect(self.options.bedrock)
        except BedrockUnavailable as exc:
            self._down = str(exc)
            return ModelResult(failure=self._down, failure_everywhere=True)
        self._client = client
        conversation = Conversation(
            client,
            model_id=model_id,
            system=prompt.system,
            prompt=prompt.user,
            schema=prompt.response_schema,
            name=prompt.name,
            output_mode=self.options.bedrock.output_mode,
            on_text=on_text,
        )
        outcome = ask_valid(conversation, parse, purpose=purpose, repairs=repairs)
        if outcome.failure_everywhere:
            self._down = outcome.failure
        if outcome.text is not None and self.cache is not None:
            self.cache.put(kind, prompt.sha256, model_id, json.loads(outcome.text))
        return outcome
