"""The cohort table: every submission's line scores from the gradebook, with filters, flags and report links.

The summary is where blind labels are resolved: the table shows the candidate's name
beside "Submission #3". A line's score is the reviewers' consensus where any reviewer
scored it, the mean of their current values mapped to points (a tier to its rubric
points), else the kit's points; once the calibration meeting resolved a line, the value it
agreed replaces all of them. A `<line>_source` column says which ("resolved",
"reviewers", "kit", or "none" while the line awaits a human). A total is shown only when every
line has a score: a partial sum would read as a final one.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import cached_property
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from gradelib import takehomes
from gradelib.cohort.agreement import LineKey, Rating
from gradelib.display.render import STYLE, Html
from gradelib.errors import GradelibError, RubricError, UnknownTakehome
from gradelib.gradebook import DEFAULT_PATH, RunRow, ScoreEntry, SubmissionRow
from gradelib.gradebook.health import open_checked
from gradelib.gradebook.meetingrecords import Decision, Resolution, latest_decisions, latest_resolutions
from gradelib.result import LineResult
from gradelib.safetext import html_visible
from gradelib.takehomes.rubric import UNDECIDED, Rubric, RubricLine, default_rubric

if TYPE_CHECKING:  # pandas is imported where a table is built: `gradelib summary` only parses Filters here
    import pandas as pd

KIT_ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout, when the kit runs from one
CSV_NAME = "summary.csv"
SOURCE_SUFFIX = "_source"
FROM_RESOLUTION, FROM_REVIEWERS, FROM_KIT, NO_SCORE = "resolved", "reviewers", "kit", "none"
NOT_GRADED = "not graded"
FIRST_COLUMNS = ("takehome", "submission", "name", "graded", "status")
LAST_COLUMNS = (
    "total",
    "max_total",
    "reviewers",
    "waiting_for",
    "anchor",
    "decision",
    "errors",
    "unverified",
    "awaiting_review",
    "flags",
    "report",
)
ANYONE = "a reviewer"  # who "waiting for" names for a line nobody has scored
COUNT_COLUMNS = ("errors", "unverified", "awaiting_review")
MAX_ERROR_CHARS = 120


@dataclass(frozen=True)
class Filters:
    """Which part of the gradebook the summary shows; every table, chart and figure uses the same selection.

    takehome: one take-home. reviewer: only the submissions this reviewer scored (all
    reviewers' scores on them count, so calibration still compares them with the panel).
    graded_from / graded_to: inclusive UTC dates of the kit's latest grading run.
    """

    takehome: str | None = None
    reviewer: str | None = None
    graded_from: date | None = None
    graded_to: date | None = None

    @classmethod
    def parse(
        cls,
        takehome: str | None = None,
        reviewer: str | None = None,
        graded_from: str | date | None = None,
        graded_to: str | date | None = None,
    ) -> Filters:
        """Filters from notebook or CLI parameters: blank means no filter, dates as YYYY-MM-DD."""
        return cls(
            (takehome or "").strip() or None,
            (reviewer or "").strip() or None,
            _date(graded_from, "graded_from"),
            _date(graded_to, "graded_to"),
        )

    def describe(self) -> str:
        """The selection in words."""
        parts = [f"take-home {self.takehome}" if self.takehome else "every take-home"]
        if self.reviewer:
            parts.append(f"submissions {self.reviewer} scored")
        if self.graded_from or self.graded_to:
            parts.append(f"graded {self.graded_from or '...'} to {self.graded_to or '...'}")
        return ", ".join(parts)

    def graded_in_range(self, graded: date | None) -> bool:
        """Whether a grading date passes the date filters (no date passes only when there are none)."""
        if self.graded_from is None and self.graded_to is None:
            return True
        if graded is None:
            return False
        return (self.graded_from is None or graded >= self.graded_from) and (
            self.graded_to is None or graded <= self.graded_to
        )


def _date(value: str | date | None, what: str) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if value is None or isinstance(value, date):
        return value
    text = str(value).strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise GradelibError(f"{what}: {value!r} is not a date like 2026-03-02") from None


@dataclass(frozen=True)
class Entry:
    """One submission as the summary sees it."""

    submission: SubmissionRow
    run: RunRow | None  # the latest graded run, else the latest run of any status
    lines: Mapping[str, LineResult]  # the kit's results of that run, by line id
    scores: Mapping[tuple[str, str], ScoreEntry]  # (line_id, reviewer) -> current entry
    report: str | None  # the HTML report, relative to the summary's folder
    anchor: bool = False  # a calibration anchor: every reviewer scores it
    resolutions: Mapping[str, Resolution] = field(default_factory=dict)  # line_id -> the resolution in force
    decision: Decision | None = None  # the decision in force

    @property
    def line_results(self) -> Mapping[str, LineResult]:
        """The kit's line results by id (what a take-home's failure modes read)."""
        return self.lines

    @property
    def facts(self) -> Mapping[str, Any]:
        """The measured facts of the run shown."""
        return self.run.facts if self.run else {}

    @property
    def graded(self) -> date | None:
        """The UTC date the run finished."""
        finished = self.run.finished_at if self.run else None
        return datetime.fromisoformat(finished).astimezone(UTC).date() if finished else None


@dataclass(frozen=True)
class Cohort:
    """The selected submissions, their rubric lines, the table and the reviewer ratings behind it."""

    gradebook: Path
    reports_dir: Path
    filters: Filters
    entries: tuple[Entry, ...]
    rubric_lines: Mapping[str, tuple[RubricLine, ...]] = field(compare=False)
    ratings: tuple[Rating, ...] = field(compare=False, repr=False)
    reviewers: tuple[str, ...] = ()  # everyone who has saved a score in the gradebook

    @cached_property
    def table(self) -> pd.DataFrame:
        """The cohort table (`cohort_table`), built on first use: the agenda and the meeting's commands need none."""
        return cohort_table(self.entries, self.rubric_lines, self.reviewers)

    @cached_property
    def digest(self) -> str:
        """A digest of everything this cohort holds: two reads of an unchanged gradebook give the same one."""
        held = (self.filters, self.entries, self.ratings, self.reviewers, sorted(self.rubric_lines.items()))
        return hashlib.sha256(repr(held).encode()).hexdigest()[:32]

    @property
    def titles(self) -> dict[LineKey, str]:
        """(takehome, line_id) -> title, every line of every take-home shown, in rubric order."""
        return {(t, line.id): line.title for t, lines in self.rubric_lines.items() for line in lines}

    def header(self) -> Html:
        """What is selected: gradebook, filters, counts."""
        counts = ", ".join(f"{t}: {sum(e.submission.takehome == t for e in self.entries)}" for t in self.rubric_lines)
        reviewers = sorted({r.reviewer for r in self.ratings})
        body = (
            f"<b>Cohort summary</b>: {html_visible(self.filters.describe())}<br>gradebook <code>"
            f"{html_visible(self.gradebook)}</code>"
            f"<br>{len(self.entries)} submission(s) ({html_visible(counts or 'none')}); "
            f"{len(self.ratings)} current reviewer"
            f" score(s) from {len(reviewers)} reviewer(s) ({html_visible(', '.join(reviewers) or 'none yet')})"
        )
        if not self.entries:
            body += "<br><i>No submission matches this selection.</i>"
        return Html(f'{STYLE}<div class="gl-card">{body}</div>', f"{self.filters.describe()}: {len(self.entries)}")


def resolve(path: str | Path) -> Path:
    """A path as given, else under the kit's checkout (a notebook opened live runs in notebooks/)."""
    given = Path(path).expanduser()
    if given.is_absolute() or given.exists() or not (KIT_ROOT / given).exists():
        return given
    return KIT_ROOT / given


def load(
    gradebook: str | Path = DEFAULT_PATH,
    reports_dir: str | Path | None = None,
    *,
    takehome: str | None = None,
    reviewer: str | None = None,
    graded_from: str | date | None = None,
    graded_to: str | date | None = None,
    rubrics: Mapping[str, Rubric] | None = None,
    evidence: bool = True,
) -> Cohort:
    """Read the gradebook (one consistent snapshot) into a Cohort; reports_dir defaults to the gradebook's folder.

    Without `evidence` the kit's lines carry none (outcomes, points, tiers and messages only): what
    the terminal's agenda reads, faster on a big gradebook.
    """
    filters = Filters.parse(takehome, reviewer, graded_from, graded_to)
    path = resolve(gradebook)
    reports = resolve(reports_dir) if reports_dir else path.parent
    entries: list[Entry] = []
    with open_checked(path) as book, book.snapshot():
        anchors = {row.id for row in book.anchors()}
        reviewers = tuple(book.reviewers())
        resolved: dict[tuple[str, str], dict[str, Resolution]] = {}
        for (t, n, line_id), record in latest_resolutions(book.resolutions()).items():
            resolved.setdefault((t, n), {})[line_id] = record
        decided = latest_decisions(book.decisions())
        graded_runs, latest_runs = book.latest_runs(graded_only=True), book.latest_runs()
        lines_by = book.latest_lines_by_submission(evidence=evidence)
        scores_by = book.current_scores_by_submission()
        for row in book.submissions():
            # A submission refused before its take-home was known (an archive bomb) is in every selection.
            if filters.takehome not in (None, row.takehome) and row.takehome in takehomes.names():
                continue
            run = graded_runs.get(row.id) or latest_runs.get(row.id)
            lines = {line.line_id: line for line in lines_by.get(row.id, [])} if run and run.status == "graded" else {}
            scores = scores_by.get(row.id, {})
            entry = Entry(
                row,
                run,
                lines,
                scores,
                _report_link(run, row.takehome, reports),
                row.id in anchors,
                resolved.get((row.takehome, row.name), {}),
                decided.get((row.takehome, row.name)),
            )
            if filters.graded_in_range(entry.graded) and (
                filters.reviewer is None or any(who == filters.reviewer for _, who in scores)
            ):
                entries.append(entry)
    rubric_lines = {
        t: _rubric_lines(t, rubrics, entries) for t in dict.fromkeys(e.submission.takehome for e in entries)
    }
    ratings = tuple(r for e in entries for r in ratings_of(e, rubric_lines[e.submission.takehome]))
    return Cohort(path, reports, filters, tuple(entries), rubric_lines, ratings, reviewers)


def is_refused(entry: Entry) -> bool:
    """Whether the kit could not grade this submission at all (refused archive, failed run)."""
    return entry.run is None or entry.run.status != "graded"


def _rubric_lines(
    takehome: str, rubrics: Mapping[str, Rubric] | None, entries: Sequence[Entry]
) -> tuple[RubricLine, ...]:
    """The take-home's rubric lines; for one the kit does not ship, the lines its runs reported."""
    if rubrics and takehome in rubrics:
        return rubrics[takehome].lines
    try:
        return default_rubric(takehome).lines
    except (UnknownTakehome, RubricError):
        seen: dict[str, float | None] = {}
        for entry in entries:
            if entry.submission.takehome == takehome:
                for line in entry.lines.values():
                    seen.setdefault(line.line_id, line.max_points)
        return tuple(RubricLine(id=line_id, title=line_id, weight=maximum) for line_id, maximum in seen.items())


def _report_link(run: RunRow | None, takehome: str, reports: Path) -> str | None:
    """The run's HTML report relative to reports/ (URL-quoted), or None when there is none."""
    if run is None or not run.html:
        return None
    stored = Path(run.html)
    candidates = [stored] if stored.is_absolute() else [Path.cwd() / stored, KIT_ROOT / stored]
    candidates.append(reports / takehome / stored.name)
    found = next((path for path in candidates if path.is_file()), candidates[-1])
    return quote(Path(os.path.relpath(found.resolve(), reports.resolve())).as_posix())


def value_points(line: RubricLine, value: str) -> float | None:
    """A reviewer's value on a line as points: a tier's rubric points (scaled to a weight), or the number."""
    if line.tiers:
        if value not in line.tier_points:
            return None
        top = max(line.tier_points.values())
        points = line.tier_points[value]
        return line.weight * points / top if line.weight is not None and top else points
    try:
        points = float(value)
    except ValueError:
        return None
    return points if math.isfinite(points) else None


def ratings_of(entry: Entry, lines: Sequence[RubricLine]) -> list[Rating]:
    """The reviewers' current scores on a submission as ratings (points), lines the rubric can score only."""
    by_id = {line.id: line for line in lines}
    ratings = []
    for (line_id, reviewer), score in sorted(entry.scores.items()):
        line = by_id.get(line_id)
        points = value_points(line, score.value) if line else None
        if line is None or points is None:
            continue  # a line the rubric no longer has, or a value it cannot score
        sub = entry.submission
        ratings.append(
            Rating(
                sub.takehome,
                sub.name,
                sub.blind_label,
                line_id,
                reviewer,
                score.value,
                points,
                line.max_points,
                "ordinal" if line.tiers else "interval",
                score.comment,
                entry.report,
            )
        )
    return ratings


def _needs_human(kit: LineResult | None) -> bool:
    return kit is None or kit.outcome in UNDECIDED or kit.points is None


def waiting_for(entry: Entry, lines: Sequence[RubricLine], reviewers: Sequence[str] = ()) -> str:
    """Who still has to score which line: on an anchor every reviewer owes every human line; elsewhere a
    reviewer who started a submission owes the rest of its human lines, and a line nobody scored waits
    for a reviewer. Empty when nothing waits (or the kit could not grade it)."""
    if is_refused(entry):
        return ""
    human = [line for line in lines if _needs_human(entry.lines.get(line.id))]
    started = {who for _, who in entry.scores}
    owing = list(reviewers) if entry.anchor else sorted(started)
    parts = []
    for reviewer in owing:
        owed = [line for line in human if (line.id, reviewer) not in entry.scores]
        if owed:
            named = f"all {len(owed)} lines" if len(owed) == len(human) > 2 else ", ".join(x.title for x in owed)
            parts.append(f"{reviewer}: {named}")
    if not entry.anchor or not reviewers:
        nobody = [line for line in human if not any(lid == line.id for lid, _ in entry.scores)]
        if nobody:
            parts.append(f"{ANYONE}: {', '.join(line.title for line in nobody)}")
    return "; ".join(parts)


def _row(entry: Entry, lines: Sequence[RubricLine], reviewers: Sequence[str] = ()) -> dict[str, Any]:
    sub, run = entry.submission, entry.run
    graded = entry.graded
    row: dict[str, Any] = {
        "takehome": sub.takehome,
        "submission": sub.blind_label,
        "name": sub.name,
        "graded": graded.isoformat() if graded else None,
        "status": run.status if run else NOT_GRADED,
    }
    counts = {"errors": 0, "unverified": 0, "awaiting_review": 0}
    scored = 0
    for line in lines:
        kit = entry.lines.get(line.id)
        given = [value_points(line, s.value) for (lid, _), s in entry.scores.items() if lid == line.id]
        known = [points for points in given if points is not None]
        resolution = entry.resolutions.get(line.id)
        agreed = value_points(line, resolution.value) if resolution else None
        if agreed is not None:
            row[line.id], row[line.id + SOURCE_SUFFIX] = agreed, FROM_RESOLUTION
        elif known:
            row[line.id], row[line.id + SOURCE_SUFFIX] = fmean(known), FROM_REVIEWERS
        elif kit is not None and kit.points is not None:
            row[line.id], row[line.id + SOURCE_SUFFIX] = kit.points, FROM_KIT
        else:
            row[line.id], row[line.id + SOURCE_SUFFIX] = math.nan, NO_SCORE
        scored += not math.isnan(row[line.id])
        counts["errors"] += kit is not None and kit.outcome == "error"
        counts["unverified"] += kit is not None and kit.outcome == "unverified"
        counts["awaiting_review"] += _needs_human(kit) and not known and agreed is None
    graded_run = run is not None and run.status == "graded"
    maxima = [line.max_points for line in lines if line.max_points is not None]
    complete = graded_run and bool(lines) and scored == len(lines)
    row["total"] = float(sum(row[line.id] for line in lines)) if complete else math.nan
    row["max_total"] = float(sum(maxima)) if maxima else math.nan
    row["reviewers"] = ", ".join(sorted({who for _, who in entry.scores}))
    row["waiting_for"] = waiting_for(entry, lines, reviewers)
    row["anchor"] = "anchor" if entry.anchor else ""
    row["decision"] = entry.decision.decision if entry.decision else ""
    row.update(counts if graded_run else dict.fromkeys(counts, 0))
    row["flags"] = _flags(run, counts)
    row["report"], row["_blind"] = entry.report, sub.blind_number
    return row


def _flags(run: RunRow | None, counts: Mapping[str, int]) -> str:
    if run is None or run.status != "graded":
        why = f": {run.error.splitlines()[0][:MAX_ERROR_CHARS]}" if run and run.error else ""
        return f"run {run.status}{why}" if run else NOT_GRADED
    words = {"errors": "kit error(s)", "unverified": "unverified", "awaiting_review": "awaiting review"}
    return ", ".join(f"{counts[key]} {word}" for key, word in words.items() if counts[key])


def cohort_table(
    entries: Sequence[Entry], rubric_lines: Mapping[str, Sequence[RubricLine]], reviewers: Sequence[str] = ()
) -> pd.DataFrame:
    """One row per (takehome, submission): line scores, totals, who it waits for, flags, report link; best first."""
    import pandas as pd

    rows = [_row(e, rubric_lines.get(e.submission.takehome, ()), reviewers) for e in entries]
    line_ids = list(dict.fromkeys(line.id for lines in rubric_lines.values() for line in lines))
    columns = [*FIRST_COLUMNS, *line_ids, *LAST_COLUMNS, *(line_id + SOURCE_SUFFIX for line_id in line_ids)]
    frame = pd.DataFrame(rows, columns=[*columns, "_blind"])
    frame["_order"] = frame["takehome"].map({t: i for i, t in enumerate(rubric_lines)})
    keys, ascending = ["_order", "total", "_blind"], [True, False, True]
    frame = frame.sort_values(keys, ascending=ascending, na_position="last", kind="stable")
    return frame[columns].reset_index(drop=True)


def line_columns(table: pd.DataFrame) -> list[str]:
    """The table's rubric line columns, in order."""
    return [c for c in table.columns if f"{c}{SOURCE_SUFFIX}" in table.columns]


def tier_word(line: RubricLine, points: float) -> str | None:
    """The tier nearest a (mean) score on a tier line; None on a points line or without a score."""
    if not line.tiers or points is None or math.isnan(points):
        return None
    scaled = {tier: value_points(line, tier) for tier in line.tiers}
    known = {tier: value for tier, value in scaled.items() if value is not None}
    return min(known, key=lambda tier: (abs(known[tier] - points), -known[tier])) if known else None


def line_cell(line: RubricLine, points: Any) -> str:
    """A line's score as the table shows it: "1.3 (acceptable)" on a tier line, "27.5" on a points line."""
    if points is None or (isinstance(points, float) and math.isnan(points)):
        return "-"
    word = tier_word(line, float(points))
    number = f"{float(points):.1f}".rstrip("0").rstrip(".")
    return f"{number} ({word})" if word else number
