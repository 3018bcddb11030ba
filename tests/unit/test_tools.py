"""The table of real tools the kit sets submissions up with: what it refuses before reaching a registry."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gradelib.environment import InstallSettings
from gradelib.environment.tools import TOOLS, VERSION, provision, tool_folder
from gradelib.errors import InstallError


def test_every_tool_is_pinned_to_a_release_and_names_its_commands() -> None:
    assert {"uv", "poetry", "pdm", "hatch", "pipenv", "yarn", "yarn-berry", "pnpm"} <= set(TOOLS)
    for tool in TOOLS.values():
        assert VERSION.match(tool.version), tool
        assert tool.commands and tool.ecosystem in ("python", "node", "kit"), tool


def test_the_kits_own_uv_is_the_pinned_one_and_the_sandbox_sees_it_alone(tmp_path: Path) -> None:
    import tomllib

    from conftest import ROOT

    pinned = [d for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
              if d.startswith("uv")]  # fmt: skip
    assert pinned == [f"uv=={TOOLS['uv'].version}"], "the kit's dependency and the tool table agree"
    uv = provision("uv", InstallSettings(cache_dir=tmp_path / "cache"))
    assert uv.version == TOOLS["uv"].version and sorted(p.name for p in uv.bin_dir.iterdir()) == ["uv"]
    assert uv.root == tool_folder(InstallSettings(cache_dir=tmp_path / "cache"), TOOLS["uv"], uv.version)


BAD_VERSIONS = ["^9.0.0", ">=1", "latest", "https://evil.example/pnpm.tgz", "1.0 ; rm -rf /", "9" * 50]


@pytest.mark.parametrize("version", BAD_VERSIONS)
def test_a_pinned_version_that_is_not_a_plain_release_is_refused(tmp_path: Path, version: str) -> None:
    with pytest.raises(InstallError, match="is not a release version"):
        provision("pnpm", InstallSettings(cache_dir=tmp_path, offline=True), version)


def test_an_unknown_tool_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(InstallError, match="no tool named 'conda'.*hatch"):
        provision("conda", InstallSettings(cache_dir=tmp_path, offline=True))


def _cached_hatch(settings: InstallSettings) -> Path:
    """A Hatch folder as provisioning leaves it in the cache: its command (owner-only) in bin/."""
    folder = tool_folder(settings, TOOLS["hatch"], TOOLS["hatch"].version)
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "hatch").write_text("#!/bin/sh\n")
    os.chmod(folder / "bin" / "hatch", 0o700)
    return folder


def test_a_tool_already_in_the_cache_is_used_as_it_is(tmp_path: Path) -> None:
    settings = InstallSettings(cache_dir=tmp_path, offline=True)
    folder = _cached_hatch(settings)
    (folder / "bin" / "python").write_text("#!/bin/sh\n")
    found = provision("hatch", settings)
    assert found.command().resolve() == folder / "bin" / "hatch" and found.version == TOOLS["hatch"].version
    assert sorted(p.name for p in found.bin_dir.iterdir()) == ["hatch"], "PATH gets the tool, not its python"


def test_a_cached_tool_kept_private_is_made_readable_for_the_sandboxs_user(tmp_path: Path) -> None:
    """A folder an older kit left private (0700) would make `hatch` "not found" in every run."""
    settings = InstallSettings(cache_dir=tmp_path, offline=True)
    folder = _cached_hatch(settings)
    os.chmod(folder / "bin", 0o700)
    os.chmod(folder, 0o700)
    found = provision("hatch", settings)
    for path in (folder, folder / "bin", folder / "bin" / "hatch", found.bin_dir):
        assert path.stat().st_mode & 0o005 == 0o005, path


def test_a_python_tool_is_kept_with_the_day_its_dependencies_were_resolved_at(tmp_path: Path) -> None:
    from gradelib.environment.tools import as_released

    pdm = TOOLS["pdm"]
    assert as_released(pdm) == "2026-10-28", "the day after PDM 2.29.4's release"
    settings = InstallSettings(cache_dir=tmp_path)
    assert tool_folder(settings, pdm, pdm.version).name == "pdm-2.29.4-deps-2026-10-28"
    assert tool_folder(settings, pdm, "2.20.0").name == "pdm-2.20.0", "a version the table does not pin"
    assert all(tool.released for tool in TOOLS.values() if tool.ecosystem == "python")
