"""A runtime repository in a tmp dir, small agents to import into it, and a local wheel.

``runtime_repo`` copies this repository's ``copier.yml`` and ``copier-template/`` into a fresh
git repository with an empty ``runtime/plugins/``, so imports never write into the real tree.
The agents are real LangGraph projects, each in its own git repository; every agent's modules
have names of their own, since one test process may load several of them.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import functools
import hashlib
import json
import re
import shutil
import subprocess
import tempfile
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.design import DesignOptions
from generator.pipeline.importer import ImportOptions, import_agent
from generator.pipeline.update import UpdateOptions, UpdateResult, update_plugin
from generator.render.template_repo import copier_source
from runtime.contract.layout import PLUGINS_FOLDER

ROOT = Path(__file__).resolve().parents[2]
GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid"]


def git(path: Path, *args: str) -> str:
    done = subprocess.run(
        [*GIT, "-C", str(path), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path -> text, dedented) under ``root``; return ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def commit_all(path: Path, message: str = "change") -> str:
    git(path, "add", "--all")
    git(path, "commit", "--quiet", "--allow-empty", "-m", message)
    return git(path, "rev-parse", "HEAD")


def runtime_repo(path: Path) -> Path:
    """A git repository holding the plugin template and an empty plugins folder, with the
    template's own repository built, as the first command in a clone builds it (so a test that
    compares the folder before and after an import sees only what the import wrote)."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    shutil.copy(ROOT / "copier.yml", path / "copier.yml")
    shutil.copytree(ROOT / "copier-template", path / "copier-template")
    (path / PLUGINS_FOLDER).mkdir(parents=True)
    (path / PLUGINS_FOLDER / "README.md").write_text("Plugins live here.\n")
    copier_source(path, commit_all(path, "template"))
    return path


def agent_repo(path: Path, files: dict[str, str]) -> Path:
    """An agent project committed to its own git repository."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    write_files(path, files)
    commit_all(path, "agent")
    return path


def options(src: Path, plugin_id: str, **overrides: object) -> ImportOptions:
    """Offline import options (the deterministic designer)."""
    values: dict[str, object] = {
        "src": str(src),
        "plugin_id": plugin_id,
        "design_options": DesignOptions(offline=True, use_cache=False),
    }
    return ImportOptions.model_validate({**values, **overrides})


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (to compare a folder before and after)."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def config(graph: str) -> str:
    """A langgraph.json with one graph ``agent`` at ``graph`` (./file.py:name or mod:name)."""
    return json.dumps({"dependencies": ["."], "graphs": {"agent": graph}})


def with_env_example(files: dict[str, str], *names: str) -> dict[str, str]:
    """An agent's files with ``names`` in a committed ``.env.example`` (``langgraph.json`` ``env``
    is ``.env``), as templates list the variables they read."""
    settings = {"dependencies": ["."], "graphs": {"agent": "./graph.py:graph"}, "env": ".env"}
    example = "".join(f"{name}=\n" for name in names)
    return {**files, "langgraph.json": json.dumps(settings), ".env.example": example}


def pyproject(name: str, *dependencies: str) -> str:
    deps = ", ".join(f'"{d}"' for d in dependencies)
    return f'[project]\nname = "{name}"\nversion = "0.1.0"\ndependencies = [{deps}]\n'


def echo_agent(package: str) -> dict[str, str]:
    """A message-based agent that remembers: it answers with the number of the question."""
    return {
        "langgraph.json": config("./graph.py:graph"),
        "pyproject.toml": pyproject(package, "langgraph>=1.0"),
        "LICENSE": "MIT License\n",
        "README.md": "Echoes what you say and counts your questions.\n",
        f"{package}/__init__.py": "",
        f"{package}/replies.py": """
            def reply(text: str, number: int) -> str:
                if "boom" in text:
                    raise ValueError("the agent broke on purpose")
                return f"Question {number}: you said {text}."
        """,
        "graph.py": f"""
            from langchain_core.messages import AIMessage, HumanMessage
            from langgraph.graph import END, START, MessagesState, StateGraph

            from {package}.replies import reply


            def answer(state: MessagesState):
                questions = [m for m in state["messages"] if isinstance(m, HumanMessage)]
                text = str(questions[-1].content)
                return {{"messages": [AIMessage(content=reply(text, len(questions)))]}}


            builder = StateGraph(MessagesState)
            builder.add_node("answer", answer)
            builder.add_edge(START, "answer")
            builder.add_edge("answer", END)
            graph = builder.compile()
        """,
    }


def counter_agent(package: str) -> dict[str, str]:
    """A structured agent: a text field in, typed fields out."""
    return {
        "langgraph.json": config("./graph.py:graph"),
        "pyproject.toml": pyproject(package, "langgraph>=1.0"),
        "README.md": "Counts the words and letters of a sentence.\n",
        f"{package}/__init__.py": "",
        "graph.py": """
            from typing import TypedDict

            from langgraph.graph import END, START, StateGraph


            class CountState(TypedDict, total=False):
                sentence: str
                words: int
                letters: int
                verdict: str


            def count(state: CountState) -> CountState:
                text = state.get("sentence", "")
                return {"words": len(text.split()), "letters": sum(c.isalpha() for c in text)}


            def judge(state: CountState) -> CountState:
                kind = "long" if state["words"] > 5 else "short"
                return {"verdict": f"A {kind} sentence of {state['words']} words."}


            builder = StateGraph(CountState)
            builder.add_node("count", count)
            builder.add_node("judge", judge)
            builder.add_edge(START, "count")
            builder.add_edge("count", "judge")
            builder.add_edge("judge", END)
            graph = builder.compile()
        """,
    }


class ImportedPlugin:
    """A runtime repository with ``counter_agent`` imported as ``counter`` and committed, and
    the agent's own repository beside it, to change either and update (offline designs).

    The import runs once per package name in a test session; each test gets its own copy of
    both repositories (the answers record the agent as ``../agent``, so the copy points at its
    own agent)."""

    plugin_id = "counter"

    def __init__(self, tmp_path: Path, *, package: str) -> None:
        made = _imported_counter(re.sub(r"\W", "_", package), self.plugin_id)
        self.repo = shutil.copytree(made / "repo", tmp_path / "repo", symlinks=True)
        self.agent = shutil.copytree(made / "agent", tmp_path / "agent", symlinks=True)
        self.plugin = self.repo / PLUGINS_FOLDER / self.plugin_id

    def screen(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.plugin / "screens" / f"{name}.json").read_text())
        return data

    def edit_screen(self, name: str, component_id: str, **props: Any) -> None:
        """A reviewer's hand edit of one component, committed."""
        screen = self.screen(name)
        next(c for c in screen["components"] if c["id"] == component_id).update(props)
        path = self.plugin / "screens" / f"{name}.json"
        path.write_text(json.dumps(screen, indent=2, sort_keys=True) + "\n")
        commit_all(self.repo, f"hand edit of {name}")

    def edit_agent(self, **values: Any) -> None:
        """A reviewer's hand edit of ``agent.json``, committed."""
        path = self.plugin / "agent.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **values}, indent=2) + "\n")
        commit_all(self.repo, "hand edit of agent.json")

    def change_upstream(self, files: dict[str, str]) -> str:
        """Commit ``files`` to the agent's repository; the new commit."""
        write_files(self.agent, files)
        return commit_all(self.agent, "upstream change")

    def answers(self) -> dict[str, Any]:
        data: dict[str, Any] = yaml.safe_load((self.plugin / ".copier-answers.yml").read_text())
        return data

    def update(self, **overrides: Any) -> UpdateResult:
        values: dict[str, Any] = {
            "plugin_id": self.plugin_id,
            "design_options": DesignOptions(offline=True, use_cache=False),
            **overrides,
        }
        return update_plugin(UpdateOptions.model_validate(values), root=self.repo)

    def head(self) -> str:
        return git(self.repo, "rev-parse", "HEAD")


@functools.cache
def _imported_counter(package: str, plugin_id: str) -> Path:
    """``repo/`` with ``agent/``'s counter agent imported and committed, made once."""
    folder = Path(tempfile.mkdtemp(prefix="imported-counter-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    repo = runtime_repo(folder / "repo")
    agent_repo(folder / "agent", counter_agent(package))
    with contextlib.chdir(repo):
        import_agent(options(Path("..") / "agent", plugin_id), root=repo)
    commit_all(repo, f"import {plugin_id}")
    return folder


FACTORIES = {
    "sync": ("def make_graph():", "return builder.compile()"),
    "sync_config": ("def make_graph(config):", "return builder.compile()"),
    "async_runtime": (
        "async def make_graph(config, runtime: ServerRuntime):",
        "return builder.compile()",
    ),
    "async_context": (
        "@contextlib.asynccontextmanager\nasync def make_graph(config):",
        "yield builder.compile()",
    ),
}


def factory_agent(package: str, kind: str) -> dict[str, str]:
    """A message-based agent exported as a graph factory, called as LangGraph's server does."""
    signature, body = FACTORIES[kind]
    return {
        "langgraph.json": config("./graph.py:make_graph"),
        f"{package}/__init__.py": "",
        "graph.py": f"""
import contextlib

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph_sdk.runtime import ServerRuntime


def answer(state: MessagesState):
    return {{"messages": [AIMessage(content="made by a {kind} factory")]}}


{signature}
    builder = StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    {body}
""",
    }


def chat_model_agent(package: str) -> dict[str, str]:
    """An agent calling a provider's chat model, which would go to the network for real."""
    return {
        "langgraph.json": config("./graph.py:graph"),
        f"{package}/__init__.py": "",
        f"{package}/provider.py": """
            import os
            import socket

            from langchain_core.language_models.chat_models import BaseChatModel


            class ChatProvider(BaseChatModel):
                '''Like ChatAnthropic: needs a key, calls an API, supports tools.'''

                @property
                def _llm_type(self) -> str:
                    return "provider"

                def _generate(self, messages, stop=None, run_manager=None, **kwargs):
                    if not os.environ.get("ANTHROPIC_API_KEY"):
                        raise RuntimeError("no API key")
                    socket.create_connection(("api.provider.invalid", 443), timeout=5)
                    raise RuntimeError("unreachable")

                def bind_tools(self, tools, *, tool_choice=None, **kwargs):
                    return self.bind(tools=list(tools), tool_choice=tool_choice, **kwargs)
        """,
        "graph.py": f"""
            from langgraph.graph import END, START, MessagesState, StateGraph
            from pydantic import BaseModel

            from {package}.provider import ChatProvider


            class Route(BaseModel):
                topic: str
                urgent: bool


            model = ChatProvider()


            def route(state: MessagesState):
                decision = model.with_structured_output(Route).invoke(state["messages"])
                assert isinstance(decision, Route), decision
                return {{}}


            def answer(state: MessagesState):
                return {{"messages": [model.invoke(state["messages"])]}}


            builder = StateGraph(MessagesState)
            builder.add_node("route", route)
            builder.add_node("answer", answer)
            builder.add_edge(START, "route")
            builder.add_edge("route", "answer")
            builder.add_edge("answer", END)
            graph = builder.compile()
        """,
    }


def needs_dependency_agent(package: str, requirement: str, module: str) -> dict[str, str]:
    """An agent importing a module that only ``requirement`` provides."""
    files = echo_agent(package)
    files["pyproject.toml"] = pyproject(package, "langgraph>=1.0", requirement)
    files["graph.py"] = f"import {module}\n" + textwrap.dedent(files["graph.py"]).lstrip("\n")
    return files


def wheel(
    folder: Path,
    distribution: str,
    module: str,
    version: str = "1.0",
    requires: tuple[str, ...] = (),
) -> Path:
    """A minimal pure-Python wheel of ``module`` (installs with no index, no network);
    ``requires`` become its ``Requires-Dist`` lines, so a folder of these is a local index."""
    stem = f"{distribution.replace('-', '_')}-{version}"
    depends = "".join(f"Requires-Dist: {line}\n" for line in requires)
    files = {
        f"{module}/__init__.py": "VALUE = 42\n",
        f"{stem}.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n{depends}"
        ),
        f"{stem}.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = f"{stem}.dist-info/RECORD"
    lines = [f"{name},sha256={_digest(text)},{len(text.encode())}" for name, text in files.items()]
    files[record] = "\n".join([*lines, f"{record},,"]) + "\n"
    path = folder / f"{stem}-py3-none-any.whl"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def only_index(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make ``folder`` (of ``wheel`` files) the only package index uv reads, as ``--no-index
    --find-links folder``: nothing is fetched from the network."""
    folder.mkdir(parents=True, exist_ok=True)
    # uv reads no variable for --no-index: an empty default index stands for it.
    empty = folder.with_name(folder.name + "-no-index")
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("UV_DEFAULT_INDEX", empty.as_uri())
    monkeypatch.setenv("UV_FIND_LINKS", str(folder))
    return folder


def _digest(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
