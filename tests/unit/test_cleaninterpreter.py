"""The clean interpreter a submission that declares nothing runs on: the standard library only."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.prepared import SHIM_BIN, python_shims

SHOW = "import sys, site; print(sys.prefix); print('\\n'.join(site.getsitepackages()))"


def test_the_clean_interpreter_is_a_virtualenv_without_the_distributions_packages(tmp_path: Path) -> None:
    settings = InstallSettings.from_env()
    settings = type(settings)(**{**settings.__dict__, "cache_dir": tmp_path / "cache"})
    folder = python_shims(settings)
    for name in ("python", "python3"):
        shown = subprocess.run(
            [str(folder / SHIM_BIN / name), "-c", SHOW], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        assert shown[0] == str(folder), "its own prefix: a virtualenv"
        assert all(path.startswith(str(folder)) for path in shown[1:]), shown
    assert python_shims(settings) == folder, "made once; the same folder again"
