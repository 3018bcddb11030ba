"""The gradebook: schema, blind numbers, runs and lines, append-only scores, concurrency, export and import."""

from __future__ import annotations

import csv
import json
import multiprocessing
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gradelib.errors import CommentRequired, GradebookError, ScoreRejected
from gradelib.gradebook import DEFAULT_PATH, SCHEMA_VERSION, Gradebook, ScoreEntry
from gradelib.gradebook import store as gradebook
from gradelib.gradebook.exchange import ImportResult, csv_paths, export, import_scores
from gradelib.result import LineResult, Report

KIT = "0.1.0"
REPLAY = "replay"
PAYMENTS = "payments"
REVIEWER_ENTRIES = 50
BATCH_WRITERS = 4
RUNS_PER_WRITER = 10
JOIN_TIMEOUT_S = 120


def make_report(name: str = "alice") -> dict[str, Any]:
    """A real report in the stable JSON shape, with nested and non-JSON evidence."""
    report = Report(
        takehome=REPLAY,
        submission=name,
        lines=(
            LineResult("R1", "pass", "replays byte for byte", {"diff": [], "cassette": Path("c/1.json")}, 2.0, 2.0),
            LineResult("R2", "fail", "sends a key upstream", {"calls": {"count": 3, "hosts": ["a", "b"]}}, 0.0, 3.0),
            LineResult("R3", "needs_review", "read the README", tier="acceptable"),
        ),
        facts={"seconds": 1.5},
    )
    return report.to_dict()


@pytest.fixture
def book(tmp_path: Path) -> Iterator[Gradebook]:
    """A fresh gradebook with two submissions of one take-home."""
    gradebook = Gradebook(tmp_path / "reports" / "gradebook.sqlite")
    gradebook.upsert_submission(REPLAY, "alice", "d-alice", "submissions/alice")
    gradebook.upsert_submission(REPLAY, "bob", "d-bob", "submissions/bob.zip")
    yield gradebook
    gradebook.close()


def graded_run(book: Gradebook, name: str, digest: str, status: str = "graded") -> int:
    """Start and finish one run of a submission."""
    sub = book.submission(REPLAY, name)
    assert sub is not None
    run_id = book.start_run(sub.id, KIT, digest)
    book.finish_run(run_id, status, report=make_report(name) if status == "graded" else None, error=None)
    return run_id


# -- worker processes (module level so `spawn` can import them) --------------


def _reviewer_worker(path: str, reviewer: str, count: int, barrier: Any) -> None:
    with Gradebook(Path(path)) as book:
        barrier.wait()
        for i in range(count):
            book.add_score(REPLAY, "alice", f"R{i % 5}", reviewer, str(i % 4), f"entry {i}")


def _batch_worker(path: str, worker: int, runs: int, barrier: Any) -> None:
    with Gradebook(Path(path)) as book:
        barrier.wait()
        for i in range(runs):
            name = f"w{worker}-s{i}"
            sub = book.upsert_submission(PAYMENTS, name, f"digest-{name}", f"submissions/{name}")
            run_id = book.start_run(sub.id, KIT, sub.digest)
            book.finish_run(run_id, "graded", report=make_report(name), notebook=f"reports/{name}.ipynb")


def run_processes(target: Any, args: list[tuple[Any, ...]]) -> None:
    """Run target once per args tuple in spawned processes that start together; all must succeed."""
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(len(args))
    procs = [ctx.Process(target=target, args=(*a, barrier)) for a in args]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(JOIN_TIMEOUT_S)
    assert [proc.exitcode for proc in procs] == [0] * len(procs)


# -- schema --------------------------------------------------------------------


def test_default_path_is_under_reports() -> None:
    assert Path("reports/gradebook.sqlite") == DEFAULT_PATH


def test_schema_created_with_wal_and_version(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "gb.sqlite"
    with Gradebook(path):
        pass
    conn = sqlite3.connect(path)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"meta", "submissions", "runs", "lines", "scores"} <= tables
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    finally:
        conn.close()
    with Gradebook(path) as again:  # reopening an existing gradebook is fine
        assert again.submissions() == []


def test_corrupt_file_is_a_gradebook_error(tmp_path: Path) -> None:
    path = tmp_path / "gradebook.sqlite"
    path.write_bytes(b"this is not an SQLite database at all\n" * 200)
    with pytest.raises(GradebookError) as info:
        Gradebook(path)
    assert info.value.path == str(path)
    assert info.value.reason


def test_newer_schema_is_a_gradebook_error(tmp_path: Path) -> None:
    path = tmp_path / "gradebook.sqlite"
    Gradebook(path).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    conn.close()
    with pytest.raises(GradebookError, match="newer"):
        Gradebook(path)


def test_foreign_sqlite_database_is_not_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    with pytest.raises(GradebookError, match="not a gradebook"):
        Gradebook(path)


# -- submissions and blind labels ----------------------------------------------


def test_upsert_keeps_id_and_blind_number_per_takehome(book: Gradebook) -> None:
    alice, bob = book.submission(REPLAY, "alice"), book.submission(REPLAY, "bob")
    assert alice is not None and bob is not None
    assert (alice.blind_number, bob.blind_number) == (1, 2)
    assert alice.blind_label == "Submission #1"
    other = book.upsert_submission(PAYMENTS, "carol", "d-carol", "x")
    assert other.blind_number == 1  # counted per take-home
    again = book.upsert_submission(REPLAY, "alice", "d-alice-2", "submissions/alice.zip")
    assert (again.id, again.blind_number, again.first_seen) == (alice.id, 1, alice.first_seen)
    assert (again.digest, again.origin) == ("d-alice-2", "submissions/alice.zip")
    assert book.upsert_submission(REPLAY, "dave", "d", "o").blind_number == 3
    assert [s.name for s in book.submissions(REPLAY)] == ["alice", "bob", "dave"]
    assert len(book.submissions()) == 4


def test_submission_by_number(book: Gradebook) -> None:
    found = book.submission_by_number(REPLAY, 2)
    assert found is not None and found.name == "bob"
    assert book.submission_by_number(REPLAY, 9) is None
    assert book.submission_by_number(PAYMENTS, 1) is None
    assert book.submission(REPLAY, "nobody") is None


# -- runs and lines -----------------------------------------------------------


def test_run_and_lines_round_trip_a_report(book: Gradebook) -> None:
    run_id = graded_run(book, "alice", "d-alice")
    run = book.latest_run(REPLAY, "alice")
    assert run is not None and run.id == run_id
    assert (run.status, run.kit_version, run.digest, run.error) == ("graded", KIT, "d-alice", None)
    assert run.finished_at is not None and run.seconds is not None and run.seconds >= 0
    assert run.facts == {"seconds": 1.5}
    report = make_report("alice")
    lines = book.lines(run_id)
    assert [line.position for line in lines] == [0, 1, 2]
    for row, original in zip(lines, report["lines"], strict=True):
        assert row.run_id == run_id
        assert (row.line_id, row.outcome, row.points, row.max_points, row.tier, row.message) == (
            original["id"],
            original["outcome"],
            original["points"],
            original["max_points"],
            original["tier"],
            original["message"],
        )
    assert lines[0].evidence == {"diff": [], "cassette": "c/1.json"}  # non-JSON values stored as text
    assert lines[1].evidence == {"calls": {"count": 3, "hosts": ["a", "b"]}}
    assert book.latest_lines(REPLAY, "alice") == lines


def test_running_and_error_runs(book: Gradebook) -> None:
    sub = book.submission(REPLAY, "bob")
    assert sub is not None
    run_id = book.start_run(sub.id, KIT, "d-bob")
    running = book.latest_run(REPLAY, "bob")
    assert running is not None and (running.status, running.finished_at) == ("running", None)
    assert book.latest_run(REPLAY, "bob", graded_only=True) is None
    book.finish_run(run_id, "error", error="kernel died")
    failed = book.latest_run(REPLAY, "bob")
    assert failed is not None and (failed.status, failed.error) == ("error", "kernel died")
    assert book.latest_lines(REPLAY, "bob") == []
    with pytest.raises(GradebookError, match="already finished"):
        book.finish_run(run_id, "graded")
    with pytest.raises(ValueError):
        book.finish_run(run_id, "done")
    with pytest.raises(GradebookError, match="no submission"):
        book.start_run(9999, KIT, "d")


def test_up_to_date(book: Gradebook) -> None:
    assert not book.up_to_date(REPLAY, "alice", "d-alice")  # never graded
    graded_run(book, "alice", "d-alice")
    assert book.up_to_date(REPLAY, "alice", "d-alice")
    assert not book.up_to_date(REPLAY, "alice", "d-other")  # the content changed
    graded_run(book, "alice", "d-alice", status="error")
    assert not book.up_to_date(REPLAY, "alice", "d-alice")  # the latest run failed
    graded_run(book, "alice", "d-alice")
    assert book.up_to_date(REPLAY, "alice", "d-alice")
    latest = book.latest_lines(REPLAY, "alice")
    assert latest and latest[0].run_id == book.runs(REPLAY)[-1].id


# -- reviewer scores -----------------------------------------------------------


def test_regrading_never_touches_scores(book: Gradebook) -> None:
    graded_run(book, "alice", "d-alice")
    book.add_score(REPLAY, "alice", "R3", "rita", "strong", "clear README")
    book.add_score(REPLAY, "alice", "R2", "rita", "2", "key only in a test fixture", kit_value="0")
    before = book.scores()
    book.upsert_submission(REPLAY, "alice", "d-alice-v2", "submissions/alice-v2")
    graded_run(book, "alice", "d-alice-v2")
    graded_run(book, "alice", "d-alice-v2", status="error")
    assert book.scores() == before
    assert len(book.runs()) == 3


def test_scores_are_append_only(book: Gradebook) -> None:
    first = book.add_score(REPLAY, "alice", "R3", "rita", "acceptable", "ok")
    second = book.add_score(REPLAY, "alice", "R3", "rita", "strong", "on second reading")
    other = book.add_score(REPLAY, "alice", "R3", "sam", "weak")
    assert book.scores(REPLAY, "alice") == [first, second, other]
    assert first.uid != second.uid and len(first.uid) == 32
    current = book.current_scores(REPLAY, "alice")
    assert current == {("R3", "rita"): second, ("R3", "sam"): other}
    assert book.current_scores(REPLAY, "bob") == {}
    assert book.reviewers() == ["rita", "sam"]


def test_database_refuses_to_rewrite_scores(book: Gradebook) -> None:
    book.add_score(REPLAY, "alice", "R3", "rita", "strong")
    conn = sqlite3.connect(book.path)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE scores SET value = 'weak'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM scores")
    finally:
        conn.close()
    assert [entry.value for entry in book.scores()] == ["strong"]


def test_override_requires_a_comment(book: Gradebook) -> None:
    with pytest.raises(CommentRequired) as info:
        book.add_score(REPLAY, "alice", "R2", "rita", "3", "   ", kit_value="0")
    assert (info.value.line_id, info.value.kit_value, info.value.value) == ("R2", "0", "3")
    assert book.scores() == []
    agreed = book.add_score(REPLAY, "alice", "R2", "rita", "0.0", kit_value="0")  # agreeing needs no comment
    override = book.add_score(REPLAY, "alice", "R2", "rita", "3", "the key is a test fixture", kit_value="0")
    assert override.kit_value == "0" and override.comment == "the key is a test fixture"
    assert book.scores() == [agreed, override]


@pytest.mark.parametrize(
    ("name", "reviewer", "value"),
    [("nobody", "rita", "3"), ("alice", "  ", "3"), ("alice", "rita", "")],
    ids=["unknown-submission", "blank-reviewer", "blank-value"],
)
def test_score_rejected(book: Gradebook, name: str, reviewer: str, value: str) -> None:
    with pytest.raises(ScoreRejected) as info:
        book.add_score(REPLAY, name, "R1", reviewer, value)
    assert info.value.reason
    assert book.scores() == []


# -- concurrency ---------------------------------------------------------------


def test_two_reviewers_saving_at_once_from_two_processes(book: Gradebook) -> None:
    run_processes(
        _reviewer_worker, [(str(book.path), "rita", REVIEWER_ENTRIES), (str(book.path), "sam", REVIEWER_ENTRIES)]
    )
    entries = book.scores(REPLAY, "alice")
    assert len(entries) == 2 * REVIEWER_ENTRIES
    assert len({entry.uid for entry in entries}) == 2 * REVIEWER_ENTRIES
    assert sorted(book.reviewers()) == ["rita", "sam"]
    current = book.current_scores(REPLAY, "alice")
    assert current[("R4", "rita")].comment == f"entry {REVIEWER_ENTRIES - 1}"


def test_a_run_that_never_ran_can_be_dropped_and_a_finished_one_never(book: Gradebook) -> None:
    sub = book.submission(REPLAY, "bob")
    assert sub is not None
    open_run = book.start_run(sub.id, KIT, "d-bob")
    book.drop_run(open_run)
    assert book.latest_run(REPLAY, "bob") is None, "no row, no error line, for what never ran"
    finished = graded_run(book, "alice", "d-alice")
    book.drop_run(finished)
    run = book.latest_run(REPLAY, "alice")
    assert run is not None and run.id == finished and run.status == "graded"


def test_parallel_batch_writers_lose_no_runs(book: Gradebook) -> None:
    run_processes(_batch_worker, [(str(book.path), worker, RUNS_PER_WRITER) for worker in range(BATCH_WRITERS)])
    runs = book.runs(PAYMENTS)
    assert len(runs) == BATCH_WRITERS * RUNS_PER_WRITER
    assert all(run.status == "graded" for run in runs)
    assert all(len(book.lines(run.id)) == 3 for run in runs)
    numbers = sorted(sub.blind_number for sub in book.submissions(PAYMENTS))
    assert numbers == list(range(1, BATCH_WRITERS * RUNS_PER_WRITER + 1))


def test_one_gradebook_shared_by_threads(book: Gradebook) -> None:
    def save(reviewer: str) -> None:
        for i in range(20):
            book.add_score(REPLAY, "bob", "R1", reviewer, str(i))

    threads = [threading.Thread(target=save, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(book.scores(REPLAY, "bob")) == 80


# -- export and import ---------------------------------------------------------


def test_export_json_then_import_into_a_fresh_gradebook(book: Gradebook, tmp_path: Path) -> None:
    graded_run(book, "alice", "d-alice")
    book.add_score(REPLAY, "alice", "R3", "rita", "strong", "clear")
    book.add_score(REPLAY, "bob", "R1", "rita", "0", "crashes", kit_value="2")
    out = export(book, tmp_path / "out" / "rita.json")
    data = json.loads(out.read_text())
    assert data["schema"] == 1 and data["kit"] and data["exported_at"]
    assert [len(data[key]) for key in ("submissions", "runs", "lines", "scores")] == [2, 1, 3, 2]
    assert data["lines"][0]["evidence"] == {"diff": [], "cassette": "c/1.json"}
    with Gradebook(tmp_path / "fresh.sqlite") as fresh:
        result = import_scores(fresh, out)
        assert result == ImportResult(added=2, skipped=0, submissions_added=2)
        assert fresh.scores() == book.scores()
        assert [(s.name, s.blind_number) for s in fresh.submissions()] == [("alice", 1), ("bob", 2)]
        again = import_scores(fresh, out)
        assert (again.added, again.skipped, again.submissions_added) == (0, 2, 0)
        assert len(fresh.scores()) == 2


def test_import_merges_another_reviewers_export(tmp_path: Path) -> None:
    with Gradebook(tmp_path / "rita.sqlite") as rita, Gradebook(tmp_path / "sam.sqlite") as sam:
        rita.upsert_submission(REPLAY, "alice", "d1", "o")
        rita.upsert_submission(REPLAY, "bob", "d2", "o")
        sam.upsert_submission(REPLAY, "carol", "d3", "o")  # sam saw carol first
        sam.upsert_submission(REPLAY, "bob", "d2", "o")
        mine = rita.add_score(REPLAY, "bob", "R1", "rita", "2")
        theirs = sam.add_score(REPLAY, "bob", "R1", "sam", "1", "partial")
        sam.add_score(REPLAY, "carol", "R1", "sam", "2")
        result = import_scores(rita, export(sam, tmp_path / "sam.json"))
        assert (result.added, result.skipped, result.submissions_added) == (2, 0, 1)
        assert [(s.name, s.blind_number) for s in rita.submissions(REPLAY)] == [("alice", 1), ("bob", 2), ("carol", 3)]
        current = rita.current_scores(REPLAY, "bob")
        assert current == {("R1", "rita"): mine, ("R1", "sam"): theirs}
        assert rita.reviewers() == ["rita", "sam"]
        back = import_scores(sam, export(rita, tmp_path / "rita.json"))  # pooling both ways converges
        assert (back.added, back.skipped) == (1, 2)
        assert {e.uid for e in sam.scores()} == {e.uid for e in rita.scores()}


def test_csv_export_writes_four_tables(book: Gradebook, tmp_path: Path) -> None:
    graded_run(book, "alice", "d-alice")
    graded_run(book, "bob", "d-bob", status="error")
    for i in range(3):
        book.add_score(REPLAY, "alice", f"R{i}", "rita", "1", "because")
    folder = export(book, tmp_path / "csv" / "pool.csv")
    assert folder == tmp_path / "csv"
    expected = {"submissions": 2, "runs": 2, "lines": 3, "scores": 3}
    paths = csv_paths(tmp_path / "csv" / "pool.csv")
    for table, count in expected.items():
        path = folder / f"pool-{table}.csv"
        assert paths[table] == path
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == count, table
    with (folder / "pool-scores.csv").open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header[:3] == ["uid", "takehome", "submission"]
    with (folder / "pool-lines.csv").open(newline="", encoding="utf-8") as handle:
        first = next(csv.DictReader(handle))
    assert json.loads(first["evidence"]) == {"diff": [], "cassette": "c/1.json"}


def test_csv_export_into_a_folder_and_empty_tables_keep_headers(tmp_path: Path) -> None:
    with Gradebook(tmp_path / "gb.sqlite") as book:
        folder = export(book, tmp_path / "exports", fmt="csv")
    assert folder == tmp_path / "exports"
    for table in ("submissions", "runs", "lines", "scores"):
        lines = (folder / f"gradebook-{table}.csv").read_text().splitlines()
        assert len(lines) == 1 and lines[0]


def test_export_needs_a_known_format(book: Gradebook, tmp_path: Path) -> None:
    with pytest.raises(GradebookError, match="format"):
        export(book, tmp_path / "out.txt")


@pytest.mark.parametrize(
    "content",
    ["not json", "[]", '{"schema": 1}', '{"schema": 99, "scores": []}', '{"schema": 1, "scores": [{"uid": "x"}]}'],
    ids=["not-json", "not-an-object", "no-scores", "newer-schema", "bad-entry"],
)
def test_import_of_a_bad_export_is_a_gradebook_error(book: Gradebook, tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(GradebookError):
        import_scores(book, path)
    assert book.scores() == []


def test_imported_entries_keep_their_time_and_order(book: Gradebook, tmp_path: Path) -> None:
    late = book.add_score(REPLAY, "alice", "R1", "rita", "2")
    early = ScoreEntry("a" * 32, REPLAY, "alice", "R1", "rita", "1", "from my laptop", "2000-01-01T00:00:00", None)
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"schema": 1, "submissions": [], "scores": [early.__dict__]}))
    assert import_scores(book, path).added == 1
    stored = book.scores(REPLAY, "alice")
    assert [entry.uid for entry in stored] == [early.uid, late.uid]
    assert stored[0].created_at == "2000-01-01T00:00:00.000000+00:00"
    assert book.current_scores(REPLAY, "alice")[("R1", "rita")] == late


def _hold_write_lock(path: Path, seconds: float, held: threading.Event) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        conn.execute("ROLLBACK")
    finally:
        conn.close()


def test_write_retries_past_a_lock_held_longer_than_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gradebook, "BUSY_TIMEOUT_MS", 10)
    with Gradebook(tmp_path / "gb.sqlite") as book:
        book.upsert_submission(REPLAY, "alice", "d", "o")
        held = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(book.path, 0.3, held))
        holder.start()
        held.wait(5)
        try:
            book.add_score(REPLAY, "alice", "R1", "rita", "2")
        finally:
            holder.join()
        assert len(book.scores()) == 1


def test_a_lock_that_never_clears_is_a_gradebook_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gradebook, "BUSY_TIMEOUT_MS", 10)
    monkeypatch.setattr(gradebook, "LOCK_ATTEMPTS", 2)
    with Gradebook(tmp_path / "gb.sqlite") as book:
        book.upsert_submission(REPLAY, "alice", "d", "o")
        held = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(book.path, 1.0, held))
        holder.start()
        held.wait(5)
        try:
            with pytest.raises(GradebookError, match="locked"):
                book.add_score(REPLAY, "alice", "R1", "rita", "2")
        finally:
            holder.join()
        assert book.scores() == []


def test_snapshot_reads_one_state_while_another_process_writes(book: Gradebook) -> None:
    with Gradebook(book.path) as other, book.snapshot():
        before = book.scores()
        other.add_score(REPLAY, "alice", "R1", "sam", "2")  # a separate connection commits meanwhile
        assert book.scores() == before
    assert len(book.scores()) == len(before) + 1


# -- bulk reads ----------------------------------------------------------------


def test_bulk_reads_match_the_per_submission_reads(book: Gradebook) -> None:
    """latest_runs, latest_lines_by_submission and current_scores_by_submission read what the loops read."""
    book.upsert_submission(PAYMENTS, "carol", "d-carol", "submissions/carol")
    book.upsert_submission(PAYMENTS, "dan", "d-dan", "submissions/dan")  # never graded, never scored
    graded_run(book, "alice", "d-alice")
    graded_run(book, "alice", "d-alice-2")  # the later graded run counts
    graded_run(book, "alice", "d-alice-3", status="error")  # ... unless only graded runs are asked for
    graded_run(book, "bob", "d-bob", status="error")  # no graded run at all
    carol = book.submission(PAYMENTS, "carol")
    assert carol is not None
    book.finish_run(book.start_run(carol.id, KIT, "d-carol"), "graded", report=make_report("carol"))
    book.start_run(carol.id, KIT, "d-carol-2")  # still running
    book.add_score(REPLAY, "alice", "R3", "rita", "acceptable", "ok")
    book.add_score(REPLAY, "alice", "R3", "rita", "strong", "on second reading")
    book.add_score(REPLAY, "alice", "R3", "sam", "weak")
    book.add_score(REPLAY, "bob", "R1", "sam", "1", "half", kit_value="2")
    book.add_score(PAYMENTS, "carol", "R2", "rita", "3", "", kit_value="3")
    latest, graded = book.latest_runs(), book.latest_runs(graded_only=True)
    lines, scores = book.latest_lines_by_submission(), book.current_scores_by_submission()
    for row in book.submissions():
        assert latest.get(row.id) == book.latest_run(row.takehome, row.name), row.name
        assert graded.get(row.id) == book.latest_run(row.takehome, row.name, graded_only=True), row.name
        assert lines.get(row.id, []) == book.latest_lines(row.takehome, row.name), row.name
        assert scores.get(row.id, {}) == book.current_scores(row.takehome, row.name), row.name
        assert list(scores.get(row.id, {})) == list(book.current_scores(row.takehome, row.name)), row.name
    assert set(latest) == {row.id for row in book.submissions() if row.name != "dan"}
    assert set(lines) == set(graded) and len(graded) == 2  # alice and carol
    assert sorted(len(s) for s in scores.values()) == [1, 1, 2]
    plain = book.latest_lines_by_submission(evidence=False)
    assert {sub: [replace(line, evidence={}) for line in found] for sub, found in lines.items()} == plain


def test_bulk_reads_of_an_empty_gradebook(tmp_path: Path) -> None:
    with Gradebook(tmp_path / "gradebook.sqlite") as empty:
        assert empty.latest_runs() == {} and empty.latest_runs(graded_only=True) == {}
        assert empty.latest_lines_by_submission() == {} and empty.current_scores_by_submission() == {}
