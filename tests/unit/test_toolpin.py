"""The version of its tool a Python project asks for (`requires-poetry`, uv's `required-version`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import toolpin
from gradelib.environment.declarationrecords import Reader
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.pysetup import detect
from gradelib.environment.tools import TOOLS

POETRY = TOOLS["poetry"].version
UV = TOOLS["uv"].version


@pytest.mark.parametrize(
    ("tool", "pyproject", "spec"),
    [
        ("poetry", {"tool": {"poetry": {"requires-poetry": " >=2.0,<3 "}}}, ">=2.0,<3"),
        ("uv", {"tool": {"uv": {"required-version": ">=0.9"}}}, ">=0.9"),
        ("poetry", {"tool": {"uv": {"required-version": ">=0.9"}}}, ""),  # another tool's setting
        ("poetry", {"tool": {"poetry": {"requires-poetry": 2}}}, ""),  # not a string
        ("poetry", {"tool": {"poetry": {"requires-poetry": ">=" + "1" * 200}}}, ""),  # too long to be one
        ("hatch", {"tool": {"hatch": {"requires-hatch": ">=1"}}}, ""),  # Hatch has no such setting
        ("poetry", None, ""),
    ],
)
def test_the_setting_a_project_asks_its_tool_version_with_is_read(
    tool: str, pyproject: dict[str, object] | None, spec: str
) -> None:
    assert toolpin.asked(toolpin.setting_of(tool), pyproject) == spec


def test_no_setting_or_one_the_kits_copy_meets_keeps_the_kits_copy(tmp_path: Path) -> None:
    settings = InstallSettings(cache_dir=tmp_path, offline=True)  # nothing is looked up
    assert toolpin.choose("poetry", "", settings) == toolpin.Chosen(POETRY, "the kit")
    within = toolpin.choose("poetry", ">=2.0", settings)
    assert within == toolpin.Chosen(POETRY, "the kit (within requires-poetry >=2.0)")
    assert toolpin.choose("uv", f"=={UV}", settings).version == UV


def test_an_ask_the_kit_cannot_meet_offline_or_a_bad_specifier_keeps_the_kits_copy_and_says_why(
    tmp_path: Path,
) -> None:
    settings = InstallSettings(cache_dir=tmp_path, offline=True)
    older = toolpin.choose("poetry", "<2.0", settings)
    assert (older.version, older.version_from) == (POETRY, "the kit")
    assert older.note == f"requires-poetry <2.0: offline, so no other release can be looked up; used {POETRY}"
    bad = toolpin.choose("uv", "about 0.9", settings)
    assert (bad.version, bad.note) == (UV, f"required-version about 0.9 is not a version specifier; used {UV}")


def test_the_setup_a_project_names_carries_its_tool_version_ask(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "a"\nversion = "1"\n[tool.poetry]\nrequires-poetry = ">=2.1"\n'
    root = write_tree(tmp_path / "poetry", {"pyproject.toml": pyproject, "poetry.lock": "# lock\n"})
    setup = detect(Reader(root), tomllib.loads(pyproject))
    assert setup is not None and (setup.tool, setup.requires) == ("poetry", ">=2.1")
    uv = '[project]\nname = "a"\nversion = "1"\n[tool.uv]\nrequired-version = ">=0.9"\n'
    root = write_tree(tmp_path / "uv", {"pyproject.toml": uv, "uv.lock": "version = 1\n"})
    setup = detect(Reader(root), tomllib.loads(uv))
    assert setup is not None and (setup.tool, setup.requires) == ("uv", ">=0.9")
