"""The reviewer scoring panel: which lines need a human, saving scores, blind and safe display."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import pytest

from gradelib.display.render import Html
from gradelib.gradebook import Gradebook
from gradelib.result import LineResult, Report
from gradelib.review import scoringpanel as review
from gradelib.review.scoringpanel import (
    ENV_HEADLESS,
    ENV_REVIEWER,
    REVIEWER_NEEDED,
    ReviewLine,
    ScoringPanel,
    current_table,
    review_lines,
    save_scores,
    scoring_panel,
)
from gradelib.takehomes.rubric import Rubric, default_rubric, load_rubric

NAME = "kemi-adeyemi"
OTHER = "amara-okafor"
HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'

PAYMENTS_LINES = (
    LineResult("found_defect", "needs_review", "tests green on the draft too: " + HOSTILE),
    LineResult("key_scope", "pass", "one key per call", points=1.0, max_points=2.0, tier="acceptable"),
    LineResult("evidence", "needs_review", "reviewer reads NOTE.md"),
    LineResult("explanation", "needs_review", "reviewer judges"),
    LineResult("blast_radius", "error", "the client could not be graded"),
)
REPLAY_LINES = (
    LineResult("identical", "pass", "byte-identical", points=30.0, max_points=30.0),
    LineResult("offline", "unverified", "strace is not installed", max_points=20.0),
    LineResult("missing_fixture", "fail", "exit 0 without the fixture", points=0.0, max_points=20.0),
    LineResult("record", "needs_review", "fixtures look edited", max_points=20.0),
    # "volatile" has no result at all: the kit never got to it.
)


@pytest.fixture
def payments_book(tmp_path: Path) -> Iterator[tuple[Path, Rubric]]:
    """A gradebook with two payments submissions, the second graded with PAYMENTS_LINES."""
    path = tmp_path / "gradebook.sqlite"
    with Gradebook(path) as book:
        _grade(book, "payments", OTHER, PAYMENTS_LINES)
        _grade(book, "payments", NAME, PAYMENTS_LINES)
    yield path, default_rubric("payments")


def _grade(book: Gradebook, takehome: str, name: str, lines: Sequence[LineResult]) -> None:
    row = book.upsert_submission(takehome, name, "d" * 64, "folder")
    run = book.start_run(row.id, "0.1.0", "d" * 64)
    book.finish_run(run, "graded", report=Report(takehome, name, tuple(lines)).to_dict())


def _by_id(lines: Sequence[ReviewLine]) -> dict[str, ReviewLine]:
    return {line.line_id: line for line in lines}


# -- review_lines ---------------------------------------------------------------------------


def test_review_lines_payments_tiers() -> None:
    lines = _by_id(review_lines(default_rubric("payments"), PAYMENTS_LINES))
    assert list(lines) == ["found_defect", "key_scope", "evidence", "explanation", "blast_radius"]
    assert {line.kind for line in lines.values()} == {"tiers"}
    assert lines["key_scope"].choices == ("weak", "acceptable", "strong")
    assert lines["key_scope"].kit_value == "acceptable"
    assert not lines["key_scope"].needs_human
    # Undecided lines, and an error line without a tier, wait for a human.
    for line_id in ("found_defect", "evidence", "explanation", "blast_radius"):
        assert lines[line_id].needs_human, line_id
        assert lines[line_id].kit_value is None, line_id
    assert lines["blast_radius"].kit_outcome == "error"
    assert lines["evidence"].descriptions["strong"] == "Before/after runs with raw output"
    assert lines["key_scope"].label("acceptable") == "acceptable: Per call (kit)"


def test_review_lines_replay_points() -> None:
    lines = _by_id(review_lines(default_rubric("replay"), REPLAY_LINES))
    assert list(lines) == ["identical", "offline", "missing_fixture", "record", "volatile"]
    assert {line.kind for line in lines.values()} == {"points"}
    assert lines["identical"].choices == tuple(str(n) for n in range(31))
    assert lines["offline"].choices == tuple(str(n) for n in range(21))
    assert (lines["identical"].kit_value, lines["identical"].needs_human) == ("30", False)
    assert (lines["missing_fixture"].kit_value, lines["missing_fixture"].needs_human) == ("0", False)
    assert (lines["offline"].kit_value, lines["offline"].needs_human) == (None, True)
    assert (lines["record"].kit_value, lines["record"].needs_human) == (None, True)
    assert lines["volatile"].needs_human and lines["volatile"].kit_value is None
    assert lines["volatile"].kit_message == review.NO_RESULT_MESSAGE
    assert lines["identical"].label("30") == "30 / 30 (kit)"


def test_review_lines_reads_gradebook_rows_and_dicts(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        from_rows = review_lines(rubric, book.latest_lines("payments", NAME))
    from_dicts = review_lines(rubric, [line.to_dict() for line in PAYMENTS_LINES])
    assert from_rows == from_dicts == review_lines(rubric, PAYMENTS_LINES)


def test_review_lines_fractional_points(tmp_path: Path) -> None:
    rubric_file = tmp_path / "rubric.toml"
    rubric_file.write_text('takehome = "replay"\nkind = "points"\n[[lines]]\nid = "a"\ntitle = "A"\nweight = 2.5\n')
    rubric = load_rubric(rubric_file)
    (line,) = review_lines(rubric, [LineResult("a", "pass", "ok", points=1.25, max_points=2.5)])
    assert line.choices == ("0", "1", "1.25", "2", "2.5")
    assert line.kit_value == "1.25"


# -- save_scores ----------------------------------------------------------------------------


def test_save_scores_saves_and_skips_unchanged(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        lines = review_lines(rubric, book.latest_lines("payments", NAME))
        values = {
            "found_defect": ("acceptable", ""),  # needs a human, no kit value: no comment needed
            "key_scope": ("acceptable", ""),  # automated and left at the kit's value: nothing to record
            "evidence": ("", ""),  # no choice made yet
            "explanation": ("strong", "  explains the restart gap  "),
        }
        assert save_scores(book, "payments", NAME, "ana", values, lines) == []
        current = book.current_scores("payments", NAME)
        assert sorted(current) == [("explanation", "ana"), ("found_defect", "ana")]
        assert current[("explanation", "ana")].comment == "explains the restart gap"
        assert current[("found_defect", "ana")].kit_value is None
        # Saving the same form again writes nothing new.
        assert save_scores(book, "payments", NAME, "ana", values, lines) == []
        assert len(book.scores("payments", NAME)) == 2
        # A changed value is a new entry; the other reviewer's submission is untouched.
        assert save_scores(book, "payments", NAME, "ana", {"found_defect": ("weak", "")}, lines) == []
        assert book.current_scores("payments", NAME)[("found_defect", "ana")].value == "weak"
        assert len(book.scores("payments", NAME)) == 3
        assert book.scores("payments", OTHER) == []


def test_save_scores_override_needs_comment(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        lines = review_lines(rubric, book.latest_lines("payments", NAME))
        errors = save_scores(book, "payments", NAME, "ana", {"key_scope": ("strong", " ")}, lines)
        assert errors == ["Key scope: overriding the kit's acceptable with strong needs a comment"]
        assert book.scores("payments", NAME) == []
        values = {"key_scope": ("strong", "persists the key in a file before the request")}
        assert save_scores(book, "payments", NAME, "ana", values, lines) == []
        (entry,) = book.scores("payments", NAME)
        assert (entry.value, entry.kit_value, entry.reviewer) == ("strong", "acceptable", "ana")


def test_save_scores_rejects_blank_reviewer_and_bad_values(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        lines = review_lines(rubric, book.latest_lines("payments", NAME))
        assert save_scores(book, "payments", NAME, "  ", {"evidence": ("strong", "")}, lines) == [REVIEWER_NEEDED]
        errors = save_scores(book, "payments", NAME, "ana", {"evidence": ("superb", ""), "nope": ("1", "")}, lines)
        assert errors == [
            "nope: not a line of this rubric",
            "Evidence: 'superb' is not one of weak, acceptable, strong",
        ]
        assert book.scores("payments", NAME) == []


def test_save_scores_unknown_submission_keeps_the_name_hidden(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        lines = review_lines(rubric, [])
        (error,) = save_scores(book, "payments", "zed-unknown", "ana", {"evidence": ("weak", "")}, lines)
    assert "zed-unknown" not in error
    assert error.startswith("Evidence: no submission")


# -- safe, blind display --------------------------------------------------------------------


class _Tags(HTMLParser):
    """Every tag and attribute name in an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]


def _assert_safe(fragment: str) -> None:
    parser = _Tags()
    parser.feed(fragment)
    assert "script" not in parser.tags
    assert "img" not in parser.tags
    assert not [name for name in parser.attributes if name.startswith("on")]


def test_current_table_escapes_and_is_blind(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        book.add_score("payments", NAME, "found_defect", "ana", "weak", HOSTILE)
        book.add_score("payments", NAME, "evidence", "<b>bo</b>", "strong", "")
        table = current_table(book, "payments", NAME, rubric)
        revealed = current_table(book, "payments", NAME, rubric, reveal=True)
    assert isinstance(table, Html)
    _assert_safe(table.body)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in table.body
    assert "onerror=&quot;alert(2)&quot;" in table.body
    assert "&lt;b&gt;bo&lt;/b&gt;" in table.body
    assert "Submission #2" in table.body and "Submission #2" in table.text
    assert NAME not in table.body and NAME not in table.text
    assert NAME in revealed.body


def test_current_table_marks_waiting_lines(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        table = current_table(book, "payments", NAME, rubric)
    assert "No reviewer scores saved yet" in table.body
    assert table.body.count(review.NEEDS_YOU) == 4  # every line but the automated key scope


def test_headless_panel_is_the_table(payments_book: tuple[Path, Rubric], monkeypatch: pytest.MonkeyPatch) -> None:
    path, rubric = payments_book
    shown = scoring_panel(path, "payments", NAME, rubric, headless=True)
    assert isinstance(shown, Html)
    assert "Submission #2" in shown.body and NAME not in shown.body
    monkeypatch.setenv(ENV_HEADLESS, "1")
    assert isinstance(scoring_panel(str(path), "payments", NAME, rubric), Html)
    monkeypatch.setenv(ENV_HEADLESS, "0")
    assert review.is_headless() is False


# -- the ipywidgets panel -------------------------------------------------------------------


def _widget_text(widget: Any) -> str:
    """Every string any widget under `widget` holds (what the notebook would save as widget state)."""
    texts = [str(value) for value in widget.get_state().values() if isinstance(value, str)]
    if isinstance(widget, widgets.Dropdown):
        texts += [str(label) for label in widget.options]
    for child in getattr(widget, "children", ()):
        texts.append(_widget_text(child))
    return "\n".join(texts)


def test_panel_saves_through_the_gradebook(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    panel = scoring_panel(path, "payments", NAME, rubric, reviewer="ana", headless=False)
    assert isinstance(panel, ScoringPanel) and isinstance(panel, widgets.VBox)
    state = _widget_text(panel)
    assert "Submission #2" in state and NAME not in state
    _assert_safe(state)
    rows = panel.line_rows
    assert rows["key_scope"].choice.value == "acceptable"  # prefilled with the kit's suggestion
    assert rows["found_defect"].choice.value is None  # no suggestion: the reviewer picks
    assert panel.save_button.description == review.SAVE_LABEL and not panel.save_button.disabled

    rows["found_defect"].choice.value = "strong"
    rows["key_scope"].choice.value = "weak"  # an override without a comment
    panel.save_button.click()
    assert "needs a comment" in rows["key_scope"].error.value
    assert rows["found_defect"].error.value == ""
    assert "saved 1 score(s)" in panel.status_html.value
    with Gradebook(path) as book:
        assert {k: e.value for k, e in book.current_scores("payments", NAME).items()} == {
            ("found_defect", "ana"): "strong"
        }

    rows["key_scope"].comment.value = "retries mint a new key <b>every</b> time"
    assert panel.save() == []
    assert rows["key_scope"].error.value == ""
    with Gradebook(path) as book:
        entry = book.current_scores("payments", NAME)[("key_scope", "ana")]
    assert (entry.value, entry.kit_value, entry.comment) == (
        "weak",
        "acceptable",
        "retries mint a new key <b>every</b> time",
    )
    assert "retries mint a new key &lt;b&gt;every&lt;/b&gt; time" in panel.saved_html.value
    assert panel.save() == []  # nothing changed: nothing written
    assert "nothing new to save" in panel.status_html.value
    with Gradebook(path) as book:
        assert len(book.scores("payments", NAME)) == 2


def test_panel_reviewer_from_setting_and_prefill(
    payments_book: tuple[Path, Rubric], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        book.add_score("payments", NAME, "evidence", "bo", "acceptable", "ran the stub once")
    monkeypatch.delenv(ENV_REVIEWER, raising=False)
    panel = scoring_panel(path, "payments", NAME, rubric, headless=False)
    assert panel.reviewer_text.value == ""
    assert panel.save_button.disabled and "reviewer name is needed" in panel.save_button.description
    assert panel.save() == [REVIEWER_NEEDED]
    assert "bo" in panel.saved_html.value  # what others saved, and by whom, is shown

    panel.reviewer_text.value = "bo"  # switching reviewer loads their current values
    assert not panel.save_button.disabled
    assert panel.line_rows["evidence"].choice.value == "acceptable"
    assert panel.line_rows["evidence"].comment.value == "ran the stub once"

    monkeypatch.setenv(ENV_REVIEWER, "cy")
    assert scoring_panel(path, "payments", NAME, rubric, headless=False).reviewer_text.value == "cy"


def test_panel_for_a_points_rubric(tmp_path: Path) -> None:
    path = tmp_path / "gradebook.sqlite"
    with Gradebook(path) as book:
        _grade(book, "replay", NAME, REPLAY_LINES)
    panel = scoring_panel(path, "replay", NAME, default_rubric("replay"), reviewer="ana", headless=False)
    rows = panel.line_rows
    assert rows["identical"].choice.value == "30"
    rows["offline"].choice.value = "20"
    rows["identical"].choice.value = "15"
    rows["identical"].comment.value = "differs on a second run with faketime"
    assert panel.save() == []
    with Gradebook(path) as book:
        current = book.current_scores("replay", NAME)
    assert {k: (e.value, e.kit_value) for k, e in current.items()} == {
        ("identical", "ana"): ("15", "30"),
        ("offline", "ana"): ("20", None),
    }


@pytest.mark.parametrize("headless", [True, False], ids=["headless", "widgets"])
def test_missing_gradebook_is_reported_not_created(tmp_path: Path, headless: bool) -> None:
    path = tmp_path / "nowhere" / "gradebook.sqlite"
    shown = scoring_panel(path, "payments", NAME, default_rubric("payments"), reviewer="ana", headless=headless)
    assert isinstance(shown, Html)
    assert "no gradebook at" in shown.body
    assert not path.exists()


# -- blind between reviewers ----------------------------------------------------------------

SECRET = "private reasoning about the note by bo"


def test_a_colleagues_score_shows_only_after_saving_your_own(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        book.add_score("payments", NAME, "evidence", "bo", "strong", SECRET)
        book.add_score("payments", NAME, "explanation", "bo", "weak", "restates the diff")
    panel = scoring_panel(path, "payments", NAME, rubric, reviewer="ana", headless=False)
    assert SECRET not in panel.saved_html.value and "restates the diff" not in panel.saved_html.value
    assert "hidden until you save yours" in panel.saved_html.value and "bo" in panel.saved_html.value
    assert SECRET not in _widget_text(panel)  # nor in any widget's state a saved notebook could keep
    panel.line_rows["evidence"].choice.value = "acceptable"
    assert panel.save() == []
    assert SECRET in panel.saved_html.value  # ana scored evidence: bo's evidence is shown
    assert "restates the diff" not in panel.saved_html.value  # not explanation, which ana has not scored
    revealed = scoring_panel(path, "payments", NAME, rubric, reviewer="cy", headless=False, reveal=True)
    assert SECRET in revealed.saved_html.value and "restates the diff" in revealed.saved_html.value


def test_the_lead_reveals_with_a_setting(payments_book: tuple[Path, Rubric], monkeypatch: pytest.MonkeyPatch) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        book.add_score("payments", NAME, "evidence", "bo", "strong", SECRET)
    monkeypatch.setenv(review.ENV_REVEAL, "1")
    panel = scoring_panel(path, "payments", NAME, rubric, reviewer="cy", headless=False)
    assert SECRET in panel.saved_html.value and NAME in _widget_text(panel)


def test_stored_table_is_blind_and_says_when_it_was_taken(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    with Gradebook(path) as book:
        book.add_score("payments", NAME, "evidence", "bo", "strong", SECRET)
    shown = scoring_panel(path, "payments", NAME, rubric, headless=True)
    assert isinstance(shown, Html)
    assert SECRET not in shown.body and "strong</b>" not in shown.body
    assert "value hidden (blind review)" in shown.body and "Score table taken" in shown.body
    assert "No reviewer scores saved yet" not in shown.body


def test_panel_for_works_from_the_gradebook_alone(payments_book: tuple[Path, Rubric], tmp_path: Path) -> None:
    path, _ = payments_book
    by_label = review.panel_for(path, "payments", "Submission #2", reviewer="ana", headless=False)
    assert isinstance(by_label, ScoringPanel)
    assert by_label.line_rows["key_scope"].choice.value == "acceptable"  # the kit's line, from the gradebook
    by_folder = review.panel_for(path, "payments", tmp_path / "cohort" / f"{NAME}.zip", headless=False)
    assert isinstance(by_folder, ScoringPanel) and by_folder._name == NAME
    missing = review.panel_for(path, "payments", "Submission #9", headless=False)
    assert isinstance(missing, Html) and "not in the gradebook" in missing.body
    assert "set `name`" in review.panel_for(path, "payments", None).body


def test_a_live_panel_carries_its_static_table(payments_book: tuple[Path, Rubric]) -> None:
    path, rubric = payments_book
    panel = scoring_panel(path, "payments", NAME, rubric, reviewer="ana", headless=False)
    data, metadata = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert "Score table taken" in data["text/html"] and NAME not in data["text/html"]
    assert metadata == review.PANEL_OUTPUT_METADATA
