"""A file written atomically: the old one until the new one is whole, no partial file left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradelib.atomicfile import atomic_file, write_text


def test_write_text_replaces_the_file_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text("old", encoding="utf-8")
    write_text(path, "new ✓")
    assert path.read_text(encoding="utf-8") == "new ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_an_error_while_writing_keeps_the_old_file_and_removes_the_partial_one(tmp_path: Path) -> None:
    path = tmp_path / "export.csv"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_file(path, newline="") as out:
        out.write("half")
        raise RuntimeError("stopped")
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["export.csv"]


def test_an_unwritable_folder_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_text(tmp_path / "missing" / "file.txt", "x")
