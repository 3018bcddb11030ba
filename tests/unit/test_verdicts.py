"""The verdict card every report opens with, the header that says what was done and when, long evidence folded."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from gradelib.display import card, render
from gradelib.display.card import CardLine, Total
from gradelib.gradebook import Gradebook
from gradelib.notebook import PACKAGED, NotebookGrading, open_grading, report_from_dict
from gradelib.result import LineResult, Report
from gradelib.review import reportfiles, reportwriter
from gradelib.review.scoretable import SCORE_TABLE_CLASS
from gradelib.review.verdicts import report_card, saved_scores, stored_card
from gradelib.safetext import html_visible
from gradelib.takehomes.rubric import default_rubric

HOSTILE = '<script>alert(1)</script>" onmouseover="x'
LINK = re.compile(r'<a href="#([^"]+)">')


def _payments(message: str = "one key per call, persisted before the request") -> Report:
    return Report("payments", "Submission #1", (
        LineResult("found_defect", "pass", "tests green on the candidate's code", points=2.0, max_points=2.0,
                   tier="strong"),
        LineResult("key_scope", "pass", message, points=2.0, max_points=2.0, tier="strong"),
        LineResult("evidence", "needs_review", "reviewer reads NOTE.md", max_points=2.0),
        LineResult("explanation", "needs_review", "the note mentions idempotency", max_points=2.0),
        LineResult("blast_radius", "needs_review", "the note mentions timeouts", max_points=2.0),
    ))  # fmt: skip


def _scored(*pairs: tuple[str, str]) -> dict[tuple[str, str], Any]:
    return {pair: object() for pair in pairs}


def test_the_card_shows_every_line_in_rubric_order_with_its_verdict_points_reason_and_a_link() -> None:
    rubric = default_rubric("payments")
    body = report_card(_payments(), rubric).body
    titles = [line.title for line in rubric.lines]
    assert [body.index(html.escape(title)) for title in titles] == sorted(body.index(html.escape(t)) for t in titles)
    assert LINK.findall(body)[: len(titles)] == [render.line_anchor(line.id) for line in rubric.lines]
    assert body.count(render.badge("pass")) == 2 and body.count(render.badge("needs_review")) == 3
    assert "2 / 2 (strong)" in body and "? / 2" in body and "one key per call" in body
    assert "awaiting review: 4 so far of 10 (6 left to a reviewer)" in body
    # each link lands on the card the line's cell shows
    shown = render.line_html(_payments().line("key_scope"), "Key scope").body
    assert f'id="{render.line_anchor("key_scope")}"' in shown
    note = render.note_card(_payments().line("evidence"), "Evidence").body
    assert f'id="{render.line_anchor("evidence")}"' in note


def test_what_awaits_a_reviewer_names_the_lines_no_one_has_scored_and_who_scored_the_others_never_values() -> None:
    rubric = default_rubric("payments")
    body = report_card(_payments(), rubric, _scored(("evidence", "ana"), ("evidence", "ben"))).body
    assert body.count(card.NEEDS_A_REVIEWER) == 2  # explanation, blast radius; evidence has scores
    assert "scored by ana, ben" in body
    assert "Awaits a reviewer</b>: Explanation, Blast radius (no reviewer has scored them yet); 1 more scored" in body
    assert f'href="#{card.SCORES_ANCHOR}"' in body
    everyone = _scored(*((line, "ana") for line in ("evidence", "explanation", "blast_radius")))
    assert "Every line left to a reviewer has a score" in report_card(_payments(), rubric, everyone).body
    decided = Report("payments", "s", tuple(
        LineResult(line.id, "pass", "ok", points=2.0, max_points=2.0, tier="strong") for line in rubric.lines
    ))  # fmt: skip
    body = report_card(decided, rubric).body
    assert "Nothing awaits a reviewer" in body and card.NEEDS_A_REVIEWER not in body and ">10 / 10<" in body


def test_candidate_text_in_the_card_stays_escaped() -> None:
    long = HOSTILE + " and more words " * 20
    body = report_card(_payments(long), default_rubric("payments"), _scored(("evidence", "<b>ana</b>"))).body
    assert "<script" not in body and "<b>ana</b>" not in body and "&lt;b&gt;ana&lt;/b&gt;" in body
    assert 'onmouseover="x' not in body and " title=" not in body  # no candidate text in an attribute
    assert html_visible(card.reason(_payments(long).line("key_scope").message)) in body
    assert card.reason(long).endswith(card.ELLIPSIS) and len(card.reason(long)) <= card.REASON_CHARS + 1


def test_reason_is_the_start_of_the_message() -> None:
    assert card.reason("short and whole") == "short and whole"
    cut = card.reason("word " * 40, limit=30)
    assert cut == "word word word word word word" + card.ELLIPSIS
    assert card.reason("x" * 50, limit=20) == "x" * 20 + card.ELLIPSIS  # no space: cut where it is


def test_totals_as_the_card_says_them() -> None:
    assert card.total_text(Total(80.0, 100.0)) == "80 / 100"
    assert (
        card.total_text(Total(None, 100.0, 80.0, 20.0)) == "awaiting review: 80 so far of 100 (20 left to a reviewer)"
    )
    assert "tiers" in card.total_text(Total(None, None))
    text = card.card_text([CardLine("a", "Line \x1b[31m", "fail", "0 / 1", "why\nnot")], Total(0.0, 1.0))
    assert "\x1b" not in text and "FAIL" in text and "total: 0 / 1" in text


def test_an_isolation_warning_is_on_the_card() -> None:
    report = Report("replay", "s", _payments().lines, {"isolation": "none", "isolation_reason": "no namespaces"})
    assert "no network isolation" in report_card(report, default_rubric("payments")).body


def test_installed_packages_are_folded_with_their_count() -> None:
    packages = [{"name": f"pkg-{n}", "version": "1.0.0", "dev": True} for n in range(44)]
    environment = {"installed": [{"ecosystem": "node<i>", "packages": packages, "cache": "hit"}]}
    body = render.environment_html(environment).body
    assert "<details><summary" in body and "<details open" not in body
    assert "node&lt;i&gt;, 44 packages, from the cache" in body and "pkg-43" in body
    assert body.index("</summary>") < body.index("pkg-0")


# -- the notebook's cells: header and card ----------------------------------------------------------------------


def _result(tmp_path: Path) -> Path:
    path = tmp_path / "submission-01.json"
    path.write_text(_payments().to_json())
    return path


def test_the_header_of_a_live_grading_says_what_was_done_and_when(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = report_from_dict(json.loads(_result(tmp_path).read_text()))

    class Fake:
        def report(self) -> Report:
            return fresh

        def views(self) -> dict[str, Any]:
            return {}

    monkeypatch.setattr(NotebookGrading, "_open", lambda self: Fake())
    submission = tmp_path / "sub"
    submission.mkdir()
    (submission / "checkout.mjs").write_text("export {}\n")
    batch = open_grading("payments", submission, result_path=tmp_path / "out.json", rerun=True, save=True)
    header = batch.header().body
    assert re.search(
        r"Graded \d{4}-\d\d-\d\d \d\d:\d\d UTC: the kit set this submission up and ran every check", header
    )
    assert "stored beside this report" in header and "Running the checks now" not in header
    assert PACKAGED in header and "rubric.toml" not in header  # not the machine's path to the kit
    assert (tmp_path / "out.json").is_file()  # the header ran the checks: the batch's result is written
    reviewer = open_grading("payments", submission, result_path=tmp_path / "mine.json", rerun=True)
    assert "Not stored" in reviewer.header().body and not (tmp_path / "mine.json").exists()


def test_the_card_cell_reads_who_scored_from_the_gradebook_and_never_creates_one(tmp_path: Path) -> None:
    result = _result(tmp_path)
    book_path = tmp_path / "gradebook.sqlite"
    grading = open_grading("payments", tmp_path / "gone", name="Submission #1", result_path=result)
    assert card.NEEDS_A_REVIEWER in grading.verdicts(book_path).body and not book_path.exists()
    with Gradebook(book_path) as book:
        book.upsert_submission("payments", "alice", "d", "o")
        book.add_score("payments", "alice", "evidence", "ana", "strong", "ran it twice")
    body = grading.verdicts(book_path).body
    assert "scored by ana" in body and "ran it twice" not in body  # who scored, never what
    assert saved_scores(book_path, "payments", ("Submission #9",)) == {}
    own = tmp_path / "our-rubric.toml"
    own.write_text(Path(default_rubric("payments").source).read_text())
    header = open_grading("payments", None, result_path=result, rubric=own).header().body
    assert f"rubric <code>{html_visible(str(own))}</code>" in header and "stored results" in header


def _report_notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    verdicts = nbformat.v4.new_code_cell("grading.verdicts(gradebook)")
    verdicts.metadata["tags"] = [reportwriter.VERDICTS_TAG]
    verdicts.outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<p>old card</p>"})]
    table = nbformat.v4.new_code_cell("panel_for(gradebook, 'payments', name)")
    table.metadata["tags"] = [reportwriter.SCORE_TABLE_TAG]
    nb.cells = [nbformat.v4.new_markdown_cell("# Report"), verdicts, table]
    nbformat.write(nb, path)
    return path


def test_gradelib_tables_takes_the_card_again_with_the_score_table(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    (reports / "payments").mkdir(parents=True)
    path = _report_notebook(reports / "payments" / "submission-01.ipynb")
    book_path = reports / "gradebook.sqlite"
    with Gradebook(book_path) as book:
        row = book.upsert_submission("payments", "alice", "d", "o")
        assert stored_card(book, "payments", "alice", default_rubric("payments")) is None  # no run yet
        run = book.start_run(row.id, "t", "d")
        book.finish_run(run, "graded", report=_payments().to_dict(), notebook=str(path))
        book.add_score("payments", "alice", "explanation", "ben", "weak", "restates the diff")
    assert reportfiles.refresh_score_tables(book_path, reports).notebooks == (path,)
    cells = nbformat.read(path, as_version=4).cells
    shown = cells[1].outputs[0]["data"]["text/html"]
    assert card.CARD_CLASS in shown and "scored by ben" in shown and "restates the diff" not in shown
    assert SCORE_TABLE_CLASS in cells[2].outputs[0]["data"]["text/html"]
    page = path.with_suffix(".html").read_text()
    assert page.index(card.CARD_CLASS) < page.index(SCORE_TABLE_CLASS)
    assert f'id="{card.SCORES_ANCHOR}"' in page  # where "score in Reviewer scores" links


ROOT = Path(__file__).resolve().parents[2]
GRADING_NOTEBOOKS = (
    ROOT / "notebooks" / "replay.ipynb",
    ROOT / "notebooks" / "payments.ipynb",
    ROOT / "examples" / "takehome-webhooks" / "gradelib_webhooks" / "notebook.ipynb",
    ROOT / "gradelib" / "scaffold" / "template" / "PACKAGE" / "notebook.ipynb.tmpl",
)
CARD_SOURCE = "grading.verdicts(gradebook)"


@pytest.mark.parametrize("path", GRADING_NOTEBOOKS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_grading_notebook_opens_with_the_card_from_the_kits_one_function(path: Path) -> None:
    cells = json.loads(path.read_text())["cells"]
    sources = ["".join(cell["source"]).strip() for cell in cells]
    header = next(i for i, source in enumerate(sources) if "open_grading(" in source)
    assert sources[header].endswith("grading.header()")
    assert [c["cell_type"] for c in cells[:header]] == ["markdown", "code"], "only the title and the parameters"
    assert sources[header + 1] == CARD_SOURCE and cells[header + 1]["metadata"]["tags"] == [reportwriter.VERDICTS_TAG]
    assert sources.count(CARD_SOURCE) == 1 and "grading.show_report()" not in sources  # the card is the score
