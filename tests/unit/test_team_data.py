"""The team's data (clarifications, resolutions, decisions) lives in its gradebook, never in the installed kit:
`clarify` works from a read-only install, and an export carries the clarifications to another gradebook."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from test_cohort import book_path

import gradelib
from gradelib import cli
from gradelib.gradebook import Gradebook
from gradelib.gradebook.exchange import export, import_scores
from gradelib.meeting import resolutions

__all__ = ["book_path"]  # the fixture, shared with test_cohort
PACKAGE = Path(gradelib.__file__).resolve().parent


def _files(folder: Path) -> dict[str, float]:
    """Every file of the installed package (compiled caches aside) and when it last changed."""
    return {
        str(path.relative_to(folder)): path.stat().st_mtime
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def _read_only_install(command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run `command` where the installed kit's folder is mounted read-only (a private mount namespace: the
    machine's own mounts are not changed); its output starts with "read-only" once a write there failed."""
    folder = shlex.quote(str(PACKAGE))
    script = (
        f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder}"
        f" && ! touch {folder}/.gradelib-probe 2>/dev/null && echo read-only && exec {shlex.join(command)}"
    )
    as_user = [] if os.geteuid() == 0 else ["--map-root-user"]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", *as_user, "sh", "-c", script],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip


def test_clarify_from_a_read_only_install_keeps_it_in_the_gradebook(
    book_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Gradebook(book_path) as book:
        resolutions.resolve(book, "payments", "carol", "explanation", "acceptable", "names idempotency", "lead")
    before = _files(PACKAGE)
    argv = ["clarify", "payments", "carol", "Explanation", "--by", "lead", "--gradebook", str(book_path)]
    done = _read_only_install([sys.executable, "-m", "gradelib", *argv])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("read-only\n"), "the kit's folder was not read-only: this proves nothing"
    assert "payments Submission #1 explanation: added to the gradebook's clarifications" in done.stdout
    assert _files(PACKAGE) == before, "nothing written under the installed package"
    assert cli.main(["rubric", "payments", "--gradebook", str(book_path)]) == 0
    shown = capsys.readouterr().out
    assert "clarified, acceptable: names idempotency (example: payments Submission #1" in shown
    assert "1 clarification(s)" in shown
    assert cli.main(["rubric", "payments", "--gradebook", str(book_path.parent / "typo.sqlite")]) == 2


def test_clarifications_are_exported_and_pooled_with_the_scores(book_path: Path, tmp_path: Path) -> None:
    with Gradebook(book_path) as book:
        resolutions.resolve(book, "payments", "dave", "explanation", "weak", "restates the diff", "lead")
        resolutions.clarify(book, "payments", "dave", "explanation", note="restating is weak")
    with Gradebook(book_path, readonly=True) as book:
        whole = export(book, tmp_path / "all.json")
        assert book.submission("payments", "dave").blind_label == "Submission #2"  # type: ignore[union-attr]
    other = tmp_path / "other.sqlite"
    with Gradebook(other) as book:
        book.upsert_submission("payments", "someone-else", "d0", "o")  # #1 here: this gradebook numbers dave #3
        first, again = import_scores(book, whole), import_scores(book, whole)
        (item,) = book.clarifications("payments")
        dave = book.submission("payments", "dave")
    assert first.added > 0 and again.added == 0
    assert dave is not None and item.example == dave.blind_label == "Submission #3" and item.note == "restating is weak"
