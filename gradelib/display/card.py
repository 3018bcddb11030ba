"""The card every report opens with: each rubric line's verdict, points and reason, linked to its evidence.

Below the lines, the total and what awaits a reviewer. The card is plain HTML with in-page links to
`#gl-line-<id>` (the id `render.line_html` gives a line's evidence card), which work in the HTML copy
(the browser follows them) and in JupyterLab (its renderer scrolls to the element with that id, in
any cell of the notebook). Every piece of candidate text (a message, a reviewer's name) is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gradelib.display.render import OUTCOME_SYMBOLS, STYLE, Html, badge, line_anchor
from gradelib.result import Report
from gradelib.safetext import html_visible, terminal_text

CARD_CLASS = "gl-verdicts"  # marks the card in a report, so tests and refreshes find it
SCORES_ANCHOR = "gl-reviewer-scores"  # the id of the reviewer scores at the end of a report
REASON_CHARS = 100  # how much of a line's message the card shows (the whole of it on the line's card)
ELLIPSIS = "\u2026"
NEEDS_A_REVIEWER = "needs a reviewer"
REVIEWER_COLOUR = "#8250df"
WARNING_COLOUR = "#cf222e"
# Column widths inline (JupyterLab lays tables out fixed, in equal columns, and drops <style> from an untrusted
# notebook): the reason gets the room.
COLUMNS = (
    '<colgroup><col style="width:7.5em"><col style="width:24%"><col style="width:9em"><col>'
    '<col style="width:10em"></colgroup>'
)


@dataclass(frozen=True)
class CardLine:
    """One rubric line as the card shows it."""

    line_id: str
    title: str
    outcome: str
    points: str  # "30 / 30", "? / 20", a tier, or "" when the line has neither
    message: str
    needs_human: bool = False  # the kit left it to a reviewer
    scored_by: tuple[str, ...] = ()  # reviewers who have saved a score on it (never their values)


@dataclass(frozen=True)
class Total:
    """The report's total, or what is decided so far while lines await a reviewer."""

    total: float | None
    max_total: float | None
    decided: float = 0.0  # points of the lines that have them
    pending: float = 0.0  # maximum points of the lines that await a verdict

    @classmethod
    def of(cls, report: Report) -> Total:
        """The total of a report, with its decided points and those still pending."""
        pointed = [line for line in report.lines if line.max_points is not None]
        decided = sum(line.points or 0.0 for line in pointed if line.points is not None)
        pending = sum(line.max_points or 0.0 for line in pointed if line.points is None)
        return cls(report.total, report.max_total, float(decided), float(pending))


def reason(message: str, limit: int = REASON_CHARS) -> str:
    """The start of a message: whole when short, else cut at a word boundary with an ellipsis."""
    text = " ".join(message.split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = head.rfind(" ")
    cut = head[:space] if space > limit // 2 else head  # a word boundary, unless it cuts away half
    return cut.rstrip(" ,;:.") + ELLIPSIS


def total_text(total: Total) -> str:
    """The total as the card says it: "80 / 100", or the decided points and what awaits a reviewer."""
    maximum = "" if total.max_total is None else f" / {total.max_total:g}"
    if total.total is not None:
        return f"{total.total:g}{maximum}"
    if total.max_total is None:
        return "no points: the rubric's tiers are the verdict"
    return f"awaiting review: {total.decided:g} so far of {total.max_total:g} ({total.pending:g} left to a reviewer)"


def _reviewer_cell(line: CardLine) -> str:
    if line.scored_by:
        return f"scored by {html_visible(', '.join(line.scored_by))}"
    if line.needs_human:
        return f'<b style="color:{REVIEWER_COLOUR}">{html_visible(NEEDS_A_REVIEWER)}</b>'
    return ""


def _row(line: CardLine) -> str:
    # The whole message is one click away (the line's card); none of it goes into an attribute.
    return (
        f"<tr><td>{badge(line.outcome)}</td>"
        f'<td><a href="#{line_anchor(line.line_id)}">{html_visible(line.title)}</a></td>'
        f"<td>{html_visible(line.points)}</td><td>{html_visible(reason(line.message))}</td>"
        f"<td>{_reviewer_cell(line)}</td></tr>"
    )


def _awaiting(lines: Sequence[CardLine]) -> str:
    waiting = [line for line in lines if line.needs_human and not line.scored_by]
    scored = [line for line in lines if line.needs_human and line.scored_by]
    where = f'in <a href="#{SCORES_ANCHOR}">Reviewer scores</a> at the end'
    if waiting:
        titles = ", ".join(html_visible(line.title) for line in waiting)
        them = "it" if len(waiting) == 1 else "them"
        said = f"<b>Awaits a reviewer</b>: {titles} (no reviewer has scored {them} yet)"
        if scored:
            said += f"; {len(scored)} more scored already"
        return f"<p>{said}; score {where}.</p>"
    if scored:
        return f"<p>Every line left to a reviewer has a score; the scores are {where}.</p>"
    return (
        "<p>Nothing awaits a reviewer: the kit decided every line"
        f" (a reviewer may still override one, with a comment, {where}).</p>"
    )


def verdict_card(lines: Sequence[CardLine], total: Total, *, warning: str | None = None) -> Html:
    """The card: one row per line (verdict, linked title, points, reason, reviewer), the total, what awaits."""
    banner = f'<p style="color:{WARNING_COLOUR}"><b>{html_visible(warning)}</b></p>' if warning else ""
    rows = "".join(_row(line) for line in lines)
    body = (
        f'{STYLE}<div class="gl-card {CARD_CLASS}"><b>Verdicts</b>'
        " <small>(each line links to its evidence below)</small>"
        f'{banner}<table style="width:100%">{COLUMNS}'
        "<tr><th>verdict</th><th>rubric line</th><th>points</th><th>why</th><th>reviewer</th></tr>"
        f'{rows}<tr><th></th><th>total</th><th colspan="3">{html_visible(total_text(total))}</th></tr></table>'
        f"{_awaiting(lines)}</div>"
    )
    return Html(body, card_text(lines, total, warning))


def card_text(lines: Sequence[CardLine], total: Total, warning: str | None = None) -> str:
    """The card as terminal lines (plain text; control characters shown as "?")."""
    out = [terminal_text(warning)] if warning else []
    for line in lines:
        flag = f" [{NEEDS_A_REVIEWER}]" if line.needs_human and not line.scored_by else ""
        out.append(
            terminal_text(
                f"{OUTCOME_SYMBOLS.get(line.outcome, line.outcome):<10} {line.title}"
                f" {line.points}: {reason(line.message)}{flag}"
            )
        )
    out.append(f"total: {total_text(total)}")
    return "\n".join(out)
