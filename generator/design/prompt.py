"""The design prompt: the product's instructions, our A2UI catalog and rules, examples, the agent.

The system part is the same for every agent (instructions, catalog, rules, example screens); the
user part holds the agent's facts from its ``Inspection``. A prompt's sha256 covers both parts and
the response schema, so it names exactly what the model was asked: the answer cache and the
design's provenance use it.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from generator.design.answer import ANSWER_NAME, design_schema
from generator.design.facts import AgentFacts
from generator.design.models import initial_domain_state
from generator.models import Node
from runtime.a2ui.catalog import CATALOG_PATH, catalog_for_prompt
from runtime.a2ui.validate import MAX_VOICE_WORDS, validate_screen
from runtime.contract.screens import SCREEN_NAMES, SCREEN_PURPOSES, STANDARD_ACTIONS

EXAMPLES_DIR = CATALOG_PATH.parent / "examples"
README_LIMIT = 4000
SAMPLE_LIMIT = 2000


class Prompt(BaseModel):
    """Everything a model is sent for one question."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: str
    user: str
    response_schema: dict[str, Any]
    name: str

    @property
    def sha256(self) -> str:
        payload = json.dumps(self.model_dump(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    @property
    def text(self) -> str:
        """The whole prompt as one readable document (``agent-import design --show-prompt``)."""
        schema = json.dumps(self.response_schema, indent=2)
        return (
            f"=== system ===\n{self.system}\n=== user ===\n{self.user}\n"
            f"=== response schema ({self.name}) ===\n{schema}\n"
        )


def design_prompt(
    facts: AgentFacts, *, plugin_id: str, input_field: str, output_field: str
) -> Prompt:
    """The prompt asking the design model for four screens for this agent."""
    mapping = (
        f"Proposed field mapping: the user's request goes into `{input_field}`, the answer is read "
        f"from `{output_field}`. Keep it unless the facts clearly say otherwise."
    )
    user = (
        f"Design the screens of the plugin `{plugin_id}` for this agent.\n\n"
        f"{describe_agent(facts)}\n{mapping}\n"
    )
    return Prompt(
        system=_system(plugin_id), user=user, response_schema=design_schema(facts), name=ANSWER_NAME
    )


def describe_agent(facts: AgentFacts) -> str:
    """The agent's facts as the model reads them: graph, state, nodes, README, sample output."""
    graph = facts.graph
    lines = [
        f"Agent: {facts.title}. {facts.description}",
        f"Graph `{graph.graph_id}` ({graph.export_kind} `{graph.export}` in {graph.file}).",
    ]
    for label, schema in (
        ("State", graph.state),
        ("Input schema", graph.input_schema),
        ("Output schema", graph.output_schema),
    ):
        if schema is None:
            continue
        lines.append(f"{label} `{schema.name}` ({schema.style}):")
        lines.extend(
            f"- {f.name}: {f.type}"
            + (f", reducer {f.reducer}" if f.reducer else "")
            + (f", default {f.default}" if f.default else "")
            for f in schema.fields
        )
        if not schema.fields:
            lines.append("- (fields not readable statically)")
    if graph.nodes:
        more = "" if graph.nodes_complete else " (more are added dynamically)"
        lines.append(f"Nodes{more}, and the state keys they return:")
        lines.extend(f"- {node.name}: returns {_returns(node)}" for node in graph.nodes)
    if graph.edges:
        arrows = (
            f"{e.source} -> {e.target}{' (conditional)' if e.conditional else ''}"
            for e in graph.edges
        )
        lines.append("Edges: " + "; ".join(arrows))
    if graph.prebuilt:
        lines.append(f"Built with the prebuilt `{graph.prebuilt}`.")
    if facts.readme_excerpt:
        lines.append(f"README excerpt:\n{_cut(facts.readme_excerpt, README_LIMIT)}")
    if facts.sample_output:
        lines.append(f"Sample output of the agent:\n{_cut(facts.sample_output, SAMPLE_LIMIT)}")
    return "\n".join(lines) + "\n"


def _returns(node: Node) -> str:
    if node.returns is None:
        return "unknown keys"
    keys = ", ".join(node.returns) or "nothing"
    return keys if node.returns_complete else f"{keys} and keys not readable statically"


def _system(plugin_id: str) -> str:
    screens = "\n".join(f"- {name}: {SCREEN_PURPOSES[name]}" for name in SCREEN_NAMES)
    actions = "\n".join(
        f"- `{plugin_id}.{name}`: {purpose}" for name, purpose in STANDARD_ACTIONS.items()
    )
    data_model = json.dumps(initial_domain_state({"<field>": None}))
    return f"""\
You design the screens of one agent inside a voice-first banking assistant. The customer mostly \
talks; the screen shows what is worth seeing while they listen. Write like a helpful bank \
colleague: concise, warm, plain British English, no jargon, no exclamation marks, no emoji.

Design four A2UI v0.9 screens:
{screens}

Each screen has voice_text: what the assistant says aloud when the screen appears, under \
{MAX_VOICE_WORDS} words, no markdown, never reading out what only the screen can show.

Rules (a validator checks every one; a design that breaks any is sent back to you):
1. Components are a flat list. Exactly one component has id "root", and it is a Column. Every \
other component is reachable from root through the ids in `child`/`children`. Ids are unique \
within a screen.
2. Every screen shows at least one DataCard.
3. A Button has no text of its own: its `child` is the id of a Text holding the label, and its \
`action` is {{"event": {{"name": "{plugin_id}.<action>"}}}}. The only actions are:
{actions}
4. Values are literals or data bindings {{"path": "/answer"}}. The data model the plugin \
publishes is {data_model}: /question is what the user asked, /answer the agent's answer, /error \
what went wrong, /state/<field> a field of the agent's state as the agent returned it. Bind only \
to these paths; put every state field you bind under "state" in initial_domain_state with value \
null.
5. The result screen binds /answer (usually as a DataCard value); the error screen binds /error.
6. Use only the components and props of the catalog below.
7. In your answer each component is {{"id", "component", "props"}}, where props is a JSON string \
holding the component's other properties, e.g. {{"id": "title", "component": "Text", "props": \
"{{\\"text\\": \\"Hello\\", \\"variant\\": \\"h2\\"}}"}}. initial_domain_state is a JSON string \
too.

{catalog_for_prompt()}
Example screens from other plugins (valid A2UI, written as plain components; their data paths \
and action names are theirs, not yours):
{_examples()}"""


@cache
def _examples() -> str:
    """The runtime's example screens that pass the validator, as compact JSON."""
    blocks = []
    for path in sorted(EXAMPLES_DIR.glob("*.json")):
        screen = json.loads(path.read_text(encoding="utf-8"))
        if validate_screen(screen):
            continue  # never show the model a screen that breaks the rules
        components = ",\n".join(f"  {json.dumps(c)}" for c in screen["components"])
        blocks.append(
            f'{path.stem}:\n{{"components": [\n{components}\n], '
            f'"voice_text": {json.dumps(screen["voice_text"])}}}'
        )
    return "\n".join(blocks) + "\n"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + "\n[...]"
