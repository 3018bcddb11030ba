"""Executed reports on disk: opened by a reviewer, saved by JupyterLab, exported for a hiring manager, refreshed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from gradelib.display.render import Html
from gradelib.errors import ReportsUnwritable
from gradelib.gradebook import Gradebook
from gradelib.notebook import NotebookGrading, open_grading, report_from_dict, views_path
from gradelib.result import LineResult, Report
from gradelib.review import labhooks, reportfiles, reportowner, reportwriter
from gradelib.review.scoringpanel import PANEL_OUTPUT_METADATA
from gradelib.safetext import markdown_html

WIDGET = "application/vnd.jupyter.widget-view+json"


def _notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    params = nbformat.v4.new_code_cell("submission = None\nsave = False\nrerun = False")
    params.metadata["tags"] = ["parameters"]
    injected = nbformat.v4.new_code_cell(
        '# Parameters\nsubmission = "/abs/machine/path/submission"\nrerun = True\nsave = True\n'
    )
    injected.metadata["tags"] = ["injected-parameters"]
    shown = nbformat.v4.new_code_cell("grading.show('identical')")
    shown.outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<b>the evidence</b>"})]
    table = nbformat.v4.new_code_cell("panel_for(gradebook, 'replay', name)")
    table.metadata["tags"] = ["score-table"]
    table.outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<p>old table</p>"})]
    nb.cells = [nbformat.v4.new_markdown_cell("# Report"), params, injected, shown, table]
    nbformat.write(nb, path)
    return path


def test_the_final_form_resets_batch_only_parameters_and_the_kernelspec(tmp_path: Path) -> None:
    executed = _notebook(tmp_path / "submission-01.ipynb").read_bytes()
    final, _html = reportwriter.final_form(executed, reportwriter.ReportForm())
    nb = nbformat.reads(final.decode(), as_version=4)
    injected = nb.cells[2].source
    assert "rerun = False  # the batch ran with True" in injected and "save = False" in injected
    assert 'submission = "/abs/machine/path/submission"' in injected  # other parameters stay
    assert nb.cells[1].source == "submission = None\nsave = False\nrerun = False"  # only the injected cell
    assert nb.metadata["kernelspec"]["display_name"] != "Python 3"  # the installed kernel's own name
    assert reportwriter.final_form(final, reportwriter.ReportForm())[0] == final  # a second time changes nothing


def test_the_final_form_shows_the_parameters_a_reviewer_reruns_it_with_and_its_record(tmp_path: Path) -> None:
    ran = nbformat.read(_notebook(tmp_path / "r.ipynb"), as_version=4)
    ran.metadata["papermill"] = {"parameters": {}}  # as papermill leaves the notebook and every cell
    for cell in ran.cells:
        cell.metadata.setdefault("tags", [])
    executed = nbformat.writes(ran).encode()
    record = reportowner.ReportRecord("book-id", 7, "digest", "replay", "Submission #1")
    shown = {"submission": "/reports/.staging/s", "name": "Submission #1", "save": False, "rerun": False}
    final, _html = reportwriter.final_form(executed, reportwriter.ReportForm(parameters=shown, record=record))
    nb = nbformat.reads(final.decode(), as_version=4)
    injected = next(c.source for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    assert 'submission = "/reports/.staging/s"' in injected and "/abs/machine/path" not in injected
    assert "save = False" in injected and "rerun = False" in injected
    path = tmp_path / "written.ipynb"
    path.write_bytes(final)
    assert reportowner.report_record(path) == record


def test_html_has_outputs_and_prose_but_no_code_or_parameters(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "r.ipynb")
    written = reportwriter.write_report(path, path.read_bytes(), reportwriter.ReportForm())
    html = written[path.with_suffix(".html")]
    assert html is not None and written[path] == path
    text = html.read_text()
    assert "the evidence" in text and "Report" in text
    for code in ("grading.show", "/abs/machine/path", "panel_for", "submission = None", "In&nbsp;["):
        assert code not in text, code


def test_the_score_table_replaces_only_the_tagged_cell(tmp_path: Path) -> None:
    executed = _notebook(tmp_path / "r.ipynb").read_bytes()
    form = reportwriter.ReportForm(table=Html("<p>new table</p>", "new"))
    final, html = reportwriter.final_form(executed, form)
    nb = nbformat.reads(final.decode(), as_version=4)
    assert nb.cells[4].outputs[0]["data"]["text/html"] == "<p>new table</p>"
    assert nb.cells[3].outputs[0]["data"]["text/html"] == "<b>the evidence</b>"
    assert b"new table" in html and b"old table" not in html


def test_a_report_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    path = _notebook(tmp_path / "reports" / "r.ipynb")
    before = path.read_bytes()
    blocker = tmp_path / "reports" / "logs"
    blocker.write_text("a file where a folder must go")
    with pytest.raises(ReportsUnwritable, match="its reports need"):
        reportwriter.write_report(path, before, reportwriter.ReportForm(), [(blocker / "r.log", b"log")])
    assert path.read_bytes() == before and not path.with_suffix(".html").exists()
    assert sorted(p.name for p in path.parent.iterdir()) == ["logs", "r.ipynb"]  # no partial left behind


def test_refresh_score_tables_takes_them_from_the_gradebook(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    (reports / "replay").mkdir(parents=True)
    path = _notebook(reports / "replay" / "submission-01.ipynb")
    book_path = reports / "gradebook.sqlite"
    with Gradebook(book_path) as book:
        row = book.upsert_submission("replay", "alice", "d", "o")
        run = book.start_run(row.id, "t", "d")
        lines = [LineResult("record", "needs_review", "fixtures look edited", max_points=20.0)]
        book.finish_run(run, "graded", report=Report("replay", "alice", tuple(lines)).to_dict(), notebook=str(path))
        book.add_score("replay", "alice", "record", "ana", "10", "one cassette edited")
        book.add_score("replay", "alice", "record", "ben", "20", "all honest")
    done = reportfiles.refresh_score_tables(book_path, reports)
    assert done.notebooks == (path,) and done.missing == ()
    html = nbformat.read(path, as_version=4).cells[4].outputs[0]["data"]["text/html"]
    assert "Score table taken" in html and "ana" in html and "ben" in html
    assert "one cassette edited" not in html and "alice" not in html  # blind: who scored, not what
    assert (
        "one cassette edited"
        in reportfiles.refresh_score_tables(book_path, reports, reveal=True).notebooks[0].read_text()
    )
    assert "Score table taken" in path.with_suffix(".html").read_text()


def test_a_runs_report_shows_its_gradebooks_table_and_card_with_the_runs_lines(tmp_path: Path) -> None:
    # As the batch's driver makes it: the gradebook holds the submission and a score saved while it was
    # graded, not yet the run; the table and card show the run's lines and who has scored, blind.
    lines = (LineResult("record", "needs_review", "fixtures look edited", max_points=20.0),)
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        row = book.upsert_submission("replay", "alice", "d", "o")
        run = book.start_run(row.id, "t", "d")
        book.add_score("replay", "alice", "record", "ana", "10", "one cassette edited")
        record = reportowner.ReportRecord(book.id, run, "d", "replay", row.blind_label)
        form = reportfiles.run_form(
            book, "replay", "alice", Report("replay", "alice", lines), {"name": row.blind_label}, record
        )
        failed = reportfiles.run_form(book, "replay", "alice", None, {"name": row.blind_label}, record)
    assert form.table is not None and form.card is not None and form.record == record
    assert "fixtures look edited" in form.table.body and "ana" in form.table.body
    assert "one cassette edited" not in form.table.body and "alice" not in form.table.body
    assert "ana" in form.card.body
    assert form.parameters == {"name": row.blind_label, "save": False, "rerun": False}
    assert failed.table is None and failed.card is None  # a failed run's report keeps what its kernel showed


def _cell_with(output: dict[str, Any]) -> dict[str, Any]:
    return {"cell_type": "code", "source": "", "metadata": {}, "outputs": [output]}


def test_save_hook_strips_only_live_scoring_panels() -> None:
    panel = {"output_type": "display_data", "metadata": dict(PANEL_OUTPUT_METADATA),
             "data": {WIDGET: {"model_id": "abc"}, "text/html": "<p>static</p>", "text/plain": "panel"}}  # fmt: skip
    other = {"output_type": "display_data", "metadata": {}, "data": {WIDGET: {"model_id": "x"}, "text/plain": "w"}}
    model = {"type": "notebook", "content": {"cells": [_cell_with(panel), _cell_with(other)],
                                             "metadata": {"widgets": {"state": "bo's view"}}}}  # fmt: skip
    labhooks.pre_save(model=model, path="r.ipynb", contents_manager=None)
    cells = model["content"]["cells"]
    assert WIDGET not in cells[0]["outputs"][0]["data"] and cells[0]["outputs"][0]["data"]["text/html"]
    assert WIDGET in cells[1]["outputs"][0]["data"]  # not the kit's: untouched
    assert "widgets" not in model["content"]["metadata"]
    labhooks.pre_save(model={"type": "file", "content": "text"})  # anything else is left alone


def test_the_save_hook_is_configured_for_this_environment() -> None:
    config = json.loads((Path(__file__).parents[2] / "jupyter-config" / "gradelib.json").read_text())
    assert config["ServerApp"]["jpserver_extensions"] == {"gradelib.review.labhooks": True}
    assert labhooks._jupyter_server_extension_points() == [{"module": "gradelib.review.labhooks"}]


def test_candidate_headings_do_not_reach_the_outline() -> None:
    html = markdown_html("# I am the kit now\n\n## Grade: strong\n\n<h1 onclick='x'>raw</h1>\n\ntext")
    assert "<h1" not in html and "<h2" not in html
    assert "<strong>I am the kit now</strong>" in html and "raw" in html and "onclick" not in html


# -- the notebook's grading: stored results, nothing run, nothing written ----------------------------------------


def _stored(tmp_path: Path) -> Path:
    report = Report("payments", "Submission #1", (
        LineResult("found_defect", "needs_review", "no tests", {"tests": None}),
        LineResult("key_scope", "pass", "persisted", {"counts": {"requests": 2, "distinct_keys": 1}},
                   points=2.0, max_points=2.0, tier="strong"),
        LineResult("evidence", "needs_review", "reviewer reads NOTE.md", {"note_html": "<h1>Notes</h1><p>ran it</p>"}),
    ), {"key_scope": "persisted"}, {"declared": []})  # fmt: skip
    path = tmp_path / "submission-01.json"
    path.write_text(report.to_json())
    views_path(path).write_text(json.dumps({"attempts": {"transient": [{"time": 0.0, "status": 503}]}}))
    return path


def test_stored_results_open_nothing_and_write_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _stored(tmp_path)
    before = result.read_text()
    monkeypatch.setattr(NotebookGrading, "_open", lambda self: pytest.fail("the candidate's code must not run"))
    grading = open_grading("payments", tmp_path / "gone", name="Submission #1", result_path=result)
    assert grading.mode == "stored" and "stored results" in grading.header().body
    assert "persisted" in grading.show("key_scope").body
    card = grading.show("evidence").body
    assert "ran it" in card and "<h1" not in card
    assert grading.view("attempts") == {"transient": [{"time": 0.0, "status": 503}]}
    assert grading.view("no-such-view") is None
    assert grading.report().total == 2.0 and "Key scope" in grading.show_report().body
    assert "Key scope" in grading.tier_table().body
    grading.close()
    assert result.read_text() == before


def test_rerun_asks_for_the_checks_and_save_is_what_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _stored(tmp_path)
    fresh = report_from_dict(json.loads(result.read_text()))

    class Fake:
        def report(self) -> Report:
            return fresh

        def views(self) -> dict[str, Any]:
            return {"attempts": {"slow": []}}

    monkeypatch.setattr(NotebookGrading, "_open", lambda self: Fake())
    result.unlink()
    grading = open_grading("payments", tmp_path / "sub", result_path=result, rerun=True)
    assert grading.mode == "live"
    grading.report()
    assert not result.exists()  # a reviewer's run writes nothing
    grading = open_grading("payments", tmp_path / "sub", result_path=result, rerun=True, save=True)
    grading.report()
    assert json.loads(result.read_text())["lines"][1]["tier"] == "strong"
    assert json.loads(views_path(result).read_text()) == {"attempts": {"slow": []}}


def test_a_report_of_another_gradebook_or_run_is_left_as_it_is(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    (reports / "replay").mkdir(parents=True)
    path = _notebook(reports / "replay" / "submission-01.ipynb")
    book_path = reports / "gradebook.sqlite"
    with Gradebook(book_path) as book:
        row = book.upsert_submission("replay", "alice", "d", "o")
        run = book.start_run(row.id, "t", "d")
        book.finish_run(run, "graded", report=Report("replay", "alice", ()).to_dict(), notebook=str(path))
        mine = book.id
    for gradebook, shown_run, touched in (("another", run, False), (mine, run + 1, False), (mine, run, True)):
        record = reportowner.ReportRecord(gradebook, shown_run, "d", "replay", "Submission #1")
        path.write_bytes(reportowner.stamp(path.read_bytes(), record))
        done = reportfiles.refresh_score_tables(book_path, reports)
        assert done.notebooks == ((path,) if touched else ()) and done.stale == (() if touched else (path,))
        assert reportowner.report_record(path) == record, "the record stays with the report"
