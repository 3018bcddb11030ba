"""One label per submission: `similarity scan` shows a submission by the label of the gradebook that holds it,
and any other by the scan's own ("Scan A", ...), which no command reads as a gradebook's, and says whose."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gradelib import cli
from gradelib.gradebook import Gradebook
from gradelib.gradebook.identity import parse_label
from gradelib.similarity.scan import scan, scan_label

SAMPLES = Path(__file__).resolve().parents[2] / "submissions" / "payments"
FOLDER_ORDER = ("iris-moreau", "jonas-berg", "kemi-adeyemi")  # what a scan reads first
FIRST_SEEN = ("kemi-adeyemi", "iris-moreau")  # what the gradebook numbered first (jonas-berg it never saw)


@pytest.fixture
def cohort(tmp_path: Path) -> Path:
    for name in FOLDER_ORDER:
        shutil.copytree(SAMPLES / name, tmp_path / "cohort" / name)
    return tmp_path / "cohort"


@pytest.fixture
def book_path(tmp_path: Path) -> Path:
    path = tmp_path / "reports" / "gradebook.sqlite"
    with Gradebook(path) as book:
        for name in FIRST_SEEN:
            book.upsert_submission("payments", name, "d", "o")
    return path


def _labels(found: list[dict[str, str]]) -> set[str]:
    return {pair[side] for pair in found for side in ("a", "b")}


def test_scan_shows_the_gradebooks_labels_and_its_own_for_the_rest(cohort: Path, book_path: Path) -> None:
    with Gradebook(book_path, readonly=True) as book:
        found = scan([cohort], every=True, gradebook=book)
        held = {row.name: row.blind_label for row in book.submissions("payments")}
    shown = {side.name: side.label for pair in found.pairs for side in (pair.a, pair.b)}
    assert shown == {"kemi-adeyemi": "Submission #1", "iris-moreau": "Submission #2", "jonas-berg": "Scan A"}
    assert {name: shown[name] for name in held} == held, "the gradebook's label, not the scan's folder order"
    assert found.gradebook == str(book_path) and found.scan_labels == 1


def test_scan_without_a_gradebook_cannot_be_taken_for_one(
    cohort: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path / "cohort")  # no reports/gradebook.sqlite under it
    assert cli.main(["similarity", "scan", str(cohort), "--all", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    labels = _labels(document["pairs"])
    assert document["gradebook"] is None and labels == {"Scan A", "Scan B", "Scan C"}
    assert all(parse_label(label) is None for label in labels), "no label reads as a gradebook's"
    assert cli.main(["similarity", "scan", str(cohort), "--all"]) == 0
    assert "labels: the scan's own (Scan A, Scan B, ...), not a gradebook's" in capsys.readouterr().out


def test_scan_takes_the_default_gradebooks_labels_and_says_so(
    cohort: Path, book_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # reports/gradebook.sqlite is here
    assert cli.main(["similarity", "scan", str(cohort), "--all", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["gradebook"] == "reports/gradebook.sqlite"
    assert _labels(document["pairs"]) == {"Submission #1", "Submission #2", "Scan A"}
    assert cli.main(["similarity", "scan", str(cohort), "--all"]) == 0
    said = capsys.readouterr().out
    assert "labels: the gradebook's (reports/gradebook.sqlite); 1 submission(s) it does not hold" in said
    assert cli.main(["similarity", "scan", str(cohort), "--gradebook", str(tmp_path / "typo.sqlite")]) == 2


def test_the_scans_own_labels_run_past_z() -> None:
    assert [scan_label(i) for i in (0, 25, 26, 27, 701, 702)] == [
        "Scan A", "Scan Z", "Scan AA", "Scan AB", "Scan ZZ", "Scan AAA",
    ]  # fmt: skip
