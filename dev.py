#!/usr/bin/env python3
"""Bootstrap and task runner: ``python3 dev.py SESSION [-- ARGS]``.

It needs nothing but Python >= 3.11 and git. On first use it makes ``.venv`` with nox and uv
in it, then runs the nox session of that name (``demo``, ``tests``, ``lint``, ``bench``, ...).
Everything else is installed by the nox session itself, so CI and a newcomer run the same steps.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
TOOLS = ["nox>=2024.4", "uv>=0.4"]


def ensure_venv() -> Path:
    """Create ``.venv`` with nox and uv unless it already has them."""
    nox = BIN / "nox"
    if not nox.exists():
        print(f"dev.py: creating {VENV.relative_to(ROOT)} with nox and uv", flush=True)
        venv.EnvBuilder(with_pip=True, clear=not (BIN / "python").exists()).create(VENV)
        subprocess.run([str(BIN / "python"), "-m", "pip", "install", "--quiet", *TOOLS], check=True)
    return nox


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 (dev.py runs on whatever python3 is there)
        print("dev.py: Python >= 3.11 is required", file=sys.stderr)
        return 2
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__)
        return 0
    session, *rest = argv
    nox = ensure_venv()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    cmd = [str(nox), "--noxfile", str(ROOT / "noxfile.py"), "-s", session]
    if rest:
        cmd += ["--", *(rest[1:] if rest[0] == "--" else rest)]
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
