"""``runtime.isolated.pythons``: a Python of the version a plugin asks for is found wherever users
keep one (uv, PATH, pyenv, asdf, conda, ``$A2UI_PYTHON_PLACES``), each candidate run to check it.

The interpreters here are shell scripts printing a version; most tests ask for Python 3.47,
which no machine has, so the machine's own Pythons cannot answer in their place."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from runtime.isolated import pythons
from runtime.isolated.envs import EnvBuildError, interpreter_path
from runtime.isolated.pythons import PLACES_ENV, Places, find_python, searched

#: The version asked: only the fake interpreters made here say it.
WANTED = "3.47"


def fake_python(
    folder: Path, prints: str, *, name: str = f"python{WANTED}", body: str = ""
) -> Path:
    """``folder/bin/<name>``: a script printing ``prints`` (or running ``body``)."""
    script = folder / "bin" / name
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(f"#!/bin/sh\n{body or f'echo {prints}'}\n")
    script.chmod(0o755)
    return script


def only(**roots: tuple[Path, ...]) -> Places:
    """The folders given, asking neither uv nor PATH."""
    return Places.model_validate({**roots, "uv": False, "path": False})


@pytest.fixture(autouse=True)
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty PATH and home, and no pyenv, asdf or conda variables: only what a test makes."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in (PLACES_ENV, "PYENV_ROOT", "ASDF_DATA_DIR", "CONDA_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    return empty


def test_a_pyenv_python_off_path_is_found(tmp_path: Path) -> None:
    versions = tmp_path / "pyenv" / "versions"
    python = fake_python(versions / "3.47.1", WANTED)
    fake_python(versions / "3.46.0", "3.46", name="python3.46")

    assert find_python(WANTED, only(pyenv=(versions,))) == python
    assert find_python("3.48", only(pyenv=(versions,))) is None


def test_an_asdf_python_is_found(tmp_path: Path) -> None:
    installs = tmp_path / "asdf" / "installs" / "python"
    python = fake_python(installs / "3.47.2", WANTED)

    assert find_python(WANTED, only(asdf=(installs,))) == python


def test_a_conda_base_or_one_of_its_envs_is_found(tmp_path: Path) -> None:
    base = tmp_path / "miniconda3"
    fake_python(base, "3.46", name="python3.46")  # the base is another version
    env = fake_python(base / "envs" / "py347", WANTED)
    places = only(conda=(tmp_path / "anaconda3", base))

    assert find_python(WANTED, places) == env
    in_base = fake_python(base, WANTED)
    assert find_python(WANTED, places) == in_base  # the base before its envs


def test_the_newest_patch_is_preferred(tmp_path: Path) -> None:
    versions = tmp_path / "versions"
    fake_python(versions / "3.47.1", WANTED)
    newest = fake_python(versions / "3.47.9", WANTED)
    fake_python(versions / "3.47.9rc2", WANTED)  # a pre-release: after the releases
    places = only(pyenv=(versions,))

    assert find_python(WANTED, places) == newest
    tenth = fake_python(versions / "3.47.10", WANTED)
    assert find_python(WANTED, places) == tenth  # by number, not by name


def test_a_folder_named_for_another_version_sharing_its_prefix_is_not_first(
    tmp_path: Path,
) -> None:
    """``3.4`` is not ``3.47``: a ``3.47.1`` folder's ``python3.4`` comes after ``3.4-dev``'s."""
    versions = tmp_path / "versions"
    fake_python(versions / "3.47.1", "3.4", name="python3.4")
    ours = fake_python(versions / "3.4-dev", "3.4", name="python3.4")

    assert find_python("3.4", only(pyenv=(versions,))) == ours


def test_a_candidate_saying_another_version_is_skipped(tmp_path: Path) -> None:
    versions = tmp_path / "versions"
    fake_python(versions / "3.47.9", "3.46")  # misnamed: it is not 3.47
    right = fake_python(versions / "3.47.1", WANTED)
    fake_python(versions / "3.47.5", f"{WANTED}.5")  # not exactly the version either

    assert find_python(WANTED, only(pyenv=(versions,))) == right


def test_a_broken_candidate_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    versions = tmp_path / "versions"
    fake_python(versions / "3.47.9", WANTED).chmod(0o644)  # not executable
    fake_python(versions / "3.47.8", "", body=f"echo {WANTED}; exit 1")  # fails
    fake_python(versions / "3.47.7", "", body="exec sleep 30")  # hangs
    (versions / "3.47.6" / "bin" / f"python{WANTED}").mkdir(parents=True)  # not a file
    fake_python(versions / "3.47.5", "", body="").write_bytes(b"\x7fELF garbage")  # no program
    works = fake_python(versions / "3.47.1", WANTED)
    monkeypatch.setattr(pythons, "VERIFY_TIMEOUT_S", 0.5)

    assert find_python(WANTED, only(pyenv=(versions,))) == works
    works.unlink()
    assert find_python(WANTED, only(pyenv=(versions,))) is None


def test_every_path_folder_is_tried_past_a_failing_shim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pyenv shim for a version not selected fails: the next folder on PATH is asked."""
    shims = fake_python(tmp_path / "shims", "", body="echo 'pyenv: not selected' >&2; exit 127")
    real = fake_python(tmp_path / "local", WANTED)
    monkeypatch.setenv("PATH", os.pathsep.join([str(shims.parent), str(real.parent)]))

    assert find_python(WANTED, Places(uv=False)) == real
    assert find_python(WANTED, Places(uv=False, path=False)) is None


def test_the_running_interpreter_is_found_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = "{}.{}".format(*sys.version_info[:2])
    folder = tmp_path / "on-path"
    folder.mkdir()
    (folder / f"python{version}").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(folder))

    assert find_python(version, Places(uv=False)) == folder / f"python{version}"


def test_uv_is_asked_first_and_its_answer_checked(tmp_path: Path) -> None:
    from_uv = fake_python(tmp_path / "uv-python", WANTED)
    pyenv = fake_python(tmp_path / "versions" / "3.47.1", WANTED)
    asked = tmp_path / "asked"
    uv = fake_python(tmp_path / "uv", "", name="uv", body=f'echo "$@" > {asked}; echo {from_uv}')
    places = Places(pyenv=(tmp_path / "versions",), path=False)

    assert find_python(WANTED, places, uv=[str(uv)]) == from_uv
    assert asked.read_text().split() == ["python", "find", "--no-python-downloads", WANTED]
    from_uv.write_text("#!/bin/sh\necho 3.46\n")  # uv's answer is not the version asked
    assert find_python(WANTED, places, uv=[str(uv)]) == pyenv
    assert find_python(WANTED, places, uv=[str(tmp_path / "no-uv")]) == pyenv  # uv missing
    assert find_python(WANTED, places.model_copy(update={"uv": False}), uv=[str(uv)]) == pyenv


def test_the_places_variable_replaces_the_home_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home_pyenv = fake_python(tmp_path / "home" / ".pyenv" / "versions" / "3.47.9", WANTED)
    assert find_python(WANTED) == home_pyenv  # the default: the home's pyenv
    direct = fake_python(tmp_path / "direct", WANTED)  # a version folder itself
    parent = tmp_path / "parent"
    in_parent = fake_python(parent / "3.47.1", WANTED)  # a folder of version folders
    monkeypatch.setenv(PLACES_ENV, os.pathsep.join([str(tmp_path / "missing"), str(parent)]))

    assert Places.default().pyenv == Places.default().asdf == Places.default().conda == ()
    assert find_python(WANTED) == in_parent  # not the home's, though newer
    monkeypatch.setenv(PLACES_ENV, os.pathsep.join([str(tmp_path / "direct"), str(parent)]))
    assert find_python(WANTED) == direct  # in the order given
    monkeypatch.setenv(PLACES_ENV, "")
    assert find_python(WANTED) is None  # set but empty: no folder at all


def test_the_default_places_follow_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    default = Places.default()
    assert default.pyenv == (home / ".pyenv" / "versions",)
    assert default.asdf == (home / ".asdf" / "installs" / "python",)
    assert home / "miniforge3" in default.conda and Path("/opt/conda") in default.conda
    assert default.uv and default.path and default.folders == ()

    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    monkeypatch.setenv("ASDF_DATA_DIR", str(tmp_path / "asdf"))
    monkeypatch.setenv("CONDA_PREFIX", str(tmp_path / "active"))
    configured = Places.default()
    assert configured.pyenv == (tmp_path / "pyenv" / "versions",)
    assert configured.asdf == (tmp_path / "asdf" / "installs" / "python",)
    assert configured.conda[0] == tmp_path / "active"
    active = fake_python(tmp_path / "active", WANTED)
    assert find_python(WANTED, configured) == active


def test_searched_names_where_it_looked(tmp_path: Path) -> None:
    home = tmp_path / "home"
    places = Places(pyenv=(home / ".pyenv" / "versions",), conda=(Path("/opt/conda"),), path=False)

    assert searched(places) == [
        "uv's managed Pythons",
        "~/.pyenv/versions",
        "/opt/conda (and its envs)",
    ]
    assert searched(Places.default())[:3] == ["uv's managed Pythons", "PATH", "~/.pyenv/versions"]


def test_only_major_minor_versions_are_looked_for(tmp_path: Path) -> None:
    for version in ("3.47.1", ">=3.47", "3", "three"):
        with pytest.raises(ValueError, match=r"not a Python version like 3\.12"):
            find_python(version, only())
    with pytest.raises(EnvBuildError, match=r"needs Python '3\.47\.1', .*X\.Y"):
        interpreter_path([str(tmp_path / "no-uv")], "3.47.1")


def test_interpreter_path_finds_one_or_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    monkeypatch.setenv(PLACES_ENV, str(nothing))
    failing_uv = fake_python(tmp_path / "uv", "", name="uv", body="exit 2")

    with pytest.raises(EnvBuildError) as missing:
        interpreter_path([str(failing_uv)], "3.12")
    message = str(missing.value)
    assert message.startswith("needs Python 3.12, which is not on this machine")
    assert f"looked in uv's managed Pythons, PATH, {nothing})" in message
    assert "`uv python install 3.12`" in message and "\n" not in message

    fake = fake_python(nothing / "3.12.4", "3.12", name="python3.12")
    assert interpreter_path([str(failing_uv)], "3.12") == str(fake)
    assert interpreter_path([str(failing_uv)], None) == sys.executable
