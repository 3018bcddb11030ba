"""Write a take-home's handout: what a hiring team sends to candidates.

A handout's Markdown may hold notes for the hiring team only (the link to the kit's contract,
which says what the kit looks for) between `<!-- hiring-team -->` and `<!-- /hiring-team -->`:
they stay in the kit's copy and are left out of what candidates receive.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib.resources.abc import Traversable
from pathlib import Path

from gradelib import takehomes
from gradelib.errors import GradelibError

HIRING_TEAM_ONLY = re.compile(r"<!-- hiring-team -->.*?<!-- /hiring-team -->\n*", re.DOTALL)


def for_candidates(markdown: str) -> str:
    """A handout's Markdown without its notes for the hiring team."""
    return HIRING_TEAM_ONLY.sub("", markdown)


def _copy(source: Traversable, target: Path) -> list[Path]:
    if source.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for child in sorted(source.iterdir(), key=lambda c: c.name):
            if child.name != "__pycache__":
                written += _copy(child, target / child.name)
        return written
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.name.endswith(".md"):
        target.write_text(for_candidates(source.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        target.write_bytes(source.read_bytes())
    return [target]


def _files(source: Traversable, name: str) -> Iterator[tuple[str, bytes]]:
    if source.is_dir():
        for child in sorted(source.iterdir(), key=lambda c: c.name):
            if child.name != "__pycache__":
                yield from _files(child, f"{name}/{child.name}")
    else:
        yield name, source.read_bytes()


def handout_files(takehome: str) -> list[tuple[str, bytes]]:
    """Every file of a take-home's handout as (path in the handout folder, bytes), as candidates receive it."""
    plugin = takehomes.load(takehome)
    data = plugin.data()
    found: list[tuple[str, bytes]] = []
    for source_name, target_name in plugin.handout_files:
        for name, raw in _files(data.joinpath(source_name), target_name):
            found.append((name, for_candidates(raw.decode("utf-8")).encode("utf-8") if name.endswith(".md") else raw))
    return found


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
