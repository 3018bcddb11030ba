"""The take-homes the kit grades: one module and one package-data folder each."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from gradelib.errors import UnknownTakehome

TAKEHOMES: tuple[str, ...] = ("replay", "payments")
MARKERS: dict[str, tuple[str, ...]] = {
    "replay": ("run.sh", "cassettes"),
    "payments": ("checkout.mjs",),
}


def load(name: str) -> ModuleType:
    """The module of a take-home; it has TAKEHOME, HANDOUT_FILES and check()."""
    if name not in TAKEHOMES:
        raise UnknownTakehome(name, TAKEHOMES)
    return importlib.import_module(f"gradelib.takehomes.{name}")


def detect(folder: Path) -> str | None:
    """Which take-home a submission folder answers, from the files it holds."""
    for name, markers in MARKERS.items():
        if any((Path(folder) / marker).exists() or (Path(folder) / marker).is_symlink() for marker in markers):
            return name
    return None
