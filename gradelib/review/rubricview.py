"""A take-home's rubric as a reviewer reads it: each line's tiers or points, and what meetings clarified."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gradelib.gradebook.clarified import Clarification
from gradelib.result import Report
from gradelib.safetext import terminal_text
from gradelib.takehomes.rubric import Rubric, RubricLine


def clarification_text(item: Clarification) -> str:
    """One clarification in a line: the tier it exemplifies, the note, the example and when."""
    return f"{item.value}: {item.note} (example: {item.takehome} {item.example}, agreed {item.at[:10]} by {item.by})"


def _scale(line: RubricLine) -> str:
    if not line.tiers:
        return f"{line.weight:g} points" if line.weight is not None else "no points"
    if line.tier_points:
        return ", ".join(f"{tier} {line.tier_points[tier]:g}" for tier in line.tiers)
    return ", ".join(line.tiers)


def rubric_text(rubric: Rubric, clarifications: Mapping[str, Sequence[Clarification]]) -> str:
    """The rubric line by line: title, scale, tier descriptions, then the meetings' clarifications."""
    total = f", {rubric.max_total:g} points in all" if rubric.max_total is not None else ""
    out = [f"{rubric.takehome} rubric ({rubric.kind}{total}): {rubric.source}"]
    for number, line in enumerate(rubric.lines, start=1):
        out.append(f"{number}. {line.title} [{line.id}]: {_scale(line)}")
        out += [f"     {tier}: {text}" for tier, text in line.descriptions.items()]
        for item in clarifications.get(line.id, ()):
            out.append(f"     clarified, {clarification_text(item)}")
    count = sum(len(items) for items in clarifications.values())
    out.append(f"{count} clarification(s) from calibration meetings" if count else "no clarifications yet")
    return "\n".join(terminal_text(line) for line in out)


def tier_rows(report: Report, rubric: Rubric) -> list[dict[str, Any]]:
    """The tier table: each line's tiers, the kit's suggestion, and whether it awaits a reviewer."""
    rows = []
    for line in report.lines:
        try:
            rubric_line = rubric.line(line.id)
        except KeyError:
            continue
        rows.append(
            {
                "line": rubric_line.title,
                "kit suggests": line.tier or "-",
                "outcome": line.outcome,
                "awaits reviewer": "yes" if line.outcome in ("needs_review", "error") else "no",
                **{tier: rubric_line.descriptions.get(tier, "") for tier in rubric_line.tiers},
                "message": line.message,
            }
        )
    return rows
