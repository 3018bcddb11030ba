"""Reviewer scoring: the ipywidgets panel, its Save logic, and a safe read-only table of saved scores."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import ipywidgets as widgets

from gradelib.display.render import STYLE, Html, badge, esc
from gradelib.display.safetext import plain
from gradelib.errors import CommentRequired, GradelibError
from gradelib.gradebook import Gradebook
from gradelib.review.rubric import UNDECIDED, Rubric, RubricLine

ReviewKind = Literal["tiers", "points"]
ENV_REVIEWER = "GRADELIB_REVIEWER"
ENV_HEADLESS = "GRADELIB_HEADLESS"  # the batch sets it for papermill runs
FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})
NO_RESULT_OUTCOME = "unverified"  # a rubric line the kit has no stored result for
NO_RESULT_MESSAGE = "the kit has no result for this line yet"
NOT_IN_GRADEBOOK = "Submission (not in the gradebook)"
NO_GRADEBOOK = "No gradebook at {path}: grade the cohort first (gradelib grade), or pass the right path."
REVIEWER_NEEDED = f"a reviewer name is needed: type it above or set {ENV_REVIEWER}"
SAVE_LABEL = "Save"
SAVE_LABEL_NO_REVIEWER = "Save (a reviewer name is needed)"
NEEDS_YOU = "needs you"
FOR_A_REVIEWER = "for a reviewer"  # a line the kit leaves to humans (stays, whoever has scored it)
NO_CHOICE = "-"
ERROR_COLOUR = "#cf222e"
NEEDS_YOU_COLOUR = "#8250df"


@dataclass(frozen=True)
class ReviewLine:
    """One rubric line as the reviewer scores it: the choices and the kit's suggestion."""

    line_id: str
    title: str
    kind: ReviewKind
    choices: tuple[str, ...]  # tier names, or points "0".."max" as text
    kit_value: str | None  # the kit's tier, or its points as text; None when it has none
    kit_outcome: str
    needs_human: bool
    descriptions: Mapping[str, str] = field(default_factory=dict, hash=False)
    kit_message: str = ""

    def label(self, choice: str) -> str:
        """A choice as the dropdown shows it: the tier's description, and which one the kit suggests."""
        if self.kind == "points":
            text = f"{choice} / {self.choices[-1]}"
        else:
            text = f"{choice}: {self.descriptions[choice]}" if choice in self.descriptions else choice
        return f"{text} (kit)" if choice == self.kit_value else text


def review_lines(rubric: Rubric, lines: Sequence[Any]) -> list[ReviewLine]:
    """Every rubric line with the kit's result (a `LineResult`, gradebook `LineRow` or dict) beside it.

    A line needs a human when the kit left it undecided (needs_review, unverified) or has
    no suggestion for it (on a tiers rubric: no tier). The other lines are listed too: a
    reviewer may override them, with a comment.
    """
    by_id = {str(_get(line, "line_id", "id")): line for line in lines}
    return [_review_line(rubric_line, by_id.get(rubric_line.id)) for rubric_line in rubric.lines]


def _review_line(line: RubricLine, kit: Any | None) -> ReviewLine:
    if kit is None:
        outcome, message, tier, points = NO_RESULT_OUTCOME, NO_RESULT_MESSAGE, None, None
    else:
        outcome = str(_get(kit, "outcome"))
        message = str(_get(kit, "message") or "")
        tier, points = _get(kit, "tier"), _get(kit, "points")
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
        kit_outcome=outcome,
        needs_human=outcome in UNDECIDED or kit_value is None,
        descriptions=dict(line.descriptions),
        kit_message=message,
    )


def _get(record: Any, *names: str) -> Any:
    """The first of `names` a record has, as attribute or key; None when it has none."""
    for name in names:
        if isinstance(record, Mapping):
            if name in record:
                return record[name]
        elif hasattr(record, name):
            return getattr(record, name)
    return None


def _point_choices(maximum: float) -> tuple[str, ...]:
    whole = [str(n) for n in range(int(math.floor(maximum)) + 1)]
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
    return _messages(_save(gradebook, takehome, name, reviewer, values, review)[1], review)


def _messages(errors: Mapping[str, str], review: Sequence[ReviewLine]) -> list[str]:
    titles = {line.line_id: line.title for line in review}
    return [f"{titles.get(line_id, line_id)}: {message}" if line_id else message for line_id, message in errors.items()]


def _save(
    gradebook: Gradebook,
    takehome: str,
    name: str,
    reviewer: str,
    values: Mapping[str, tuple[str, str]],
    review: Sequence[ReviewLine],
) -> tuple[int, dict[str, str]]:
    """(how many scores were saved, line id -> why not; key "" for the whole form)."""
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
            errors[line.line_id] = _blind(str(getattr(exc, "reason", exc)), name, "this submission")
        else:
            saved += 1
    return saved, errors


def current_table(
    gradebook: Gradebook,
    takehome: str,
    name: str,
    rubric: Rubric,
    *,
    reveal: bool = False,
    lines: Sequence[Any] | None = None,
) -> Html:
    """Read-only table of the kit's suggestion and each reviewer's current score, comment and time.

    Blind: the submission is named by its blind label ("Submission #3"), never by the
    candidate's name, unless `reveal` is true. `lines` are the kit's results when the
    caller has fresher ones than the gradebook (a notebook grading right now).
    """
    review = review_lines(rubric, lines if lines is not None else gradebook.latest_lines(takehome, name))
    scores = gradebook.current_scores(takehome, name)
    return _table(takehome, _shown_name(gradebook, takehome, name, reveal), review, scores)


def _shown_name(gradebook: Gradebook, takehome: str, name: str, reveal: bool) -> str:
    if reveal:
        return name
    row = gradebook.submission(takehome, name)
    return str(row.blind_label) if row is not None else NOT_IN_GRADEBOOK


def _table(takehome: str, shown: str, review: Sequence[ReviewLine], scores: Mapping[tuple[str, str], Any]) -> Html:
    reviewers = sorted({reviewer for _, reviewer in scores})
    known = {line.line_id for line in review}
    extra = sorted({line_id for line_id, _ in scores if line_id not in known})  # lines the rubric no longer has
    head = "".join(f"<th>{esc(plain(reviewer, 80))}</th>" for reviewer in reviewers)
    rows, text = [], [f"{takehome}: {shown}: reviewer scores"]
    for line in review:
        cells = "".join(f"<td>{_score_cell(scores.get((line.line_id, r)), line.kit_value)}</td>" for r in reviewers)
        waiting = line.needs_human and not any((line.line_id, r) in scores for r in reviewers)
        marker = f' <span style="color:{NEEDS_YOU_COLOUR}"><b>{esc(NEEDS_YOU)}</b></span>' if waiting else ""
        rows.append(f"<tr><td>{esc(line.title)}{marker}</td><td>{_kit_cell(line)}</td>{cells}</tr>")
        saved = ", ".join(
            f"{plain(r, 80)}={plain(scores[(line.line_id, r)].value, 40)}"
            for r in reviewers
            if (line.line_id, r) in scores
        )
        text.append(f"  {line.title}: kit {line.kit_value or NO_CHOICE} ({line.kit_outcome}); {saved or NEEDS_YOU}")
    for line_id in extra:
        cells = "".join(f"<td>{_score_cell(scores.get((line_id, r)), None)}</td>" for r in reviewers)
        rows.append(f"<tr><td>{esc(plain(line_id, 80))}</td><td>(not in this rubric)</td>{cells}</tr>")
    empty = "" if scores else "<p>No reviewer scores saved yet.</p>"
    body = (
        f'{STYLE}<div class="gl-card"><b>{esc(takehome)}: {esc(plain(shown, 120))}</b>, reviewer scores{empty}'
        f"<table><tr><th>line</th><th>kit suggests</th>{head}</tr>{''.join(rows)}</table></div>"
    )
    return Html(body, "\n".join(text))


def _kit_cell(line: ReviewLine) -> str:
    value = f" <b>{esc(line.kit_value)}</b>" if line.kit_value is not None else f" {NO_CHOICE}"
    message = f"<br><small>{esc(plain(line.kit_message))}</small>" if line.kit_message else ""
    return f"{badge(line.kit_outcome)}{value}{message}"


def _score_cell(entry: Any | None, kit_value: str | None) -> str:
    if entry is None:
        return ""
    value = str(entry.value)
    override = " (overrides the kit)" if kit_value is not None and value != kit_value else ""
    comment = str(entry.comment or "")
    said = f'<div style="white-space:pre-wrap">{esc(plain(comment, 2000))}</div>' if comment else ""
    when = _when(entry.created_at)
    return f"<b>{esc(plain(value, 40))}</b>{esc(override)}{said}<small>{esc(when)}</small>"


def _when(created_at: Any) -> str:
    """A stored ISO 8601 time as 'YYYY-MM-DD HH:MM', in UTC when it has a zone."""
    try:
        moment = datetime.fromisoformat(str(created_at))
    except ValueError:
        return plain(created_at, 40)
    if moment.utcoffset() is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def is_headless(headless: bool | None = None) -> bool:
    """The explicit choice, else whether `GRADELIB_HEADLESS` is set to something true."""
    if headless is not None:
        return headless
    return os.environ.get(ENV_HEADLESS, "").strip().lower() not in FALSE_WORDS


def scoring_panel(
    gradebook_path: Path | str,
    takehome: str,
    name: str,
    rubric: Rubric,
    *,
    reviewer: str | None = None,
    headless: bool | None = None,
    reveal: bool = False,
    lines: Sequence[Any] | None = None,
) -> Any:
    """The scoring panel for one submission; headless (papermill), the read-only table instead.

    A missing gradebook file is reported, not created: scores saved into a stray empty
    gradebook would be lost to the cohort.
    """
    if not Path(gradebook_path).is_file():
        message = NO_GRADEBOOK.format(path=gradebook_path)
        return Html(f'{STYLE}<div class="gl-card">{_error_html(message)}</div>', plain(message))
    if is_headless(headless):
        with Gradebook(Path(gradebook_path)) as gradebook:
            return current_table(gradebook, takehome, name, rubric, reveal=reveal, lines=lines)
    return ScoringPanel(gradebook_path, takehome, name, rubric, reviewer=reviewer, reveal=reveal, lines=lines)


@dataclass(frozen=True)
class PanelRow:
    """The widgets of one line in the panel."""

    line: ReviewLine
    choice: Any  # widgets.Dropdown
    comment: Any  # widgets.Textarea
    error: Any  # widgets.HTML
    box: Any  # widgets.VBox


class ScoringPanel(widgets.VBox):
    """A VBox: blind header, reviewer name, one row per rubric line, Save, and what is already saved.

    The gradebook is opened for each load or save and closed again, so the panel holds no
    connection while it sits in a notebook. No widget holds the candidate's name.
    """

    def __init__(
        self,
        gradebook_path: Path | str,
        takehome: str,
        name: str,
        rubric: Rubric,
        *,
        reviewer: str | None = None,
        reveal: bool = False,
        lines: Sequence[Any] | None = None,
    ) -> None:
        with Gradebook(Path(gradebook_path)) as gradebook:
            review = review_lines(rubric, lines if lines is not None else gradebook.latest_lines(takehome, name))
            shown = _shown_name(gradebook, takehome, name, reveal)
            scores = gradebook.current_scores(takehome, name)
        header = widgets.HTML(
            f'{STYLE}<div class="gl-card"><b>{esc(takehome)}: {esc(plain(shown, 120))}</b>, reviewer scoring.'
            f' Lines marked <span style="color:{NEEDS_YOU_COLOUR}"><b>{esc(FOR_A_REVIEWER)}</b></span> await a'
            " human; overriding the kit's result needs a comment.</div>"
        )
        reviewer_text = widgets.Text(
            value=(reviewer if reviewer is not None else os.environ.get(ENV_REVIEWER, "")).strip(),
            description="Reviewer",
            placeholder="your name",
            continuous_update=False,
        )
        line_rows = {line.line_id: _panel_row(line) for line in review}
        save_button = widgets.Button(description=SAVE_LABEL, button_style="primary", icon="save")
        status_html = widgets.HTML()
        saved_html = widgets.HTML(_table(takehome, shown, review, scores).body)
        super().__init__(
            children=[
                header,
                reviewer_text,
                *(row.box for row in line_rows.values()),
                widgets.HBox([save_button, status_html]),
                widgets.HTML("<b>Already saved</b>"),
                saved_html,
            ]
        )
        self._gradebook_path = Path(gradebook_path)
        self._takehome, self._name, self._shown, self._review = takehome, name, shown, review
        self.reviewer_text, self.line_rows = reviewer_text, line_rows
        self.save_button, self.status_html, self.saved_html = save_button, status_html, saved_html
        self._prefill(scores)
        self._update_button()
        save_button.on_click(self.save)
        reviewer_text.observe(self._reviewer_changed, names="value")

    def save(self, _button: Any = None) -> list[str]:
        """Save changed and new values; show errors next to their lines; refresh the saved table."""
        for row in self.line_rows.values():
            row.error.value = ""
        reviewer = str(self.reviewer_text.value).strip()
        if not reviewer:
            self.status_html.value = _error_html(REVIEWER_NEEDED)
            return [REVIEWER_NEEDED]
        values = {lid: (row.choice.value or "", str(row.comment.value)) for lid, row in self.line_rows.items()}
        try:
            with Gradebook(self._gradebook_path) as gradebook:
                saved, errors = _save(gradebook, self._takehome, self._name, reviewer, values, self._review)
                scores = gradebook.current_scores(self._takehome, self._name)
        except (GradelibError, OSError) as exc:
            message = _blind(f"not saved: {exc}", self._name, self._shown)
            self.status_html.value = _error_html(message)
            return [message]
        for line_id, message in errors.items():
            if line_id in self.line_rows:
                self.line_rows[line_id].error.value = _error_html(message)
        status = f"saved {saved} score(s)" if saved else "nothing new to save"
        if errors:
            status += f"; {len(errors)} not saved (see the marked lines)"
            self.status_html.value = _error_html(status)
        else:
            self.status_html.value = esc(status)
        self.saved_html.value = _table(self._takehome, self._shown, self._review, scores).body
        return _messages(errors, self._review)

    def refresh(self) -> None:
        """Reload this reviewer's current values and the saved table from the gradebook."""
        with Gradebook(self._gradebook_path) as gradebook:
            scores = gradebook.current_scores(self._takehome, self._name)
        self._prefill(scores)
        self.saved_html.value = _table(self._takehome, self._shown, self._review, scores).body

    def _prefill(self, scores: Mapping[tuple[str, str], Any]) -> None:
        """Each line at this reviewer's current value and comment, else at the kit's suggestion."""
        reviewer = str(self.reviewer_text.value).strip()
        for line_id, row in self.line_rows.items():
            entry = scores.get((line_id, reviewer))
            if reviewer and entry is not None and entry.value in row.line.choices:
                row.choice.value, row.comment.value = entry.value, str(entry.comment or "")
            else:
                row.choice.value, row.comment.value = row.line.kit_value, ""
            row.error.value = ""

    def _update_button(self) -> None:
        named = bool(str(self.reviewer_text.value).strip())
        self.save_button.description = SAVE_LABEL if named else SAVE_LABEL_NO_REVIEWER
        self.save_button.disabled = not named

    def _reviewer_changed(self, _change: Any) -> None:
        self._update_button()
        try:
            self.refresh()
        except (GradelibError, OSError) as exc:
            self.status_html.value = _error_html(_blind(f"cannot load saved scores: {exc}", self._name, self._shown))


def _panel_row(line: ReviewLine) -> PanelRow:
    kit = esc(line.kit_value) if line.kit_value is not None else NO_CHOICE
    flag = f' &nbsp;<span style="color:{NEEDS_YOU_COLOUR}"><b>{esc(FOR_A_REVIEWER)}</b></span>'
    marker = flag if line.needs_human else ""
    message = f"<br><small>{esc(plain(line.kit_message))}</small>" if line.kit_message else ""
    heading = widgets.HTML(
        f"<b>{esc(line.title)}</b> &nbsp;{badge(line.kit_outcome)} kit suggests <b>{kit}</b>{marker}{message}"
    )
    choice = widgets.Dropdown(
        options=[(line.label(value), value) for value in line.choices],
        value=None,
        description="Score",
        layout=widgets.Layout(width="26em"),
    )
    comment = widgets.Textarea(
        placeholder="comment (required when you override the kit)",
        rows=2,
        layout=widgets.Layout(width="36em"),
    )
    error = widgets.HTML()
    box = widgets.VBox(
        [heading, widgets.HBox([choice, comment]), error],
        layout=widgets.Layout(border="1px solid #d0d7de", padding="4px", margin="4px 0"),
    )
    return PanelRow(line=line, choice=choice, comment=comment, error=error, box=box)


def _blind(text: str, name: str, shown: str) -> str:
    """`text` with the candidate's name replaced by how the panel shows the submission."""
    return text.replace(name, shown) if name and name != shown else text


def _error_html(message: str) -> str:
    return f'<span style="color:{ERROR_COLOUR}">{esc(plain(message))}</span>'
