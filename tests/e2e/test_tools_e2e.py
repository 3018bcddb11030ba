"""The real tools, provisioned from the real registries into a cache of the test's own, and run (these
tests reach PyPI and the npm registry, as CI does)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gradelib.environment import InstallSettings
from gradelib.environment.tools import TOOLS, provision, tool_folder
from gradelib.errors import InstallError

pytestmark = pytest.mark.e2e


def _version(command: Path) -> str:
    done = subprocess.run([str(command), "--version"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize(
    ("name", "pinned"),
    [("hatch", None), ("pnpm", None), ("pnpm", "9.15.9"), ("yarn-berry", None), ("uv", "0.9.30")],  # uv: from PyPI
)
def test_a_tool_is_provisioned_once_at_its_version_and_runs(tmp_path: Path, name: str, pinned: str | None) -> None:
    settings = InstallSettings(cache_dir=tmp_path / "cache")
    tool = provision(name, settings, pinned)
    want = pinned or TOOLS[name].version
    assert tool.version == want
    assert want in _version(tool.command())
    assert provision(name, InstallSettings(cache_dir=tmp_path / "cache", offline=True), pinned) == tool  # kept
    kept = tool_folder(settings, TOOLS[name], want).name
    assert [p.name for p in (tmp_path / "cache" / "tools").iterdir()] == [kept], "nothing half-made left"


def test_offline_with_nothing_cached_or_a_release_the_registry_lacks_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))  # nothing cached: not even in uv's own cache
    with pytest.raises(InstallError, match="pdm"):
        provision("pdm", InstallSettings(cache_dir=tmp_path / "offline", offline=True))
    with pytest.raises(InstallError, match="pnpm 0.0.1"):
        provision("pnpm", InstallSettings(cache_dir=tmp_path / "missing"), "0.0.1")
    assert not list((tmp_path / "missing" / "tools").iterdir())
