"""A report's final form, made and written in one place, once: the notebook a reviewer opens, and its HTML.

papermill leaves the executed notebook as its kernel ran it: the worker's temporary paths in the parameters,
the batch-only parameters (`save`, `rerun`) as the batch set them, papermill's kernelspec, no record of which
gradebook and run it shows. Whoever has the rest hands it over as data (a `ReportForm`: the parameters a
reviewer re-runs it with, its record, the score table and verdict card its gradebook shows), `final_form`
makes the notebook and its HTML from the two in memory, and `write_report` writes them with the files that go
with them (the JSON result, the views, the log), each under a temporary name first, then all renamed: a
report is whole or absent. The batch's driver writes each report so, the summary its own notebook, and
`gradelib tables` takes a report's score table and card again through the same function.
"""

from __future__ import annotations

import ast
import contextlib
import re
import shutil
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradelib.environment.capped import size_text
from gradelib.errors import ReportsUnwritable
from gradelib.review import reportowner
from gradelib.review.reportowner import ReportRecord

if TYPE_CHECKING:
    from gradelib.display.render import Html

BATCH_ONLY: Mapping[str, Any] = {"save": False, "rerun": False}  # what a reviewer's session starts with
INJECTED_TAG = "injected-parameters"  # papermill's tag on the cell it adds
PARAMETERS_TAG = "parameters"
SCORE_TABLE_TAG = "score-table"
VERDICTS_TAG = "verdicts"  # the card a report opens with (review/verdicts.py), taken with the score table
HIDDEN_IN_HTML = frozenset({PARAMETERS_TAG, INJECTED_TAG})
RESET_COMMENT = "  # the batch ran with {value!r}; a reviewer's session starts here"
KERNEL = "python3"
PARTIAL = ".{name}.partial"  # where each file of a report is written before all are renamed


@dataclass(frozen=True)
class ReportForm:
    """What a report says besides what its kernel ran: handed over as data by whoever knows it."""

    parameters: Mapping[str, Any] | None = None  # its parameters cell as a reviewer re-runs it; None: as it ran
    record: ReportRecord | None = None  # which gradebook and run it shows
    table: Html | None = None  # the score table its gradebook shows for the run
    card: Html | None = None  # the verdict card, likewise
    reset: Mapping[str, Any] = field(default_factory=lambda: dict(BATCH_ONLY))  # batch-only values set back


def _nbformat() -> Any:
    """nbformat, imported without the grammars jsonschema would compile for it (see gradelib.jsonschemapatch)."""
    from gradelib.jsonschemapatch import without_iri_grammars

    without_iri_grammars()
    import nbformat

    return nbformat


def final_form(executed: bytes, form: ReportForm) -> tuple[bytes, bytes]:
    """The report's notebook and its HTML (outputs and prose, no code or parameters), from the notebook as its
    kernel ran it and what `form` says: its parameters, the batch-only ones set back, the installed kernelspec,
    the score table and verdict card, its record."""
    nbformat = _nbformat()

    notebook = nbformat.reads(executed.decode("utf-8"), as_version=4)
    if form.parameters is not None:
        from papermill.parameterize import parameterize_notebook

        notebook = parameterize_notebook(notebook, dict(form.parameters), kernel_name=KERNEL, language="python")
    _reset(notebook, form.reset)
    spec = _kernelspec(str(notebook.metadata.get("kernelspec", {}).get("name") or ""))
    if spec:
        notebook.metadata["kernelspec"] = spec
    shown = {SCORE_TABLE_TAG: form.table, VERDICTS_TAG: form.card}
    if form.table is not None and _tagged(notebook, SCORE_TABLE_TAG):
        for tag, html in shown.items():
            if html is None:
                continue
            output = nbformat.v4.new_output("display_data", data={"text/html": html.body, "text/plain": html.text})
            for cell in _tagged(notebook, tag):
                cell.outputs = [output]
    data = nbformat.writes(notebook).encode("utf-8")
    html_body = _export(notebook)
    if form.record is not None:
        data = reportowner.stamp(data, form.record)
    return data, html_body.encode("utf-8")


def write_report(
    path: Path, executed: bytes | None, form: ReportForm, beside: Sequence[tuple[Path, bytes | None]] = ()
) -> dict[Path, Path | None]:
    """Write a report's notebook (`path`) and its HTML, made by `final_form`, with the files `beside` it, as a
    whole: each to a partial name first, then each renamed. A file with no data (no notebook: no report) is
    removed if an earlier one is there. Raises ReportsUnwritable, naming the folder and the room they need,
    with the reports left as they were."""
    notebook, html = final_form(executed, form) if executed is not None else (None, None)
    return _write_all([(path, notebook), (path.with_suffix(".html"), html), *beside])


def _write_all(files: Sequence[tuple[Path, bytes | None]]) -> dict[Path, Path | None]:
    partials: list[tuple[Path, Path]] = []
    try:
        for path, data in files:
            if data is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_name(PARTIAL.format(name=path.name))
                partials.append((partial, path))
                partial.write_bytes(data)
    except OSError as exc:
        for partial, _ in partials:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
        raise _unwritable(files, exc) from exc
    for partial, path in partials:
        partial.replace(path)
    for path, data in files:
        if data is None:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
    return {path: path if data is not None else None for path, data in files}


def _unwritable(files: Sequence[tuple[Path, bytes | None]], exc: OSError) -> ReportsUnwritable:
    folder = files[0][0].parent
    needed = sum(len(data) for _, data in files if data is not None)
    room = f"; its reports need {size_text(needed)}"
    with contextlib.suppress(OSError):
        room += f", {size_text(shutil.disk_usage(folder).free)} free"
    return ReportsUnwritable(str(folder), f"{exc.strerror or exc}{room}")


def _reset(notebook: Any, values: Mapping[str, Any]) -> None:
    """The batch-only parameters in the injected cell set back to `values`, each saying what the batch ran with."""
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
        cell.source = "\n".join(lines)


def _kernelspec(name: str) -> dict[str, str] | None:
    """The installed kernel's spec as JupyterLab writes it into a notebook (so it opens unmodified); None when
    not installed."""
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
        return ast.literal_eval(text.split("  #")[0].strip())
    except (ValueError, SyntaxError):
        return text


def _tagged(notebook: Any, tag: str) -> list[Any]:
    return [c for c in notebook.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])]


_EXPORTER: list[Any] = []  # one per process, its templates compiled once: every report's HTML, whichever thread
_EXPORTER_LOCK = threading.Lock()  # nbconvert's exporter is used by one thread at a time


def warm_exporter() -> None:
    """Import nbconvert and compile the HTML templates (an empty notebook's export), for a later report."""
    nbformat = _nbformat()
    _export(nbformat.v4.new_notebook())


def _export(notebook: Any) -> str:
    """The notebook's HTML: outputs and prose, no code, prompts or parameter cells."""
    with _EXPORTER_LOCK:
        if not _EXPORTER:
            _EXPORTER.append(_html_exporter())
        body, _ = _EXPORTER[0].from_notebook_node(notebook)
    return str(body)


def _html_exporter() -> Any:
    from nbconvert.preprocessors import TagRemovePreprocessor
    from traitlets.config import Config

    from gradelib.review.htmlexport import report_exporter

    config = Config()
    config.TemplateExporter.exclude_input = True
    config.TemplateExporter.exclude_input_prompt = True
    config.TemplateExporter.exclude_output_prompt = True
    exporter = report_exporter(config)
    exporter.register_preprocessor(TagRemovePreprocessor(remove_cell_tags=set(HIDDEN_IN_HTML)), enabled=True)
    return exporter
