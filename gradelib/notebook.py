"""What notebook cells call: open a grading, show its lines and report, save the result."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from gradelib import ingest, render, takehomes
from gradelib.result import LineResult, Report
from gradelib.rubric import Rubric, default_rubric, load_rubric

REPORT_SUFFIX = ".json"


class NotebookGrading:
    """A grading opened for a notebook: the take-home's grading object plus display helpers."""

    def __init__(
        self, takehome: str, submission: str | Path, *, name: str | None = None, rubric: str | Path | None = None
    ) -> None:
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
        module = takehomes.load(takehome)
        self.grading: Any = module.GRADING(path, name=self.name, rubric=self.rubric)
        self.grading.__enter__()

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

    def report(self) -> Report:
        """Every line, in rubric order."""
        report: Report = self.grading.report()
        return report

    def show_report(self, report: Report) -> render.Html:
        """The final score table."""
        return render.report_html(report, {line.id: line.title for line in self.rubric.lines})

    def close(self) -> None:
        """Remove the sandbox workspace and any unpacked archive."""
        self.grading.__exit__(None, None, None)
        if self._unpacked:
            shutil.rmtree(self._unpacked, ignore_errors=True)


def open_grading(
    takehome: str, submission: str | Path, *, name: str | None = None, rubric: str | Path | None = None
) -> NotebookGrading:
    """Start grading one submission for a notebook; call `.close()` in the last cell."""
    return NotebookGrading(takehome, submission, name=name, rubric=rubric)


def save_report(report: Report, output_dir: str | Path) -> Path:
    """Write the report's JSON beside the executed notebook."""
    folder = Path(output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{report.submission}{REPORT_SUFFIX}"
    target.write_text(report.to_json(indent=2) + "\n", encoding="utf-8")
    return target


def load_report(path: Path) -> dict[str, Any]:
    """A saved report as plain data."""
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data
