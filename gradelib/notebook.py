"""What notebook cells call: open a grading, show its lines and report, save the result."""

from __future__ import annotations

import json
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any

from gradelib import takehomes
from gradelib.display import render
from gradelib.errors import GradelibError
from gradelib.intake import ingest
from gradelib.result import LineResult, Report
from gradelib.review.rubric import Rubric, default_rubric, load_rubric


class NotebookGrading:
    """A grading opened for a notebook: the take-home's grading object plus display helpers."""

    def __init__(
        self, takehome: str, submission: str | Path | None, *, name: str | None = None, rubric: str | Path | None = None
    ) -> None:
        if not submission:
            raise GradelibError(
                f"set `submission` in the parameters cell to the folder or archive to grade ({takehome})"
            )
        self.takehome = takehome
        self.rubric: Rubric = load_rubric(Path(rubric), takehome=takehome) if rubric else default_rubric(takehome)
        path = Path(submission)
        self._unpacked: Path | None = None
        if not path.is_dir():
            self._unpacked = Path(tempfile.mkdtemp(prefix="gradelib-nb-"))
            with ingest.open_submission(path) as sub:
                path = self._unpacked / sub.name
                shutil.copytree(sub.path, path, symlinks=True)
        self.name = name or ingest.submission_name(Path(submission))
        self.path = path
        plugin = takehomes.load(takehome)
        self.grading: Any = plugin.grading(path, name=self.name, rubric=self.rubric)
        self.grading.__enter__()
        self.grading.prefetch()  # every sandbox run now, side by side; the cells then show them
        # A failing cell never reaches the last cell's close(): clean up when the kernel exits anyway.
        self._finalizer = weakref.finalize(self, _cleanup, self.grading, self._unpacked)

    def __getattr__(self, item: str) -> Any:
        return getattr(self.grading, item)

    def title(self, line_id: str) -> str:
        """The rubric's title for a line."""
        try:
            return self.rubric.line(line_id).title
        except KeyError:
            return line_id

    def show(self, line: LineResult) -> render.Html:
        """A line's card, titled from the rubric."""
        return render.line_html(line, self.title(line.id))

    def header(self) -> render.Html:
        """Who is graded, from where, with which rubric."""
        return render.Html(
            f"{render.STYLE}<div class='gl-card'><b>{render.esc(self.takehome)}</b>: "
            f"{render.esc(self.name)}<br>digest <code>{render.esc(ingest.digest(self.path)[:16])}</code>"
            f" &middot; rubric <code>{render.esc(self.rubric.source)}</code></div>"
        )

    def show_environment(self) -> render.Html:
        """What the submission declared, what the kit installed (name, version), what it refused."""
        return render.environment_html(self.grading.environment_section())

    def report(self) -> Report:
        """Every line, in rubric order."""
        report: Report = self.grading.report()
        return report

    def show_report(self, report: Report) -> render.Html:
        """The final score table."""
        return render.report_html(report, {line.id: line.title for line in self.rubric.lines})

    def panel(self, gradebook: str | Path, report: Report | None = None) -> Any:
        """The reviewer's scoring panel (a read-only table in headless runs).

        With `report`, the kit's lines are this notebook's fresh results, not the gradebook's last run.
        """
        from gradelib.gradebook import Gradebook
        from gradelib.review import panel as review

        with Gradebook(Path(gradebook)) as book:
            row = book.submission_by_label(self.takehome, self.name) or book.submission(self.takehome, self.name)
        if row is None:
            return render.Html(
                f"{render.STYLE}<div class='gl-card'>Not in the gradebook <code>{render.esc(gradebook)}</code> yet: "
                "grade it with <code>gradelib grade</code> first to score it here.</div>",
                "not in the gradebook yet",
            )
        lines = report.lines if report is not None else None
        return review.scoring_panel(gradebook, self.takehome, row.name, self.rubric, lines=lines)

    def close(self) -> None:
        """Remove the sandbox workspace and any unpacked archive."""
        self._finalizer()


def _cleanup(grading: Any, unpacked: Path | None) -> None:
    grading.__exit__(None, None, None)
    if unpacked:
        shutil.rmtree(unpacked, ignore_errors=True)


def open_grading(
    takehome: str, submission: str | Path | None, *, name: str | None = None, rubric: str | Path | None = None
) -> NotebookGrading:
    """Start grading one submission for a notebook; call `.close()` in the last cell."""
    return NotebookGrading(takehome, submission, name=name, rubric=rubric)


def save_report(report: Report, path: str | Path | None) -> Path | None:
    """Write the report's JSON where the batch asked for it (nothing when `path` is None)."""
    if path is None:
        return None
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(report.to_json(indent=2) + "\n", encoding="utf-8")
    return target


def load_report(path: Path) -> dict[str, Any]:
    """A saved report as plain data."""
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data
