"""What notebook cells call: open a grading lazily, show its lines from the stored results or a fresh run.

A report opened by a reviewer shows the batch's stored results (the JSON result the batch
wrote, and the views beside it): no sandbox run, so every cell answers in a moment. The
candidate's code runs again only when the notebook asks for it (`rerun = True`), or when
there are no stored results (a notebook opened on a new submission). Results are written
only when asked (`save = True`, which the batch sets): a reviewer's session never
overwrites the batch's results.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
import weakref
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gradelib import safetext, takehomes
from gradelib.display import render
from gradelib.errors import GradelibError
from gradelib.intake import ingest
from gradelib.result import LineResult, Report
from gradelib.review.rubricview import tier_rows
from gradelib.review.verdicts import report_card, saved_scores
from gradelib.takehomes.contract import Grading, TakeHome
from gradelib.takehomes.rubric import Rubric, default_rubric, load_rubric

VIEWS_SUFFIX = ".views.json"  # beside the JSON result: the take-home's views (`Grading.views()`)
STORED = "stored"
PACKAGED = "the take-home's own rubric"
LIVE = "live"


class NotebookGrading:
    """A grading opened for a notebook: stored results, or the take-home's grading run on first use."""

    def __init__(
        self,
        takehome: str,
        submission: str | Path | None,
        *,
        name: str | None = None,
        rubric: str | Path | None = None,
        result_path: str | Path | None = None,
        rerun: bool = False,
        save: bool = False,
    ) -> None:
        self.takehome = takehome
        self.plugin: TakeHome = takehomes.load(takehome)
        self.rubric: Rubric = load_rubric(Path(rubric), takehome=takehome) if rubric else default_rubric(takehome)
        self._own_rubric = bool(rubric)
        self.submission = Path(submission) if submission else None
        self.result_path = Path(result_path) if result_path else None
        self.save = save
        self._stored: Report | None = None
        self._views: dict[str, Any] = {}
        if not rerun and self.result_path is not None and self.result_path.is_file():
            self._stored = report_from_dict(load_report(self.result_path))
            self._views = _load_views(self.result_path)
        if self._stored is None and self.submission is None:
            raise GradelibError(
                f"set `submission` in the parameters cell to the folder or archive to grade ({takehome})"
            )
        fallback = ingest.submission_name(self.submission) if self.submission else "submission"
        self.name = name or (self._stored.submission if self._stored else fallback)
        self._grading: Grading | None = None
        self._unpacked: Path | None = None
        self._report: Report | None = None
        self._live_views: dict[str, Any] | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._started: float | None = None  # when the live grading began (its setup included)
        self._graded: tuple[datetime, float] | None = None  # when the live report was done, and its seconds

    @property
    def mode(self) -> str:
        """STORED when the cells show the batch's results, LIVE when they run the checks."""
        return STORED if self._stored is not None else LIVE

    @property
    def grading(self) -> Grading:
        """The take-home's grading object, opened (and its sandbox runs started) on first use."""
        if self._grading is None:
            self._grading = self._open()
        return self._grading

    def _open(self) -> Grading:
        self._started = time.monotonic()
        if self.submission is None:
            raise GradelibError(f"no submission to run: set `submission` in the parameters cell ({self.takehome})")
        path = self.submission
        if not path.is_dir():
            self._unpacked = Path(tempfile.mkdtemp(prefix="gradelib-nb-"))
            with ingest.open_submission(path) as sub:
                path = self._unpacked / sub.name
                shutil.copytree(sub.path, path, symlinks=True)
        grading = self.plugin.grading(path, name=self.name, rubric=self.rubric)
        grading.__enter__()
        # A failing cell never reaches the last cell's close(): clean up when the kernel exits anyway.
        self._finalizer = weakref.finalize(self, _cleanup, grading, self._unpacked)
        grading.prefetch()  # every sandbox run now, side by side; the cells then show them
        return grading

    def title(self, line_id: str) -> str:
        """The rubric's title for a line."""
        try:
            return self.rubric.line(line_id).title
        except KeyError:
            return line_id

    def line(self, line_id: str) -> LineResult:
        """One line's result: the stored one, else the take-home's check run now."""
        if self._stored is not None:
            try:
                return self._stored.line(line_id)
            except KeyError:
                return LineResult(line_id, "unverified", "the stored results have no such line")
        return self.grading.line(line_id)

    def show(self, line: LineResult | str) -> render.Html:
        """A line's card (by id, or a result), titled from the rubric; a judgment line shows the note."""
        result = self.line(line) if isinstance(line, str) else line
        if result.id in self.plugin.note_lines:
            return render.note_card(result, self.title(result.id), self.plugin.labels)
        return render.line_html(result, self.title(result.id), self.plugin.labels)

    def header(self) -> render.Html:
        """Who is graded, with which rubric, and what was done and when: the checks run (now, or by the batch)
        or the batch's stored results shown. Live, it runs every check first, so it can say so in the past."""
        if self._stored is not None:
            stored = _utc(datetime.fromtimestamp(self.result_path.stat().st_mtime, UTC)) if self.result_path else "?"
            done = (
                f"Showing the kit's <b>stored results</b> of the batch's grading ({stored}): no candidate code runs"
                " here. To run the checks again, set <code>rerun = True</code> in the parameters and run all cells."
            )
        else:
            self.report()
            when, seconds = self._graded or (datetime.now(UTC), 0.0)
            digest = ingest.digest(self.submission)[:16] if self.submission and self.submission.exists() else "?"
            done = (
                f"Graded {_utc(when)}: the kit set this submission up and ran every check in the sandbox"
                f" (digest <code>{safetext.html_visible(digest)}</code>) in {seconds:.0f} s."
            )
            if self.save and self.result_path is not None:
                done += (
                    " The results are stored beside this report: reopened, it shows them and runs nothing"
                    " (<code>rerun = True</code> in the parameters runs the checks again)."
                )
            else:
                done += " Not stored (<code>save = False</code>): the batch's stored results are unchanged."
        # the packaged rubric by name (its path is the machine's); a team's own file by its path
        rubric = f"rubric <code>{safetext.html_visible(self.rubric.source)}</code>" if self._own_rubric else PACKAGED
        return render.Html(
            f"{render.STYLE}<div class='gl-card'><b>{safetext.html_visible(self.takehome)}</b>: "
            f"{safetext.html_visible(self.name)}"
            f" &middot; {rubric}<br>{done}</div>",
            f"{self.takehome}: {self.name} ({self.mode})",
        )

    def verdicts(self, gradebook: str | Path | None = None) -> render.Html:
        """The card a report opens with: each line's verdict, points and reason linked to its evidence, the
        total, and what awaits a reviewer (who has scored it, from `gradebook`; never the values)."""
        labels = (self.name, str(self.submission) if self.submission else "")
        return report_card(self.report(), self.rubric, saved_scores(gradebook, self.takehome, labels))

    def environment_section(self) -> dict[str, Any]:
        """What the submission declared and the kit installed."""
        if self._stored is not None:
            return dict(self._stored.environment)
        section: dict[str, Any] = self.grading.environment_section()
        return section

    def show_environment(self) -> render.Html:
        """What the submission declared, what the kit installed (name, version), what it refused."""
        return render.environment_html(self.environment_section())

    def view(self, name: str) -> Any:
        """One of the take-home's views (`Grading.views()`): stored with the results, else from the runs;
        None when there is no such view."""
        if self._stored is not None:
            return self._views.get(name)
        return self.views().get(name)

    def views(self) -> dict[str, Any]:
        """Every view of the take-home's grading, made once from the runs."""
        if self._live_views is None:
            self._live_views = dict(self.grading.views())
        return self._live_views

    def report(self) -> Report:
        """Every line, in rubric order; written to `result_path` (with the views) only when `save` asks for it."""
        if self._report is None:
            if self._stored is not None:
                self._report = self._stored
            else:
                self._report = self.grading.report()
                started = self._started if self._started is not None else time.monotonic()
                self._graded = (datetime.now(UTC), time.monotonic() - started)
                if self.save:
                    save_report(self._report, self.result_path, self.views())
        return self._report

    def show_report(self, report: Report | None = None) -> render.Html:
        """The final score table."""
        return render.report_html(report or self.report(), {line.id: line.title for line in self.rubric.lines})

    def tier_table(self) -> render.Html:
        """Per line: its tiers, the kit's suggestion, and whether it awaits a reviewer (tier rubrics)."""
        rows = tier_rows(self.report(), self.rubric)
        return render.Html(f"{render.STYLE}<div class='gl-card'>{render.table_html(rows)}</div>")

    def close(self) -> None:
        """Remove the sandbox workspace and any unpacked archive (nothing to do for stored results)."""
        if self._finalizer is not None:
            self._finalizer()


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _cleanup(grading: Grading, unpacked: Path | None) -> None:
    grading.__exit__(None, None, None)
    if unpacked:
        shutil.rmtree(unpacked, ignore_errors=True)


def open_grading(
    takehome: str,
    submission: str | Path | None,
    *,
    name: str | None = None,
    rubric: str | Path | None = None,
    result_path: str | Path | None = None,
    rerun: bool = False,
    save: bool = False,
) -> NotebookGrading:
    """Open one submission's grading for a notebook: stored results unless `rerun`; nothing runs until a cell asks."""
    return NotebookGrading(
        takehome, submission, name=name, rubric=rubric, result_path=result_path, rerun=rerun, save=save
    )


def views_path(result_path: Path) -> Path:
    """Where the notebook's views are stored beside a JSON result."""
    return result_path.with_name(result_path.stem + VIEWS_SUFFIX)


def save_report(report: Report, path: str | Path | None, views: dict[str, Any] | None = None) -> Path | None:
    """Write the report's JSON (and the views beside it) where the batch asked (nothing when `path` is None)."""
    if path is None:
        return None
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if views:
        views_path(target).write_text(json.dumps(views, default=str) + "\n", encoding="utf-8")
    target.write_text(report.to_json(indent=2) + "\n", encoding="utf-8")
    return target


def load_report(path: Path) -> dict[str, Any]:
    """A saved report as plain data."""
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data


def _load_views(result_path: Path) -> dict[str, Any]:
    try:
        data = json.loads(views_path(result_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def report_from_dict(data: dict[str, Any]) -> Report:
    """A Report from its stable JSON shape."""
    lines = tuple(
        LineResult(
            id=str(line["id"]),
            outcome=line["outcome"],
            message=str(line.get("message", "")),
            evidence=dict(line.get("evidence") or {}),
            points=line.get("points"),
            max_points=line.get("max_points"),
            tier=line.get("tier"),
        )
        for line in data.get("lines", ())
    )
    return Report(
        str(data.get("takehome", "")),
        str(data.get("submission", "")),
        lines,
        dict(data.get("facts") or {}),
        dict(data.get("environment") or {}),
    )
