"""How the design step runs: which models, where Bedrock is, caching, repairs.

Every setting has a flag in ``agent-import design`` and most an environment variable, so CI and
developers configure it once; flags win over the environment, the environment over the defaults.

========================================  =============================================
``AGENT_IMPORT_DESIGN_MODEL``             design model id (Sonnet)
``AGENT_IMPORT_MAPPING_MODEL``            field-mapping model id (Haiku)
``AGENT_IMPORT_DIAGNOSIS_MODEL``          model explaining a failed validation (Nova Lite)
``AGENT_IMPORT_BEDROCK_READ_TIMEOUT``     seconds to wait for one answer
``AGENT_IMPORT_CACHE_DIR``                the answer cache (see ``cache.py``)
``AWS_REGION``                            region (else boto3's ``AWS_DEFAULT_REGION``...)
``AWS_PROFILE``, credentials ...          read by boto3 itself
========================================  =============================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.design.bedrock import BedrockSettings
from generator.errors import AgentImportError

DEFAULT_DESIGN_MODEL = "us.anthropic.claude-sonnet-4-6"
DEFAULT_MAPPING_MODEL = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
DEFAULT_DIAGNOSIS_MODEL = "amazon.nova-lite-v1:0"

DESIGN_MODEL_ENV = "AGENT_IMPORT_DESIGN_MODEL"
MAPPING_MODEL_ENV = "AGENT_IMPORT_MAPPING_MODEL"
DIAGNOSIS_MODEL_ENV = "AGENT_IMPORT_DIAGNOSIS_MODEL"
READ_TIMEOUT_ENV = "AGENT_IMPORT_BEDROCK_READ_TIMEOUT"
#: botocore itself reads only ``AWS_DEFAULT_REGION``; the AWS CLI and SDKs also honour this one.
REGION_ENV = "AWS_REGION"


class DesignOptions(BaseModel):
    """Settings of one design run; ``from_env`` fills them from the environment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    offline: bool = Field(default=False, description="Never ask a model: the fallback designs.")
    design_model: str = DEFAULT_DESIGN_MODEL
    mapping_model: str = DEFAULT_MAPPING_MODEL
    diagnosis_model: str = Field(
        default=DEFAULT_DIAGNOSIS_MODEL, description="Explains a failed validation (explain.py)."
    )
    bedrock: BedrockSettings = BedrockSettings()
    use_cache: bool = True
    cache_dir: Path | None = Field(default=None, description="None: the default cache folder.")
    repairs: int = Field(default=2, description="Follow-up turns with validation errors, at most.")
    sample_output: str | None = Field(default=None, description="An example of the agent's answer.")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> DesignOptions:
        """Options from environment variables, then ``overrides`` (``None`` values are ignored)."""
        env = os.environ if env is None else env
        settings: dict[str, Any] = {"region": env.get(REGION_ENV)}
        if timeout := env.get(READ_TIMEOUT_ENV):
            try:
                settings["read_timeout"] = float(timeout)
            except ValueError:
                raise AgentImportError(f"{READ_TIMEOUT_ENV}={timeout!r} is not seconds") from None
        values = {
            "design_model": env.get(DESIGN_MODEL_ENV),
            "mapping_model": env.get(MAPPING_MODEL_ENV),
            "diagnosis_model": env.get(DIAGNOSIS_MODEL_ENV),
        }
        bedrock = {**_given(settings), **_given(overrides.pop("bedrock", {}))}
        return cls(**{**_given(values), **_given(overrides)}, bedrock=BedrockSettings(**bedrock))


def _given(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without its ``None`` entries: not given, so the next source decides."""
    return {key: value for key, value in values.items() if value is not None}
