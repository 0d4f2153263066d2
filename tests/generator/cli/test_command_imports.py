"""The command's own process leaves LangGraph to the warm check interpreter, which imports it
while the steps run: importing it here too would cost every import half a second of CPU."""

from __future__ import annotations

import subprocess
import sys

#: What only the warm interpreter and the checks import.
CHECK_LIBRARIES = ("langgraph", "langchain_core")


def test_the_import_command_and_its_pipeline_import_no_langgraph() -> None:
    probe = (
        "import sys\n"
        "from generator.cli import build_parser\n"
        "import generator.pipeline.importer, generator.pipeline.update\n"
        "build_parser()\n"
        f"print(sorted(name for name in {CHECK_LIBRARIES!r} if name in sys.modules))\n"
    )

    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)

    assert done.stdout.strip() == "[]"
