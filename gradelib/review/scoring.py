"""Scoring rules: which rubric lines a reviewer scores, their choices, and saving a reviewer's values."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from gradelib import settings
from gradelib.errors import CommentRequired, GradelibError
from gradelib.gradebook import Gradebook
from gradelib.gradebook.identity import hide_name
from gradelib.result import LineResult
from gradelib.takehomes.rubric import UNDECIDED, Rubric, RubricLine

ReviewKind = Literal["tiers", "points"]
ENV_REVIEWER = settings.ENV_REVIEWER
NO_RESULT_OUTCOME = "unverified"  # a rubric line the kit has no stored result for
NO_RESULT_MESSAGE = "the kit has no result for this line yet"
REVIEWER_NEEDED = f"a reviewer name is needed: type it above or set {ENV_REVIEWER}"


@dataclass(frozen=True)
class ReviewLine:
    """One rubric line as the reviewer scores it: the choices, and the kit's result for it (`kit`) beside them.

    Not a line result itself: a reviewer's form for one line, holding the kit's `LineResult`.
    """

    line_id: str
    title: str
    kind: ReviewKind
    choices: tuple[str, ...]  # tier names, or points "0".."max" as text
    kit_value: str | None  # the kit's tier, or its points as text; None when it has none
    needs_human: bool
    descriptions: Mapping[str, str] = field(default_factory=dict, hash=False)
    kit: LineResult | None = field(default=None, hash=False)  # None: the kit has no result for this line

    @property
    def kit_outcome(self) -> str:
        """The kit's outcome for the line (`NO_RESULT_OUTCOME` when it has no result)."""
        return NO_RESULT_OUTCOME if self.kit is None else self.kit.outcome

    @property
    def kit_message(self) -> str:
        """The kit's message for the line (`NO_RESULT_MESSAGE` when it has no result)."""
        return NO_RESULT_MESSAGE if self.kit is None else self.kit.message

    def label(self, choice: str) -> str:
        """A choice as the dropdown shows it: the tier's description, and which one the kit suggests."""
        if self.kind == "points":
            text = f"{choice} / {self.choices[-1]}"
        else:
            text = f"{choice}: {self.descriptions[choice]}" if choice in self.descriptions else choice
        return f"{text} (kit)" if choice == self.kit_value else text


def review_lines(rubric: Rubric, lines: Sequence[LineResult | Mapping[str, Any]]) -> list[ReviewLine]:
    """Every rubric line with the kit's result (a `LineResult`, or one in its `--json` shape) beside it.

    A line needs a human when the kit left it undecided (needs_review, unverified) or has
    no suggestion for it (on a tiers rubric: no tier). The other lines are listed too: a
    reviewer may override them, with a comment.
    """
    results = [line if isinstance(line, LineResult) else LineResult.from_dict(line) for line in lines]
    by_id = {result.id: result for result in results}
    return [_review_line(rubric_line, by_id.get(rubric_line.id)) for rubric_line in rubric.lines]


def _review_line(line: RubricLine, kit: LineResult | None) -> ReviewLine:
    outcome = NO_RESULT_OUTCOME if kit is None else kit.outcome
    tier, points = (None, None) if kit is None else (kit.tier, kit.points)
    kind: ReviewKind = "tiers" if line.tiers else "points"
    if kind == "tiers":
        choices = tuple(line.tiers)
        kit_value = str(tier) if tier in line.tiers else None
    else:
        choices = _point_choices(line.max_points or 0.0)
        kit_value = None if points is None else _points_text(float(points))
        if kit_value is not None and kit_value not in choices:
            choices = tuple(sorted((*choices, kit_value), key=float))
    return ReviewLine(
        line_id=line.id,
        title=line.title,
        kind=kind,
        choices=choices,
        kit_value=kit_value,
        needs_human=outcome in UNDECIDED or kit_value is None,
        descriptions=dict(line.descriptions),
        kit=kit,
    )


def _point_choices(maximum: float) -> tuple[str, ...]:
    whole = [str(n) for n in range(math.floor(maximum) + 1)]
    return tuple(whole if float(maximum).is_integer() else [*whole, _points_text(maximum)])


def _points_text(points: float) -> str:
    return str(int(points)) if points.is_integer() else f"{points:g}"


def save_scores(
    gradebook: Gradebook,
    takehome: str,
    name: str,
    reviewer: str,
    values: Mapping[str, tuple[str, str]],
    review: Sequence[ReviewLine],
) -> list[str]:
    """Save a reviewer's new or changed values (line id -> (value, comment)); one message per line not saved.

    Skipped without a message: no choice made, the same value and comment as this
    reviewer's current entry, and an automated line left at the kit's value without a
    comment (nothing to record). Overriding the kit without a comment is refused.
    """
    return error_messages(save_values(gradebook, takehome, name, reviewer, values, review)[1], review)


def error_messages(errors: Mapping[str, str], review: Sequence[ReviewLine]) -> list[str]:
    """Errors by line id as readable messages, each prefixed with its line's title."""
    titles = {line.line_id: line.title for line in review}
    return [f"{titles.get(line_id, line_id)}: {message}" if line_id else message for line_id, message in errors.items()]


def save_values(
    gradebook: Gradebook,
    takehome: str,
    name: str,
    reviewer: str,
    values: Mapping[str, tuple[str, str]],
    review: Sequence[ReviewLine],
) -> tuple[int, dict[str, str]]:
    """Save like `save_scores`; returns (how many scores were saved, line id -> why not; key "" for the whole form)."""
    who = reviewer.strip()
    if not who:
        return 0, {"": REVIEWER_NEEDED}
    by_id = {line.line_id: line for line in review}
    errors = {line_id: "not a line of this rubric" for line_id in values if line_id not in by_id}
    current = gradebook.current_scores(takehome, name)
    saved = 0
    for line in review:  # rubric order, so messages and entries come in a stable order
        if line.line_id not in values:
            continue
        raw_value, raw_comment = values[line.line_id]
        value, comment = (raw_value or "").strip(), (raw_comment or "").strip()
        if not value:
            continue
        if value not in line.choices:
            errors[line.line_id] = f"{value!r} is not one of {', '.join(line.choices)}"
            continue
        entry = current.get((line.line_id, who))
        if entry is not None and entry.value == value and (entry.comment or "").strip() == comment:
            continue
        if entry is None and not line.needs_human and value == line.kit_value and not comment:
            continue
        try:
            gradebook.add_score(takehome, name, line.line_id, who, value, comment, kit_value=line.kit_value)
        except CommentRequired:
            errors[line.line_id] = f"overriding the kit's {line.kit_value} with {value} needs a comment"
        except GradelibError as exc:
            # A message may name the submission; the panel only ever names it by its blind label.
            errors[line.line_id] = hide_name(str(getattr(exc, "reason", exc)), name, "this submission")
        else:
            saved += 1
    return saved, errors
