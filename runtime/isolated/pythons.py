"""Finding a Python of a given version wherever users keep one.

An isolated plugin may ask for another Python than the runtime's (a LangGraph project whose
``langgraph.json`` says ``"python_version": "3.12"``), and LangGraph's server would run it on that
version. ``uv python find`` alone misses the Pythons many users have: pyenv's
(``~/.pyenv/versions/3.12.1/bin/python3.12``, behind shims that fail unless that version is
selected), asdf's (``~/.asdf/installs/python/3.12.1``) and conda's (``~/miniconda3``, its
``envs/*``, ``/opt/conda``, ...). ``find_python`` asks uv, then PATH, then looks in those folders,
and runs every candidate to check its version: a broken one (a failing shim, a moved install) is
skipped, never an error.

Only ``X.Y`` versions are looked for (``3.12``: any 3.12 patch, the newest found first);
``3.12.1``, ``>=3.12`` and the like are refused with ``ValueError``.

``A2UI_PYTHON_PLACES`` (``PLACES_ENV``), when set (even empty), replaces the folders searched:
its value is an ``os.pathsep``-separated list of folders, and neither pyenv's, asdf's nor conda's
are searched then. Each of its folders is searched like pyenv's ``versions``: the folder itself
when it holds ``bin/pythonX.Y``, then its sub-folders that hold one (those named for the version,
``3.12.9``, newest patch first; then the others by name). uv (when ``find_python`` is given
its command) and PATH are still asked, first.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict

#: Folders searched instead of pyenv's, asdf's and conda's (``os.pathsep``-separated).
PLACES_ENV = "A2UI_PYTHON_PLACES"
#: How long a candidate interpreter may take to say its version.
VERIFY_TIMEOUT_S = 5
#: How long ``uv python find`` may take.
UV_FIND_TIMEOUT_S = 60
#: What a candidate runs: it must print exactly the version asked.
VERSION_PROGRAM = "import sys; print('%d.%d' % sys.version_info[:2])"
#: The conda installs looked for in the home folder (``/opt/conda`` and ``$CONDA_PREFIX`` too).
CONDA_HOMES = ("miniconda3", "anaconda3", "miniforge3", "mambaforge")

_VERSION = re.compile(r"\d+\.\d+")


class Places(BaseModel):
    """Where ``find_python`` looks, besides uv and PATH (see the module's docstring).

    ``folders``, ``pyenv`` and ``asdf``: folders of version folders (or version folders
    themselves), each holding ``bin/pythonX.Y``. ``conda``: conda base folders, each searched
    with its ``envs/*``. ``uv`` and ``path``: whether uv and PATH are asked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    folders: tuple[Path, ...] = ()
    pyenv: tuple[Path, ...] = ()
    asdf: tuple[Path, ...] = ()
    conda: tuple[Path, ...] = ()
    uv: bool = True
    path: bool = True

    @classmethod
    def default(cls) -> Places:
        """This machine's: ``$A2UI_PYTHON_PLACES`` when set, else pyenv's, asdf's and conda's
        folders (from ``$PYENV_ROOT``, ``$ASDF_DATA_DIR``, ``$CONDA_PREFIX`` and the home)."""
        configured = os.environ.get(PLACES_ENV)
        if configured is not None:
            folders = [Path(entry).expanduser() for entry in configured.split(os.pathsep) if entry]
            return cls(folders=tuple(folders))
        home = Path.home()
        pyenv_root = os.environ.get("PYENV_ROOT")
        asdf_root = os.environ.get("ASDF_DATA_DIR")
        conda_prefix = os.environ.get("CONDA_PREFIX")
        conda = [Path(conda_prefix)] if conda_prefix else []
        conda += [home / name for name in CONDA_HOMES] + [Path("/opt/conda")]
        return cls(
            pyenv=((Path(pyenv_root) if pyenv_root else home / ".pyenv") / "versions",),
            asdf=((Path(asdf_root) if asdf_root else home / ".asdf") / "installs" / "python",),
            conda=tuple(dict.fromkeys(conda)),
        )


def find_python(
    version: str, places: Places | None = None, uv: list[str] | None = None
) -> Path | None:
    """The first interpreter of Python ``version`` (``"3.12"``) that runs and says so.

    Asked in order: uv (``uv python find``, when ``uv``, the command running it, is given), each
    PATH folder's ``pythonX.Y``, then ``places`` (``Places.default()`` when none): its
    ``folders``, pyenv's, asdf's, then conda's. ``None`` when none is found."""
    if not _VERSION.fullmatch(version):
        raise ValueError(f"{version!r} is not a Python version like 3.12")
    places = places or Places.default()
    seen: set[str] = set()
    for candidate in _candidates(version, places, uv):
        key = os.path.realpath(candidate)
        if key in seen:
            continue
        seen.add(key)
        if _says(candidate, version):
            return candidate
    return None


def searched(places: Places | None = None) -> list[str]:
    """Where ``find_python`` looks, for a message (``~`` for the home folder)."""
    places = places or Places.default()
    where = ["uv's managed Pythons"] if places.uv else []
    where += ["PATH"] if places.path else []
    where += [_short(folder) for folder in (*places.folders, *places.pyenv, *places.asdf)]
    where += [f"{_short(base)} (and its envs)" for base in places.conda]
    return where


def _candidates(version: str, places: Places, uv: list[str] | None) -> Iterator[Path]:
    name = f"python{version}"
    if uv is not None and places.uv and (found := _uv_find(uv, version)):
        yield found
    if places.path:
        for folder in os.environ.get("PATH", "").split(os.pathsep):
            if folder and (found_on_path := shutil.which(name, path=folder)):
                yield Path(found_on_path)
    for root in (*places.folders, *places.pyenv, *places.asdf):
        yield from _in_version_folders(root, version, name)
    for base in places.conda:
        yield from _holding(base, name)
        yield from _in_version_folders(base / "envs", version, name)


def _in_version_folders(root: Path, version: str, name: str) -> Iterator[Path]:
    """``root/bin/<name>``, then its sub-folders' (named for ``version`` first, newest first)."""
    yield from _holding(root, name)
    try:
        children = [child for child in root.iterdir() if child.is_dir()]
    except OSError:
        return
    named = re.compile(rf"{re.escape(version)}(?!\d)")
    ours = sorted(
        (child for child in children if named.match(child.name)),
        key=lambda child: _newest_first(child.name, version),
        reverse=True,
    )
    others = sorted(child for child in children if not named.match(child.name))
    for child in (*ours, *others):
        yield from _holding(child, name)


def _newest_first(folder_name: str, version: str) -> tuple[int, tuple[int, ...], str]:
    """Releases (``3.12``, ``3.12.9``) before the others (``3.12.0rc1``, ``3.12-dev``), each
    by their numbers."""
    release = re.fullmatch(rf"{re.escape(version)}(?:\.(\d+))?", folder_name)
    numbers = tuple(int(n) for n in re.findall(r"\d+", folder_name))
    return (1 if release else 0), numbers, folder_name


def _holding(folder: Path, name: str) -> Iterator[Path]:
    candidate = folder / "bin" / name
    try:
        if candidate.is_file():
            yield candidate
    except OSError:
        return


def _uv_find(uv: list[str], version: str) -> Path | None:
    """What ``uv python find`` answers (its managed Pythons, PATH, a virtual environment)."""
    command = [*uv, "python", "find", "--no-python-downloads", version]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=UV_FIND_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    return Path(lines[-1].strip()) if done.returncode == 0 and lines else None


def _says(candidate: Path, version: str) -> bool:
    """Whether ``candidate`` runs and prints ``version`` (isolated: no ``PYTHON*`` variables)."""
    try:
        done = subprocess.run(
            [str(candidate), "-I", "-c", VERSION_PROGRAM],
            capture_output=True,
            text=True,
            timeout=VERIFY_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return False
    return done.returncode == 0 and done.stdout.strip() == version


def _short(folder: Path) -> str:
    home = Path.home()
    return f"~/{folder.relative_to(home)}" if folder.is_relative_to(home) else str(folder)
