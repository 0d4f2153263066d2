"""The README excerpt: the first words a human wrote about the agent."""

from __future__ import annotations

from pathlib import Path

from generator.inspect.modules import Project

EXCERPT_CHARS = 500
_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md", "Readme.md")


def readme_excerpt(project: Project, folder: Path) -> str:
    """The first 500 characters of the README in the config's folder, else the source root."""
    for where in dict.fromkeys([folder, project.root]):
        for name in _NAMES:
            text = project.read_optional(where / name)
            if text is not None:
                return text[:EXCERPT_CHARS]
    return ""
