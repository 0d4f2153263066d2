"""``Settings``: how one runtime process is configured (the CLI builds it from flags)."""

from __future__ import annotations

import ipaddress
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    DirectoryPath,
    Field,
    SecretStr,
    field_validator,
)

from runtime.extensions import check_name
from runtime.storage.backend import Backend, backend

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]


class Settings(BaseModel):
    """Everything ``create_app`` needs; validated once, at the boundary."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535, description="0 picks a free port.")
    plugins_dir: DirectoryPath | None = Field(
        default=None, description="Folder of plugin packages; None means runtime/plugins/."
    )
    storage: str = Field(
        default="memory",
        description="Where sessions, the plugins' store and the session locks live: 'memory', "
        "'sqlite:PATH' or a PostgreSQL URL (postgres:// or postgresql://); see ``backend``.",
    )
    audit_file: Path | None = Field(default=None, description="JSON-lines file for audit events.")
    max_message_bytes: int = Field(default=64 * 1024, ge=256)
    default_agent: str = "mortgage"
    log_level: LogLevel = "INFO"
    cors_origins: tuple[str, ...] = Field(
        default=(),
        description="Browser origins besides the runtime's own allowed to call /agui (CORS) and "
        "open /ws (runtime.serving.origins), e.g. 'https://app.example'; none by default.",
    )
    client_tool_timeout_s: float = Field(
        default=15.0,
        gt=0,
        le=600,
        description="How long a turn waits for a device tool's result before it fails.",
    )
    user_header: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9-]{1,64}$",
        description="Request header of /ws holding the user id, set by a trusted gateway in front "
        "of the runtime; None means sessions have no user id (clients cannot claim one).",
    )
    offline_models: bool = Field(
        default=False, description="Answer every chat model call with the scripted offline reply."
    )
    sandbox: bool = Field(
        default=True,
        description="Run isolated plugins' workers in an operating-system sandbox (runtime."
        "sandbox); false (serve --no-sandbox) runs them unconfined, with a warning at start-up.",
    )
    extensions: tuple[Annotated[str, AfterValidator(check_name)], ...] = Field(
        default=(),
        description="Optional components to mount, by name (runtime.extensions): 'import-api' "
        "serves the import API and the /transfer wizard. None by default.",
    )
    # The import API's settings: plain data, read by the import-api extension only.
    admin_token: SecretStr | None = Field(
        default=None,
        description="With a token, the import API and wizard answer any client presenting it "
        "(and only those); without one, loopback clients only.",
    )
    allowed_hosts: tuple[str, ...] = Field(
        default=(),
        description="Host names requests may be addressed to besides loopback ones: the import "
        "API's, and /ws and /agui of a runtime bound to loopback (against DNS rebinding).",
    )
    trusted_proxies: tuple[str, ...] = Field(
        default=(),
        description="Addresses or networks (e.g. '127.0.0.1', '10.0.0.0/8') of the reverse "
        "proxies whose forwarding headers count (runtime.serving.proxies); none by default.",
    )
    idle_timeout_s: int = Field(
        default=5,
        ge=1,
        description="Seconds a connection may wait, idle, for its next request after a response.",
    )
    header_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="Seconds a connection has to send a request's line and headers, from its "
        "opening or the request's first byte; then it is closed (against slowloris).",
    )
    max_connections: int = Field(
        default=500,
        ge=1,
        description="Connections one server process holds at most (below its open-file limit, "
        "often 1024); more are refused (one process) or wait in the listen backlog (--workers N).",
    )
    import_jobs: int = Field(default=2, ge=1, description="Import jobs running at once, at most.")
    import_job_ttl: float = Field(default=900.0, gt=0, description="Seconds a finished job lives.")

    @field_validator("storage")
    @classmethod
    def _known_storage(cls, value: str) -> str:
        return backend(value).url

    @cached_property
    def backend(self) -> Backend:
        """The backend ``storage`` names, decided once (``runtime.storage.backend``)."""
        return backend(self.storage)

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for proxy in value:
            try:
                ipaddress.ip_network(proxy)
            except ValueError:
                raise ValueError(
                    f"a trusted proxy is an IP address or network such as 10.0.0.0/8, not {proxy!r}"
                ) from None
        return value

    @field_validator("cors_origins")
    @classmethod
    def _exact_origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for origin in value:
            if origin == "*" or not origin.startswith(("http://", "https://")):
                raise ValueError(
                    f"a CORS origin is a scheme and host such as https://app.example, "
                    f"not {origin!r}"
                )
        return value
