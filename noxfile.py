"""Every task a developer or CI runs. ``python3 dev.py SESSION`` bootstraps nox and runs one."""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["lint", "tests"]

PYTHON = None  # the interpreter nox itself runs on (>= 3.11)
#: What benchmarks compare the runtime with; installed by the bench session only, never served.
BENCH_ONLY = ["ag-ui-langgraph==0.0.47"]


#: uv installs without compiling bytecode; where ``PYTHONDONTWRITEBYTECODE`` is set (CI images
#: often set it), every process would then compile LangGraph from source: 3 s per subprocess.
COMPILED = {"UV_COMPILE_BYTECODE": "1"}
#: The test run instead writes bytecode as it imports (Python's default): it compiles only the
#: modules some test imports, not every installed package up front (11 s on 2 cores).
WRITE_BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}
#: Test workers a core: the tests mostly wait on the servers and processes they start.
TEST_WORKERS_PER_CORE = 2


def install(session: nox.Session, extras: str | None = "dev", *, compile: bool = True) -> None:
    """Install this project's two distributions (editable: ``a2ui-runtime`` from ``runtime/``,
    ``agent-import`` with the given extras; the runtime alone when ``extras`` is None) into the
    session's venv, then every plugin's reviewed ``requirements.txt`` (what ``agent-import
    import`` recorded), but for a plugin with an environment of its own (a ``requirements.lock``:
    ``a2ui-runtime envs``). One command, so that agent-import's ``a2ui-runtime`` requirement is
    met by this checkout's, never an index's."""
    env = COMPILED if compile else None
    generator = ["-e", f".[{extras}]"] if extras else []
    session.install("-e", "./runtime", *generator, env=env)
    for requirements in sorted(Path("runtime/plugins").glob("*/requirements.txt")):
        if (requirements.parent / "requirements.lock").is_file():
            continue
        if any(line.split("#")[0].strip() for line in requirements.read_text().splitlines()):
            session.install("-r", str(requirements), env=env)


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The whole test suite (offline; Bedrock is faked), in two workers a core (most tests wait
    on the processes and sockets they start: 3:57 on 2 cores where one a core took 4:43): a
    test file's tests run in one worker, so its module fixtures are built once. ``-- ARGS`` go
    to pytest (``-- -n 0`` runs in one process, ``-- -m "not slow"`` skips the long end-to-end
    tests)."""
    install(session, compile=False)
    env = {"AWS_EC2_METADATA_DISABLED": "true", **WRITE_BYTECODE}
    dist = ["--dist", "loadfile", "--no-loadscope-reorder"]  # in tests/conftest.py's order
    workers = str(TEST_WORKERS_PER_CORE * (os.cpu_count() or 1))
    session.run("pytest", "-n", workers, *dist, *session.posargs, env=env)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """pre-commit on every file: ruff, mypy, JSON/YAML, merge conflicts, the plugin hooks."""
    install(session)
    session.run("pre-commit", "run", "--all-files", "--show-diff-on-failure", *session.posargs)


@nox.session(python=PYTHON)
def frontend(session: nox.Session) -> None:
    """Rebuild the browser bundles (``runtime/static/js/``, committed) from ``frontend/`` with
    npm and esbuild; ``-- check`` instead fails when the committed bundles differ from the sources.
    """
    script = "check" if "check" in session.posargs else "build"
    with session.chdir("frontend"):
        session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
        session.run("npm", "run", script, external=True)


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """The main job: import an example agent offline into a scratch clone, then talk to it
    through the runtime over its WebSocket (``agent-import demo [EXAMPLE]``)."""
    install(session)
    session.run("agent-import", "demo", *session.posargs)


@nox.session(python=PYTHON)
def serve(session: nox.Session) -> None:
    """``a2ui-runtime serve [ARGS]``: the runtime alone (no generator), with every plugin's
    approved requirements installed first (``python3 dev.py serve -- --offline-models`` to try
    imported agents without keys)."""
    install(session, extras=None)
    session.run("a2ui-runtime", "envs")  # isolated plugins' environments (cached)
    session.run("a2ui-runtime", "serve", *session.posargs)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks: print figures (no pass/fail)."""
    install(session)
    session.install(*BENCH_ONLY, env=COMPILED)
    session.run("python", "-m", "bench", *session.posargs)


@nox.session(python=PYTHON)
def plugins(session: nox.Session) -> None:
    """Every plugin, as CI checks it: static contract, discovery by the runtime, offline smoke
    test (``python -m generator.checks.plugins``)."""
    install(session)
    session.run("a2ui-runtime", "envs")  # isolated plugins' environments (cached)
    session.run("python", "-m", "generator.checks.plugins", *session.posargs)


@nox.session(python=PYTHON)
def update_plugins(session: nox.Session) -> None:
    """``agent-import update --all [ARGS]``: every imported plugin from its upstream agent and the
    current template, for a scheduled CI job that opens a pull request (``-- --branch NAME``
    commits each plugin's update on NAME; ``-- --offline`` designs without Bedrock)."""
    install(session)
    session.run("agent-import", "update", "--all", *session.posargs)
