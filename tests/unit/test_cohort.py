"""The cohort table, filters, exports, charts and demo scores on a small gradebook written by hand."""

from __future__ import annotations

import csv
import html
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from gradelib.cohort import agreement, demo, drawing
from gradelib.cohort import charts as cohortcharts
from gradelib.cohort.table import Cohort, load
from gradelib.cohort.view import LEGEND, export_table, styled, tables_view
from gradelib.display.render import Html
from gradelib.errors import GradelibError
from gradelib.gradebook import Gradebook
from gradelib.gradebook import store as gradebook_module

HOSTILE = "erin<script>alert(1)</script>"
LEGEND_TEXT = html.escape(LEGEND)
HOSTILE_ERROR = '<img src=x onerror="alert(2)"> broke the kit\nsecond line'


def line(
    line_id: str, outcome: str, points: float | None, maximum: float, tier: str | None = None, **evidence: Any
) -> dict[str, Any]:
    """One line of a report in the stable JSON shape."""
    return {"id": line_id, "outcome": outcome, "points": points, "max_points": maximum, "tier": tier,
            "message": f"{line_id}: {outcome}", "evidence": evidence}  # fmt: skip


# replay is a points rubric (30/20/20/20/10); payments a tiers rubric (weak/acceptable/strong = 0/1/2).
ALICE = [
    line("identical", "pass", 30, 30),
    line("offline", "pass", 20, 20),
    line("missing_fixture", "fail", 0, 20),
    line("record", "needs_review", None, 20),
    line("volatile", "pass", 10, 10),
]
BOB = [  # volatile has no result at all
    line("identical", "fail", 0, 30, cause="timestamp"),
    line("offline", "unverified", None, 20),
    line("missing_fixture", "pass", 20, 20),
    line("record", "error", 0, 20),
]
CAROL = [
    line("found_defect", "needs_review", None, 2),
    line("key_scope", "pass", 1, 2, "acceptable"),
    *(line(line_id, "needs_review", None, 2) for line_id in ("evidence", "explanation", "blast_radius")),
]
DAVE = [
    line("found_defect", "fail", 0, 2, "weak"),
    line("key_scope", "pass", 1, 2, "acceptable"),
    *(line(line_id, "needs_review", None, 2) for line_id in ("evidence", "explanation", "blast_radius")),
]
SCORES = [  # (takehome, name, line, reviewer, value, comment), in the order they are saved
    ("replay", "alice", "record", "ana", "0", "first look: edited fixture"),  # superseded below
    ("replay", "alice", "missing_fixture", "ana", "10", "names the fixture in its log, exits 0 though"),
    ("replay", "alice", "record", "ana", "20", "on a second look the fixtures are honest"),
    ("replay", "alice", "missing_fixture", "ben", "0", "exit 0 is a silent failure"),
    ("replay", "alice", "record", "ben", "10", "one cassette looks edited"),
    ("payments", "carol", "found_defect", "ana", "strong", "a test went red"),
    ("payments", "carol", "key_scope", "ana", "acceptable", "per call"),
    ("payments", "carol", "evidence", "ana", "weak", "no raw output"),  # superseded below
    ("payments", "carol", "evidence", "ana", "acceptable", "ran the stub once after all"),
    ("payments", "carol", "explanation", "ana", "strong", "explains the restart gap"),
    ("payments", "carol", "blast_radius", "ana", "acceptable", "mentions duplicates"),
    ("payments", "carol", "found_defect", "ben", "acceptable", "found it reading the diff"),
    ("payments", "carol", "key_scope", "ben", "acceptable", "per call"),
    ("payments", "carol", "evidence", "ben", "acceptable", "ran it once"),
    ("payments", "carol", "explanation", "ben", "weak", "restates the diff"),
    ("payments", "dave", "found_defect", "ana", "weak", "did not see it"),
    ("payments", "dave", "key_scope", "ana", "acceptable", "per call"),
    ("payments", "dave", "evidence", "ana", "strong", "before/after runs"),
    ("payments", "dave", "explanation", "ana", "acceptable", "names idempotency"),
    ("payments", "dave", "blast_radius", "ana", "strong", "timeouts and partial writes"),
    ("payments", "dave", "found_defect", "ben", "weak", "did not see it"),
    ("payments", "dave", "key_scope", "ben", "acceptable", "per call"),
    ("payments", "dave", "evidence", "ben", "strong", "raw output quoted"),
    ("payments", "dave", "explanation", "ben", "acceptable", "names idempotency"),
]


def _grade(
    book: Gradebook,
    takehome: str,
    name: str,
    lines: Sequence[Mapping[str, Any]] | None,
    *,
    html: str | None = None,
    facts: Mapping[str, Any] | None = None,
) -> None:
    row = book.upsert_submission(takehome, name, "digest", "test")
    run = book.start_run(row.id, "test", "digest")
    if lines is None:
        book.finish_run(run, "error", error=HOSTILE_ERROR)
    else:
        book.finish_run(run, "graded", report={"lines": list(lines), "facts": dict(facts or {})}, html=html)


@pytest.fixture
def book_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Five submissions: alice, bob, erin (replay; erin's run failed), carol, dave (payments), graded on set days."""
    path = tmp_path / "reports" / "gradebook.sqlite"
    alice_html = tmp_path / "reports" / "replay" / "alice.html"
    alice_html.parent.mkdir(parents=True)
    alice_html.write_text("<p>alice</p>")
    days = [
        ("replay", "alice", ALICE, "2026-03-02", str(alice_html), None),
        ("replay", "bob", BOB, "2026-03-02", None, None),
        ("replay", HOSTILE, None, "2026-03-04", None, None),
        ("payments", "carol", CAROL, "2026-03-05", "reports/payments/carol.html", {"key_scope": "per_call"}),
        ("payments", "dave", DAVE, "2026-03-09", None, {"key_scope": "per_attempt", "tests_kind": None}),
    ]
    with Gradebook(path) as book:
        for takehome, name, lines, day, html, facts in days:
            with monkeypatch.context() as patch:
                patch.setattr(gradebook_module, "utc_now", lambda day=day: f"{day}T10:00:00.000000+00:00")
                _grade(book, takehome, name, lines, html=html, facts=facts)
        for takehome, name, line_id, reviewer, value, comment in SCORES:
            book.add_score(takehome, name, line_id, reviewer, value, comment)
    return path


@pytest.fixture
def cohort(book_path: Path) -> Cohort:
    return load(book_path)


def _row(table: pd.DataFrame, name: str) -> dict[str, Any]:
    rows = table[table["name"] == name].to_dict("records")
    assert len(rows) == 1, name
    return rows[0]


def _same(actual: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    for key, want in expected.items():
        got = actual[key]
        if isinstance(want, float) and math.isnan(want):
            assert isinstance(got, float) and math.isnan(got), (key, got)
        else:
            assert got == pytest.approx(want) if isinstance(want, float) else got == want, (key, got, want)


NAN = math.nan


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # Reviewers' mean where anyone scored the line, else the kit: 30 + 20 + mean(10, 0) + mean(20, 10) + 10.
        ("alice", {"identical": 30.0, "identical_source": "kit", "offline": 20.0, "missing_fixture": 5.0,
                   "missing_fixture_source": "reviewers", "record": 15.0, "record_source": "reviewers",
                   "volatile": 10.0, "total": 80.0, "max_total": 100.0, "reviewers": "ana, ben", "errors": 0,
                   "unverified": 0, "awaiting_review": 0, "flags": "", "report": "replay/alice.html",
                   "submission": "Submission #1", "graded": "2026-03-02", "status": "graded"}),
        # offline unverified and volatile missing await a human: no total (a partial sum would mislead).
        ("bob", {"identical": 0.0, "offline": NAN, "offline_source": "none", "missing_fixture": 20.0,
                 "record": 0.0, "record_source": "kit", "volatile": NAN, "volatile_source": "none", "total": NAN,
                 "errors": 1, "unverified": 1, "awaiting_review": 2,
                 "flags": "1 kit error(s), 1 unverified, 2 awaiting review", "report": NAN, "reviewers": ""}),
        (HOSTILE, {"identical": NAN, "total": NAN, "status": "error", "graded": "2026-03-04", "errors": 0,
                   "flags": 'run error: <img src=x onerror="alert(2)"> broke the kit'}),
        # Tiers as rubric points: mean(strong 2, acceptable 1) = 1.5; 1.5 + 1 + 1 + mean(2, 0) + 1 = 5.5.
        ("carol", {"found_defect": 1.5, "key_scope": 1.0, "key_scope_source": "reviewers", "evidence": 1.0,
                   "explanation": 1.0, "blast_radius": 1.0, "total": 5.5, "max_total": 10.0,
                   "report": "payments/carol.html", "identical": NAN}),
        ("dave", {"found_defect": 0.0, "key_scope": 1.0, "evidence": 2.0, "explanation": 1.0, "blast_radius": 2.0,
                  "total": 6.0, "flags": ""}),
    ],
    ids=["alice", "bob", "erin-run-failed", "carol", "dave"],
)  # fmt: skip
def test_table_numbers(cohort: Cohort, name: str, expected: dict[str, Any]) -> None:
    _same(_row(cohort.table, name), expected)


def test_table_order_and_blind_labels(cohort: Cohort) -> None:
    table = cohort.table
    # Take-homes in first-seen order (the gradebook lists payments first), best total first, no total last.
    assert list(zip(table["takehome"], table["name"], table["submission"], strict=True)) == [
        ("payments", "dave", "Submission #2"),
        ("payments", "carol", "Submission #1"),
        ("replay", "alice", "Submission #1"),
        ("replay", "bob", "Submission #2"),
        ("replay", HOSTILE, "Submission #3"),
    ]
    assert table.columns[:4].tolist() == ["takehome", "submission", "name", "graded"]


def test_ratings_are_current_scores_in_points(cohort: Cohort) -> None:
    by_unit = {(r.submission, r.line_id, r.reviewer): r for r in cohort.ratings}
    assert len(cohort.ratings) == len(SCORES) - 2  # two superseded entries
    assert by_unit[("alice", "record", "ana")].points == 20.0
    assert by_unit[("carol", "evidence", "ana")].value == "acceptable"
    assert by_unit[("carol", "found_defect", "ana")].metric == "ordinal"
    assert by_unit[("alice", "record", "ben")].metric == "interval"
    assert by_unit[("alice", "record", "ben")].report == "replay/alice.html"


def test_agreement_figures_on_the_fixture(cohort: Cohort) -> None:
    found = {(a.takehome, a.line_id): a.alpha for a in agreement.line_agreement(cohort.ratings)}
    # found_defect (2, 1), (0, 0): 5/6 (worked in test_agreement.py); explanation (2, 0), (1, 1): -0.5.
    assert found[("payments", "found_defect")].alpha == pytest.approx(5 / 6)
    assert found[("payments", "explanation")].alpha == pytest.approx(-0.5)
    assert (found[("payments", "key_scope")].alpha, found[("payments", "key_scope")].reason) == (None, "all agree")
    assert found[("payments", "evidence")].alpha == 1.0  # (1, 1), (2, 2): agree within, vary across
    lone = found[("payments", "blast_radius")]  # ana only
    assert (lone.alpha, lone.reason, lone.units) == (None, "too little data", 0)
    one_unit = found[("replay", "record")]  # only alice has two reviewers
    assert (one_unit.alpha, one_unit.reason, one_unit.units, one_unit.values) == (None, "too little data", 1, 2)
    assert agreement.unscored_lines(cohort.ratings, list(cohort.titles)) == [
        ("replay", "identical"),
        ("replay", "offline"),
        ("replay", "volatile"),
    ]


def test_leniency_and_disagreements_on_the_fixture(cohort: Cohort) -> None:
    rows = {(row.takehome, row.reviewer): row for row in agreement.leniency(cohort.ratings)}
    # payments, 8 shared units: ana +0.5 (found_defect carol) +1 (explanation carol), 0 elsewhere -> 1.5 / 8.
    assert rows[("payments", "ana")].units == 8
    assert rows[("payments", "ana")].mean_points == pytest.approx(0.1875)
    assert rows[("payments", "ben")].mean_share == pytest.approx(-0.09375)
    # replay, alice only: missing_fixture (10, 0) and record (20, 10), panel means 5 and 15: ana +5, +5.
    assert (rows[("replay", "ana")].mean_points, rows[("replay", "ana")].mean_share) == (5.0, 0.25)
    order = [(d.high.submission, d.high.line_id) for d in agreement.disagreements(cohort.ratings)]
    assert order == [
        ("carol", "explanation"),  # 2 of 2
        ("alice", "missing_fixture"),  # 10 of 20, 10 points
        ("alice", "record"),
        ("carol", "found_defect"),  # 1 of 2
    ]


@pytest.mark.parametrize(
    ("filters", "names"),
    [
        ({"takehome": "payments"}, ["dave", "carol"]),
        ({"reviewer": "ben"}, ["dave", "carol", "alice"]),
        ({"graded_from": "2026-03-03", "graded_to": "2026-03-05"}, ["carol", HOSTILE]),
        ({"graded_to": "2026-03-02"}, ["alice", "bob"]),
        ({"takehome": "replay", "reviewer": "ana", "graded_from": "2026-03-02"}, ["alice"]),
        ({"takehome": "nope"}, []),
    ],
    ids=["takehome", "reviewer", "date-range-inclusive", "graded-to", "all-three", "nothing"],
)
def test_filters(book_path: Path, filters: dict[str, str], names: list[str]) -> None:
    selected = load(book_path, **filters)
    assert selected.table["name"].tolist() == names
    assert {r.submission for r in selected.ratings} <= set(names)


def test_reviewer_filter_keeps_the_panel_for_calibration(book_path: Path) -> None:
    selected = load(book_path, reviewer="ben")
    assert {r.reviewer for r in selected.ratings} == {"ana", "ben"}
    assert "submissions ben scored" in selected.header().body


def test_bad_date_and_missing_gradebook_are_readable_errors(book_path: Path, tmp_path: Path) -> None:
    with pytest.raises(GradelibError, match="not a date"):
        load(book_path, graded_from="March 3rd")
    with pytest.raises(GradelibError, match="no gradebook"):
        load(tmp_path / "nothing.sqlite")
    assert not (tmp_path / "nothing.sqlite").exists()


def test_styled_table_escapes_candidate_text_and_marks_sources(cohort: Cohort) -> None:
    html = styled(cohort.table).to_html()
    for text in (html, tables_view(cohort).body):
        assert "<script>" not in text and "<img" not in text
        assert "erin&lt;script&gt;" in text
    assert '<a href="replay/alice.html">report</a>' in html
    assert "font-weight: bold" in html and "font-style: italic" in html
    assert ">80.0<" in html and ">5.5<" in html
    view = tables_view(cohort).body
    assert view.index("<h3>payments</h3>") < view.index("<h3>replay</h3>")


def test_each_cohort_table_scrolls_in_its_own_box_with_its_first_column_kept(cohort: Cohort) -> None:
    view = tables_view(cohort).body
    boxes = re.findall(r'<div class="gl-scroll" style="([^"]*)"><style type="text/css">(.*?)</style>', view, re.S)
    assert len(boxes) == 2, "one box per take-home's table"
    for inline, css in boxes:
        assert "overflow-x:auto" in inline, "inline, where JupyterLab's sanitiser keeps it in an untrusted notebook"
        assert re.search(r"th:first-child \{\s*position: sticky;\s*left: 0;", css)
    assert view.count(LEGEND_TEXT) == 2 and "<caption>" not in view, "the legend below the box, not scrolled with it"


def test_export_csv_round_trips_and_defuses_formulas(cohort: Cohort, tmp_path: Path) -> None:
    path = export_table(cohort.table, tmp_path / "out")
    assert path == tmp_path / "out" / "summary.csv"
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    alice = next(row for row in rows if row["name"] == "alice")
    assert (alice["total"], alice["missing_fixture"], alice["missing_fixture_source"]) == ("80.0", "5.0", "reviewers")
    formula = export_table(pd.DataFrame({"name": ['=HYPERLINK("x")', "plain"]}), tmp_path / "f")
    assert formula.read_text(encoding="utf-8").splitlines()[1:] == ['"\'=HYPERLINK(""x"")"', "plain"]


def test_failure_modes_from_facts_and_lines(cohort: Cohort) -> None:
    frame = cohortcharts.failure_modes(cohort)
    seen = dict(zip(frame["mode"], frame["count"], strict=True))
    assert seen == {
        "timestamp in the output": 1,  # bob
        "fixtures look edited": 1,  # alice's record needs review
        "per-attempt idempotency key": 1,  # dave
        "key lost on restart (per call)": 1,  # carol
        "no tests": 1,  # dave
        "kit error on a line": 1,  # bob's record
        "grading run failed": 1,  # erin
    }


def _texts_overlap(figure: Figure) -> list[str]:
    """Tick labels of one axis that overlap each other, and texts that leave the figure."""
    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    bounds = figure.bbox
    problems = []
    for axes in figure.axes:
        labels = [label for label in axes.get_yticklabels() if label.get_text()]
        boxes = [label.get_window_extent(renderer) for label in labels]
        for i, box in enumerate(boxes):
            problems += [f"{labels[i].get_text()} / {labels[j].get_text()}" for j in range(i) if box.overlaps(boxes[j])]
            if box.x0 < bounds.x0 - 1 or box.x1 > bounds.x1 + 1:
                problems.append(f"outside: {labels[i].get_text()}")
    return problems


def test_every_chart_is_a_labelled_figure_without_overlaps(cohort: Cohort, tmp_path: Path) -> None:
    for name, figure in _all_charts(cohort).items():
        assert isinstance(figure, Figure), name
        assert figure.get_suptitle() or all(axes.get_title() for axes in figure.axes), name
        assert all(axes.get_xlabel() for axes in figure.axes), name
        assert _texts_overlap(figure) == [], name
        figure.savefig(tmp_path / f"{name}.png", dpi=80)
        assert (tmp_path / f"{name}.png").stat().st_size > 5_000


def test_charts_say_so_when_there_is_too_little_data(book_path: Path) -> None:
    empty = load(book_path, takehome="nope")
    for name, shown in _all_charts(empty).items():
        assert isinstance(shown, Html) and shown.text, name
    erin_only = load(book_path, takehome="replay", graded_from="2026-03-04")  # a failed run, no scores
    charts = _all_charts(erin_only)
    assert isinstance(charts["agreement_chart"], Html) and "No reviewer scores" in charts["agreement_chart"].text
    assert isinstance(charts["score_distribution"], Html) and "No complete totals" in charts["score_distribution"].text


def _refused(name: str) -> Any:
    """A chart function named `name` that fails if it is called: the picture must come from the folder."""

    def chart(_cohort: Cohort) -> Figure:
        raise AssertionError(f"{name} was drawn again")

    chart.__name__ = name
    return chart


def test_a_chart_is_a_png_picture_drawn_here_without_a_folder(cohort: Cohort, book_path: Path) -> None:
    shown = drawing.draw(cohort, cohortcharts.score_distribution)
    assert isinstance(shown, drawing.Picture) and shown._repr_png_().startswith(b"\x89PNG")
    message = drawing.draw(load(book_path, takehome="nope"), cohortcharts.score_distribution, None)
    assert isinstance(message, Html)


def test_charts_drawn_ahead_are_taken_from_the_folder_not_drawn_again(
    cohort: Cohort, book_path: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "ahead"
    folder.mkdir()
    again = load(book_path)  # the second process reads the same gradebook on its own
    assert again is not cohort and again.digest == cohort.digest
    drawn = drawing.draw_ahead(folder, again, cohortcharts.CHARTS)
    assert drawn == [chart.__name__ for chart in reversed(cohortcharts.CHARTS)]
    for chart in cohortcharts.CHARTS:
        shown = drawing.draw(cohort, _refused(chart.__name__), folder)
        assert isinstance(shown, drawing.Picture)
        assert shown.png == (folder / f"{cohort.digest}-{chart.__name__}.png").read_bytes()


def test_a_chart_the_kernel_claimed_first_is_left_to_it(cohort: Cohort, tmp_path: Path) -> None:
    folder = tmp_path / "ahead"
    folder.mkdir()
    first = drawing.draw(cohort, cohortcharts.line_mix, folder)  # claimed here: drawn here
    assert isinstance(first, drawing.Picture)
    assert "line_mix" not in drawing.draw_ahead(folder, cohort, cohortcharts.CHARTS)
    assert not (folder / f"{cohort.digest}-line_mix.png").exists()


def test_a_picture_of_another_cohort_is_never_shown(cohort: Cohort, book_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ahead"
    folder.mkdir()
    with Gradebook(book_path) as book:  # a score saved between the two reads
        book.add_score("replay", "alice", "record", "zoe", "0", "a third look")
    changed = load(book_path)
    assert changed.digest != cohort.digest
    assert "agreement_chart" in drawing.draw_ahead(folder, changed, cohortcharts.CHARTS)
    called: list[Cohort] = []

    def agreement_chart(of: Cohort) -> Figure | Html:
        called.append(of)
        return cohortcharts.agreement_chart(of)

    shown = drawing.draw(cohort, agreement_chart, folder)
    assert isinstance(shown, drawing.Picture) and called == [cohort], "drawn here, from this cohort"


# -- demo scores ---------------------------------------------------------------------------------


@pytest.fixture
def bare_book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The fixture's submissions and runs without any reviewer score."""
    path = tmp_path / "bare" / "gradebook.sqlite"
    with Gradebook(path) as book:
        for takehome, name, lines in [("replay", "alice", ALICE), ("replay", "bob", BOB), ("replay", HOSTILE, None),
                                      ("payments", "carol", CAROL), ("payments", "dave", DAVE)]:  # fmt: skip
            _grade(book, takehome, name, lines)
    yield path


def _entries(path: Path) -> list[tuple[str, str, str, str, str]]:
    with Gradebook(path) as book:
        return sorted((s.submission, s.line_id, s.reviewer, s.value, s.comment) for s in book.scores())


def test_demo_scores_are_plausible_and_idempotent(bare_book: Path) -> None:
    first = demo.seed_demo_scores(bare_book)
    assert first.messages == () and first.submissions == 4 and first.scores > 0
    entries = _entries(bare_book)
    again = demo.seed_demo_scores(bare_book)
    assert (again.scores, again.submissions) == (0, 0) and again.skipped > 0
    assert _entries(bare_book) == entries
    cohort = load(bare_book)
    panels = cohort.table.set_index("name")["reviewers"]
    assert all(len(panels[name].split(", ")) in (2, 3) for name in ("alice", "bob", "carol", "dave"))
    assert panels[HOSTILE] == ""  # a failed run is not scored
    assert all(comment for *_, comment in entries)
    assert {r.reviewer for r in cohort.ratings} <= set(demo.DEMO_REVIEWERS)
    lenient = {row.reviewer: row.mean_points for row in agreement.leniency(cohort.ratings)}
    assert lenient.get("ana", 0) >= lenient.get("chloe", 0)


def test_demo_is_reproducible_from_scratch(tmp_path: Path) -> None:
    books = []
    for folder in ("one", "two"):
        path = tmp_path / folder / "gradebook.sqlite"
        with Gradebook(path) as book:
            _grade(book, "payments", "carol", CAROL)
            _grade(book, "payments", "dave", DAVE)
        demo.seed_demo_scores(path, seed=11)
        books.append(_entries(path))
    assert books[0] == books[1]


def test_demo_main(bare_book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--gradebook", str(bare_book), "--reviewers", "ana,ben"]) == 0
    assert "added" in capsys.readouterr().out
    assert demo.main(["--gradebook", str(tmp_path / "missing.sqlite")]) == 2
    assert "no gradebook" in capsys.readouterr().err


# -- what a hiring manager reads: titles, tier words, who it waits for, refusals; calibration anchors --------------


def test_view_has_line_titles_tier_words_and_waiting_for(book_path: Path) -> None:
    cohort = load(book_path)
    carol = cohort.table[cohort.table.name == "carol"].iloc[0]
    # ana scored every carol line, ben all but blast radius: ben owes it.
    assert carol["waiting_for"] == "ben: Blast radius"
    bob = cohort.table[cohort.table.name == "bob"].iloc[0]
    assert bob["waiting_for"].startswith("a reviewer: ") and "Volatile" in bob["waiting_for"]
    html = tables_view(cohort).body
    assert "Found the defect" in html and "Key scope" in html
    assert ">found_defect<" not in html and ">waiting_for<" not in html
    assert "1.5 (strong)" in html or "1.5 (acceptable)" in html  # carol's found defect: strong and acceptable
    assert "waiting for" in html and "ben: Blast radius" in html


def test_tier_word_is_the_nearest_tier() -> None:
    from gradelib.cohort.table import line_cell, tier_word
    from gradelib.takehomes.rubric import default_rubric

    key_scope = default_rubric("payments").line("key_scope")
    assert [tier_word(key_scope, p) for p in (0.0, 0.4, 1.0, 1.3, 2.0)] == [
        "weak", "weak", "acceptable", "acceptable", "strong"
    ]  # fmt: skip
    assert line_cell(key_scope, 4 / 3) == "1.3 (acceptable)"
    assert line_cell(default_rubric("replay").line("identical"), 27.5) == "27.5"
    assert line_cell(key_scope, math.nan) == "-"


def test_refused_submissions_are_rows_with_their_reason_in_every_selection(book_path: Path) -> None:
    with Gradebook(book_path) as book:
        row = book.upsert_submission("unknown", "bomb", "d-bomb", "cohort/bomb.zip")
        run = book.start_run(row.id, "test", "d-bomb")
        book.finish_run(run, "error", error="cohort/bomb.zip: unpacks to 536870912 bytes: refused as an archive bomb")
    for filters in ({}, {"takehome": "payments"}, {"takehome": "replay"}):
        cohort = load(book_path, **filters)
        assert "bomb" in cohort.table["name"].tolist(), filters
        html = tables_view(cohort).body
        assert "Not graded: refused or failed" in html and "refused as an archive bomb" in html
    html = tables_view(load(book_path)).body
    assert "broke the kit" in html and "<img" not in html  # erin's failed run, escaped


def test_anchors_first_in_the_queue_and_waiting_for_every_reviewer(book_path: Path) -> None:
    from gradelib.review import worklist

    with Gradebook(book_path) as book:
        assert book.set_anchor("payments", "dave") and not book.set_anchor("payments", "dave")
        assert [a.name for a in book.anchors()] == ["dave"]
        queue = worklist.queue(book, "chloe")
        assert queue[0].anchor and queue[0].takehome == "payments" and queue[0].label == "Submission #2"
    cohort = load(book_path)
    dave = cohort.table[cohort.table.name == "dave"].iloc[0]
    assert dave["anchor"] == "anchor"
    assert "ben: Blast radius" in dave["waiting_for"] and "ana" not in dave["waiting_for"]
    with Gradebook(book_path) as book:
        assert book.set_anchor("payments", "dave", anchored=False) and book.anchors() == []


def test_calibration_anchors_distance_from_consensus(book_path: Path) -> None:
    from gradelib.cohort import calibration

    assert "No calibration anchors" in calibration.anchors_view(load(book_path)).text
    with Gradebook(book_path) as book:
        book.set_anchor("payments", "carol")
    cohort = load(book_path)
    distances = {d.reviewer: d for d in calibration.anchor_distances(cohort)}
    # carol: ana 2,1,1,2,1 vs ben 1,1,1,0 on the lines both scored; consensus is their mean.
    assert distances["ana"].lines == 5 and distances["ben"].lines == 4
    assert distances["ben"].missing == 1 and distances["ana"].missing == 0
    assert distances["ana"].mean_points == pytest.approx((0.5 + 0 + 0 + 1 + 0) / 5)
    view = calibration.anchors_view(cohort)
    assert "Explanation" in view.body and "not scored yet" in view.body and "consensus" in view.body


def test_per_reviewer_distributions_per_line(book_path: Path) -> None:
    from gradelib.cohort import calibration
    from gradelib.takehomes.rubric import default_rubric

    cohort = load(book_path)
    counts = calibration.distribution(cohort.ratings, default_rubric("payments").line("found_defect"), "payments")
    assert counts == {"ana": {"strong": 1, "weak": 1}, "ben": {"acceptable": 1, "weak": 1}}
    view = calibration.distributions_view(cohort)
    assert "Found the defect" in view.body and "strong" in view.body


def _all_charts(cohort: Cohort) -> dict[str, Any]:
    """Every chart of the summary, by its function's name."""
    return {chart.__name__: chart(cohort) for chart in cohortcharts.CHARTS}
