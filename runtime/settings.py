"""``Settings``: how one runtime process is configured (the CLI builds it from flags)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, DirectoryPath, Field, SecretStr, field_validator

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]


class Settings(BaseModel):
    """Everything ``create_app`` needs; validated once, at the boundary."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535, description="0 picks a free port.")
    plugins_dir: DirectoryPath | None = Field(
        default=None, description="Folder of plugin packages; None means runtime/plugins/."
    )
    checkpointer: str = Field(default="memory", description="'memory' or 'sqlite:PATH'.")
    audit_file: Path | None = Field(default=None, description="JSON-lines file for audit events.")
    max_message_bytes: int = Field(default=64 * 1024, ge=256)
    default_agent: str = "mortgage"
    log_level: LogLevel = "INFO"
    admin_token: SecretStr | None = Field(
        default=None,
        description="With a token, the import API and wizard answer any client presenting it "
        "(and only those); without one, loopback clients only.",
    )
    allowed_hosts: tuple[str, ...] = Field(
        default=(), description="Host names the import API accepts besides loopback ones."
    )
    import_jobs: int = Field(default=2, ge=1, description="Import jobs running at once, at most.")
    import_job_ttl: float = Field(default=900.0, gt=0, description="Seconds a finished job lives.")

    @field_validator("checkpointer")
    @classmethod
    def _known_checkpointer(cls, value: str) -> str:
        if value == "memory" or (value.startswith("sqlite:") and value != "sqlite:"):
            return value
        raise ValueError(f"checkpointer must be 'memory' or 'sqlite:PATH', not {value!r}")

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite checkpoint file, when ``checkpointer`` is ``sqlite:PATH``."""
        return (
            Path(self.checkpointer.removeprefix("sqlite:"))
            if self.checkpointer != "memory"
            else None
        )
