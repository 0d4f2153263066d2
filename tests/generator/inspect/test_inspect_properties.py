"""Property tests: whatever Python sources and configs a repository holds, inspection returns an
``Inspection`` or raises ``AgentImportError`` — never any other exception, never a hang."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.errors import AgentImportError
from generator.inspect import inspect_source
from generator.models import Inspection, Source

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = st.sampled_from(["graph", "builder", "State", "Base", "node", "x", "route", "m"])
STRINGS = st.sampled_from(['"a"', '"b"', "START", "END", '"__end__"', "f'{x}'", "x"])
#: Statement templates a LangGraph module is made of; filled with colliding names so that
#: builders, classes, functions and imports reuse and shadow each other in every way.
TEMPLATES = [
    "from langgraph.graph import StateGraph, START, END, MessagesState",
    "from langgraph.types import Command, Send",
    "from langgraph.prebuilt import ToolNode, create_react_agent, tools_condition",
    "from langgraph.func import entrypoint",
    "from typing import Annotated, TypedDict, Literal",
    "import operator",
    "from .m import {a}",
    "from m import *",
    "from . import {a}",
    "import m as {a}",
    "class {a}(TypedDict):\n    {b}: Annotated[list, operator.add]",
    "class {a}({b}):\n    {c}: int = {s}",
    "@{a}\nclass {b}:\n    {c}: {a}",
    "{a} = StateGraph({b}, input_schema={c}, config_schema={a})",
    "{a} = StateGraph()",
    "{a}.add_node({s}, {b})",
    "{a}.add_node({b})",
    "{a}.add_node(node={s}, action={b}, destinations=({s}, {t}))",
    "{a}.add_edge({s}, {t})",
    "{a}.add_edge([{s}, {t}], {s})",
    "{a}.add_conditional_edges({s}, {b}, {{{s}: {t}}})",
    "{a}.add_conditional_edges({s}, {b}, [{s}, {t}])",
    "{a}.add_sequence([{b}, ({s}, {c})])",
    "{a}.set_entry_point({s})",
    "{a} = {b}.compile(name={s}).with_config({{}})",
    "{a} = {b}.compile",
    "{a} = ToolNode([{b}], name={s})",
    "{a} = create_react_agent({b}, [{c}], state_schema={a}, response_format={b})",
    "def {a}({b}):\n    return {{{s}: 1, **{b}}}",
    "def {a}({b}) -> Literal[{s}, {t}]:\n    return {s} if {b} else {t}",
    "def {a}({b}):\n    return Command(update={{{s}: {b}}}, goto=[Send({s}, {b})])",
    "def {a}({b}={c}):\n    {c} = StateGraph({b})\n    {c}.add_node({a})\n    return {c}.compile()",
    "async def {a}(config, runtime):\n    return {b}({c})",
    "@entrypoint()\ndef {a}({b}: list):\n    return {c}",
    "for {a} in {b}:\n    {c}.add_node({a}, {b})",
    "{a} = [{b}.add_node({s}) for {c} in {a}]",
    "{a} = {b}({c})",
    "{a} = {b}.{c}",
    "{a} = {b}().{c}",
    "{a}.add_node({s}, {b}().{c})",
    "{a} = {b}[{s}]",
    "{a}: Annotated[{b}, {c}] = {s}",
    "{a} = lambda {b}: {{{s}: {b}}}",
    "type {a} = Annotated[list, {b}]",
    "with {a}({b}) as {c}:\n    {c}.add_node({s}, {a})",
    "if {a}:\n    {b} = {c}\nelse:\n    {b} = {a}",
    "try:\n    import {a}\nexcept ImportError:\n    {a} = None",
    "{a} = ({b} := {c})",
    "{a}, {b} = {c}",
    "{a} += {b}",
    "class {a}:\n    def __init__(self):\n        self.{b} = {c}\n"
    "    def __call__(self, s):\n        return {{{s}: s}}",
]


@st.composite
def modules(draw: st.DrawFn) -> str:
    lines = TEMPLATES[:6] if draw(st.booleans()) else []
    lines.append("builder = StateGraph(State)")
    for _ in range(draw(st.integers(0, 14))):
        template = draw(st.sampled_from(TEMPLATES))
        names = {k: draw(NAMES) for k in "abc"}
        lines.append(template.format(**names, s=draw(STRINGS), t=draw(STRINGS)))
    if draw(st.booleans()):
        lines.append("graph = builder.compile()")
    return "\n".join(lines) + "\n"


def inspect_files(files: dict[str, str]) -> Inspection | AgentImportError:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        try:
            return inspect_source(Source(url=folder, path=folder))
        except AgentImportError as exc:
            return exc


CONFIG = (
    '{"dependencies": ["."], "graphs": {"a": "./agent.py:graph", "b": "m:x", "c": "./m.py:node"}}'
)


@SETTINGS
@given(agent=modules(), helper=modules())
def test_generated_langgraph_modules(agent: str, helper: str) -> None:
    result = inspect_files({"langgraph.json": CONFIG, "agent.py": agent, "m.py": helper})
    assert isinstance(result, Inspection | AgentImportError)


@SETTINGS
@given(source=st.text(max_size=300))
@example(source="\U0002ebf0")  # tokenizes as a name, which LibCST then rejects
def test_arbitrary_text_as_the_graph_file(source: str) -> None:
    result = inspect_files({"langgraph.json": CONFIG, "agent.py": source, "m.py": source})
    assert isinstance(result, Inspection | AgentImportError)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
SPECS = st.sampled_from(
    [
        "./agent.py:graph",
        "agent.py:graph",
        "agent:graph",
        "../x.py:g",
        "./a.ts:g",
        "agent.py",
        ":g",
        "a b:c",
    ]
)


@SETTINGS
@given(
    extra=st.dictionaries(st.text(max_size=12), JSON, max_size=4),
    graphs=st.dictionaries(st.text(max_size=8), SPECS | JSON, max_size=3),
    dependencies=st.lists(
        st.sampled_from([".", "./src", "..", "/", "pkg>=1", ""]) | st.text(max_size=8), max_size=3
    ),
)
def test_arbitrary_configs(
    extra: dict[str, object], graphs: dict[str, object], dependencies: list[object]
) -> None:
    config = {**extra, "graphs": graphs, "dependencies": dependencies}
    result = inspect_files({"langgraph.json": json.dumps(config), "agent.py": "graph = 1\n"})
    assert isinstance(result, Inspection | AgentImportError)


@SETTINGS
@given(text=st.text(max_size=200))
def test_arbitrary_bytes_as_langgraph_json(text: str) -> None:
    result = inspect_files({"langgraph.json": text, "agent.py": "graph = 1\n"})
    assert isinstance(result, Inspection | AgentImportError)
