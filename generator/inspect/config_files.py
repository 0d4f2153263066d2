"""Configuration files a project ships only as an example, for its README to say "copy it".

``config.example.yaml`` beside no ``config.yaml``, which the agent opens when it loads: without
it the agent fails at import, and LangGraph's server would fail the same until someone made the
file. The import proposes it, made from the example, for review in the pull request
(``render.proposed_files``). Only an example whose real name the agent's code writes (a string
literal in a module the graph reaches) is proposed; secrets files (``.env.example``) never are:
their names are the agent's variables (``inspect.environ``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from generator.inspect.modules import Module, Project
from generator.models import ProposedFile
from generator.paths import TOOL_FOLDERS

#: ``name.example.yaml``, ``name.yaml.example``, ``name.sample.json``, ``name.template.toml``...
_EXAMPLE = re.compile(
    r"^(?P<stem>[^.][\w.-]*?)(?:[._-](?:example|sample|template|dist))(?P<ext>\.(?:ya?ml|json|toml|ini|cfg))$"
    r"|^(?P<stem2>[^.][\w.-]*?)(?P<ext2>\.(?:ya?ml|json|toml|ini|cfg))\.(?:example|sample|template|dist)$",
    re.IGNORECASE,
)
#: How deep into the repository examples are looked for.
MAX_DEPTH = 4


def proposed_files(project: Project, modules: list[Module]) -> list[ProposedFile]:
    """Each example whose real file is missing and named in the agent's code (``modules``)."""
    examples = [(path, _target(path)) for path in _examples(project.root)]
    wanted = [(path, target) for path, target in examples if target and not target.exists()]
    if not wanted:
        return []
    code = b"\n".join(module.data for module in modules)
    root = project.root
    return [
        ProposedFile(
            path=target.relative_to(root).as_posix(), example=path.relative_to(root).as_posix()
        )
        for path, target in wanted
        if target.name.encode() in code
    ]


def _examples(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        depth = len(Path(folder).relative_to(root).parts)
        dirs[:] = sorted(
            d
            for d in dirs
            if depth < MAX_DEPTH
            and not d.startswith(".")
            and d not in TOOL_FOLDERS
            and d != "node_modules"
        )
        found += [Path(folder) / name for name in sorted(files) if _EXAMPLE.match(name)]
    return found


def _target(example: Path) -> Path | None:
    """``config.yaml`` for ``config.example.yaml`` (or ``config.yaml.example``)."""
    match = _EXAMPLE.match(example.name)
    if match is None:
        return None
    stem = match["stem"] or match["stem2"]
    ext = match["ext"] or match["ext2"]
    return example.with_name(f"{stem}{ext}")
