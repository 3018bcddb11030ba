"""Install a take-home plugin for a test: its entry point in a temporary site folder, as pip would leave it.

The folder goes on `sys.path` (this process) and `PYTHONPATH` (the batch's worker processes,
their notebook kernels, a `gradelib` subprocess, Dask workers started afterwards), so every
process finds the plugin the way it finds an installed one; gradelib itself is not told.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gradelib import takehomes

TINY = Path(__file__).resolve().parent / "tinytakehome"
TINY_ID = "tiny"


def make_site(site: Path, package: Path, takehome: str) -> Path:
    """A site folder holding the package (a link to it) and a dist-info that registers `takehome`."""
    site.mkdir(parents=True, exist_ok=True)
    (site / package.name).symlink_to(package, target_is_directory=True)
    dist = site / f"gradelib_test_{package.name}-0.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: gradelib-test-{package.name}\nVersion: 0.0.0\n")
    group = takehomes.ENTRY_POINT_GROUP
    (dist / "entry_points.txt").write_text(f"[{group}]\n{takehome} = {package.name}:PLUGIN\n")
    return site


@contextmanager
def installed(site: Path, package: Path = TINY, takehome: str = TINY_ID) -> Iterator[str]:
    """The plugin registered in this process and in every process started meanwhile; yields its id."""
    make_site(site, package, takehome)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.syspath_prepend(str(site))
            inherited = os.environ.get("PYTHONPATH")
            patch.setenv("PYTHONPATH", os.pathsep.join([str(site), *([inherited] if inherited else [])]))
            takehomes.refresh()
            yield takehome
    finally:
        takehomes.refresh()
