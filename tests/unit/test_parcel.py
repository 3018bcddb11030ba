"""What crosses the wire: a submission packed and unpacked as it was, a gradebook excerpt of one submission."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib import __version__
from gradelib.batch import parcel
from gradelib.batch.parcel import Parcel
from gradelib.batch.worker import grade_parcel
from gradelib.errors import SubmissionError
from gradelib.gradebook import Gradebook
from gradelib.intake import ingest


@pytest.fixture(params=["filter", "no filter"])
def extraction(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of unpacking: tarfile's extraction filter, and the checks for a Python without one."""
    if request.param == "no filter":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)  # as on Debian 12's Python 3.11.2
    return str(request.param)


def test_a_packed_submission_unpacks_with_the_same_digest_and_its_links_as_links(
    tmp_path: Path, extraction: str
) -> None:
    files = {"run.sh": "#!/bin/sh\necho hi\n", "cassettes/a.json": "{}", "deep/x/y.txt": "y"}
    sub = write_tree(tmp_path / "sub", files)
    os.symlink("/etc/passwd", sub / "answers.json")  # never followed: it must arrive as the same link
    data = parcel.pack(sub)
    out = parcel.unpack(data, tmp_path / "worker")
    assert out.name == parcel.SUBMISSION
    assert os.readlink(out / "answers.json") == "/etc/passwd"
    assert os.access(out / "run.sh", os.X_OK)
    assert ingest.digest(out) == ingest.digest(sub)


@pytest.mark.parametrize("name", ["../escaped.txt", "/abs/escaped.txt", "elsewhere/escaped.txt"])
def test_unpacking_refuses_a_member_outside_the_submission(tmp_path: Path, name: str, extraction: str) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo(name)
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(SubmissionError):
        parcel.unpack(buffer.getvalue(), tmp_path / "worker")
    assert not list(tmp_path.rglob("escaped.txt"))


def test_unpacking_refuses_a_member_through_a_linked_folder(tmp_path: Path, extraction: str) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("submission/out")
        link.type, link.linkname = tarfile.SYMTYPE, str(tmp_path / "outside")
        archive.addfile(link)
        info = tarfile.TarInfo("submission/out/escaped.txt")
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))
    (tmp_path / "outside").mkdir()
    with pytest.raises(SubmissionError):
        parcel.unpack(buffer.getvalue(), tmp_path / "worker")
    assert not list((tmp_path / "outside").iterdir())


def test_the_gradebook_excerpt_holds_one_submission_with_its_id_number_and_scores(tmp_path: Path) -> None:
    with Gradebook(tmp_path / "gb.sqlite") as book:
        book.upsert_submission("replay", "first", "d1", "o1")
        row = book.upsert_submission("replay", "second", "d2", "o2")
        book.add_score("replay", "second", "identical", "ana", "3")
        book.add_score("replay", "first", "identical", "ana", "1")
        data = book.excerpt("replay", "second")
    (tmp_path / "excerpt.sqlite").write_bytes(data)
    with Gradebook(tmp_path / "excerpt.sqlite") as copy:
        assert copy.submissions() == [row]
        assert [(e.submission, e.value) for e in copy.scores()] == [("second", "3")]
        assert copy.runs() == []


def test_a_worker_with_another_kit_version_says_so_instead_of_grading(tmp_path: Path) -> None:
    item = Parcel("k", "replay", "Submission #1", "submission-01", "d", "0.0.0-other", b"", b"")
    result = grade_parcel(item)
    assert result.error and f"gradelib {__version__}, the driver 0.0.0-other" in result.error
    assert result.notebook is None and result.result is None
