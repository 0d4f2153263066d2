"""``agent-import demo``: the main job end to end, offline, without touching the user's tree.

The repository is cloned into a temporary folder; an example agent from ``examples/`` is imported
there offline (the same ``import_agent`` the CLI runs); then the runtime is started on
127.0.0.1 over that clone's plugins, as a restart would, and a scripted conversation is played
through the new plugin over the WebSocket, printed the way a client receives it
(``runtime.testing.demo.converse``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TextIO

from generator import gitops
from generator.design import DesignOptions
from generator.errors import AgentImportError
from generator.pipeline.importer import ImportOptions, import_agent
from generator.pipeline.steps import Step, progress_line
from generator.validate import confinement
from runtime import sandbox
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.demo import Click, Printer, Say, converse

EXAMPLES: dict[str, tuple[Say | Click, ...]] = {
    "savings_helper": (
        Say("What is an ISA?"),
        Say("And how much can I put in?"),
        Click("restart"),
        Say("How big should my emergency fund be?"),
    ),
    "budget_calculator": (
        Say("I earn 3200 a month, my costs are 2100 and I want to borrow 15k over 5 years"),
        Click("restart"),
    ),
}
DEFAULT_EXAMPLE = "savings_helper"


def run_import_demo(root: Path, *, example: str = DEFAULT_EXAMPLE, out: TextIO) -> int:
    """Import ``examples/<example>`` into a clone of ``root`` and talk to it; 0 on success."""
    if why := sandbox.unavailable():  # the bundled example is ours: it may run unconfined
        option = sandbox.NO_SANDBOX_OPTION
        out.write(f"demo: no sandbox here ({why}); the bundled example runs with {option}\n")
        confinement.disable()
    script = EXAMPLES.get(example)
    if script is None:
        raise AgentImportError(f"no example {example!r}; examples: {', '.join(sorted(EXAMPLES))}")
    printer = Printer(out)
    with tempfile.TemporaryDirectory(prefix="agent-import-demo-") as scratch:
        clone = clone_repository(root, Path(scratch) / "repo")
        printer.step(f"import examples/{example} offline into a scratch clone ({clone})")
        options = ImportOptions(
            src=str(clone / "examples" / example),
            plugin_id=example,
            design_options=DesignOptions(offline=True),
        )
        result = import_agent(options, root=clone, progress=lambda s: _progress(out, s))
        printer.step(f"wrote {len(result.files)} files to {result.folder}; restart the runtime")
        settings = Settings(port=0, plugins_dir=clone / PLUGINS_FOLDER, log_level="WARNING")
        with serve_in_thread(create_app(settings), settings) as address:
            converse(address, example, script, printer)
    return printer.summary()


def clone_repository(root: Path, dest: Path) -> Path:
    """A clone of the repository's committed state (Copier renders the committed template).

    The clone is packed, as one from a git server is (``gitops.clone_local``): a local clone
    would keep a never-packed checkout's objects loose, and Copier's own clones of the scratch
    repository would then cost several times more.
    """
    try:
        gitops.clone_local(root, dest)
    except AgentImportError as exc:
        raise AgentImportError(f"cannot clone {root} (a git checkout is needed): {exc}") from None
    return dest


def _progress(out: TextIO, step: Step) -> None:
    out.write(f"    {progress_line(step)}\n")
