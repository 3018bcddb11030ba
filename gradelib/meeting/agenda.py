"""The calibration meeting's agenda: the lines where reviewers disagree enough to change a candidate's total.

An item is one rubric line of one submission that two or more reviewers scored and where
they differ by at least one tier (a tier line) or by at least a quarter of the line's
maximum (a points line). Anchors come first (everyone scored them, so they calibrate the
rest), then the items that move a total most (the spread between the highest and the
lowest reviewer, in points). Each item carries every reviewer's value and comment, the
kit's value and evidence, the report, and the resolution in force once the meeting has
agreed a value (resolved items leave the open agenda). Under each item the terminal (and the
JSON's `command`) gives the `gradelib resolve` line that settles it, placeholders in angle
brackets for the value and the reason.
"""

from __future__ import annotations

import json
import shlex
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from gradelib.cohort.agreement import Rating, note
from gradelib.cohort.table import Cohort, Entry, is_refused
from gradelib.display.render import STYLE, Html
from gradelib.gradebook import DEFAULT_PATH
from gradelib.gradebook.identity import visible_name
from gradelib.gradebook.meetingrecords import Resolution
from gradelib.safetext import clipped_text, html_visible, terminal_text
from gradelib.takehomes.rubric import RubricLine

POINTS_SHARE = 0.25  # a points line is on the agenda when reviewers differ by a quarter of its maximum
EVIDENCE_CHARS = 600
SHOWN_PER_TAKEHOME = 25  # items the summary shows per take-home; `gradelib agenda` lists every one
REASON_PLACEHOLDER = "<reason>"
NOTHING_OPEN = "Nothing left on the agenda: no line where reviewers differ by a tier (or a quarter of its points)."


@dataclass(frozen=True)
class AgendaItem:
    """One line of one submission the meeting should settle."""

    takehome: str
    name: str
    label: str  # "Submission #3"
    line_id: str
    title: str
    anchor: bool
    spread: float  # highest minus lowest reviewer, in points: how much it moves the total
    share: float | None  # spread / the line's maximum
    ratings: tuple[Rating, ...]  # every reviewer's current score, highest first
    kit_value: str | None  # the kit's tier or points, None when it left the line to humans
    kit_outcome: str | None
    kit_message: str
    kit_evidence: Mapping[str, Any]
    report: str | None
    resolution: Resolution | None = None
    tiers: tuple[str, ...] = ()  # the line's tiers; none for a points line
    max_points: float | None = None

    def value_placeholder(self) -> str:
        """What the resolve command's value stands in for: the line's tiers, or its range of points."""
        if self.tiers:
            return f"<{'|'.join(self.tiers)}>"
        return f"<points 0 to {self.max_points:g}>" if self.max_points is not None else "<points>"

    def command(self, gradebook: Path | None = None) -> str:
        """The shell command that records the meeting's value for this item, placeholders in angle brackets.

        `gradebook` is named (`--gradebook`) when it is not the default one.
        """
        words = ["gradelib", "resolve", self.takehome, self.label, self.line_id, self.value_placeholder()]
        words += ["--why", REASON_PLACEHOLDER]
        if gradebook is not None and Path(gradebook) != DEFAULT_PATH:
            words += ["--gradebook", str(gradebook)]
        return shlex.join(words)

    def to_dict(self, *, reveal: bool = False, gradebook: Path | None = None) -> dict[str, Any]:
        """The item as JSON-ready data, blind unless `reveal`, with the command that resolves it."""
        return {
            "takehome": self.takehome,
            "submission": self.label,
            "name": visible_name(self.name, reveal),
            "line": self.line_id,
            "title": self.title,
            "anchor": self.anchor,
            "spread_points": self.spread,
            "spread_share": self.share,
            "reviewers": [{"reviewer": r.reviewer, "value": r.value, "comment": r.comment} for r in self.ratings],
            "kit": {"value": self.kit_value, "outcome": self.kit_outcome, "message": self.kit_message},
            "report": self.report,
            "resolution": None
            if self.resolution is None
            else {
                "value": self.resolution.value,
                "reason": self.resolution.reason,
                "by": self.resolution.resolved_by,
                "at": self.resolution.created_at,
            },
            "command": self.command(gradebook),
        }


def disagrees(line: RubricLine, ratings: Sequence[Rating]) -> bool:
    """Whether reviewers differ by at least one tier, or by a quarter of a points line's maximum."""
    if len({r.reviewer for r in ratings}) < 2:
        return False
    if line.tiers:
        return len({r.value for r in ratings}) > 1
    spread = max(r.points for r in ratings) - min(r.points for r in ratings)
    top = line.max_points
    return spread > 0 and (top is None or spread >= POINTS_SHARE * top - 1e-9)


def _kit_value(entry: Entry, line_id: str) -> tuple[str | None, str | None, str, Mapping[str, Any]]:
    kit = entry.lines.get(line_id)
    if kit is None:
        return None, None, "", {}
    value = kit.tier or (f"{kit.points:g}" if kit.points is not None else None)
    return value, kit.outcome, kit.message, kit.evidence


def agenda(cohort: Cohort, *, resolved: bool = False) -> list[AgendaItem]:
    """The agenda of the selection: open items (and resolved ones too with `resolved`), anchors first."""
    units: dict[tuple[str, str, str], list[Rating]] = defaultdict(list)
    for rating in cohort.ratings:
        units[rating.unit].append(rating)
    items = []
    for entry in cohort.entries:
        if is_refused(entry):
            continue
        sub = entry.submission
        for line in cohort.rubric_lines.get(sub.takehome, ()):
            ratings = units.get((sub.takehome, sub.name, line.id), [])
            resolution = entry.resolutions.get(line.id)
            if not disagrees(line, ratings) or (resolution is not None and not resolved):
                continue
            ordered = tuple(sorted(ratings, key=lambda r: (-r.points, r.reviewer)))
            spread = ordered[0].points - ordered[-1].points
            kit_value, outcome, message, evidence = _kit_value(entry, line.id)
            items.append(
                AgendaItem(
                    sub.takehome,
                    sub.name,
                    sub.blind_label,
                    line.id,
                    line.title,
                    entry.anchor,
                    spread,
                    spread / line.max_points if line.max_points else None,
                    ordered,
                    kit_value,
                    outcome,
                    message,
                    evidence,
                    entry.report,
                    resolution,
                    line.tiers,
                    line.max_points,
                )
            )
    order = {takehome: i for i, takehome in enumerate(cohort.rubric_lines)}
    items.sort(key=lambda i: (order.get(i.takehome, 0), not i.anchor, -i.spread, -(i.share or 0), i.label, i.line_id))
    return items


def agenda_text(
    items: Sequence[AgendaItem],
    *,
    reveal: bool = False,
    reports_dir: Path | None = None,
    gradebook: Path | None = None,
) -> str:
    """The agenda as the terminal shows it, per take-home, blind unless `reveal`; report paths under reports_dir.

    Under each item, the command that resolves it (`--gradebook` named when not the default one).
    """
    if not items:
        return NOTHING_OPEN
    out: list[str] = []
    for takehome in dict.fromkeys(i.takehome for i in items):
        mine = [i for i in items if i.takehome == takehome]
        out.append(f"{takehome}: {len(mine)} item(s), anchors first, then what moves a total most")
        for number, item in enumerate(mine, start=1):
            name = visible_name(item.name, reveal)
            who = f" ({name})" if name else ""
            tag = " [anchor]" if item.anchor else ""
            share = f", {item.share:.0%} of the line" if item.share is not None else ""
            out.append(f"{number:>3}. {item.label}{who}{tag} · {item.title}: spread {item.spread:g} points{share}")
            kit = item.kit_value or "leaves it to reviewers"
            out.append(f"       kit: {kit} ({item.kit_outcome or 'no result'}) {clipped_text(item.kit_message, 160)}")
            for rating in item.ratings:
                said = f" — {clipped_text(rating.comment, 160)}" if rating.comment else ""
                out.append(f"       {rating.reviewer}: {rating.value}{said}")
            if item.resolution:
                res = item.resolution
                out.append(f"       resolved: {res.value} by {res.resolved_by} — {clipped_text(res.reason, 160)}")
            if item.report:
                out.append(f"       report: {reports_dir / unquote(item.report) if reports_dir else item.report}")
            out.append(f"       resolve: {item.command(gradebook)}")
    return "\n".join(terminal_text(line) for line in out)


def agenda_json(items: Sequence[AgendaItem], *, reveal: bool = False, gradebook: Path | None = None) -> str:
    """The agenda as JSON for scripts: a list of items (see AgendaItem.to_dict)."""
    return json.dumps([item.to_dict(reveal=reveal, gradebook=gradebook) for item in items], indent=2, default=str)


def _evidence(evidence: Mapping[str, Any]) -> str:
    if not evidence:
        return ""
    text = clipped_text(json.dumps(evidence, default=str, sort_keys=True), EVIDENCE_CHARS)
    return f"<details><summary>evidence</summary><code>{html_visible(text)}</code></details>"


def _item_html(number: int, item: AgendaItem) -> str:
    anchor = " <b>anchor</b>" if item.anchor else ""
    share = f" ({item.share:.0%} of the line)" if item.share is not None else ""
    reviewers = "".join(
        f"<li><b>{html_visible(r.reviewer)}</b>: {html_visible(r.value)}"
        f"{'<br><small>' + html_visible(clipped_text(r.comment, 600)) + '</small>' if r.comment else ''}</li>"
        for r in item.ratings
    )
    kit = html_visible(item.kit_value or "leaves it to reviewers")
    link = f' · <a href="{html_visible(item.report)}">report</a>' if item.report else ""
    return (
        f"<tr><td>{number}</td><td>{html_visible(item.label)}<br><small>{html_visible(item.name)}</small>{anchor}</td>"
        f"<td>{html_visible(item.title)}<br><small>spread {item.spread:g} points{html_visible(share)}</small></td>"
        f"<td><ul>{reviewers}</ul></td><td><b>{kit}</b> <small>{html_visible(item.kit_outcome or '')}</small>"
        f"<br><small>{html_visible(clipped_text(item.kit_message, 300))}</small>{_evidence(item.kit_evidence)}{link}"
        "</td></tr>"
    )


def agenda_view(cohort: Cohort) -> Html:
    """The open agenda per take-home (every reviewer's value and comment, the kit's, the report), anchors first."""
    items = agenda(cohort)
    if not items:
        return note(NOTHING_OPEN)
    parts = []
    for takehome in dict.fromkeys(i.takehome for i in items):
        mine = [i for i in items if i.takehome == takehome]
        rows = "".join(_item_html(n, i) for n, i in enumerate(mine[:SHOWN_PER_TAKEHOME], 1))
        head = "<tr><th>#</th><th>submission</th><th>line</th><th>reviewers</th><th>kit</th></tr>"
        more = len(mine) - SHOWN_PER_TAKEHOME
        rest = f"<p>... and {more} more item(s): <code>gradelib agenda</code> lists every one.</p>" if more > 0 else ""
        parts.append(f"<div class='gl-key'>{html_visible(takehome)}: {len(mine)} open item(s)</div>"
                     f"<table>{head}{rows}</table>{rest}")  # fmt: skip
    legend = (
        "<p><small>Lines where reviewers differ by a tier, or by a quarter of a points line's maximum; anchors"
        " first, then by how much the line moves the total. Record what the meeting agrees below (or"
        " <code>gradelib resolve</code>); a resolved line leaves the agenda.</small></p>"
    )
    takehomes = dict.fromkeys(i.takehome for i in items)
    text = "\n".join(f"{t}: {sum(i.takehome == t for i in items)} open item(s)" for t in takehomes)
    return Html(f'{STYLE}<div class="gl-card">{"".join(parts)}{legend}</div>', text)
