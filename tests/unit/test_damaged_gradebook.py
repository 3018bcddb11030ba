"""A damaged gradebook is never written: every command that opens one checks it first, read-only, and refuses
with the same one line (the damage, the newest good backup, the `gradelib restore` command); no byte changes."""

from __future__ import annotations

import hashlib
import shlex
import sqlite3
from pathlib import Path

import pytest
from test_cohort import book_path

from gradelib import cli
from gradelib.errors import GradebookDamaged
from gradelib.gradebook import Gradebook
from gradelib.gradebook import backup as copies
from gradelib.gradebook.health import check, damage, open_checked

__all__ = ["book_path"]  # the fixture, shared with test_cohort
SAMPLE = Path(__file__).resolve().parents[2] / "submissions" / "replay"
# Every command that opens a gradebook (restore is the way out, tested below).
COMMANDS = {
    "grade": ["grade", str(SAMPLE), "--reports", "{out}/reports"],
    "queue": ["queue", "--reviewer", "ana"],
    "export": ["export", "{out}/scores.json"],
    "export --all": ["export", "{out}/all.json", "--all"],
    "export --decisions": ["export", "{out}/decisions.csv", "--decisions"],
    "import": ["import", "{out}/ben.csv"],
    "tables": ["tables", "--reports", "{out}/reports"],
    "summary": ["summary", "--reports", "{out}/reports"],
    "anchor list": ["anchor", "list"],
    "anchor add": ["anchor", "add", "1", "--takehome", "payments"],
    "agenda": ["agenda"],
    "resolve": ["resolve", "payments", "1", "explanation", "strong", "--why", "w", "--by", "lead"],
    "clarify": ["clarify", "payments", "1", "explanation", "--by", "lead"],
    "decide": ["decide", "payments", "1", "advance", "--why", "w", "--by", "lead"],
    "rubric": ["rubric", "payments"],
    "similarity": ["similarity"],
    "similarity add": ["similarity", "add", str(SAMPLE)],
    "similarity scan": ["similarity", "scan", str(SAMPLE)],
    "demo": ["demo"],
}


def damage_pages(path: Path, table: str = "scores") -> None:
    """Overwrite the header of a table's root page, as a disk or a copy gone wrong would."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * size + 3)
        handle.write(b"\xff" * 5)


@pytest.fixture
def damaged(book_path: Path) -> Path:
    """The cohort's gradebook, backed up whole, then damaged."""
    with Gradebook(book_path) as book:
        book.backup()
    damage_pages(book_path)
    return book_path


def _state(folder: Path) -> dict[str, str]:
    """Every file under the gradebook's folder and its digest; an empty journal a read-only open leaves is no
    change (SQLite makes one to read a WAL gradebook, and writes nothing in it)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not (path.name.endswith(("-wal", "-shm")) and path.stat().st_size in (0, 32768)):
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def test_the_check_names_the_damage_and_the_newest_good_backup(damaged: Path) -> None:
    found = damage(damaged)
    assert found is not None and "malformed" in found
    with pytest.raises(GradebookDamaged) as caught:
        check(damaged)
    good = copies.newest_good(damaged)
    assert good is not None and str(good) in str(caught.value)
    assert f"gradelib restore {good} --gradebook {damaged}" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_every_command_refuses_a_damaged_gradebook_and_changes_no_byte(
    argv: list[str], damaged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    before = _state(damaged.parent)
    with pytest.raises(GradebookDamaged) as caught:
        check(damaged)
    code = cli.main([word.format(out=out) for word in argv] + ["--gradebook", str(damaged)])
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if line.startswith("gradelib:")]
    assert code == 2, err
    assert said == [f"gradelib: {caught.value}"], "every command says the same one line"
    assert "Traceback" not in err
    assert _state(damaged.parent) == before, "a command wrote to (or beside) a damaged gradebook"
    assert sorted(p.name for p in out.rglob("*")) == [], "a command made something from a damaged gradebook"


def test_the_restore_the_line_names_puts_the_gradebook_back(damaged: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["queue", "--reviewer", "ana", "--gradebook", str(damaged)]) == 2
    line = capsys.readouterr().err
    command = shlex.split(line.split("restore it with `", 1)[1].split("`", 1)[0])
    assert command[:2] == ["gradelib", "restore"]
    assert cli.main(command[1:]) == 0
    assert cli.main(["queue", "--reviewer", "ana", "--gradebook", str(damaged)]) == 0
    with open_checked(damaged) as book:
        assert book.readonly and len(book.submissions()) == 5


def test_a_read_only_open_writes_nothing_and_refuses_a_write(book_path: Path) -> None:
    before = book_path.read_bytes()
    with open_checked(book_path) as book:
        assert book.id and len(book.submissions()) == 5
        with pytest.raises(Exception, match="readonly"):
            book.add_score("replay", "alice", "identical", "zoe", "30")
    assert book_path.read_bytes() == before
