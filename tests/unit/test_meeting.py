"""The calibration meeting's records: agenda, resolutions, clarifications, decisions, before/after, blind rules."""

from __future__ import annotations

import csv
import json
import shlex
import shutil
from pathlib import Path

import pytest
from test_cohort import HOSTILE, _row, book_path

from gradelib import cli
from gradelib.cohort.table import FROM_RESOLUTION, load
from gradelib.cohort.view import RESOLVED_MARK, export_table, tables_view
from gradelib.errors import GradebookError, RecordRefused, ScoreRejected, UnknownSubmission
from gradelib.gradebook import Gradebook
from gradelib.gradebook import store as gradebook_module
from gradelib.gradebook.exchange import export, import_scores
from gradelib.meeting import agenda, beforeafter, decisions, resolutions
from gradelib.meeting import leadpanel as meetingpanel
from gradelib.review import rubricview, scoringpanel
from gradelib.review.scoretable import (
    DECISION_HIDDEN,
    RESOLVED_HIDDEN_FOR_VIEWER,
    RESOLVED_HIDDEN_STATIC,
    current_table,
)
from gradelib.takehomes.clarifications import clarifications_path, load_clarifications
from gradelib.takehomes.rubric import default_rubric, load_rubric

__all__ = ["book_path"]  # the fixture, shared with test_cohort
PACKAGED = Path(default_rubric("payments").source)


@pytest.fixture
def rubric_copy(tmp_path: Path) -> Path:
    """The packaged payments rubric copied where a test may write its clarifications."""
    target = tmp_path / "rubrics" / "rubric.toml"
    target.parent.mkdir()
    shutil.copyfile(PACKAGED, target)
    return target


def test_agenda_lists_disagreements_by_a_tier_or_a_quarter_of_the_points(book_path: Path) -> None:
    items = agenda.agenda(load(book_path))
    found = [(i.name, i.line_id) for i in items]
    # replay: alice missing_fixture 10 vs 0 of 20 and record 20 vs 10 of 20 (half the line each);
    # payments: carol found_defect strong vs acceptable, explanation strong vs weak; dave: none differ.
    assert sorted(found) == sorted(
        [("alice", "missing_fixture"), ("alice", "record"), ("carol", "found_defect"), ("carol", "explanation")]
    )
    by_key = {(i.name, i.line_id): i for i in items}
    explanation = by_key[("carol", "explanation")]
    assert explanation.spread == 2 and explanation.share == 1.0
    assert [(r.reviewer, r.value) for r in explanation.ratings] == [("ana", "strong"), ("ben", "weak")]
    assert explanation.ratings[0].comment == "explains the restart gap"
    assert explanation.kit_outcome == "needs_review" and explanation.kit_value is None
    assert by_key[("carol", "explanation")].report  # a link to the evidence
    payments = [i.line_id for i in items if i.takehome == "payments"]
    assert payments == ["explanation", "found_defect"]  # the larger spread moves the total more


def test_a_points_line_needs_a_quarter_of_its_maximum(book_path: Path) -> None:
    with Gradebook(book_path) as book:
        book.add_score("replay", "bob", "identical", "ana", "30", "looks identical to me")
        book.add_score("replay", "bob", "identical", "ben", "25", "nearly")  # 5 of 30 < a quarter
        book.add_score("replay", "bob", "missing_fixture", "ana", "20")
        book.add_score("replay", "bob", "missing_fixture", "ben", "15")  # exactly a quarter of 20
    found = {(i.name, i.line_id) for i in agenda.agenda(load(book_path))}
    assert ("bob", "identical") not in found and ("bob", "missing_fixture") in found


def test_anchors_come_first(book_path: Path) -> None:
    with Gradebook(book_path) as book:
        book.set_anchor("replay", "alice")
        book.add_score("payments", "dave", "blast_radius", "ben", "weak", "ignores it")
    items = agenda.agenda(load(book_path))
    replay = [(i.name, i.anchor) for i in items if i.takehome == "replay"]
    assert replay[0] == ("alice", True)
    text = agenda.agenda_text(items)
    assert "[anchor]" in text and "(alice)" not in text  # blind unless revealed
    assert "(alice)" in agenda.agenda_text(items, reveal=True)
    data = json.loads(agenda.agenda_json(items))
    assert data[0]["submission"].startswith("Submission #") and data[0]["name"] is None


def test_a_resolution_replaces_the_mean_and_leaves_the_agenda(book_path: Path, tmp_path: Path) -> None:
    with Gradebook(book_path) as book:
        first = resolutions.resolve(book, "payments", "carol", "explanation", "strong", "explains the gap", "lead")
        resolutions.resolve(book, "payments", "Submission #1", "explanation", "acceptable", "names idempotency", "lead")
        assert [r.value for r in book.resolutions("payments", "carol")] == ["strong", "acceptable"]
        assert first.uid != book.resolutions()[-1].uid
    cohort = load(book_path)
    row = _row(cohort.table, "carol")
    assert row["explanation"] == 1.0 and row["explanation_source"] == FROM_RESOLUTION
    assert ("carol", "explanation") not in {(i.name, i.line_id) for i in agenda.agenda(cohort)}
    assert ("carol", "explanation") in {(i.name, i.line_id) for i in agenda.agenda(cohort, resolved=True)}
    html = tables_view(cohort).body
    assert f"1 (acceptable){RESOLVED_MARK}" in html
    exported = export_table(cohort.table, tmp_path)
    rows = {r["name"]: r for r in csv.DictReader(exported.read_text(encoding="utf-8").splitlines())}
    assert rows["carol"]["explanation_source"] == "resolved"
    assert rows["dave"]["explanation_source"] == "reviewers"
    shown = resolutions.resolutions_view(cohort).body
    assert "<td>acceptable</td><td>ana strong, ben weak</td><td>names idempotency</td><td>lead</td>" in shown


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("payments", "carol", "explanation", "great", "why", "lead"), "not one of its tiers"),
        (("payments", "carol", "wording", "strong", "why", "lead"), "has no line 'wording'"),
        (("payments", "Submission #9", "explanation", "strong", "why", "lead"), "no payments submission"),
        (("payments", "carol", "explanation", "strong", "  ", "lead"), "needs a reason"),
        (("payments", "carol", "explanation", "strong", "why", " "), "say who records it"),
        (("replay", "alice", "record", "21", "why", "lead"), "outside 0 to 20"),
        (("replay", "alice", "record", "lots", "why", "lead"), "not a number"),
    ],
)
def test_a_resolution_is_checked_against_the_rubric(
    book_path: Path, args: tuple[str, ...], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRADELIB_REVIEWER", raising=False)
    with Gradebook(book_path) as book, pytest.raises((RecordRefused, UnknownSubmission), match=message):
        resolutions.resolve(book, *args)
    with Gradebook(book_path) as book:
        assert book.resolutions() == []


def test_meeting_records_are_append_only(book_path: Path) -> None:
    with Gradebook(book_path) as book:
        resolutions.resolve(book, "replay", "alice", "record", "15", "halfway", "lead")
        decisions.decide(book, "replay", "alice", "hold", "one cassette edited", "lead")
        for statement in (
            "UPDATE resolutions SET value = '20'",
            "DELETE FROM resolutions",
            "UPDATE decisions SET decision = 'advance'",
            "DELETE FROM decisions",
        ):
            with pytest.raises(GradebookError, match="append-only"):
                book._write(lambda conn, sql=statement: conn.execute(sql))
        with pytest.raises(ScoreRejected):
            book.add_resolution("replay", "nobody", "record", "1", "why", "lead")
        assert [r.value for r in book.resolutions()] == ["15"]
        assert [d.decision for d in book.decisions()] == ["hold"]


def test_decisions_wording_table_and_export(book_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Gradebook(book_path) as book:
        with pytest.raises(RecordRefused, match="advance, hold, decline"):
            decisions.decide(book, "payments", "carol", "maybe", "why", "lead")
        decisions.decide(book, "payments", "carol", "hold", "first thought", "lead")
        decisions.decide(book, "payments", "carol", "advance", "=HYPERLINK(evil)", "lead")  # supersedes
        monkeypatch.setenv(decisions.ENV_DECISIONS, "next round, no")
        assert decisions.decision_choices() == ("next round", "no")
        decisions.decide(book, "payments", "dave", "next round", "strong evidence", "lead")
        with pytest.raises(RecordRefused, match="next round, no"):
            decisions.decide(book, "payments", "dave", "advance", "why", "lead")
    cohort = load(book_path)
    rows = {(r["takehome"], r["submission"]): r for r in decisions.decision_rows(cohort)}
    carol = rows[("payments", "Submission #1")]
    assert carol["decision"] == "advance" and carol["name"] == "" and carol["reason"] == "=HYPERLINK(evil)"
    blind = decisions.export_decisions(cohort, tmp_path / "decisions.csv")
    lines = list(csv.DictReader(blind.read_text(encoding="utf-8").splitlines()))
    assert "name" not in lines[0] and {r["decision"] for r in lines} == {"advance", "next round", ""}
    assert "'=HYPERLINK(evil)" in {r["reason"] for r in lines}  # a spreadsheet will not run it
    assert "carol" not in blind.read_text(encoding="utf-8")
    revealed = decisions.export_decisions(cohort, tmp_path / "named.csv", reveal=True)
    named = {r["name"]: r for r in csv.DictReader(revealed.read_text(encoding="utf-8").splitlines())}
    assert named["carol"]["decided_by"] == "lead" and named["carol"]["decided_at"]
    assert "carol" in decisions.decisions_view(cohort).body
    written = Path(decisions.export_note(cohort).text)
    assert written == cohort.reports_dir / "decisions.csv" and "carol" not in written.read_text(encoding="utf-8")


def test_export_all_and_import_carry_the_meeting_once(book_path: Path, tmp_path: Path) -> None:
    with Gradebook(book_path) as book:
        resolutions.resolve(book, "payments", "carol", "explanation", "strong", "explains the gap", "lead")
        decisions.decide(book, "payments", "carol", "advance", "strong", "lead")
        dump = export(book, tmp_path / "all.json")
    assert {"resolutions", "decisions"} <= set(json.loads(dump.read_text(encoding="utf-8")))
    with Gradebook(tmp_path / "other.sqlite") as other:
        first = import_scores(other, dump)
        again = import_scores(other, dump)
        assert [r.reason for r in other.resolutions()] == ["explains the gap"]
        assert [d.decision for d in other.decisions()] == ["advance"]
    assert first.added > 2 and again.added == 0 and again.skipped == first.added + first.skipped


def test_a_clarification_goes_into_the_gradebook_and_the_panel(book_path: Path, rubric_copy: Path) -> None:
    rubric = load_rubric(rubric_copy, takehome="payments")
    with Gradebook(book_path) as book:
        with pytest.raises(RecordRefused, match="no resolution on explanation"):
            resolutions.clarify(book, "payments", "carol", "explanation", rubric=rubric)
        resolutions.resolve(book, "payments", "carol", "explanation", "acceptable", f"names it {HOSTILE}", "lead")
        done = resolutions.clarify(book, "payments", "carol", "explanation", rubric=rubric)
        again = resolutions.clarify(book, "payments", "carol", "explanation", rubric=rubric)
        notes = load_clarifications(rubric, book)
        assert load_clarifications(default_rubric("payments"), book) == notes  # the team's, whichever rubric file
    assert done.added and not again.added and done.path == book_path
    assert not clarifications_path(rubric).exists()  # nothing written beside a rubric file
    assert [(n.value, n.example) for n in notes["explanation"]] == [("acceptable", "Submission #1")]
    assert notes["explanation"][0].note == f"names it {HOSTILE}"
    assert "clarified, acceptable: names it" in rubricview.rubric_text(rubric, notes)
    review = scoringpanel.review_lines(rubric, [])
    row = scoringpanel._panel_row(review[3], notes["explanation"])
    assert "Clarified by a calibration meeting" in row.box.children[0].value
    assert "<script>" not in row.box.children[0].value  # escaped
    assert load_clarifications(default_rubric("payments")) == {}  # the packaged rubric is untouched
    assert not clarifications_path(default_rubric("payments")).exists()


def test_resolutions_and_decisions_stay_blind_until_the_viewer_has_scored(book_path: Path) -> None:
    rubric = default_rubric("payments")
    with Gradebook(book_path) as book:
        resolutions.resolve(book, "payments", "dave", "blast_radius", "strong", "names timeouts", "lead")
        decisions.decide(book, "payments", "dave", "advance", "clear evidence", "lead")
        static = current_table(book, "payments", "dave", rubric).body
        chloe = current_table(book, "payments", "dave", rubric, viewer="chloe").body
        book.add_score("payments", "dave", "blast_radius", "chloe", "acceptable", "mentions duplicates")
        partly = current_table(book, "payments", "dave", rubric, viewer="chloe").body
        for line_id in ("found_defect", "evidence", "explanation"):
            book.add_score("payments", "dave", line_id, "chloe", "acceptable", "mine")
        done = current_table(book, "payments", "dave", rubric, viewer="chloe").body
        revealed = current_table(book, "payments", "dave", rubric, reveal=True).body
    assert RESOLVED_HIDDEN_STATIC in static and "names timeouts" not in static and DECISION_HIDDEN in static
    assert RESOLVED_HIDDEN_FOR_VIEWER in chloe and "names timeouts" not in chloe
    assert "names timeouts" in partly and DECISION_HIDDEN in partly and "clear evidence" not in partly
    assert "clear evidence" in done and DECISION_HIDDEN not in done
    assert "names timeouts" in revealed and "clear evidence" in revealed


def test_before_and_after_the_meeting(book_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "No resolution recorded yet" in beforeafter.effect_view(load(book_path)).body
    clock = iter(f"2099-01-01T10:00:{second:02d}.000000+00:00" for second in range(60))
    monkeypatch.setattr(gradebook_module, "utc_now", lambda: next(clock))
    with Gradebook(book_path) as book:
        resolutions.resolve(book, "payments", "carol", "explanation", "acceptable", "names idempotency", "lead")
        book.add_score("payments", "carol", "explanation", "ana", "acceptable", "after the meeting")
        book.add_score("payments", "carol", "explanation", "ben", "acceptable", "after the meeting")
    found = {e.takehome: e for e in beforeafter.effects(load(book_path))}
    assert set(found) == {"payments"} and found["payments"].lines_resolved == 1
    before = {(r.submission, r.reviewer): r.value for r in found["payments"].before if r.line_id == "explanation"}
    now = {(r.submission, r.reviewer): r.value for r in found["payments"].now if r.line_id == "explanation"}
    assert before[("carol", "ana")] == "strong" and before[("carol", "ben")] == "weak"
    assert now[("carol", "ana")] == now[("carol", "ben")] == "acceptable"
    html = beforeafter.effect_view(load(book_path)).body
    assert "1 line(s) resolved" in html and "alpha before" in html and "leniency now" in html


def test_meeting_panel_records_what_the_lead_enters(book_path: Path) -> None:
    assert "records nothing" in meetingpanel.meeting_panel(load(book_path), headless=True).body
    widget = meetingpanel.meeting_panel(load(book_path), by="lead", headless=False)
    assert isinstance(widget, meetingpanel.MeetingPanel)
    assert "pick a submission" in widget.resolve()
    item = next(value for _, value in widget.item.options if value is not None and value.name == "carol")
    widget.item.value = item  # the agenda item fills the submission and the line
    assert widget.submission.value == ("payments", "Submission #1") and widget.line.value == item.line_id
    widget.value.value = "great"
    widget.why.value = "agreed"
    assert "not recorded" in widget.resolve() and "not one of its tiers" in widget.status.value
    widget.value.value = "acceptable"
    assert "resolved as acceptable" in widget.resolve()
    widget.decide_submission.value = ("payments", "Submission #1")
    widget.decision.value = "advance"
    widget.decide_why.value = "the meeting agreed"
    assert "advance" in widget.decide()
    with Gradebook(book_path) as book:
        recorded = [(r.line_id, r.value, r.resolved_by) for r in book.resolutions()]
        assert recorded == [(item.line_id, "acceptable", "lead")]
        assert [(d.decision, d.reason) for d in book.decisions()] == [("advance", "the meeting agreed")]


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_runs_the_meeting(
    book_path: Path, rubric_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = ("--gradebook", str(book_path))
    code, out, _ = _cli(capsys, "agenda", *book)
    assert code == 0 and "payments: 2 item(s)" in out and "(carol)" not in out
    code, out, _ = _cli(capsys, "agenda", "--json", "--reveal", "--takehome", "replay", *book)
    assert code == 0 and {item["name"] for item in json.loads(out)} == {"alice"}
    code, _, err = _cli(capsys, "resolve", "payments", "1", "explanation", "great", "--why", "x", "--by", "l", *book)
    assert code == 2 and "not one of its tiers" in err
    code, out, _ = _cli(
        capsys, "resolve", "payments", "1", "explanation", "acceptable", "--why", "names it", "--by", "lead", *book
    )
    assert code == 0 and "resolved as acceptable by lead" in out
    code, out, _ = _cli(capsys, "clarify", "payments", "1", "explanation", "--rubric", str(rubric_copy), *book)
    assert code == 0 and "added to" in out
    code, out, _ = _cli(capsys, "rubric", "payments", "--rubric", str(rubric_copy), *book)
    assert code == 0 and "clarified, acceptable: names it" in out and str(rubric_copy) in out
    code, out, _ = _cli(capsys, "rubric", "payments", *book)  # the team's clarifications on the packaged rubric too
    assert code == 0 and "clarified, acceptable: names it" in out
    code, out, _ = _cli(capsys, "decide", "payments", "1", "advance", "--why", "clear", "--by", "lead", *book)
    assert code == 0 and "advance, decided by lead" in out
    target = tmp_path / "decisions.csv"
    code, out, _ = _cli(capsys, "export", str(target), "--decisions", *book)
    assert code == 0 and "advance" in target.read_text(encoding="utf-8")
    code, _, err = _cli(capsys, "export", str(tmp_path / "d.json"), "--decisions", *book)
    assert code == 2 and "CSV" in err
    code, out, _ = _cli(capsys, "agenda", *book)
    assert "Explanation" not in out.split("replay:")[0]  # resolved: off the open agenda


def test_the_summary_shows_the_top_of_a_long_agenda(book_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agenda, "SHOWN_PER_TAKEHOME", 1)
    view = agenda.agenda_view(load(book_path))
    assert "... and 1 more item(s)" in view.body and view.body.count("<td>1</td>") == 2  # one row per take-home
    assert "replay: 2 open item(s)" in view.text and "payments: 2 open item(s)" in view.text
    lazy = load(book_path, evidence=False)
    assert "table" not in vars(lazy)  # built on first use only
    assert all(not line.evidence for entry in lazy.entries for line in entry.lines.values())
    assert len(lazy.table) == len(load(book_path).table)


# -- a line by its id or its title; the agenda's own command ------------------------------------------------------


@pytest.mark.parametrize(
    "named", ["blast_radius", "Blast radius", "blast radius", "  BLAST   RADIUS ", "Blast_Radius"], ids=repr
)
def test_a_line_is_named_by_its_id_or_its_title(named: str) -> None:
    assert resolutions.rubric_line(default_rubric("payments"), named).id == "blast_radius"


def test_an_unknown_or_ambiguous_line_lists_every_id_and_title(tmp_path: Path) -> None:
    with pytest.raises(RecordRefused, match="payments has no line 'radius'") as caught:
        resolutions.rubric_line(default_rubric("payments"), "radius")
    assert "blast_radius (Blast radius)" in str(caught.value) and "found_defect (Found the defect)" in str(caught.value)
    text = PACKAGED.read_text(encoding="utf-8").replace('title = "Key scope"', 'title = "Evidence"', 1)
    (tmp_path / "rubric.toml").write_text(text, encoding="utf-8")
    clash = load_rubric(tmp_path / "rubric.toml", takehome="payments")
    with pytest.raises(RecordRefused, match="'evidence' names more than one line"):
        resolutions.rubric_line(clash, "evidence")
    assert resolutions.rubric_line(clash, "key_scope").title == "Evidence"  # an id is still one line


def test_resolve_and_clarify_take_the_title_the_agenda_prints(book_path: Path, rubric_copy: Path) -> None:
    with Gradebook(book_path) as book:
        record = resolutions.resolve(book, "payments", "Submission #1", "Explanation", "strong", "why", "lead")
        assert record.line_id == "explanation"
        done = resolutions.clarify(book, "payments", "1", " explanation ", rubric=load_rubric(rubric_copy))
    assert done.clarification.line_id == "explanation" and done.added


def test_each_agenda_item_carries_the_command_that_resolves_it(book_path: Path) -> None:
    items = agenda.agenda(load(book_path))
    carol = next(i for i in items if (i.name, i.line_id) == ("carol", "explanation"))
    placeholder = "'<weak|acceptable|strong>'"
    assert carol.command() == f"gradelib resolve payments 'Submission #1' explanation {placeholder} --why '<reason>'"
    alice = next(i for i in items if (i.name, i.line_id) == ("alice", "record"))
    assert alice.command(Path("elsewhere/book.sqlite")) == (
        "gradelib resolve replay 'Submission #1' record '<points 0 to 20>' --why '<reason>'"
        " --gradebook elsewhere/book.sqlite"
    )
    assert alice.command(Path("reports/gradebook.sqlite")) == alice.command()  # the default needs no flag
    text = agenda.agenda_text(items, reveal=True).splitlines()
    under = text[text.index(next(line for line in text if "Submission #1 (carol)" in line and "Explanation" in line)) :]
    assert next(line for line in under if "resolve:" in line).strip() == f"resolve: {carol.command()}"
    data = json.loads(agenda.agenda_json(items, gradebook=book_path))
    assert all(item["command"].startswith("gradelib resolve ") for item in data)
    assert data[0]["command"].endswith(f"--gradebook {book_path}")


def test_the_agenda_command_copied_and_filled_in_records_the_resolution(
    book_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADELIB_REVIEWER", "lead")
    code, out, _ = _cli(capsys, "agenda", "--takehome", "payments", "--gradebook", str(book_path))
    assert code == 0
    printed = [line.split("resolve: ", 1)[1] for line in out.splitlines() if line.strip().startswith("resolve: ")]
    assert len(printed) == 2  # carol's explanation and found_defect
    command = next(line for line in printed if " explanation " in line)
    filled = command.replace("<weak|acceptable|strong>", "acceptable").replace("<reason>", "names idempotency, not why")
    words = shlex.split(filled)
    assert words[:2] == ["gradelib", "resolve"]
    code, out, err = _cli(capsys, *words[1:])
    assert (code, err) == (0, "") and "Submission #1 explanation: resolved as acceptable by lead" in out
    with Gradebook(book_path) as book:
        kept = book.resolutions("payments", "carol")
    assert [(r.line_id, r.value, r.reason, r.resolved_by) for r in kept] == [
        ("explanation", "acceptable", "names idempotency, not why", "lead")
    ]
    code, out, _ = _cli(capsys, "agenda", "--takehome", "payments", "--gradebook", str(book_path))
    assert command not in out and sum("resolve: " in line for line in out.splitlines()) == 1


def test_an_unfilled_command_records_nothing(book_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    item = next(i for i in agenda.agenda(load(book_path)) if i.takehome == "payments")
    code, _, err = _cli(capsys, *shlex.split(item.command(book_path))[1:], "--by", "lead")
    assert code == 2 and "is not one of its tiers" in err
    with Gradebook(book_path) as book:
        assert book.resolutions() == []


def test_the_meeting_commands_take_a_line_title_and_refuse_an_unknown_label(
    book_path: Path, rubric_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = ("--gradebook", str(book_path))
    code, out, _ = _cli(capsys, "resolve", "payments", "1", "Blast radius", "weak", "--why", "w", "--by", "l", *book)
    assert code == 0 and "blast_radius: resolved as weak" in out
    code, out, _ = _cli(capsys, "clarify", "payments", "1", "BLAST RADIUS", "--rubric", str(rubric_copy), *book)
    assert code == 0 and "blast_radius: added to" in out
    code, _, err = _cli(capsys, "resolve", "payments", "1", "radius", "weak", "--why", "w", "--by", "l", *book)
    assert code == 2 and "has no line 'radius'" in err and "blast_radius (Blast radius)" in err
    code, _, err = _cli(capsys, "decide", "payments", "Submission #7", "advance", "--why", "w", "--by", "l", *book)
    assert code == 2 and "no payments submission 'Submission #7'" in err and "Submission #1, Submission #2" in err
    assert "carol" not in err
