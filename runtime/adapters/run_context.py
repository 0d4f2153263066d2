"""The run context LangGraph's Agent Server gives a graph, rebuilt for each run of an agent.

Templates read their settings from ``runtime.context`` (a ``context_schema`` dataclass, pydantic
model or TypedDict whose defaults often read environment variables in ``__post_init__``), older
agents from ``config["configurable"]``, and factories from ``(config, runtime)``. For every run:

* the **context** is the schema built from its own defaults, then the plugin's reviewed
  ``agent.json`` ``context`` values on top, then the session's user id in any field named like
  ``user_id``. A dataclass or pydantic field with no default that nothing sets is reported with
  its name and how to set it; a TypedDict key nothing sets is simply absent, as on the server;
* the same values go into ``config["configurable"]`` (never over the runtime's own keys such as
  ``thread_id``), with ``assistant_id`` (the plugin id), ``graph_id`` and the user, where the
  server puts them;
* a factory gets a ``ServerRuntime`` holding the context values, the store and the user.

Like the server, the context is built per run, so ``__post_init__`` sees the current environment
variables.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from langgraph_sdk.auth.types import BaseUser, StudioUser
from pydantic import BaseModel, RootModel, ValidationError
from typing_extensions import is_typeddict

from runtime.contract.agent import AgentSpec

#: ``config["configurable"]`` keys that belong to the runtime (its thread and checkpoints).
RESERVED_KEYS = frozenset({"thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map"})
#: Where LangGraph's server puts the authenticated user in ``config["configurable"]``.
AUTH_USER_KEY = "langgraph_auth_user"


class ContextError(ValueError):
    """The agent's run context cannot be built; the message names the field and the fix."""


@dataclass(frozen=True)
class RunContext:
    """What one run of an agent receives besides its input: its run context."""

    values: dict[str, Any]
    configurable: dict[str, Any]
    user: BaseUser | None


def is_user_id_field(name: str) -> bool:
    """``user_id``, ``userId``, ``USER-ID``: the fields a deployment's user id goes into."""
    return re.sub(r"[_\-]", "", name).lower() == "userid"


def make_run_context(spec: AgentSpec, *, plugin_id: str, user_id: str | None = None) -> RunContext:
    """The context values and configurable of one run for the session's user (if any)."""
    values = dict(spec.context)
    if user_id is not None:
        values |= {name: user_id for name in values if is_user_id_field(name)}
        values.setdefault("user_id", user_id)
    user = cast(BaseUser, StudioUser(user_id, is_authenticated=True)) if user_id else None
    configurable = {key: value for key, value in values.items() if key not in RESERVED_KEYS}
    configurable |= {"assistant_id": plugin_id, "graph_id": spec.graph_id}
    if user is not None:
        configurable[AUTH_USER_KEY] = user
    return RunContext(values, configurable, user)


def build_context(schema: Any, values: Mapping[str, Any]) -> Any:
    """An instance of ``schema`` from its defaults and the ``values`` it has fields for.

    Values for fields the schema lacks are left out (they still reach ``configurable``), except
    that a user id only fills fields named like ``user_id``. ``None`` when there is no schema.
    """
    if schema is None:
        return None
    fields = schema_fields(schema)
    given = {name: value for name, value in values.items() if name in fields}
    if user_id := values.get("user_id"):
        given |= {name: user_id for name in fields if is_user_id_field(name)}
    # A TypedDict has no defaults: LangGraph's server passes the keys the caller gave, no more.
    strict = not is_typeddict(schema)
    missing = [name for name, needed in fields.items() if strict and needed and name not in given]
    if missing:
        name = missing[0]
        raise ContextError(
            f"the agent's context {_name(schema)} needs a value for {name!r}, which has no "
            f'default: set it in the plugin\'s agent.json, e.g. "context": {{"{name}": ...}}'
        )
    try:
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema.model_validate(given)
        if isinstance(schema, type) and dataclasses.is_dataclass(schema):
            return schema(**given)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        message = f"the agent's context {_name(schema)}: {where}: {first['msg']}"
        raise ContextError(message) from None
    except (TypeError, ValueError, KeyError) as exc:
        raise ContextError(f"the agent's context {_name(schema)} failed to build: {exc}") from exc
    return given  # a TypedDict is a plain dict at run time


def schema_fields(schema: Any) -> dict[str, bool]:
    """The schema's field names, each with whether it is required (has no default)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return {name: info.is_required() for name, info in schema.model_fields.items()}
    if dataclasses.is_dataclass(schema):
        return {
            f.name: f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            for f in dataclasses.fields(schema)
            if f.init
        }
    if is_typeddict(schema):
        required: frozenset[str] = schema.__required_keys__
        return {name: name in required for name in typing.get_type_hints(schema)}
    return {}


def required_inputs(graph: Any) -> list[str]:
    """The input fields ``graph`` cannot start without (dataclass or pydantic fields with no
    default, or the keys of a separate TypedDict ``input_schema``)."""
    builder = getattr(graph, "builder", graph)
    schema = getattr(builder, "input_schema", None)
    if schema is None or (is_typeddict(schema) and schema is builder.state_schema):
        return []
    if isinstance(schema, type) and issubclass(schema, RootModel):
        return []  # a functional-API entrypoint's input is one bare value, not fields
    return [name for name, required in schema_fields(schema).items() if required]


def missing_inputs(graph: Any, spec: AgentSpec) -> str | None:
    """Why ``graph`` cannot start from the user's words and ``spec.inputs``, or ``None``."""
    given = {spec.input_field, *spec.inputs}
    missing = [name for name in required_inputs(graph) if name not in given]
    if not missing:
        return None
    name = missing[0]
    return (
        f"the agent's input needs a value for {name!r}: set it in the plugin's agent.json, "
        f'e.g. "inputs": {{"{name}": ...}}'
    )


def _name(schema: Any) -> str:
    return str(getattr(schema, "__name__", schema))
