"""Every rule a design must pass, whoever made it (the model, the fallback, or a file).

First the runtime's own A2UI validator on each screen (schema, integrity, house rules), then the
rules that make a design usable by the plugin the import step renders:

* the input and output fields are real fields of the agent's state;
* ``initial_domain_state`` is the data model of ``generator.design.models`` (``question``,
  ``answer``, ``error``, and ``state`` holding only real fields), and every absolute binding in
  every screen resolves in it;
* the result screen shows ``/answer`` and the error screen shows ``/error``;
* buttons only send the actions a plugin handles (``STANDARD_ACTIONS``).

Each problem is one line starting with the screen's name, exact enough to send back to the model.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.design.facts import AgentFacts
from generator.design.models import DesignContent, actions_in
from runtime.a2ui.validate import ValidationIssue, validate_screen
from runtime.contract.screens import DATA_MODEL_TEXT_KEYS, STANDARD_ACTIONS, STATE_KEY, ScreenName

#: Bindings each screen must contain, so the user sees what the plugin publishes.
REQUIRED_BINDINGS: dict[ScreenName, str] = {"result": "/answer", "error": "/error"}


def check_design(content: DesignContent, *, facts: AgentFacts, plugin_id: str) -> list[str]:
    """Every problem of a design, one line each; empty when the design is valid."""
    problems = [*_field_problems(content, facts), *_domain_problems(content, facts)]
    for name, screen in content.screens().items():
        issues = [
            *validate_screen(screen, plugin_id=plugin_id),
            *_binding_issues(
                screen.components, content.initial_domain_state, REQUIRED_BINDINGS.get(name)
            ),
            *_action_issues(screen.components, plugin_id),
        ]
        problems.extend(f"{name}: {issue}" for issue in issues)
    return problems


def _field_problems(content: DesignContent, facts: AgentFacts) -> Iterator[str]:
    for key, value, allowed in (
        ("input_field", content.input_field, facts.input_fields),
        ("output_field", content.output_field, facts.output_fields),
    ):
        if value not in allowed:
            yield f"{key}: {value!r} is not a field of the agent's state ({', '.join(allowed)})"


def _domain_problems(content: DesignContent, facts: AgentFacts) -> Iterator[str]:
    domain = content.initial_domain_state
    expected = [*DATA_MODEL_TEXT_KEYS, STATE_KEY]
    if sorted(domain) != sorted(expected):
        got = ", ".join(domain) or "none"
        yield f"initial_domain_state: keys must be exactly {', '.join(expected)}, got {got}"
    for key in DATA_MODEL_TEXT_KEYS:
        if key in domain and not isinstance(domain[key], str):
            yield f"initial_domain_state: {key!r} must be a string"
    state = domain.get(STATE_KEY)
    if not isinstance(state, dict):
        yield f"initial_domain_state: {STATE_KEY!r} must be an object of state fields"
        return
    for name in state:
        if name not in facts.field_names:
            yield f"initial_domain_state: state.{name} is not a field of the agent's state"


def _binding_issues(
    components: list[dict[str, Any]], domain: dict[str, Any], required: str | None
) -> Iterator[ValidationIssue]:
    seen: set[str] = set()
    for component in components:
        for prop, value in component.items():
            for path in _paths(value):
                seen.add(path)
                if path.startswith("/") and not _resolves(domain, path):
                    yield ValidationIssue(
                        component_id=component.get("id"),
                        property=prop,
                        message=f"binding {path!r} is not in the data model "
                        "(/question, /answer, /error, /state/<field>)",
                    )
    if required is not None and required not in seen:
        yield ValidationIssue(message=f"no component binds {required!r}; this screen must show it")


def _action_issues(components: list[dict[str, Any]], plugin_id: str) -> Iterator[ValidationIssue]:
    known = {f"{plugin_id}.{action}" for action in STANDARD_ACTIONS}
    for component, prop, name in actions_in(components):
        if name.startswith(f"{plugin_id}.") and name not in known:
            yield ValidationIssue(
                component_id=component.get("id"),
                property=prop,
                message=f"action {name!r} is not handled; use one of {', '.join(sorted(known))}",
            )


def _paths(value: Any) -> Iterator[str]:
    """Every ``path`` of a binding or child template nested anywhere in a prop's value."""
    if isinstance(value, dict):
        if isinstance(value.get("path"), str):
            yield value["path"]
        for item in value.values():
            yield from _paths(item)
    elif isinstance(value, list):
        for item in value:
            yield from _paths(item)


def _resolves(document: Any, pointer: str) -> bool:
    """Whether a JSON pointer names something in ``document`` (RFC 6901)."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(document, dict) and token in document:
            document = document[token]
        elif isinstance(document, list) and token.isdigit() and int(token) < len(document):
            document = document[int(token)]
        else:
            return False
    return True
