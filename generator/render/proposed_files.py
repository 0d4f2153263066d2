"""Make the configuration files an agent needs from the examples its repository ships.

The inspection found them (``inspect.config_files``): ``config.yaml`` that the agent opens, which
the repository only has as ``config.example.yaml``. The copy goes into the vendored ``src/`` so
the plugin runs as the README's "copy the example" would have it, and shows in the pull request
as a new file for the reviewer to fill in.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from generator.models import Inspection
from runtime.contract.layout import SOURCE_FOLDER


def write_proposed(inspection: Inspection, src: Path, *, kept: Path | None = None) -> list[str]:
    """Copy each proposed file from its example inside ``src``; one note each. ``kept``: the
    plugin's current ``src/`` (an update), whose reviewed copy is kept rather than proposed
    again."""
    notes = []
    for proposed in inspection.proposed_files:
        target, example = src / proposed.path, src / proposed.example
        reviewed = kept / proposed.path if kept is not None else None
        if target.exists() or not example.is_file():
            continue
        if reviewed is not None and reviewed.is_file():
            shutil.copyfile(reviewed, target)
            continue
        shutil.copyfile(example, target)
        notes.append(f"proposed {SOURCE_FOLDER}/{proposed.path} from {proposed.example}: review it")
    return notes
