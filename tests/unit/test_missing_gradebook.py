"""Every command that reads a gradebook refuses a path where there is none: one message, exit 2, no file made.

Only `grade` (and `import` of a whole-gradebook export, which brings its submissions) start a gradebook, and
each says so ("new gradebook at ...").
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from test_cohort import book_path

from gradelib import cli
from gradelib.errors import GradebookMissing
from gradelib.gradebook import Gradebook, require
from gradelib.gradebook.nearby import nearby_gradebooks, suggestion

__all__ = ["book_path"]  # the fixture, shared with test_cohort
TYPO = "typo/gradebook.sqlite"  # in a folder that is not there either: nothing may make it
READERS = {
    "queue": ["queue", "--reviewer", "ana"],
    "export": ["export", "{out}/scores.json"],
    "export --all": ["export", "{out}/all.json", "--all"],
    "export --decisions": ["export", "{out}/decisions.csv", "--decisions"],
    "import a score file": ["import", "{out}/ben.csv"],
    "tables": ["tables", "--reports", "{out}/reports"],
    "anchor list": ["anchor", "list"],
    "anchor add": ["anchor", "add", "1", "--takehome", "payments"],
    "agenda": ["agenda"],
    "resolve": ["resolve", "payments", "1", "explanation", "strong", "--why", "w", "--by", "lead"],
    "clarify": ["clarify", "payments", "1", "explanation"],
    "decide": ["decide", "payments", "1", "advance", "--why", "w", "--by", "lead"],
    "summary": ["summary", "--reports", "{out}/reports"],
    "similarity": ["similarity"],
    "similarity add": ["similarity", "add", "{out}"],
    "rubric": ["rubric", "payments"],
    "demo": ["demo"],
}


@pytest.mark.parametrize("argv", READERS.values(), ids=READERS.keys())
def test_a_reading_command_refuses_a_missing_gradebook(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    before = sorted(tmp_path.rglob("*"))
    code = cli.main([word.format(out="out") for word in argv] + ["--gradebook", TYPO])
    err = capsys.readouterr().err
    assert code == 2
    assert f"no gradebook at {TYPO}: grade the cohort first (gradelib grade)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert sorted(tmp_path.rglob("*")) == before, "a reading command made a file or a folder"


@pytest.mark.parametrize("argv", [["tables"], ["summary"]], ids=["tables", "summary"])
def test_the_default_gradebook_beside_the_reports_is_required_too(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "reports"
    code = cli.main([*argv, "--reports", str(reports)])
    assert code == 2 and f"no gradebook at {reports / 'gradebook.sqlite'}" in capsys.readouterr().err
    assert not reports.exists()


def test_require_is_the_one_rule(tmp_path: Path) -> None:
    with pytest.raises(GradebookMissing) as caught:
        require(tmp_path / "none.sqlite")
    assert caught.value.path == str(tmp_path / "none.sqlite")
    with pytest.raises(GradebookMissing):
        require(tmp_path)  # a folder is not a gradebook
    Gradebook(tmp_path / "there.sqlite").close()
    assert require(str(tmp_path / "there.sqlite")) == tmp_path / "there.sqlite"


def test_a_whole_gradebook_export_may_start_a_new_gradebook(
    book_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "all.json"
    assert cli.main(["export", str(whole), "--all", "--gradebook", str(book_path)]) == 0
    fresh = tmp_path / "new" / "gradebook.sqlite"
    assert cli.main(["import", str(whole), "--gradebook", str(fresh)]) == 0
    assert "imported" in capsys.readouterr().out
    with Gradebook(require(fresh)) as book:
        assert len(book.submissions()) == len(json.loads(whole.read_text(encoding="utf-8"))["submissions"])


def _tree_state(root: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*"))


def test_a_missing_default_gradebook_names_the_real_gradebooks_near_it_and_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Graded into another folder, then `queue` from here: the error names that gradebook and `--gradebook`;
    never a file that only looks like one, nor a backup; nothing is written."""
    monkeypatch.chdir(tmp_path)
    Gradebook(tmp_path / "cohort-a" / "reports" / "gradebook.sqlite").close()
    Gradebook(tmp_path / "r2" / "book.sqlite").close()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "gradebook.sqlite").write_text("not a database")  # the name alone is no gradebook
    other = sqlite3.connect(tmp_path / "notes" / "todo.sqlite")
    other.execute("CREATE TABLE todo (item TEXT)")
    other.commit()
    other.close()
    Gradebook(tmp_path / "r2" / ".gradebook-backups" / "gradebook-old.sqlite").close()
    before = _tree_state(tmp_path)
    assert cli.main(["queue", "--reviewer", "ana"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "gradelib: no gradebook at reports/gradebook.sqlite: grade the cohort first (gradelib grade), or name the"
        " one it was graded into with --gradebook PATH; gradebooks near it: "
        + ", ".join(sorted(["cohort-a/reports/gradebook.sqlite", "r2/book.sqlite"], key=_newest_first))
    )
    assert _tree_state(tmp_path) == before, "looking for gradebooks wrote nothing"


def _newest_first(path: str) -> float:
    return -Path(path).stat().st_mtime


def test_a_mistyped_gradebook_names_the_one_beside_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Gradebook(tmp_path / "r" / "gradebook.sqlite").close()
    assert cli.main(["anchor", "list", "--gradebook", str(tmp_path / "r" / "gradebok.sqlite")]) == 2
    err = capsys.readouterr().err
    assert f"gradebooks near it: {tmp_path / 'r' / 'gradebook.sqlite'}" in err and "--gradebook PATH" in err


def test_nothing_near_is_named_when_there_is_none(tmp_path: Path) -> None:
    assert nearby_gradebooks(tmp_path / "reports" / "gradebook.sqlite") == []
    assert suggestion(tmp_path / "reports" / "gradebook.sqlite") == (
        "or name the one it was graded into with --gradebook PATH"
    )
    assert nearby_gradebooks("/no-such-folder/gradebook.sqlite") == [], "the file system's root is not near"
