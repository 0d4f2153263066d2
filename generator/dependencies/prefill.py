"""The approved requirements installed while the plugin renders: uv's work beside Copier's.

Once the environment step has decided that the plugin shares the runtime's environment, its
conflict check has passed (nothing conflicts, no local name would be fetched) and the
validation environment needs only the requirements, which rendering writes into
``requirements.txt`` as they are. So the install (``install_approved``) starts then, in a
thread, and the dependencies step takes its interpreter: a second of uv and a second of Copier
and git overlap on two cores. Should the rendered requirements differ, they are installed again.

The install never outlives the import: leaving the ``with`` block, a failed import included,
waits for it (uv's time limit bounds the wait), so the plugin id's claim is never released
while uv still fills its environment.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import TracebackType

from generator.dependencies.environment import install_approved, read_requirements
from runtime.contract.layout import REQUIREMENTS_FILE


class Prefill:
    """At most one install of approved requirements, started early, awaited once."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-import-install")
        self._started: tuple[list[str], Future[Path]] | None = None

    def start(self, root: Path, plugin_id: str, requirements: list[str], scratch: Path) -> None:
        """Install ``requirements`` into ``plugin_id``'s validation environment, in the
        background, from a copy in ``scratch``."""
        listed = scratch / REQUIREMENTS_FILE
        listed.write_text("".join(f"{line}\n" for line in requirements), "utf-8")
        future = self._pool.submit(install_approved, root, plugin_id, listed)
        self._started = (read_requirements(listed), future)

    def python(self, root: Path, plugin_id: str, requirements_file: Path) -> Path:
        """The validation environment's interpreter with ``requirements_file`` installed: the
        early install's when it had the same requirements (its error, if it failed)."""
        if self._started is not None:
            installed, future = self._started
            python = future.result()
            if installed == read_requirements(requirements_file):
                return python
        return install_approved(root, plugin_id, requirements_file)

    def __enter__(self) -> Prefill:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._pool.shutdown(wait=True)
