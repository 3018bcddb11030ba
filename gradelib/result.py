"""Rubric line results and the per-submission report (the stable `--json` shape)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from gradelib.safetext import one_line, valid_utf8

Outcome = Literal["pass", "fail", "error", "unverified", "needs_review"]
Tier = Literal["weak", "acceptable", "strong"]
OUTCOMES: tuple[Outcome, ...] = ("pass", "fail", "error", "unverified", "needs_review")
TIERS: tuple[Tier, ...] = ("weak", "acceptable", "strong")


@dataclass(frozen=True)
class LineResult:
    """One rubric line as the kit checked it: from the checks, through the gradebook, to review and cohort.

    A line read back from the gradebook also says where it is stored (`run_id`, `position`);
    where a line is stored is not part of what it is, so equality ignores those two.
    """

    id: str
    outcome: Outcome
    message: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    points: float | None = None
    max_points: float | None = None
    tier: Tier | None = None
    run_id: int | None = field(default=None, compare=False)  # the gradebook run it was stored with
    position: int | None = field(default=None, compare=False)  # its place in that run's report

    def __post_init__(self) -> None:
        # Candidate text (file names, output) can hold undecodable bytes and control characters;
        # a result must still be one readable line, valid UTF-8 JSON, storable and printable.
        object.__setattr__(self, "message", one_line(self.message))
        object.__setattr__(self, "evidence", valid_utf8(dict(self.evidence)))

    @property
    def line_id(self) -> str:
        """The rubric line's id (the gradebook's and the reviewers' name for `id`)."""
        return self.id

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LineResult:
        """A line back from `to_dict` (the `--json` shape of a line)."""
        return cls(
            id=str(data["id"]),
            outcome=data["outcome"],
            message=str(data.get("message") or ""),
            evidence=dict(data.get("evidence") or {}),
            points=data.get("points"),
            max_points=data.get("max_points"),
            tier=data.get("tier"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The line in the shape of TAKEHOMES.md."""
        return {
            "id": self.id,
            "outcome": self.outcome,
            "points": self.points,
            "max_points": self.max_points,
            "tier": self.tier,
            "message": self.message,
            "evidence": dict(self.evidence),
        }


@dataclass(frozen=True)
class Report:
    """Every rubric line of one submission, plus measured facts."""

    takehome: str
    submission: str
    lines: tuple[LineResult, ...]
    facts: Mapping[str, Any] = field(default_factory=dict)
    environment: Mapping[str, Any] = field(default_factory=dict)  # declared / installed / refused

    def __post_init__(self) -> None:
        object.__setattr__(self, "submission", one_line(self.submission))
        object.__setattr__(self, "facts", valid_utf8(dict(self.facts)))
        object.__setattr__(self, "environment", valid_utf8(dict(self.environment)))

    @property
    def max_total(self) -> float | None:
        """Sum of the lines' maximum points, or None when no line has points."""
        maxima = [line.max_points for line in self.lines if line.max_points is not None]
        return float(sum(maxima)) if maxima else None

    @property
    def total(self) -> float | None:
        """Sum of points, or None while any pointed line still awaits a verdict."""
        if self.max_total is None:
            return None
        pointed = [line for line in self.lines if line.max_points is not None]
        if any(line.points is None for line in pointed):
            return None
        return float(sum(line.points or 0 for line in pointed))

    def line(self, line_id: str) -> LineResult:
        """The line with this id."""
        for line in self.lines:
            if line.id == line_id:
                return line
        raise KeyError(line_id)

    def to_dict(self) -> dict[str, Any]:
        """The report in the stable shape of TAKEHOMES.md."""
        return {
            "takehome": self.takehome,
            "submission": self.submission,
            "lines": [line.to_dict() for line in self.lines],
            "facts": dict(self.facts),
            "environment": dict(self.environment),
            "total": self.total,
            "max_total": self.max_total,
        }

    def to_json(self, indent: int | None = None) -> str:
        """`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False, default=str)
