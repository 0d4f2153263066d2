"""Why a validation failed, in plain words, and what to do about it.

``diagnose`` reads the first failed check (its summary and traceback) and says which of a few
known causes it is, deterministically, by the error's type and message:

* ``missing_package``: ``ModuleNotFoundError``, or an ``ImportError`` saying ``pip install X``;
* ``needs_setting``: a ``KeyError`` on a state key or an environment variable, a provider's or a
  tool's "set the X_API_KEY environment variable" (in pydantic's lines too), a context value the
  agent needs, a pydantic ``ValidationError`` of a value nothing set (missing, or ``None``; a
  value of the wrong type is the agent's own);
* ``needs_network``: DNS and connection errors (the checks run offline);
* ``needs_python``: a ``SyntaxError`` in an agent that asks for a newer Python than the one
  that ran it: the checks' interpreter, or the plugin's environment of its own's (``agent.json``
  ``environment.python``) (``python_version.py``);
* ``timed_out``: the checks did not finish in time;
* ``agent_bug``: anything else, at the traceback's last line inside the agent (``src/``).

A network error in the smoke test, after the import check passed, is a warning, not a failure:
the agent imports, and it reaches out only when it runs (a tokenizer download, a web search),
which the checks cannot do offline. ``explain.py`` may have a model reword the explanation.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from generator.dependencies.environment import read_requirements, requirement_for_module
from generator.dependencies.python_version import (
    PythonNeed,
    interpreter_version,
    minor_version,
    needed_in,
)
from generator.errors import AgentImportError
from generator.paths import is_searched_folder
from generator.render.template import read_answers
from generator.validate.smoke import NOT_TRIED, CheckName, CheckResult
from runtime.contract.agent import EnvironmentSpec
from runtime.contract.layout import AGENT_FILE, REQUIREMENTS_FILE, SOURCE_FOLDER
from runtime.isolated.envs import has_python

if TYPE_CHECKING:
    from runtime.contract.agent import AgentSpec

Kind = Literal[
    "missing_package",
    "needs_setting",
    "needs_network",
    "needs_python",
    "timed_out",
    "agent_bug",
    "requirements_clash",
    "needs_tool_server",
    "not_run",
]
Severity = Literal["failure", "warning"]

#: How each kind reads at the start of a line.
LABELS: dict[Kind, str] = {
    "missing_package": "missing package",
    "needs_setting": "needs a setting",
    "needs_network": "needs the network",
    "needs_python": "needs another Python",
    "timed_out": "timed out",
    "agent_bug": "a bug in the agent",
    "requirements_clash": "its requirements do not work together",
    "needs_tool_server": "needs a tool server",
    "not_run": "the agent was not run",
}
#: An isolated worker's exit over its environment's unmet requirement (``runtime.isolated``).
_CLASH = re.compile(r"its requirements do not work together: ([^(\n]+?)(?: \(|$)", re.M)
#: An MCP session that ended before it began (its server could not start, or is not there).
_MCP_FAILED = ("McpError", "Connection closed", "mcp.shared.exceptions")
#: A turn stopped at its deadline: an agent with tool servers was waiting on one (``npx``
#: fetching a package with no network, a server that never answers).
_TOOK_TOO_LONG = ("deadline_exceeded", "took too long")
#: A tool server's command that is not on this machine (or in the sandbox).
_MISSING_COMMAND = re.compile(r"No such file or directory: '([\w.+-]+)'")
#: Where each command a tool server is started with comes from.
_COMMAND_HOMES = {
    "npx": " (npx comes with Node.js)",
    "node": " (Node.js)",
    "uvx": " (uvx comes with uv: pip install uv)",
    "uv": " (pip install uv)",
    "docker": " (Docker)",
}
#: A configuration file named in an error: ``config.yaml``, ``settings.json``.
_CONFIG_NAME = re.compile(r"\b([\w.-]+\.(?:ya?ml|json|toml|ini|cfg))\b")
#: A configuration class built with a field nothing gave: ``__init__() missing 1 required
#: keyword-only argument: 'user_id'``.
_MISSING_ARGUMENT = re.compile(
    r"__init__\(\) missing \d+ required (?:keyword-only |positional )?argument: '(\w+)'"
)
#: Where a run's configuration class is built from ``config["configurable"]``.
_CONFIGURABLE = ("configurable", "from_runnable_config", "Configuration")
#: A number read from an unset variable: ``int(os.getenv("port"))``.
_NONE_AS_NUMBER = re.compile(
    r"invalid literal for int\(\) with base \d+: 'None'|could not convert string to float: 'None'"
)
#: A name missing from an installed package (never the agent's own files, under src/).
_MISSING_NAME = re.compile(
    r"cannot import name '(\w+)' from '([\w.]+)' \([^)]*(?:site|dist)-packages[^)]*\)"
)
#: Who wrote the explanation when no model did.
RULES = "rules"
#: How much of a traceback's end a diagnosis (and a model asked to explain it) reads.
TAIL_LINES = 30
#: How a missing package's fix ends: the requirements approved, installed, validated with.
APPROVE_AGAIN = "import again with --approve-deps"
#: Who runs the agent of a plugin with an environment of its own (``PythonNeed.runner``).
OWN_ENVIRONMENT = "its environment of its own"

_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.MULTILINE)
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_PIP_HINT = re.compile(
    r"pip install\s+(?:(?:-U|--upgrade|-q|--quiet)\s+)*[`'\"]?([A-Za-z0-9][A-Za-z0-9._\-]*)"
)
_KEY_ERROR = re.compile(r"^KeyError: '([^']+)'", re.MULTILINE)
#: A ``KeyError`` named anywhere in a line (``AgentFailed: KeyError: 'email'`` from a worker).
_KEY_NAMED = re.compile(r"\bKeyError: '([^']+)'")
#: The code of a frame reading the graph's state or run configuration by key.
_READS_INPUT = re.compile(r"\b(?:state|inputs?|config(?:urable)?)\b.*\[")
_NEEDS_VALUE = re.compile(r"needs a value for '([^']+)'")
_ENV_NAME = re.compile(
    r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:API_KEY|KEY|TOKEN|SECRET|URL|PASSWORD))\b"
)
_PROVIDER_KEY = re.compile(r"api[_ ]key|environment variable|must be set", re.IGNORECASE)
#: A pydantic ``ValidationError``'s first line (its model); ``_VALIDATION`` also reads the first
#: field and what is wrong with it.
_VALIDATION_ERROR = re.compile(r"ValidationError: \d+ validation errors? for (\w+)\n")
_VALIDATION = re.compile(_VALIDATION_ERROR.pattern + r"(\w+)\n\s*(.*)")
#: What pydantic says of a value nothing set: none given, or ``None`` (an unset variable read).
_UNSET = re.compile(r"\[type=missing\b|\binput_value=None\b")
#: A traceback's exception line: ``module.Name: message`` (a class name, or one like ``gaierror``).
_EXCEPTION_LINE = re.compile(r"^(?:[a-z_]\w*\.)*((?:[A-Z]\w*|\w*error)(?::\s.*)?)$")
_NETWORK = (
    "gaierror",
    "Name or service not known",
    "Temporary failure in name resolution",
    "nodename nor servname provided",
    "getaddrinfo failed",
    "httpx.ConnectError",
    "httpcore.ConnectError",
    "URLError",
    "requests.exceptions.ConnectionError",
    "Failed to establish a new connection",
    "ConnectionRefusedError",
    "Network is unreachable",
    "NetworkDisabled",  # runtime.testing.offline_models refuses connections in the smoke test
)


class Diagnosis(BaseModel):
    """Why a validation failed (or, as a warning, what it could not check) and the fix."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    severity: Severity = "failure"
    check: CheckName | None = Field(description="The check that failed; None before the checks.")
    summary: str = Field(description="One line: what went wrong.")
    explanation: str = Field(description="Plain words: why, for someone who did not write it.")
    fix: str = Field(description="A command to run, or the agent.json key to set.")
    location: str | None = Field(
        default=None, description="file:line in the plugin folder (src/...), where there is one."
    )
    explained_by: str = Field(
        default=RULES, description="'rules', or the model id that wrote the explanation."
    )

    def headline(self) -> str:
        """The one line a user reads first."""
        where = f" ({self.location})" if self.location else ""
        return f"{LABELS[self.kind]}: {self.summary}{where}"

    def lines(self) -> list[str]:
        """The headline, the explanation, the fix."""
        return [self.headline(), self.explanation, f"fix: {self.fix}"]


def left_for_review(
    diagnosis: Diagnosis | None, names: Sequence[str], plugin_id: str
) -> Diagnosis | None:
    """``diagnosis``, as a warning when the turn stopped on a value the import left for its
    reviewer (a field with no default and nothing to propose): the plugin is written, the value
    belongs in its pull request. An agent in a worker of its own reports only the ``KeyError``,
    without the frame that read it: a key the import left for review is that value too."""
    if diagnosis is None or diagnosis.severity == "warning":  # none, or already one
        return diagnosis
    if diagnosis.kind == "needs_setting":
        key, fix = _last(_NEEDS_VALUE, diagnosis.summary), diagnosis.fix
    elif diagnosis.kind == "agent_bug":
        key = _last(_KEY_NAMED, diagnosis.summary)
        fix = f'set {key!r} in agent.json where the import\'s "needs a value" line says'
    else:
        return diagnosis
    if key is None or key not in names:
        return diagnosis
    stopped = "the conversation stopped on it", "its turns fail naming it"
    fix = f"{fix}, then run `agent-import validate {plugin_id}`"
    warning = _left_unset(key, stopped, fix, check=diagnosis.check)
    return warning.model_copy(update={"location": diagnosis.location})


def _left_unset(
    key: str, outcome: tuple[str, str], fix: str, *, check: CheckName | None
) -> Diagnosis:
    """The warning for a value nothing provides, so the import left it for its reviewer:
    ``outcome`` is what happened to the conversation, and what its turns do until it is set."""
    happened, until = outcome
    return Diagnosis(
        kind="needs_setting",
        severity="warning",
        check=check,
        summary=f"not tried: the agent needs a value for {key!r}",
        explanation="The agent needs a value that nothing in its code or its repository "
        f"provides, so the import could not propose one and {happened}. The plugin is written; "
        f"until the value is set, {until}.",
        fix=fix,
    )


def python_diagnosis(need: PythonNeed, *, check: CheckName | None = None) -> Diagnosis:
    """``needs_python``, as the one line of ``PythonNeed.describe``."""
    own = need.runner == OWN_ENVIRONMENT
    return Diagnosis(
        kind="needs_python",
        check=check,
        summary=need.describe(),
        explanation=(
            f"The agent is written for Python {need.required}, and code for a newer Python does "
            f"not even parse on Python {need.running}."
        ),
        fix=_python_fix(need.required, own=own),
    )


def python_warning(environment: EnvironmentSpec) -> Diagnosis | None:
    """A warning for an agent validated on another Python than it asks for (and passed)."""
    if environment.asked_python is None:
        return None
    return Diagnosis(
        kind="needs_python",
        severity="warning",
        check=None,
        summary=environment.reason,
        explanation=(
            f"The project asks for Python {environment.asked_python}, as LangGraph's server "
            "would honour, but its checks passed on this one, so the plugin is written and runs "
            "here as it is."
        ),
        fix=_python_fix(environment.asked_python, own=environment.kind == "isolated"),
    )


def port_warning(strategy: str) -> Diagnosis | None:
    """A port's checks ran its shell, never the agent: say so, rather than "passed"."""
    if strategy != "port":
        return None
    return Diagnosis(
        kind="not_run",
        severity="warning",
        check=None,
        summary="imported as a port: the checks ran the shell left to finish, not the agent",
        explanation=(
            "The import could not tell how to run this graph as it is, so the plugin answers "
            "that it is being rebuilt until someone ports the agent into it; nothing of the "
            "agent's own code was run."
        ),
        fix="port the agent in the plugin's respond.py (its PORTING.md says how), or import it "
        "again with --strategy wrapper if its input is a list of messages",
    )


def _python_fix(version: str, *, own: bool) -> str:
    """How to run the agent on Python ``version``: found here, an environment of its own on
    it needs the import approved; not found, the one command that installs it first."""
    again = f"{APPROVE_AGAIN} --force: {OWN_ENVIRONMENT} gets Python {version}"
    if has_python(version):
        return again
    return f"install it with `uv python install {version}`, then {again}"


def diagnose(checks: list[CheckResult], folder: Path, *, python: str) -> Diagnosis | None:
    """The diagnosis of the first failed check of ``folder`` (the plugin folder); ``None`` if
    every check passed. ``python`` is the interpreter the checks ran with."""
    failed = next((check for check in checks if not check.ok), None)
    if failed is None:
        return None
    traceback = "\n".join((failed.traceback or "").splitlines()[-TAIL_LINES:])
    text = f"{traceback}\n{failed.summary}"
    location = _location(failed.traceback or "", folder / SOURCE_FOLDER)
    found = (
        _to_review(failed, folder)
        or _clash(failed, text)
        or _missing_package(failed, text, folder)
        or _python(text, folder, python, failed.name)
        or _tool_server(failed, text, folder)
        or _network(failed, text)
        or _setting(failed, text)
        or _config_file(failed, text, folder)
        or _unset_number(failed, text, folder)
        or _timed_out(failed)
        or _bug(failed, traceback)
    )
    return found.model_copy(update={"location": location})


def _clash(failed: CheckResult, text: str) -> Diagnosis | None:
    """The worker of a plugin with an environment of its own could not load its packages:
    ``uv pip check`` named a requirement its other pins do not meet (``runtime.isolated``)."""
    found = _CLASH.search(text)
    if found is None:
        return _drifted(failed, text)
    return Diagnosis(
        kind="requirements_clash",
        check=failed.name,
        summary=found[1],
        explanation=(
            "The agent's own pinned versions cannot load together, so its environment of its "
            "own cannot even import it; LangGraph's server would fail the same way."
        ),
        fix="pin versions that fit together in the plugin's requirements.txt (the agent's "
        "pyproject.toml upstream), then run `agent-import validate --approve-deps`",
    )


def _drifted(failed: CheckResult, text: str) -> Diagnosis | None:
    """An installed package lacks a name the agent imports from it: the agent was written for
    another version of it (an unpinned requirement that resolved to a newer release)."""
    found = _last_match(_MISSING_NAME, text)
    if found is None:
        return None
    name, module = found.group(1), found.group(2)
    package = module.partition(".")[0]
    return Diagnosis(
        kind="requirements_clash",
        check=failed.name,
        summary=f"the installed {package} has no {name!r} (imported from {module})",
        explanation=(
            f"The agent imports {name} from {module}, which the installed version of {package} "
            "does not have: the agent was written for another version, and its requirements do "
            "not pin it. LangGraph's server, installing the same ranges, would fail the same way."
        ),
        fix=f"pin the version of {package} the agent was written for in the plugin's "
        f"requirements.txt (the project's uv.lock or poetry.lock says which, if it has one)",
    )


def _to_review(failed: CheckResult, folder: Path) -> Diagnosis | None:
    """The conversation was not tried: the runtime found a field with no default that nothing
    sets (a dataclass or pydantic context or input field). A warning, as in ``left_for_review``."""
    if (
        not failed.summary.startswith(NOT_TRIED)
        or (key := _last(_NEEDS_VALUE, failed.summary)) is None
    ):
        return None
    example = failed.summary.partition("e.g. ")[2] or f'"context": {{"{key}": ...}}'
    not_tried = "the conversation was not tried", "the runtime shows an error screen naming it"
    fix = f"set agent.json {example}, then run `agent-import validate {folder.name}`"
    return _left_unset(key, not_tried, fix, check=failed.name)


def own_module_file(module: str, src: Path) -> str | None:
    """``src/...`` of the agent's own file that ``module``'s top-level name names (``prompts``
    for ``prompts.py`` beside the graph), if the vendored repository has one: imported as a
    top-level module, it is found only when Python starts in its folder."""
    top = module.partition(".")[0]
    for folder, dirs, files in os.walk(src):
        dirs[:] = sorted(name for name in dirs if is_searched_folder(name))
        here = Path(folder)
        if f"{top}.py" in files or (top in dirs and (here / top / "__init__.py").is_file()):
            found = here / (f"{top}.py" if f"{top}.py" in files else top)
            return f"{SOURCE_FOLDER}/{found.relative_to(src).as_posix()}"
    return None


def own_module_fix(module: str) -> str:
    """How to import a file of the agent's own package."""
    return f"import it from its package (`from .{module.partition('.')[0]} import ...`)"


def _missing_package(failed: CheckResult, text: str, folder: Path) -> Diagnosis | None:
    module = failed.missing_module or _last(_NO_MODULE, text)
    if module is not None and (own := own_module_file(module, folder / SOURCE_FOLDER)):
        return Diagnosis(
            kind="agent_bug",
            check=failed.name,
            summary=f"module {module!r} is the agent's own file {own}, not on its import path",
            explanation=f"The agent imports a file of its own repository as a top-level module, "
            f"which works only when Python starts in that file's folder. LangGraph's server "
            f"does not put the graph's folder on the import path either, and no package to "
            f"install provides {module!r}.",
            fix=own_module_fix(module),
        )
    if module is not None:
        requirements = read_requirements(folder / REQUIREMENTS_FILE)
        requirement = requirement_for_module(module, requirements)
        listed = (
            f"{folder.name}/{REQUIREMENTS_FILE} lists it as {requirement!r}"
            if requirement
            else f"no requirement in {folder.name}/{REQUIREMENTS_FILE} provides it"
        )
        fix = (
            f"{APPROVE_AGAIN} to install the requirements into the plugin's "
            "isolated validation environment"
            if requirement
            else f"add the distribution that provides {module!r} to the agent's requirements, "
            f"then {APPROVE_AGAIN}"
        )
        return Diagnosis(
            kind="missing_package",
            check=failed.name,
            summary=f"module {module!r} is not installed",
            explanation=f"The agent imports {module}, which is not installed where the plugin "
            f"is validated; {listed}.",
            fix=fix,
        )
    package = _last(_PIP_HINT, text)
    if package is None:
        return None
    return Diagnosis(
        kind="missing_package",
        check=failed.name,
        summary=f"the agent asks for the package {package!r} (pip install {package})",
        explanation=f"The agent imports {package} only when it uses it, so the import check "
        f"passed, but running it needs the package {package}, which is not installed.",
        fix=f"add {package!r} to the agent's requirements ({REQUIREMENTS_FILE}), then "
        f"{APPROVE_AGAIN}",
    )


def _python(text: str, folder: Path, python: str, check: CheckName) -> Diagnosis | None:
    """A SyntaxError of an agent that asks for a newer Python than the one that ran it: the
    interpreter of the checks, or the Python of the plugin's environment of its own."""
    if "SyntaxError" not in text:
        return None
    spec = _agent_spec(folder)
    isolated = spec is not None and spec.environment.kind == "isolated"
    own = minor_version(spec.environment.python) if spec and isolated else None
    running = own or interpreter_version(python)
    config_file = spec.config_file if spec else "langgraph.json"
    need = needed_in(folder / SOURCE_FOLDER, config_file, running=running)
    if need is None:
        return None
    if own is not None:
        need = need.model_copy(update={"runner": OWN_ENVIRONMENT})
    return python_diagnosis(need, check=check)


def _tool_server(failed: CheckResult, text: str, folder: Path) -> Diagnosis | None:
    """An MCP server the agent starts or reaches could not be had: its connection closed, or
    its command (``npx``, ``uvx``, ``uv``) is not there. Offline in a sandbox, that is expected;
    after the import check passed it is a warning, as the network is."""
    spec = _agent_spec(folder)
    servers = spec.tool_servers if spec is not None else []
    missing = _MISSING_COMMAND.search(text)
    waited = bool(servers) and any(marker in text for marker in _TOOK_TOO_LONG)
    if not (servers or "mcp" in text.lower()) or not (
        missing or waited or any(marker in text for marker in _MCP_FAILED)
    ):
        return None
    command = missing[1] if missing else None
    server = next(
        (s for s in servers if command and s.partition(": ")[2].startswith(command)),
        servers[0] if servers else (command or "an MCP server"),
    )
    warning = failed.name == "turns"
    where = _COMMAND_HOMES.get(command or server.partition(": ")[2].split(" ")[0], "")
    return Diagnosis(
        kind="needs_tool_server",
        severity="warning" if warning else "failure",
        check=failed.name,
        summary=server,
        explanation=(
            "The agent gets its tools from an MCP server it starts or connects to, which the "
            "offline, sandboxed checks cannot provide"
            + (
                ": the import check passed, so the plugin is written; it needs the server where "
                "it runs."
                if warning
                else ", and it connects while it is imported."
            )
        ),
        fix=f"make the tool server available where the plugin runs: {server}{where}",
    )


def _network(failed: CheckResult, text: str) -> Diagnosis | None:
    if not any(marker in text for marker in _NETWORK):
        return None
    warning = failed.name == "turns"
    explanation = (
        "The agent tried to reach a server over the network while it ran, and validation runs "
        "offline. "
        + (
            "The import check passed, so the plugin is written; it will reach the network when "
            "it runs for real (a download on first use, a web search, an API)."
            if warning
            else "It does so while being imported, so it cannot be imported offline."
        )
    )
    fix = (
        "nothing to do if the runtime's machine can reach that server; check the network "
        "access where the plugin runs"
        if warning
        else "make the agent reach the network when it runs rather than when it is imported, "
        "or validate where that server is reachable"
    )
    return Diagnosis(
        kind="needs_network",
        severity="warning" if warning else "failure",
        check=failed.name,
        summary=_exception_line(text) or "a network call failed",
        explanation=explanation,
        fix=fix,
    )


def _setting(failed: CheckResult, text: str) -> Diagnosis | None:
    if (key := _last(_NEEDS_VALUE, text)) is not None:
        return _needs(failed, key, f'agent.json "context": {{"{key}": ...}}', "a run setting")
    if (match := _last_match(_VALIDATION, text)) is not None and _UNSET.search(match.group(3)):
        model, field = match.group(1), match.group(2)
        where = (
            f"the environment variable {field.upper()} (read by the settings model {model})"
            if "pydantic_settings" in text or field.upper() in text
            else f'agent.json "context": {{"{field}": ...}} (the settings model {model})'
        )
        return _needs(failed, field, where, f"the setting {field!r} of {model}")
    if (key := _last(_MISSING_ARGUMENT, text)) is not None and any(
        marker in text for marker in _CONFIGURABLE
    ):
        where = f'agent.json "context": {{"{key}": ...}} (it reaches config["configurable"])'
        return _needs(failed, key, where, "a configuration field")
    if (key := _last(_KEY_ERROR, text)) is not None:
        if _ENV_NAME.fullmatch(key) or key.isupper():
            where = f'the environment variable {key} (listed in agent.json "env")'
            return _needs(failed, key, where, "an environment variable")
        if _READS_INPUT.search(_last_code_line(text)):
            where = f'agent.json "inputs": {{"{key}": ...}}'
            return _needs(failed, key, where, "an input field")
    exception = f"{_exception_line(text) or ''}\n{_validation_details(text)}"
    if _PROVIDER_KEY.search(exception) and (name := _last(_ENV_NAME, exception)) is not None:
        where = f'the environment variable {name} (listed in agent.json "env")'
        return _needs(failed, name, where, "an environment variable")
    return None


def _config_file(failed: CheckResult, text: str, folder: Path) -> Diagnosis | None:
    """The agent stopped on a value its own configuration file lacks (``No chat models are
    configured ... in config.yaml``): a setting in that file, which the plugin carries."""
    line = _exception_line(text) or ""
    for name in dict.fromkeys(_CONFIG_NAME.findall(line)):
        found = next(iter(sorted((folder / SOURCE_FOLDER).glob(f"**/{name}"))), None)
        if found is not None:
            where = found.relative_to(folder).as_posix()
            return Diagnosis(
                kind="needs_setting",
                check=failed.name,
                summary=f"the agent needs a value in {where}: {line.partition(': ')[2] or line}",
                explanation=(
                    f"The agent reads its settings from {name}, which the plugin carries in "
                    f"{SOURCE_FOLDER}/, and a value it needs is not there."
                ),
                fix=f"fill in {where} (reviewed in the pull request), then run "
                f"`agent-import validate {folder.name}`",
            )
    return None


def _unset_number(failed: CheckResult, text: str, folder: Path) -> Diagnosis | None:
    """``int(os.getenv("port"))`` with the variable unset: a setting, not a bug."""
    if not _NONE_AS_NUMBER.search(text):
        return None
    try:
        optional = [str(name) for name in read_answers(folder).get("optional_env") or []]
    except AgentImportError:
        optional = []
    names = ", ".join(optional) or "the ones its code reads"
    return Diagnosis(
        kind="needs_setting",
        check=failed.name,
        summary="the agent reads a number from an environment variable that is not set",
        explanation=(
            "The agent converts a variable it reads to a number (a port, a size) while it "
            "runs or loads, and the variable is unset, so it converted 'None'. Its settings "
            "are the deployment's to give; validation gives only dummy credentials."
        ),
        fix=f"set the environment variables the agent reads where it runs ({names}); "
        "the plugin's README lists them",
    )


def _needs(failed: CheckResult, key: str, where: str, what: str) -> Diagnosis:
    return Diagnosis(
        kind="needs_setting",
        check=failed.name,
        summary=f"the agent needs a value for {key!r}",
        explanation=f"The agent reads {what}, {key!r}, that nothing set, so it stopped; "
        "it is a value for whoever runs the plugin to give, not a bug.",
        fix=f"set {where}",
    )


def _timed_out(failed: CheckResult) -> Diagnosis | None:
    if not failed.summary.startswith("timed out"):
        return None
    return Diagnosis(
        kind="timed_out",
        check=failed.name,
        summary=f"the checks {failed.summary}",
        explanation="The agent did not finish its first turn in time: it may wait for a "
        "server, a prompt on the terminal, or loop.",
        fix="run the agent's graph once by hand to see where it waits, then import again",
    )


def _bug(failed: CheckResult, traceback: str) -> Diagnosis:
    summary = _exception_line(traceback) or failed.summary
    return Diagnosis(
        kind="agent_bug",
        check=failed.name,
        summary=summary,
        explanation=(
            "The agent raised an error of its own that is none of the known causes "
            "(a missing package, a setting, the network, the Python version): "
            + (
                "it fails while being imported."
                if failed.name == "import"
                else "it fails when it runs."
            )
        ),
        fix="fix the agent at the line shown (the traceback follows), then import again",
    )


def _location(traceback: str, src: Path) -> str | None:
    """The last frame inside ``src`` as ``src/<file>:<line>``."""
    roots = {str(src), str(src.resolve())}
    for path, line in reversed(_FRAME.findall(traceback)):
        for root in roots:
            if path.startswith(root + "/"):
                return f"{SOURCE_FOLDER}/{path[len(root) + 1 :]}:{line}"
    return None


def _last_code_line(traceback: str) -> str:
    """The source line under the traceback's last frame (empty if none is shown)."""
    lines = traceback.splitlines()
    frames = [i for i, line in enumerate(lines) if _FRAME.match(line)]
    return lines[frames[-1] + 1] if frames and frames[-1] + 1 < len(lines) else ""


def _exception_line(text: str) -> str | None:
    """The last ``SomeError: message`` line."""
    found = [m.group(1) for line in text.splitlines() if (m := _EXCEPTION_LINE.match(line))]
    return found[-1] if found else None


def _validation_details(text: str) -> str:
    """What a pydantic ``ValidationError`` says under its exception line (a validator's own
    message, such as a search tool's "add an environment variable `X_API_KEY`"), or nothing."""
    match = _last_match(_VALIDATION_ERROR, text)
    return text[match.end() :] if match else ""


def _last(pattern: re.Pattern[str], text: str) -> str | None:
    match = _last_match(pattern, text)
    return match.group(1) if match else None


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    matches = list(pattern.finditer(text))
    return matches[-1] if matches else None


def _agent_spec(folder: Path) -> AgentSpec | None:
    """``agent.json``: where ``langgraph.json`` is under ``src/``, which environment runs it."""
    from runtime.contract.agent import load_agent_spec

    if not (folder / AGENT_FILE).is_file():
        return None
    try:
        return load_agent_spec(folder)
    except Exception:  # an unreadable agent.json fails its own check; the defaults are a guess
        return None
