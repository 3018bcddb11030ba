"""Executed report notebooks on disk: as a reviewer finds them, their HTML without code, fresh score tables.

- After the batch's run, the parameters only the batch may use (`save`, `rerun`) are set
  back in the executed notebook, so a reviewer's Run All shows the stored results and
  never overwrites them; its kernelspec is the installed one, so it opens unmodified.
- The HTML copy a hiring manager reads has no code inputs, prompts or parameter cells
  (the notebook keeps them).
- The score table stored in each report (the cell tagged `score-table`) can be taken again
  from the gradebook (`gradelib tables`, and `gradelib summary`), and says when it was taken;
  the verdict card the report opens with (the cell tagged `verdicts`: who has scored what
  awaits a reviewer) is taken again with it.
  A batch's worker stores it with the run's own lines (`take_score_table`), so the driver,
  once its gradebook holds the run, rewrites the report only when the table shows something
  else (a score saved meanwhile).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradelib.atomicfile import write_text

if TYPE_CHECKING:
    from gradelib.display.render import Html

BATCH_ONLY: Mapping[str, Any] = {"save": False, "rerun": False}  # what a reviewer's session starts with
INJECTED_TAG = "injected-parameters"  # papermill's tag on the cell it adds
PARAMETERS_TAG = "parameters"
SCORE_TABLE_TAG = "score-table"
VERDICTS_TAG = "verdicts"  # the card a report opens with (review/verdicts.py), taken again with the score table
HIDDEN_IN_HTML = frozenset({PARAMETERS_TAG, INJECTED_TAG})
RESET_COMMENT = "  # the batch ran with {value!r}; a reviewer's session starts here"


def _nbformat() -> Any:
    """nbformat, imported without the grammars jsonschema would compile for it (see gradelib.jsonschemapatch)."""
    from gradelib.jsonschemapatch import without_iri_grammars

    without_iri_grammars()
    import nbformat

    return nbformat


def _write(notebook: Any, path: Path) -> None:
    nbformat = _nbformat()

    write_text(path, nbformat.writes(notebook))


def prepare_for_reviewers(path: Path, values: Mapping[str, Any] = BATCH_ONLY) -> bool:
    """Make the executed notebook open as a reviewer should find it; whether anything changed.

    `values` are set in its injected-parameters cell (the batch-only ones), and its
    kernelspec becomes the installed kernel's own, so JupyterLab does not mark the
    notebook changed the moment its kernel starts.
    """
    nbformat = _nbformat()

    if not path.is_file():
        return False
    notebook = nbformat.read(path, as_version=4)
    changed = _reset(notebook, values)
    spec = _kernelspec(str(notebook.metadata.get("kernelspec", {}).get("name") or ""))
    if spec and notebook.metadata.get("kernelspec") != spec:
        notebook.metadata["kernelspec"] = spec
        changed = True
    if changed:
        _write(notebook, path)
    return changed


def _reset(notebook: Any, values: Mapping[str, Any]) -> bool:
    changed = False
    for cell in notebook.cells:
        if cell.cell_type != "code" or INJECTED_TAG not in cell.metadata.get("tags", []):
            continue
        lines = cell.source.splitlines()
        for number, line in enumerate(lines):
            match = re.match(r"^([A-Za-z_]\w*) = (.*)$", line)
            if match and match.group(1) in values:
                key, was = match.group(1), _literal(match.group(2))
                if was != values[key]:
                    lines[number] = f"{key} = {values[key]!r}" + RESET_COMMENT.format(value=was)
                    changed = True
        cell.source = "\n".join(lines)
    return changed


def _kernelspec(name: str) -> dict[str, str] | None:
    """The installed kernel's spec as JupyterLab writes it into a notebook; None when not installed."""
    if not name:
        return None
    try:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

        spec = KernelSpecManager().get_kernel_spec(name)
    except (ImportError, NoSuchKernel, OSError):
        return None
    return {"display_name": spec.display_name, "language": spec.language, "name": name}


def _literal(text: str) -> Any:
    try:
        import ast

        return ast.literal_eval(text.split("  #")[0].strip())
    except (ValueError, SyntaxError):
        return text


def export_html(notebook: Path) -> Path | None:
    """An HTML copy beside the notebook, readable without Jupyter: outputs and prose, no code or parameters."""
    nbformat = _nbformat()

    if not notebook.exists():
        return None
    body, _ = _html_exporter().from_notebook_node(nbformat.read(notebook, as_version=4))
    target = notebook.with_suffix(".html")
    write_text(target, body)
    return target


_EXPORTERS = threading.local()


def warm_exporter() -> None:
    """Import nbconvert and compile this thread's HTML templates (an empty notebook's export), for a later export."""
    nbformat = _nbformat()
    _html_exporter().from_notebook_node(nbformat.v4.new_notebook())


def _html_exporter() -> Any:
    """This thread's exporter: its templates are compiled once, not once per report."""
    exporter = getattr(_EXPORTERS, "html", None)
    if exporter is None:
        from nbconvert.preprocessors import TagRemovePreprocessor
        from traitlets.config import Config

        from gradelib.review.htmlexport import report_exporter

        config = Config()
        config.TemplateExporter.exclude_input = True
        config.TemplateExporter.exclude_input_prompt = True
        config.TemplateExporter.exclude_output_prompt = True
        exporter = report_exporter(config)
        exporter.register_preprocessor(TagRemovePreprocessor(remove_cell_tags=set(HIDDEN_IN_HTML)), enabled=True)
        _EXPORTERS.html = exporter
    return exporter


@dataclass(frozen=True)
class Refreshed:
    """What `refresh_score_tables` did."""

    notebooks: tuple[Path, ...]  # notebooks whose score table was taken again (and their HTML re-exported)
    missing: tuple[str, ...] = ()  # submissions whose report notebook is not where the gradebook says
    stale: tuple[Path, ...] = ()  # reports that show another gradebook's run, or an earlier one: not touched


def set_score_table(path: Path, html: str, text: str, card: Html | None = None) -> bool:
    """Replace the outputs of the notebook's score-table cell with a static table; whether the cell was found.

    `card` (an `Html`), when given, replaces the outputs of its verdict card cell, in the same write.
    """
    nbformat = _nbformat()

    notebook = nbformat.read(path, as_version=4)
    if not _tagged(notebook, SCORE_TABLE_TAG):
        return False
    shown = {SCORE_TABLE_TAG: (html, text), **({VERDICTS_TAG: (card.body, card.text)} if card is not None else {})}
    for tag, (body, plain) in shown.items():
        output = nbformat.v4.new_output("display_data", data={"text/html": body, "text/plain": plain})
        for cell in _tagged(notebook, tag):
            cell.outputs = [output]
    _write(notebook, path)
    return True


def _tagged(notebook: Any, tag: str) -> list[Any]:
    return [c for c in notebook.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])]


def refresh_score_tables(
    gradebook: Path, reports_dir: Path | None = None, *, reveal: bool = False, takehome: str | None = None
) -> Refreshed:
    """Take every report's score table again from the gradebook and re-export its HTML.

    Blind unless `reveal`: the stored table says who scored which line and when, not the
    values (the cohort summary shows those). Reports are found where their run recorded
    them, else under `reports_dir/<takehome>/`; one that records another gradebook or
    another run (`reportowner`) is left as it is and listed: `gradelib grade` writes it again.
    """
    from gradelib.gradebook.health import open_checked
    from gradelib.review.reportowner import report_record

    done: list[Path] = []
    missing: list[str] = []
    stale: list[Path] = []
    with open_checked(gradebook) as book:
        mine = book.id
        for row in book.submissions(takehome):
            run = book.latest_run(row.takehome, row.name, graded_only=True)
            if run is None or not run.notebook:
                continue
            path = _locate(Path(run.notebook), row.takehome, reports_dir or gradebook.parent)
            record = report_record(path) if path is not None else None
            if path is None:
                missing.append(f"{row.takehome}/{row.blind_label}")
            elif record is not None and (record.gradebook, record.run) != (mine, run.id):
                stale.append(path)
            elif refresh_report(path, book, row.takehome, row.name, reveal=reveal):
                done.append(path)
    return Refreshed(tuple(done), tuple(missing), tuple(stale))


def take_score_table(path: Path, gradebook: Path, takehome: str, label: str, lines: Sequence[Any]) -> bool:
    """Store a run's score table in its notebook before the driver's gradebook holds the run: the kit's `lines`
    are the run's, the scores `gradebook`'s (a worker's excerpt); whether the table was stored."""
    from gradelib.gradebook import Gradebook
    from gradelib.gradebook.identity import lookup

    rubric = _packaged_rubric(takehome)
    if rubric is None or not gradebook.is_file():
        return False
    from gradelib.review.scoretable import stored_table

    with Gradebook(gradebook, readonly=True) as book:
        row = lookup(book, takehome, label)
        if row is None:
            return False
        table = stored_table(book, takehome, row.name, rubric, lines=lines)
    return set_score_table(path, table.body, table.text)


def refresh_report(
    path: Path, book: Any, takehome: str, name: str, *, reveal: bool = False, stored: bytes | None = None
) -> bool:
    """Take one report's score table (and verdict card) from the open gradebook `book` and re-export its HTML;
    whether it did.

    `stored` is the notebook as its worker wrote it: when its table shows what the gradebook's does
    (`take_score_table`), the report is left as it is.
    """
    from gradelib.review.scoretable import same_table, stored_table
    from gradelib.review.verdicts import stored_card

    rubric = _packaged_rubric(takehome)
    if rubric is None:
        return False
    table = stored_table(book, takehome, name, rubric, reveal=reveal)
    if stored is not None and (tables := score_table_bodies(stored)) and all(same_table(t, table.body) for t in tables):
        return False
    if not set_score_table(path, table.body, table.text, stored_card(book, takehome, name, rubric)):
        return False
    export_html(path)
    return True


def score_table_bodies(notebook: bytes) -> list[str]:
    """The HTML each score-table cell of a notebook file shows (empty when it has no such cell or is unreadable)."""
    try:
        cells = json.loads(notebook).get("cells", [])
        found = []
        for cell in cells:
            if SCORE_TABLE_TAG in (cell.get("metadata", {}).get("tags") or []):
                html = [o.get("data", {}).get("text/html") for o in cell.get("outputs", [])]
                found += ["".join(h) if isinstance(h, list) else str(h) for h in html if h is not None]
    except (ValueError, AttributeError, TypeError):
        return []
    return found


def _packaged_rubric(takehome: str) -> Any:
    from gradelib.errors import RubricError, UnknownTakehome
    from gradelib.takehomes.rubric import default_rubric

    try:
        return default_rubric(takehome)
    except (UnknownTakehome, RubricError):
        return None


def _locate(stored: Path, takehome: str, reports_dir: Path) -> Path | None:
    for candidate in (stored, reports_dir / takehome / stored.name):
        if candidate.is_file():
            return candidate
    return None
