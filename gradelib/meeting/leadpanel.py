"""The lead's meeting panel in the summary notebook (ipywidgets): resolve a line, clarify the rubric, decide.

It writes what `gradelib resolve`, `gradelib clarify` and `gradelib decide` write, checked the
same way, and says what it kept; re-running the summary shows the cohort table with it.
Headless (papermill, `gradelib summary`) it is a short note: a report records nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from gradelib.cohort.table import Cohort, is_refused
from gradelib.display.render import STYLE, Html
from gradelib.errors import GradelibError
from gradelib.gradebook import Gradebook
from gradelib.gradebook.health import open_checked
from gradelib.meeting import decisions, resolutions
from gradelib.meeting.agenda import agenda
from gradelib.review.scoringpanel import is_headless
from gradelib.safetext import clipped_text, html_visible
from gradelib.settings import current_settings

HEADLESS_NOTE = (
    "The meeting panel records resolutions and decisions when this notebook is open in JupyterLab"
    " (or use gradelib resolve, gradelib clarify and gradelib decide); a report records nothing."
)
AGENDA_CHOICES = 100  # the agenda's first items in the dropdown; any other line is picked below it
RERUN_NOTE = "re-run the summary to see the cohort table with it"
ERROR_COLOUR = "#cf222e"
OK_COLOUR = "#1a7f37"


def meeting_panel(
    cohort: Cohort,
    *,
    by: str | None = None,
    rubrics: Mapping[str, str | Path] | None = None,
    headless: bool | None = None,
) -> Any:
    """The meeting panel over a loaded cohort; headless, a note. `rubrics`: take-home -> rubric file to clarify."""
    if is_headless(headless):
        return _note()
    return MeetingPanel(cohort, by=by, rubrics=rubrics)


def _note() -> Html:
    return Html(f'{STYLE}<div class="gl-card"><i>{html_visible(HEADLESS_NOTE)}</i></div>', HEADLESS_NOTE)


def _submission_label(takehome: str, label: str, name: str) -> str:
    return f"{takehome} {label} ({clipped_text(name, 60)})"


class MeetingPanel(widgets.VBox):
    """Who records; an agenda item (or any line) to resolve with a value and a reason; a decision per candidate."""

    def __init__(
        self, cohort: Cohort, *, by: str | None = None, rubrics: Mapping[str, str | Path] | None = None
    ) -> None:
        self._cohort, self._rubrics = cohort, dict(rubrics or {})
        graded = [e for e in cohort.entries if not is_refused(e)]
        keys = [(e.submission.takehome, e.submission.blind_label) for e in graded]
        names = {(e.submission.takehome, e.submission.blind_label): e.submission.name for e in graded}
        choices = [(_submission_label(t, label, names[(t, label)]), (t, label)) for t, label in keys]
        items = agenda(cohort)[:AGENDA_CHOICES]
        agenda_choices = [("(pick a line below)", None)] + [
            (f"{i.takehome} {i.label} · {i.title}: " + ", ".join(f"{r.reviewer} {r.value}" for r in i.ratings), i)
            for i in items
        ]
        self.by = widgets.Text(
            value=(by if by is not None else current_settings().reviewer).strip(),
            description="Lead",
            placeholder="who records it",
        )
        wide = widgets.Layout(width="48em")
        self.item = widgets.Dropdown(options=agenda_choices, value=None, description="Agenda", layout=wide)
        self.submission = widgets.Dropdown(options=choices, value=None, description="Submission", layout=wide)
        self.line = widgets.Dropdown(options=[], description="Line", layout=wide)
        self.value = widgets.Combobox(options=[], description="Agreed", placeholder="a tier, or points")
        self.why = widgets.Textarea(placeholder="why the meeting agreed this", rows=2, layout=wide)
        self.clarify = widgets.Checkbox(value=False, description="also add it to the rubric as a clarification")
        self.resolve_button = widgets.Button(description="Resolve", button_style="primary", icon="check")
        self.decide_submission = widgets.Dropdown(options=choices, value=None, description="Candidate", layout=wide)
        self.decision = widgets.Dropdown(options=decisions.decision_choices(), value=None, description="Decision")
        self.decide_why = widgets.Textarea(placeholder="the reason for the decision", rows=2, layout=wide)
        self.decide_button = widgets.Button(description="Decide", button_style="primary", icon="gavel")
        self.status = widgets.HTML()
        super().__init__(
            children=[
                self.by,
                widgets.HTML("<b>Resolve a line</b> (the agreed value replaces the reviewers' mean)"),
                self.item,
                self.submission,
                self.line,
                self.value,
                self.why,
                self.clarify,
                self.resolve_button,
                widgets.HTML("<b>Decide</b>"),
                self.decide_submission,
                self.decision,
                self.decide_why,
                self.decide_button,
                self.status,
            ]
        )
        self.item.observe(self._item_picked, names="value")
        self.submission.observe(self._submission_picked, names="value")
        self.line.observe(self._line_picked, names="value")
        self.resolve_button.on_click(self.resolve)
        self.decide_button.on_click(self.decide)

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The widget, plus the headless note: what a saved notebook shows once the live panel is gone."""
        data: dict[str, Any] = dict(super()._repr_mimebundle_(**kwargs) or {})
        data["text/html"] = _note().body
        return data, {}

    def _item_picked(self, change: Any) -> None:
        item = change["new"]
        if item is not None:
            self.submission.value = (item.takehome, item.label)
            self.line.value = item.line_id

    def _submission_picked(self, change: Any) -> None:
        picked = change["new"]
        lines = self._cohort.rubric_lines.get(picked[0], ()) if picked else ()
        self.line.options = [(line.title, line.id) for line in lines]
        self.line.value = None

    def _line_picked(self, change: Any) -> None:
        picked = self.submission.value
        line = next((x for x in self._cohort.rubric_lines.get(picked[0], ()) if x.id == change["new"]), None)
        self.value.options = list(line.tiers) if line is not None else []
        self.value.value = ""

    def _say(self, message: str, ok: bool) -> None:
        colour = OK_COLOUR if ok else ERROR_COLOUR
        self.status.value = f'<span style="color:{colour}">{html_visible(clipped_text(message, 600))}</span>'

    def resolve(self, _button: Any = None) -> str:
        """Record the resolution (and the clarification when ticked); returns what the panel says."""
        if self.submission.value is None or self.line.value is None:
            self._say("pick a submission and a line first", ok=False)
            return str(self.status.value)
        takehome, label = self.submission.value

        def work(book: Gradebook) -> str:
            rubric = resolutions.rubric_for(takehome, self._rubrics.get(takehome))
            record = resolutions.resolve(
                book, takehome, label, self.line.value, str(self.value.value), str(self.why.value),
                str(self.by.value), rubric=rubric,
            )  # fmt: skip
            said = f"{takehome} {label} {record.line_id}: resolved as {record.value}"
            if self.clarify.value:
                done = resolutions.clarify(book, takehome, label, record.line_id, rubric=rubric)
                said += f"; clarification {'added to' if done.added else 'already in'} the gradebook's rubric notes"
            return said

        return self._record(work)

    def decide(self, _button: Any = None) -> str:
        """Record the decision for the chosen candidate; returns what the panel says."""
        if self.decide_submission.value is None or self.decision.value is None:
            self._say("pick a candidate and a decision first", ok=False)
            return str(self.status.value)
        takehome, label = self.decide_submission.value

        def work(book: Gradebook) -> str:
            why, by = str(self.decide_why.value), str(self.by.value)
            record = decisions.decide(book, takehome, label, str(self.decision.value), why, by)
            return f"{takehome} {label}: {record.decision}"

        return self._record(work)

    def _record(self, work: Callable[[Gradebook], str]) -> str:
        """Run one recording against the gradebook and say what it kept, or why it kept nothing."""
        try:
            with open_checked(self._cohort.gradebook, write=True) as book:
                said = work(book)
        except (GradelibError, OSError) as exc:
            self._say(f"not recorded: {exc}", ok=False)
            return str(self.status.value)
        self._say(f"{said}; {RERUN_NOTE}", ok=True)
        return str(self.status.value)
