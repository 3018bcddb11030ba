"""Write a take-home's handout: what a hiring team sends to candidates."""

from __future__ import annotations

from importlib.resources.abc import Traversable
from pathlib import Path

from gradelib import takehomes
from gradelib.errors import GradelibError


def _copy(source: Traversable, target: Path) -> list[Path]:
    if source.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for child in sorted(source.iterdir(), key=lambda c: c.name):
            if child.name != "__pycache__":
                written += _copy(child, target / child.name)
        return written
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return [target]


def write_handout(takehome: str, dest: Path) -> list[Path]:
    """Copy the handout files of `takehome` into `dest` (created; must be empty if it exists)."""
    plugin = takehomes.load(takehome)
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise GradelibError(f"{dest} is not empty; choose a new folder for the handout")
    data = plugin.data()
    written: list[Path] = []
    for source_name, target_name in plugin.handout_files:
        written += _copy(data.joinpath(source_name), dest / target_name)
    return written
