"""The reviewer's scoring panel (ipywidgets): works from the gradebook alone, blind until you have scored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from gradelib.display.card import SCORES_ANCHOR
from gradelib.display.render import STYLE, Html, badge
from gradelib.errors import GradebookMissing, GradelibError, RubricError, UnknownTakehome
from gradelib.gradebook import Gradebook, ScoreEntry, SubmissionRow, require, utc_now
from gradelib.gradebook.clarified import Clarification
from gradelib.gradebook.health import open_checked
from gradelib.gradebook.identity import ENV_REVEAL, NOT_IN_GRADEBOOK, hide_name, is_revealed, lookup, shown_name
from gradelib.intake import ingest
from gradelib.result import LineResult
from gradelib.review import labhooks
from gradelib.review.rubricview import clarification_text
from gradelib.review.scoretable import (
    ENV_HEADLESS,
    NEEDS_YOU,
    NEEDS_YOU_COLOUR,
    NO_CHOICE,
    current_table,
    meeting_records,
    score_table,
)
from gradelib.review.scoring import (
    ENV_REVIEWER,
    NO_RESULT_MESSAGE,
    NO_RESULT_OUTCOME,
    REVIEWER_NEEDED,
    ReviewKind,
    ReviewLine,
    error_messages,
    review_lines,
    save_scores,
    save_values,
)
from gradelib.safetext import clipped_text, html_visible
from gradelib.settings import current_settings
from gradelib.takehomes.clarifications import load_clarifications
from gradelib.takehomes.rubric import Rubric, default_rubric, load_rubric

__all__ = [
    "ENV_HEADLESS",
    "ENV_REVEAL",
    "ENV_REVIEWER",
    "NEEDS_YOU",
    "NOT_IN_GRADEBOOK",
    "NO_RESULT_MESSAGE",
    "NO_RESULT_OUTCOME",
    "PANEL_OUTPUT_KEY",
    "REVIEWER_NEEDED",
    "ReviewKind",
    "ReviewLine",
    "ScoringPanel",
    "current_table",
    "is_headless",
    "panel_for",
    "review_lines",
    "save_scores",
    "scoring_panel",
]

NOT_GRADED = "{label} of {takehome} is not in the gradebook {path}: grade it with gradelib grade to score it here."
SAVE_LABEL = "Save"
SAVE_LABEL_NO_REVIEWER = "Save (a reviewer name is needed)"
FOR_A_REVIEWER = "for a reviewer"  # a line the kit leaves to humans (stays, whoever has scored it)
ERROR_COLOUR = "#cf222e"
# Output metadata of a live panel: the pre-save hook (labhooks.py) keeps only its static table.
PANEL_OUTPUT_KEY = labhooks.PANEL_OUTPUT_KEY
PANEL_OUTPUT_METADATA = {PANEL_OUTPUT_KEY: {labhooks.PANEL_MARK: True}}
BLIND_NOTE = (
    "Other reviewers' scores on a line appear once you have saved yours for it"
    " (the lead can reveal them with GRADELIB_REVEAL=1)."
)


def is_headless(headless: bool | None = None) -> bool:
    """The explicit choice, else whether `GRADELIB_HEADLESS` is set to something true."""
    if headless is not None:
        return headless
    return current_settings().headless


def panel_for(
    gradebook: Path | str,
    takehome: str,
    label: str | Path | None,
    *,
    rubric: Rubric | str | Path | None = None,
    reviewer: str | None = None,
    headless: bool | None = None,
    reveal: bool | None = None,
) -> Any:
    """The scoring panel of one submission, from the gradebook alone: no grading, no sandbox run.

    `label` is the blind label ("Submission #3") or, for a report graded with
    `--reveal`, the candidate's name. The kit's lines are the gradebook's latest graded
    run; the rubric is the packaged one unless given (a Rubric or a rubric file).
    """
    try:
        require(gradebook)
    except GradebookMissing as exc:
        return _message(str(exc))
    if not label:
        return _message(f"set `name` (or `submission`) in the parameters cell to score a {takehome} submission")
    with Gradebook(Path(gradebook), readonly=True) as book:
        row = _find(book, takehome, str(label))
    if row is None:
        return _message(NOT_GRADED.format(label=label, takehome=takehome, path=gradebook))
    try:
        chosen = rubric if isinstance(rubric, Rubric) else _rubric(takehome, rubric)
    except (RubricError, UnknownTakehome) as exc:
        return _message(str(exc))
    return scoring_panel(gradebook, takehome, row.name, chosen, reviewer=reviewer, headless=headless, reveal=reveal)


def _find(book: Gradebook, takehome: str, label: str) -> SubmissionRow | None:
    """By blind label, by name, or by the name of a submission's folder or archive (a notebook's `submission`)."""
    for key in dict.fromkeys((label, ingest.submission_name(Path(label)))):
        row = lookup(book, takehome, key)
        if row is not None:
            return row
    return None


def _rubric(takehome: str, path: str | Path | None) -> Rubric:
    return load_rubric(Path(path), takehome=takehome) if path else default_rubric(takehome)


def _message(message: str) -> Html:
    return Html(f'{STYLE}<div class="gl-card">{_error_html(message)}</div>', clipped_text(message))


def scoring_panel(
    gradebook_path: Path | str,
    takehome: str,
    name: str,
    rubric: Rubric,
    *,
    reviewer: str | None = None,
    headless: bool | None = None,
    reveal: bool | None = None,
    lines: Sequence[LineResult] | None = None,
) -> Any:
    """The scoring panel for one submission; headless (papermill), the read-only table instead.

    A missing gradebook file is reported, not created: scores saved into a stray empty
    gradebook would be lost to the cohort. `reveal` (default: `GRADELIB_REVEAL`) shows
    the candidate's name and every reviewer's scores.
    """
    try:
        require(gradebook_path)
    except GradebookMissing as exc:
        return _message(str(exc))
    revealed = is_revealed(reveal)
    if is_headless(headless):
        with Gradebook(Path(gradebook_path), readonly=True) as gradebook:
            return current_table(gradebook, takehome, name, rubric, reveal=revealed, lines=lines, taken=utc_now())
    return ScoringPanel(gradebook_path, takehome, name, rubric, reviewer=reviewer, reveal=revealed, lines=lines)


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
    connection while it sits in a notebook. No widget holds the candidate's name, and the
    saved table shows a colleague's value on a line only once this reviewer saved theirs.
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
        lines: Sequence[LineResult] | None = None,
    ) -> None:
        with Gradebook(Path(gradebook_path), readonly=True) as gradebook:
            review = review_lines(rubric, lines if lines is not None else gradebook.latest_lines(takehome, name))
            shown = shown_name(gradebook, takehome, name, reveal)
            scores = gradebook.current_scores(takehome, name)
            try:
                notes = load_clarifications(rubric, gradebook)
            except RubricError:
                notes = {}  # an unreadable clarifications file never stops a reviewer scoring
        header = widgets.HTML(
            f'{STYLE}<div class="gl-card" id="{SCORES_ANCHOR}"><b>{html_visible(takehome)}: '
            f"{html_visible(clipped_text(shown, 120))}</b>, reviewer scoring."
            f' Lines marked <span style="color:{NEEDS_YOU_COLOUR}"><b>{html_visible(FOR_A_REVIEWER)}</b></span> await a'
            f" human; overriding the kit's result needs a comment. {html_visible('' if reveal else BLIND_NOTE)}</div>"
        )
        reviewer_text = widgets.Text(
            value=(reviewer if reviewer is not None else current_settings().reviewer).strip(),
            description="Reviewer",
            placeholder="your name",
            continuous_update=False,
        )
        line_rows = {line.line_id: _panel_row(line, notes.get(line.line_id, ())) for line in review}
        save_button = widgets.Button(description=SAVE_LABEL, button_style="primary", icon="save")
        status_html = widgets.HTML()
        saved_html = widgets.HTML()
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
        self._reveal = reveal
        self.reviewer_text, self.line_rows = reviewer_text, line_rows
        self.save_button, self.status_html, self.saved_html = save_button, status_html, saved_html
        self._show_saved(scores)
        self._prefill(scores)
        self._update_button()
        save_button.on_click(self.save)
        reviewer_text.observe(self._reviewer_changed, names="value")

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The widget, plus a static blind table: what a saved notebook keeps once the live panel is gone."""
        data: dict[str, Any] = dict(super()._repr_mimebundle_(**kwargs) or {})
        data["text/html"] = self.static_table().body
        return data, dict(PANEL_OUTPUT_METADATA)

    def static_table(self) -> Html:
        """The saved scores as a stored report shows them: no viewer, so nobody's values."""
        with Gradebook(self._gradebook_path, readonly=True) as gradebook:
            scores = gradebook.current_scores(self._takehome, self._name)
            resolutions, decision = meeting_records(gradebook, self._takehome, self._name)
        return score_table(
            self._takehome, self._shown, self._review, scores, reveal=self._reveal, taken=utc_now(),
            resolutions=resolutions, decision=decision,
        )  # fmt: skip

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
            with open_checked(self._gradebook_path, write=True) as gradebook:
                saved, errors = save_values(gradebook, self._takehome, self._name, reviewer, values, self._review)
                scores = gradebook.current_scores(self._takehome, self._name)
        except (GradelibError, OSError) as exc:
            message = hide_name(f"not saved: {exc}", self._name, self._shown)
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
            self.status_html.value = html_visible(status)
        self._show_saved(scores)
        return error_messages(errors, self._review)

    def refresh(self) -> None:
        """Reload this reviewer's current values and the saved table from the gradebook."""
        with Gradebook(self._gradebook_path, readonly=True) as gradebook:
            scores = gradebook.current_scores(self._takehome, self._name)
        self._prefill(scores)
        self._show_saved(scores)

    def _show_saved(self, scores: Mapping[tuple[str, str], ScoreEntry]) -> None:
        viewer = str(self.reviewer_text.value).strip()
        with Gradebook(self._gradebook_path, readonly=True) as gradebook:
            resolutions, decision = meeting_records(gradebook, self._takehome, self._name)
        table = score_table(
            self._takehome, self._shown, self._review, scores, viewer=viewer, reveal=self._reveal,
            resolutions=resolutions, decision=decision, anchored=False,
        )  # fmt: skip
        self.saved_html.value = table.body

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
            self.status_html.value = _error_html(hide_name(f"cannot load saved scores: {exc}", self._name, self._shown))


def _notes_html(notes: Sequence[Clarification]) -> str:
    """A line's clarifications from calibration meetings, as the panel shows them under its heading."""
    if not notes:
        return ""
    items = "".join(f"<li>{html_visible(clipped_text(clarification_text(n), 600))}</li>" for n in notes)
    return f'<div class="gl-clarified"><small><b>Clarified by a calibration meeting</b><ul>{items}</ul></small></div>'


def _panel_row(line: ReviewLine, notes: Sequence[Clarification] = ()) -> PanelRow:
    kit = html_visible(line.kit_value) if line.kit_value is not None else NO_CHOICE
    flag = f' &nbsp;<span style="color:{NEEDS_YOU_COLOUR}"><b>{html_visible(FOR_A_REVIEWER)}</b></span>'
    marker = flag if line.needs_human else ""
    message = f"<br><small>{html_visible(clipped_text(line.kit_message))}</small>" if line.kit_message else ""
    heading = widgets.HTML(
        f"<b>{html_visible(line.title)}</b> &nbsp;{badge(line.kit_outcome)} kit suggests <b>{kit}</b>{marker}{message}"
        f"{_notes_html(notes)}"
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


def _error_html(message: str) -> str:
    return f'<span style="color:{ERROR_COLOUR}">{html_visible(clipped_text(message))}</span>'
