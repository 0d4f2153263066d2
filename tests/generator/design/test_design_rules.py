"""Field mapping heuristics and the design rules beyond the A2UI validator."""

from __future__ import annotations

import json
from typing import Any

import pytest
from design_helpers import inspection_of, model_answer

from generator.design.answer import parse_design_answer
from generator.design.checks import check_design
from generator.design.facts import agent_facts, is_scalar
from generator.design.mapping import heuristic_mapping, parse_mapping
from generator.design.repair import InvalidAnswer
from generator.errors import AgentImportError
from generator.models import END, START, Edge, Graph, Inspection, Node, StateField, StateSchema


def _state(*fields: tuple[str, str]) -> Inspection:
    schema = StateSchema(
        name="S", style="TypedDict", fields=[StateField(name=n, type=t) for n, t in fields]
    )
    graph = Graph(
        graph_id="g", file="g.py", export="graph", export_kind="compiled_graph", state=schema
    )
    return inspection_of(graph, readme="")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ((("question", "str"), ("answer", "str")), ("question", "answer")),
        (
            (("user_query", "str"), ("docs", "list[str]"), ("final_answer", "str")),
            ("user_query", "final_answer"),
        ),
        ((("input", "str"), ("output", "str")), ("input", "output")),
        ((("city", "str"), ("forecast_summary", "str")), ("city", "forecast_summary")),
        ((("messages", "list"), ("summary", "str")), ("messages", "messages")),
    ],
)
def test_heuristic_mapping_by_field_names(
    fields: tuple[tuple[str, str], ...], expected: tuple[str, str]
) -> None:
    mapping = heuristic_mapping(agent_facts(_state(*fields)))

    assert (mapping.input_field, mapping.output_field) == expected
    assert mapping.mode == "heuristic"


def test_heuristic_output_falls_back_to_what_the_last_node_returns(
    structured: Inspection,
) -> None:
    graph = structured.graphs[0]
    fields = [f for f in graph.state.fields if f.name != "report"] if graph.state else []
    state = graph.state.model_copy(update={"fields": fields}) if graph.state else None
    nodes = [
        n.model_copy(update={"returns": [r for r in n.returns or [] if r != "report"]})
        for n in graph.nodes or []
    ]
    inspection = inspection_of(graph.model_copy(update={"state": state, "nodes": nodes}))

    mapping = heuristic_mapping(agent_facts(inspection))

    assert (mapping.input_field, mapping.output_field) == ("topic", "confidence")


def test_heuristic_output_prefers_the_node_that_finishes_over_the_last_added() -> None:
    state = StateSchema(
        name="S",
        style="TypedDict",
        fields=[
            StateField(name="request", type="str"),
            StateField(name="verdict", type="str"),
            StateField(name="risk", type="str"),
        ],
    )
    graph = Graph(
        graph_id="g",
        file="g.py",
        export="graph",
        export_kind="compiled_graph",
        state=state,
        nodes=[
            Node(name="decide", target="function", returns=["verdict"]),
            Node(name="assess", target="function", returns=["risk"]),
        ],
        edges=[
            Edge(source=START, target="assess"),
            Edge(source="assess", target="decide"),
            Edge(source="decide", target=END),
        ],
    )

    mapping = heuristic_mapping(agent_facts(inspection_of(graph, readme="")))

    assert (mapping.input_field, mapping.output_field) == ("request", "verdict")


def test_model_mapping_must_name_real_fields(structured: Inspection) -> None:
    facts = agent_facts(structured)
    good = json.dumps({"reasoning": "obvious", "input_field": "topic", "output_field": "report"})

    assert parse_mapping(good, facts).output_field == "report"
    with pytest.raises(InvalidAnswer, match="output_field 'summary' is not one of topic"):
        parse_mapping(good.replace('"report"', '"summary"'), facts)
    with pytest.raises(InvalidAnswer, match="not a field mapping"):
        parse_mapping("[]", facts)


@pytest.mark.parametrize(
    ("annotation", "scalar"),
    [
        ("str", True),
        ("int | None", True),
        ("Optional[float]", True),
        ("Literal['a', 'b']", True),
        ("Annotated[int, operator.add]", True),
        ("list[str]", False),
        ("dict[str, Any]", False),
        ("str | int", False),
        ("RemainingSteps", False),
    ],
)
def test_is_scalar(annotation: str, scalar: bool) -> None:
    assert is_scalar(annotation) is scalar


def test_graph_selection(two_graphs: Inspection) -> None:
    assert agent_facts(two_graphs, "two").graph.graph_id == "two"
    with pytest.raises(
        AgentImportError, match=r"several graphs \(one, two\); choose one with --graph"
    ):
        agent_facts(two_graphs)
    with pytest.raises(
        AgentImportError, match=r"no graph 'three' in langgraph.json \(graphs: one, two\)"
    ):
        agent_facts(two_graphs, "three")


def _problems(inspection: Inspection, answer: dict[str, Any]) -> list[str]:
    content = parse_design_answer(json.dumps(answer))
    return check_design(content, facts=agent_facts(inspection), plugin_id="research")


def _set_props(
    answer: dict[str, Any], screen: str, component_id: str, props: dict[str, Any]
) -> None:
    for component in answer[screen]["components"]:
        if component["id"] == component_id:
            component["props"] = json.dumps(props)


def test_a_model_answer_passes_every_rule(structured: Inspection) -> None:
    assert _problems(structured, model_answer(structured, "research")) == []


def test_bindings_must_resolve_in_the_data_model(structured: Inspection) -> None:
    answer = model_answer(structured, "research")
    _set_props(answer, "result", "answer", {"title": "Report", "value": {"path": "/report/text"}})

    assert _problems(structured, answer) == [
        "result: component 'answer' property 'value': binding '/report/text' is not in the data "
        "model (/question, /answer, /error, /state/<field>)",
        "result: no component binds '/answer'; this screen must show it",
    ]


def test_only_standard_actions_and_own_prefix(structured: Inspection) -> None:
    answer = model_answer(structured, "research")
    _set_props(
        answer,
        "result",
        "again",
        {"child": "again_label", "action": {"event": {"name": "research.buy"}}},
    )
    _set_props(
        answer,
        "error",
        "retry",
        {"child": "retry_label", "action": {"event": {"name": "mortgage.retry"}}},
    )

    assert _problems(structured, answer) == [
        "result: component 'again' property 'action': action 'research.buy' is not handled; use "
        "one of research.restart, research.retry",
        "error: component 'retry' property 'action': action name 'mortgage.retry' must start "
        "with 'research.'",
    ]


def test_fields_and_domain_state_must_be_real(structured: Inspection) -> None:
    answer = model_answer(structured, "research")
    answer["input_field"] = "query"
    answer["initial_domain_state"] = json.dumps(
        {"answer": "", "question": 1, "state": {"mood": None}}
    )

    problems = _problems(structured, answer)

    assert problems[:4] == [
        "input_field: 'query' is not a field of the agent's state (topic, report)",
        "initial_domain_state: keys must be exactly question, answer, error, state, got answer, "
        "question, state",
        "initial_domain_state: 'question' must be a string",
        "initial_domain_state: state.mood is not a field of the agent's state",
    ]


def test_props_must_be_a_json_object_without_id(structured: Inspection) -> None:
    answer = model_answer(structured, "research")
    answer["welcome"]["components"][1]["props"] = "{'text': 'hi'}"
    answer["welcome"]["components"][2]["props"] = json.dumps({"id": "x", "title": "t", "value": 1})
    answer["collecting"]["components"][1]["props"] = "[1, 2]"

    with pytest.raises(InvalidAnswer) as raised:
        parse_design_answer(json.dumps(answer))

    assert [e.split(" (")[0] for e in raised.value.errors] == [
        "welcome: component 'title': props: not valid JSON",
        "welcome: component 'about': props: must not repeat 'id'",
        "collecting: component 'title': props: must be a JSON object, got list",
    ]


def test_answers_of_the_wrong_shape_are_named(structured: Inspection) -> None:
    with pytest.raises(InvalidAnswer) as raised:
        parse_design_answer(json.dumps({"reasoning": "r", "welcome": {}}))

    assert "welcome.components: field required" in raised.value.errors
    assert "input_field: field required" in raised.value.errors
    with pytest.raises(InvalidAnswer, match="the answer is not valid JSON"):
        parse_design_answer('{"reasoning": ')
