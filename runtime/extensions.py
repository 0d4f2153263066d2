"""Extensions: optional components a runtime mounts only when asked.

The runtime serves plugins. Anything else it can serve is an extension (today one: the import API
and its ``/transfer`` wizard, ``generator.api``), so that a runtime not asked for it carries none
of its code, dependencies, start-up time or attack surface. An extension is one callable,
``install(app, settings)`` (``Extension``), that adds routes, state and exception handlers to the
app ``create_app`` builds, the way a Starlette ``Mount`` adds a sub-application. It is registered
by name as an entry point of the group ``a2ui_runtime.extensions`` (agent-import declares
``import-api`` in the repository's root ``pyproject.toml``) and imported only when
``Settings.extensions`` names it: ``a2ui-runtime serve --import-api`` names ``import-api``.
Nothing in ``runtime/`` imports an extension's code itself.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:  # types only: runtime.settings imports this module (``check_name``)
    from fastapi import FastAPI

    from runtime.settings import Settings

#: The entry-point group extensions are registered in.
GROUP: Final = "a2ui_runtime.extensions"
#: The import API and the ``/transfer`` wizard (``generator.api``).
IMPORT_API: Final = "import-api"


class Extension(Protocol):
    """What an extension's entry point names: it installs the component on ``app``."""

    def __call__(self, app: FastAPI, settings: Settings, /) -> None: ...


def check_name(name: str) -> str:
    """``name`` if an extension of that name is installed, else a ``ValueError`` saying which are
    (``Settings`` checks its ``extensions`` with this, so a wrong name never reaches start-up)."""
    installed = entry_points(group=GROUP)
    if name not in installed.names:
        known = ", ".join(sorted(installed.names)) or "none"
        raise ValueError(f"no runtime extension {name!r} is installed (installed: {known})")
    return name


def install(app: FastAPI, settings: Settings) -> None:
    """Import and install each extension ``settings.extensions`` names, in that order."""
    installed = entry_points(group=GROUP)
    for name in settings.extensions:
        extension: Extension = installed[name].load()
        extension(app, settings)
