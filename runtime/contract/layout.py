"""A plugin folder's layout, declared once: what ``agent-import`` writes and the runtime reads.

::

    runtime/plugins/<plugin_id>/
        __init__.py  plugin.py     the plugin (a thin subclass for imported agents)
        agent.json                 where the agent is and how its fields map (imported plugins)
        screens/*.json             the A2UI screens
        requirements.txt           the agent's reviewed requirements (imported plugins)
        requirements.lock          their resolved pins (plugins with an isolated environment)
        src/                       the agent's vendored source (imported plugins)
        .copier-answers.yml        what the template was rendered from (imported plugins)
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

#: Where plugins live, relative to the repository root.
PLUGINS_FOLDER = Path("runtime") / "plugins"
AGENT_FILE = "agent.json"
ANSWERS_FILE = ".copier-answers.yml"
REQUIREMENTS_FILE = "requirements.txt"
#: The resolved pins of an isolated plugin's requirements (``uv pip compile`` output).
REQUIREMENTS_LOCK = "requirements.lock"
SCREENS_FOLDER = "screens"
SOURCE_FOLDER = "src"

#: How an imported plugin runs its agent: untouched in one node, as a mapped subgraph, or as
#: shells to port by hand.
Strategy = Literal["wrapper", "subgraph", "port"]
