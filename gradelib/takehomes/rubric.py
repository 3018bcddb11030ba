"""Rubric files: each take-home's lines with their weights or tiers, and how outcomes score.

Beside the plugin record (`contract.py`): every take-home's grading and everything that reviews it
(review/, cohort/) use the rubric, so it sits below all of them.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal, cast

from gradelib import takehomes
from gradelib.errors import RubricError
from gradelib.result import TIERS, Outcome, Tier

RubricKind = Literal["points", "tiers"]
RUBRIC_KINDS: tuple[RubricKind, ...] = ("points", "tiers")
RUBRIC_FILE = "rubric.toml"
TOP_LEVEL_KEYS = frozenset({"takehome", "kind", "lines", "description"})
LINE_KEYS = frozenset({"id", "title", "weight", "tiers", "points", "descriptions"})
# Outcomes that award nothing yet: a human (or a re-run) still has to decide.
UNDECIDED: frozenset[Outcome] = frozenset({"unverified", "needs_review"})
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True)
class RubricLine:
    """One line of a rubric: points lines carry a weight, tier lines carry tiers."""

    id: str
    title: str
    weight: float | None
    tiers: tuple[str, ...] = ()
    tier_points: Mapping[str, float] = field(default_factory=dict, hash=False)
    descriptions: Mapping[str, str] = field(default_factory=dict, hash=False)

    @property
    def max_points(self) -> float | None:
        """The most this line can award, or None when it is judged without points."""
        if self.weight is not None:
            return self.weight
        return max(self.tier_points.values()) if self.tier_points else None


@dataclass(frozen=True)
class Rubric:
    """A take-home's rubric as read from its file, lines in file order."""

    takehome: str
    kind: RubricKind
    lines: tuple[RubricLine, ...]
    source: str

    @property
    def line_ids(self) -> tuple[str, ...]:
        """The line ids in order."""
        return tuple(line.id for line in self.lines)

    @property
    def max_total(self) -> float | None:
        """Sum of the lines' maximum points, or None when no line has points."""
        maxima = [line.max_points for line in self.lines if line.max_points is not None]
        return float(sum(maxima)) if maxima else None

    def line(self, line_id: str) -> RubricLine:
        """The line with this id (KeyError when the rubric has none)."""
        for line in self.lines:
            if line.id == line_id:
                return line
        raise KeyError(line_id)

    def score(self, line_id: str, outcome: Outcome, tier: Tier | None = None) -> tuple[float | None, float | None]:
        """(points, max_points) for an outcome: pass -> all, fail/error -> 0, undecided -> None.

        On a tier line with points, a tier (when given) picks the points instead; when the
        line also has a weight, the tier's points are scaled to it.
        """
        line = self.line(line_id)
        maximum = line.max_points
        if maximum is None or outcome in UNDECIDED:
            return None, maximum
        if tier is not None and line.tier_points:
            if tier not in line.tier_points:
                raise KeyError(f"{line_id}: unknown tier {tier!r}")
            points = line.tier_points[tier]
            top = max(line.tier_points.values())
            if line.weight is not None:
                points = line.weight * points / top if top else 0.0
            return points, maximum
        return (maximum if outcome == "pass" else 0.0), maximum


def takehome_data(takehome: str) -> Traversable:
    """The package-data folder of a take-home (handout, inputs, rubric, notebook)."""
    return takehomes.load(takehome).data()


def default_rubric(takehome: str) -> Rubric:
    """The rubric that ships with a take-home."""
    return packaged_rubric(takehome_data(takehome), takehome)


def packaged_rubric(folder: Traversable, takehome: str) -> Rubric:
    """The rubric in a take-home's package-data `folder`."""
    resource = folder.joinpath(RUBRIC_FILE)
    source = str(resource)
    try:
        data = resource.read_bytes()
    except OSError as exc:
        raise RubricError(source, f"cannot read the packaged rubric: {exc}") from exc
    return _parse(data, source, takehome)


def load_rubric(path: Path, *, takehome: str | None = None) -> Rubric:
    """Read a rubric file; with `takehome`, also check that it is that take-home's rubric."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise RubricError(source, "rubric file not found") from None
    except IsADirectoryError:
        raise RubricError(source, "is a folder, not a rubric file") from None
    except OSError as exc:
        raise RubricError(source, f"cannot read rubric file: {exc.strerror or exc}") from exc
    return _parse(data, source, takehome)


def _parse(data: bytes, source: str, takehome: str | None) -> Rubric:
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise RubricError(source, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise RubricError(source, f"not valid TOML: {exc}") from exc
    unknown = sorted(set(document) - TOP_LEVEL_KEYS)
    if unknown:
        raise RubricError(source, f"unknown top-level key(s): {', '.join(unknown)}")
    name = document.get("takehome")
    if not isinstance(name, str) or not name:
        raise RubricError(source, "missing 'takehome' (the take-home this rubric is for)")
    if takehome is not None and name != takehome:
        raise RubricError(source, f"rubric is for take-home {name!r}, not {takehome!r}")
    kind = document.get("kind")
    if kind not in RUBRIC_KINDS:
        raise RubricError(source, f"'kind' must be one of {', '.join(RUBRIC_KINDS)}, not {kind!r}")
    raw_lines = document.get("lines")
    if not isinstance(raw_lines, list) or not raw_lines:
        raise RubricError(source, "no [[lines]]: a rubric needs at least one line")
    lines: list[RubricLine] = []
    for position, raw in enumerate(raw_lines, start=1):
        line = _parse_line(raw, position, cast(RubricKind, kind), source)
        if any(seen.id == line.id for seen in lines):
            raise RubricError(source, f"duplicate line id {line.id!r}")
        lines.append(line)
    return Rubric(takehome=name, kind=cast(RubricKind, kind), lines=tuple(lines), source=source)


def _parse_line(raw: Any, position: int, kind: RubricKind, source: str) -> RubricLine:
    where = f"line #{position}"
    if not isinstance(raw, dict):
        raise RubricError(source, f"{where} is not a table")
    line_id = raw.get("id")
    if not isinstance(line_id, str) or not _NAME.match(line_id):
        like = "'my_line' (lowercase letters, digits, underscores)"
        raise RubricError(source, f"{where} needs an 'id' like {like}, got {line_id!r}")
    where = f"line {line_id!r}"
    unknown = sorted(set(raw) - LINE_KEYS)
    if unknown:
        raise RubricError(source, f"{where} has unknown key(s): {', '.join(unknown)}")
    title = raw.get("title")
    if not isinstance(title, str) or not title.strip():
        raise RubricError(source, f"{where} needs a 'title'")
    weight = _number(raw.get("weight"), f"{where} 'weight'", source)
    if kind == "points":
        if weight is None:
            raise RubricError(source, f"{where} needs a 'weight' in a points rubric")
        if "tiers" in raw or "points" in raw:
            raise RubricError(source, f"{where}: 'tiers' and 'points' belong in a tiers rubric")
        return RubricLine(id=line_id, title=title, weight=weight)
    tiers = raw.get("tiers")
    if (
        not isinstance(tiers, list)
        or not tiers
        or any(tier not in TIERS for tier in tiers)
        or len(set(tiers)) != len(tiers)
    ):
        raise RubricError(source, f"{where} needs 'tiers', distinct names from {', '.join(TIERS)}; got {tiers!r}")
    tier_points: dict[str, float] = {}
    if "points" in raw:
        points = raw["points"]
        if not isinstance(points, dict) or set(points) != set(tiers):
            raise RubricError(source, f"{where} 'points' must give a number for each tier")
        for tier in tiers:
            value = _number(points[tier], f"{where} points for {tier!r}", source)
            tier_points[tier] = cast(float, value)
    descriptions = raw.get("descriptions", {})
    if not isinstance(descriptions, dict) or not set(descriptions) <= set(tiers):
        raise RubricError(source, f"{where} 'descriptions' must map tier names to text")
    return RubricLine(
        id=line_id,
        title=title,
        weight=weight,
        tiers=tuple(tiers),
        tier_points=tier_points,
        descriptions={str(k): str(v) for k, v in descriptions.items()},
    )


def _number(value: Any, what: str, source: str) -> float | None:
    """A non-negative finite number as float, None when absent; RubricError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RubricError(source, f"{what} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise RubricError(source, f"{what} must be finite, got {value!r}")
    if value < 0:
        raise RubricError(source, f"{what} is negative ({value!r})")
    return float(value)
