"""A reviewer's score file: `gradelib export FILE [--reviewer] [--reveal]` writes exactly FILE; import reads it."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gradelib import cli
from gradelib.errors import GradebookError
from gradelib.gradebook import Gradebook
from gradelib.gradebook.scorefile import COLUMNS, export_scores, import_file


@pytest.fixture
def lead(tmp_path: Path) -> Iterator[Path]:
    """The lead's gradebook: two replay submissions scored by ana and ben."""
    path = tmp_path / "lead" / "gradebook.sqlite"
    with Gradebook(path) as book:
        book.upsert_submission("replay", "alice", "0a1", "o")
        book.upsert_submission("replay", "bob", "0b2", "o")
        book.add_score("replay", "alice", "record", "ana", "10", "one cassette edited")
        book.add_score("replay", "bob", "record", "ana", "20", "")
        book.add_score("replay", "alice", "record", "ben", "0", "lies")
    yield path


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_export_writes_exactly_the_file_blind_and_only_that_reviewer(lead: Path, tmp_path: Path, suffix: str) -> None:
    target = tmp_path / "out" / f"ana{suffix}"
    with Gradebook(lead) as book:
        assert export_scores(book, target, reviewer="ana") == target
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]
    text = target.read_text()
    assert "alice" not in text and "bob" not in text and "ben" not in text and "Submission #1" in text
    if suffix == ".json":
        data = json.loads(text)
        assert data["kind"] == "scores" and data["reviewer"] == "ana" and data["blind"] is True
        rows = data["scores"]
    else:
        with target.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert list(rows[0]) == list(COLUMNS)
    assert [(r["submission"], r["value"], r["digest"]) for r in rows] == [
        ("Submission #1", "10", "0a1"), ("Submission #2", "20", "0b2")
    ]  # fmt: skip


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_import_reads_the_same_file_by_digest_even_when_numbers_differ(lead: Path, tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"ana{suffix}"
    with Gradebook(lead) as book:
        export_scores(book, target, reviewer="ana")
    with Gradebook(tmp_path / "other.sqlite") as other:
        other.upsert_submission("replay", "bob", "0b2", "o")  # bob is #1 here
        other.upsert_submission("replay", "alice", "0a1", "o")
        result = import_file(other, target)
        assert (result.added, result.skipped) == (2, 0)
        assert other.current_scores("replay", "alice")[("record", "ana")].value == "10"
        assert other.current_scores("replay", "bob")[("record", "ana")].value == "20"
        assert import_file(other, target).skipped == 2  # no duplicates


def test_reveal_names_candidates_and_unknown_blind_rows_are_refused(lead: Path, tmp_path: Path) -> None:
    with Gradebook(lead) as book:
        named = export_scores(book, tmp_path / "named.json", reveal=True)
        blind = export_scores(book, tmp_path / "blind.csv")
    assert "alice" in named.read_text() and json.loads(named.read_text())["blind"] is False
    with Gradebook(tmp_path / "empty.sqlite") as empty, pytest.raises(GradebookError, match="no replay submission"):
        import_file(empty, blind)
    with Gradebook(tmp_path / "fresh.sqlite") as fresh:
        fresh.upsert_submission("replay", "alice", "other-digest", "o")
        fresh.upsert_submission("replay", "bob", "other-digest-2", "o")
        assert import_file(fresh, named).added == 3  # by name when the digest does not match


def test_cli_export_prints_the_path_and_import_reads_it(
    lead: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "ben.csv"
    assert cli.main(["export", str(target), "--reviewer", "ben", "--gradebook", str(lead)]) == 0
    assert capsys.readouterr().out.strip() == str(target)
    assert cli.main(["import", str(target), "--gradebook", str(lead)]) == 0
    assert "imported 0 entries (1 already present)" in capsys.readouterr().out
    assert cli.main(["export", str(tmp_path / "x.txt"), "--gradebook", str(lead)]) == 2
    assert "use .json or .csv" in capsys.readouterr().err
    assert cli.main(["export", str(tmp_path / "all.json"), "--all", "--gradebook", str(lead)]) == 0
    assert "runs" in json.loads((tmp_path / "all.json").read_text())
    assert cli.main(["export", str(tmp_path / "y.json"), "--gradebook", str(tmp_path / "nowhere.sqlite")]) == 2
    assert not (tmp_path / "nowhere.sqlite").exists()
