"""Poetry constraints as PEP 508 requirements, or a reason they cannot be."""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement

from generator.dependencies.poetry import Local, Untranslatable, translate


@pytest.mark.parametrize(
    ("constraint", "requirement"),
    [
        ("^0.2", "pkg>=0.2,<0.3"),
        ("^1.2.3", "pkg>=1.2.3,<2.0.0"),
        ("^0.0.3", "pkg>=0.0.3,<0.0.4"),
        ("^2.9.0.post0", "pkg>=2.9.0.post0,<3.0.0"),
        ("~1.2.3", "pkg>=1.2.3,<1.3.0"),
        ("~1.2", "pkg>=1.2,<1.3"),
        ("~1", "pkg>=1,<2.0"),
        ("*", "pkg"),
        ("1.2.*", "pkg==1.2.*"),
        ("2.0.1", "pkg==2.0.1"),
        (">=1.2,<2", "pkg>=1.2,<2"),
        (">= 1.2 < 2.0", "pkg>=1.2,<2.0"),
        ({"version": "^0.3.8", "extras": ["inmem"]}, "pkg[inmem]>=0.3.8,<0.4.0"),
        (
            {"version": "^1", "python": "^3.10"},
            'pkg>=1,<2.0 ; python_version >= "3.10" and python_version < "4.0"',
        ),
        (
            {"version": ">=2", "markers": "sys_platform != 'win32'", "python": "<3.12"},
            "pkg>=2 ; (sys_platform != 'win32') and (python_version < \"3.12\")",
        ),
        ({"git": "https://g.example/x.git", "tag": "v1"}, "pkg @ git+https://g.example/x.git@v1"),
        ({"url": "https://f.example/pkg-1.0.tar.gz"}, "pkg @ https://f.example/pkg-1.0.tar.gz"),
    ],
)
def test_constraints_become_pep_508(constraint: object, requirement: str) -> None:
    translated = translate("pkg", constraint)

    assert translated == requirement
    Requirement(requirement)  # and it is one


def test_what_the_versions_allow_matches_poetry() -> None:
    caret = Requirement(str(translate("pkg", "^0.2"))).specifier
    assert "0.2.9" in caret and "0.3.0" not in caret and "0.1.9" not in caret
    tilde = Requirement(str(translate("pkg", "~1.2.3"))).specifier
    assert "1.2.9" in tilde and "1.3.0" not in tilde


def test_a_path_dependency_is_a_local_folder_never_a_name() -> None:
    assert translate("shared", {"path": "../libs/shared", "develop": True}) == Local(
        "../libs/shared"
    )


@pytest.mark.parametrize(
    ("constraint", "reason"),
    [
        ("1.0 || 2.0", "alternatives"),
        ("latest", "not a Poetry version constraint"),
        ([{"version": "1", "python": "<3.9"}, {"version": "2"}], "several constraints"),
        ({"version": "^1", "source": "private"}, "unsupported keys source"),
        ({"extras": "inmem"}, "extras must be a list"),
        (3, "unsupported constraint"),
    ],
)
def test_what_cannot_be_translated_says_why(constraint: object, reason: str) -> None:
    translated = translate("pkg", constraint)

    assert isinstance(translated, Untranslatable)
    assert reason in translated.reason
