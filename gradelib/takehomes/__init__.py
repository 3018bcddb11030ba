"""The take-homes the kit grades: plugins found through the `gradelib.takehomes` entry points.

The kit's own take-homes (the packages under this one) register exactly as a team's own take-home
does, in the kit's own `pyproject.toml`; nothing here names them. Nothing here imports a take-home
until it is asked for.
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from gradelib.errors import TakeHomeBroken, UnknownTakehome
from gradelib.takehomes.contract import TakeHome

ENTRY_POINT_GROUP = "gradelib.takehomes"
KIT_PREFIX = f"{__name__}."  # the kit's own take-homes are the packages under this one
RUBRIC_FILE = "rubric.toml"  # what marks one of them (every take-home package has its rubric)


def _kit_entry_points() -> dict[str, EntryPoint]:
    """The same registrations as the kit's pyproject.toml, found from the packages here, for a kit run from
    a source tree that was never installed (no package metadata, so no entry points)."""
    here = Path(__file__).parent
    return {
        child.name: EntryPoint(child.name, f"{KIT_PREFIX}{child.name}:PLUGIN", ENTRY_POINT_GROUP)
        for child in sorted(here.iterdir())
        if (child / "__init__.py").is_file() and (child / RUBRIC_FILE).is_file()
    }


@functools.cache
def _entry_points() -> dict[str, EntryPoint]:
    found = _kit_entry_points()  # an installed registration wins
    found |= {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return found


def refresh() -> None:
    """Read the entry points again: a take-home installed (or removed) while this process runs."""
    _entry_points.cache_clear()
    load.cache_clear()


def names() -> tuple[str, ...]:
    """Every registered take-home id, the kit's own first (each group by name)."""
    found = _entry_points()
    return tuple(sorted(found, key=lambda name: (not found[name].value.startswith(KIT_PREFIX), name)))


@functools.cache
def load(name: str) -> TakeHome:
    """The plugin registered as `name`; UnknownTakehome or TakeHomeBroken otherwise."""
    entry = _entry_points().get(name)
    if entry is None:
        raise UnknownTakehome(name, names())
    try:
        plugin = entry.load()
    except Exception as exc:  # a team's package that fails to import must not hide the others
        raise TakeHomeBroken(name, f"cannot be loaded: {type(exc).__name__}: {exc}") from exc
    if not isinstance(plugin, TakeHome) or plugin.id != name:
        raise TakeHomeBroken(name, f"the entry point must name a TakeHome with id {name!r}")
    return plugin


def available() -> list[TakeHome]:
    """Every take-home that loads (a broken plugin is left out; `load` says why)."""
    found = []
    for name in names():
        try:
            found.append(load(name))
        except TakeHomeBroken:
            continue
    return found


def detect(folder: Path) -> str | None:
    """Which take-home a submission folder answers, from its marker files."""
    for plugin in available():
        if plugin.recognises(folder):
            return plugin.id
    return None


def recognises(folder: Path) -> bool:
    """Whether any installed take-home recognises `folder` as one of its submissions (`intake` asks)."""
    return detect(folder) is not None


def markers_text() -> str:
    """The marker files of every take-home, for a message ("run.sh, cassettes or checkout.mjs")."""
    found = [marker for plugin in available() for marker in plugin.markers]
    return ", ".join(found[:-1]) + (f" or {found[-1]}" if len(found) > 1 else "".join(found))
