"""Unit tests for gradelib.intake.ingest: folders, archives and bundles in; unsafe archives refused."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from gradelib import takehomes
from gradelib.errors import SubmissionError
from gradelib.intake import ingest

RUN_SH = b"#!/bin/sh\npython3 src/main.py\n"
MAIN_PY = b"print('hello')\n"
# (name, data, mode): what every well-formed archive in these tests holds below its top folder.
FILES = [("run.sh", RUN_SH, 0o755), ("src/main.py", MAIN_PY, 0o644)]
BOMB_BYTES = 11 * 1024 * 1024  # over the 10 MiB floor below which a high ratio is tolerated

Entry = tuple[str, bytes, int]


def write_folder(root: Path, entries: list[Entry] = FILES) -> Path:
    for name, data, mode in entries:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(mode)
    return root


def write_zip(path: Path, entries: list[Entry], *, compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = compression
            zf.writestr(info, data)
    return path


def write_tar(path: Path, entries: list[Entry] | list[tarfile.TarInfo | Entry]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                tf.addfile(entry)
                continue
            name, data, mode = entry
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            tf.addfile(info, io.BytesIO(data))
    return path


def under(top: str, entries: list[Entry] = FILES) -> list[Entry]:
    return [(f"{top}/{name}", data, mode) for name, data, mode in entries]


def tar_special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def git(cwd: Path, *args: str) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    identity = ("-c", "user.name=Candidate", "-c", "user.email=candidate@example.com", "-c", "init.defaultBranch=main")
    done = subprocess.run(["git", *identity, *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=30)
    return done.stdout.decode()


# --- folders ----------------------------------------------------------------------------------


def test_folder_submission(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "alice")

    with ingest.open_submission(folder) as sub:
        assert sub.name == "alice"
        assert sub.path == folder
        assert sub.origin == folder
        assert sub.has_git is False
        assert len(sub.digest) == 64

    assert (folder / "run.sh").read_bytes() == RUN_SH  # a folder is read, never moved or removed


def test_folder_digest_is_stable_and_independent_of_location(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "alice")
    other = write_folder(tmp_path / "elsewhere" / "bob")

    assert ingest.digest(folder) == ingest.digest(folder)
    assert ingest.digest(folder) == ingest.digest(other)


def _change_a_byte(root: Path) -> None:
    (root / "src" / "main.py").write_bytes(MAIN_PY.replace(b"hello", b"hellp"))


def _toggle_exec_bit(root: Path) -> None:
    (root / "src" / "main.py").chmod(0o755)


def _rename_a_file(root: Path) -> None:
    (root / "src" / "main.py").rename(root / "src" / "app.py")


def _add_a_file(root: Path) -> None:
    (root / "NOTE.md").write_text("notes\n")


def _add_a_link(root: Path) -> None:
    os.symlink("run.sh", root / "start.sh")


def _add_a_linked_folder(root: Path) -> None:
    os.symlink("src", root / "lib")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(_change_a_byte, id="one-byte"),
        pytest.param(_toggle_exec_bit, id="exec-bit"),
        pytest.param(_rename_a_file, id="rename"),
        pytest.param(_add_a_file, id="new-file"),
        pytest.param(_add_a_link, id="new-file-link"),
        pytest.param(_add_a_linked_folder, id="new-folder-link"),
    ],
)
def test_folder_digest_changes_with_content(tmp_path: Path, change: Callable[[Path], None]) -> None:
    folder = write_folder(tmp_path / "alice")
    before = ingest.digest(folder)

    change(folder)

    assert ingest.digest(folder) != before


def test_folder_digest_changes_with_link_target(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "alice")
    os.symlink("run.sh", folder / "start.sh")
    before = ingest.digest(folder)

    (folder / "start.sh").unlink()
    os.symlink("src/main.py", folder / "start.sh")

    assert ingest.digest(folder) != before


def test_folder_digest_ignores_git(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "alice")
    before = ingest.digest(folder)

    (folder / ".git" / "objects").mkdir(parents=True)
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / ".git" / "objects" / "ab").write_bytes(b"\x00" * 10)

    with ingest.open_submission(folder) as sub:
        assert sub.digest == before
        assert sub.has_git is True


# --- archives ---------------------------------------------------------------------------------


def _zip(path: Path, entries: list[Entry]) -> Path:
    return write_zip(path.with_name(path.name + ".zip"), entries)


def _zip_stored(path: Path, entries: list[Entry]) -> Path:
    return write_zip(path.with_name(path.name + ".zip"), entries, compression=zipfile.ZIP_STORED)


def _tar_gz(path: Path, entries: list[Entry]) -> Path:
    return write_tar(path.with_name(path.name + ".tar.gz"), entries)


def _tgz(path: Path, entries: list[Entry]) -> Path:
    return write_tar(path.with_name(path.name + ".tgz"), entries)


ARCHIVERS = [
    pytest.param(_zip, id="zip"),
    pytest.param(_zip_stored, id="zip-stored"),
    pytest.param(_tar_gz, id="tar.gz"),
    pytest.param(_tgz, id="tgz"),
]
Archiver = Callable[[Path, list[Entry]], Path]


@pytest.mark.parametrize("archive", ARCHIVERS)
def test_archive_unpacks_and_unwraps_its_single_top_folder(tmp_path: Path, archive: Archiver) -> None:
    path = archive(tmp_path / "alice", under("takehome-main"))
    folder_digest = ingest.digest(write_folder(tmp_path / "reference"))

    with ingest.open_submission(path) as sub:
        unpacked = sub.path
        assert sub.name == "alice"
        assert sub.origin == path
        assert unpacked.name == "takehome-main"
        assert (unpacked / "run.sh").read_bytes() == RUN_SH
        assert (unpacked / "src" / "main.py").read_bytes() == MAIN_PY
        assert stat.S_IMODE((unpacked / "run.sh").stat().st_mode) == 0o755
        assert stat.S_IMODE((unpacked / "src" / "main.py").stat().st_mode) == 0o644
        assert sub.has_git is False
        assert sub.digest == folder_digest  # same files, same digest, however they arrived

    assert not unpacked.exists()  # the temporary folder goes at exit


@pytest.mark.parametrize("archive", ARCHIVERS)
def test_archive_without_a_single_top_folder_is_not_unwrapped(tmp_path: Path, archive: Archiver) -> None:
    path = archive(tmp_path / "alice", FILES)

    with ingest.open_submission(path) as sub:
        assert sub.path.name == "alice"
        assert (sub.path / "run.sh").read_bytes() == RUN_SH
        assert (sub.path / "src").is_dir()


def test_zip_macosx_folder_does_not_prevent_unwrapping(tmp_path: Path) -> None:
    entries = [*under("proj"), ("__MACOSX/proj/._run.sh", b"\x00\x05\x16\x07", 0o644)]
    path = write_zip(tmp_path / "alice.zip", entries)

    with ingest.open_submission(path) as sub:
        assert sub.path.name == "proj"
        assert (sub.path / "run.sh").read_bytes() == RUN_SH


def _zip_with_symlink(path: Path) -> None:
    # How `zip --symlinks` stores a link: S_IFLNK in the Unix mode, the target as the content.
    link = zipfile.ZipInfo("alice/answers.json")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("alice/run.sh", RUN_SH)
        zf.writestr(link, "/etc/passwd")


def _zip_corrupt_deflate(path: Path) -> None:
    write_zip(path, under("alice", [("data.txt", os.urandom(4000).hex().encode(), 0o644)]))
    raw = bytearray(path.read_bytes())
    start = raw.index(b"data.txt") + len(b"data.txt")
    for i in range(start + 20, start + 400):
        raw[i] ^= 0x55
    path.write_bytes(bytes(raw))


def _tar_gz_bit_flips(path: Path) -> None:
    entries = [(f"alice/f{n}.txt", os.urandom(20_000).hex().encode(), 0o644) for n in range(4)]
    write_tar(path, entries)
    raw = bytearray(path.read_bytes())
    middle = len(raw) * 2 // 3
    for i in range(middle, middle + 200):
        raw[i] ^= 0x55
    path.write_bytes(bytes(raw))


def _truncated(builder: Callable[[Path], object]) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        builder(path)
        raw = path.read_bytes()
        path.write_bytes(raw[: len(raw) // 2])

    return build


REFUSED = [
    pytest.param("a.zip", lambda p: write_zip(p, [("../evil.txt", b"x", 0o644)]), "unsafe entry", id="zip-dotdot"),
    pytest.param(
        "a.zip", lambda p: write_zip(p, [("alice/../../evil.txt", b"x", 0o644)]), "unsafe entry", id="zip-deep-dotdot"
    ),
    pytest.param("a.zip", lambda p: write_zip(p, [("/etc/cron.d/x", b"x", 0o644)]), "unsafe entry", id="zip-absolute"),
    pytest.param("a.zip", lambda p: write_zip(p, [("..\\evil.txt", b"x", 0o644)]), "unsafe entry", id="zip-backslash"),
    pytest.param("a.zip", _zip_with_symlink, "is a symlink", id="zip-symlink"),
    pytest.param("a.tar.gz", lambda p: write_tar(p, [("../evil.txt", b"x", 0o644)]), "unsafe entry", id="tar-dotdot"),
    pytest.param("a.tar.gz", lambda p: write_tar(p, [("/etc/evil", b"x", 0o644)]), "unsafe entry", id="tar-absolute"),
    pytest.param(
        "a.tar.gz",
        lambda p: write_tar(p, [*under("alice"), tar_special("alice/answers.json", tarfile.SYMTYPE, "/etc/passwd")]),
        "is a link or device",
        id="tar-symlink",
    ),
    pytest.param(
        "a.tar.gz",
        lambda p: write_tar(p, [*under("alice"), tar_special("alice/copy.sh", tarfile.LNKTYPE, "alice/run.sh")]),
        "is a link or device",
        id="tar-hardlink",
    ),
    pytest.param(
        "a.tar.gz",
        lambda p: write_tar(p, [*under("alice"), tar_special("alice/pipe", tarfile.FIFOTYPE)]),
        "is a link or device",
        id="tar-fifo",
    ),
    pytest.param(
        "a.tar.gz",
        lambda p: write_tar(p, [tar_special("alice/tty", tarfile.CHRTYPE)]),
        "is a link or device",
        id="tar-char-device",
    ),
    pytest.param(
        "a.zip", lambda p: write_zip(p, under("alice", [("zeros", bytes(BOMB_BYTES), 0o644)])), "bomb", id="zip-bomb"
    ),
    pytest.param(
        "a.tar.gz", lambda p: write_tar(p, under("alice", [("zeros", bytes(BOMB_BYTES), 0o644)])), "bomb", id="tar-bomb"
    ),
    pytest.param("a.zip", lambda p: p.write_bytes(b"PK\x03\x04 not a zip"), "not a readable zip", id="zip-junk"),
    pytest.param("a.zip", lambda p: p.write_bytes(b""), "not a readable zip", id="zip-empty"),
    pytest.param("a.zip", _truncated(lambda p: write_zip(p, under("alice"))), "not a readable zip", id="zip-truncated"),
    pytest.param("a.zip", _zip_corrupt_deflate, "not a readable zip", id="zip-corrupt-data"),
    pytest.param(
        "a.tar.gz", lambda p: p.write_bytes(b"\x1f\x8b not really gzip"), "not a readable tar.gz", id="tar-junk"
    ),
    pytest.param("a.tar.gz", lambda p: p.write_bytes(b""), "not a readable tar.gz", id="tar-empty"),
    pytest.param(
        "a.tar.gz", _truncated(lambda p: write_tar(p, under("alice"))), "not a readable tar.gz", id="tar-truncated"
    ),
    pytest.param("a.tar.gz", _tar_gz_bit_flips, "not a readable tar.gz", id="tar-corrupt-data"),
    pytest.param("a.bundle", lambda p: p.write_bytes(b"# v2 git bundle\ngarbage\n"), "git bundle", id="bundle-junk"),
]


@pytest.mark.parametrize(("filename", "build", "reason"), REFUSED)
def test_unsafe_or_broken_archive_is_refused(
    tmp_path: Path, filename: str, build: Callable[[Path], object], reason: str
) -> None:
    path = tmp_path / filename
    build(path)

    with pytest.raises(SubmissionError) as caught, ingest.open_submission(path):
        pass

    assert caught.value.path == str(path)
    assert reason in caught.value.reason
    assert not (tmp_path / "evil.txt").exists()


@pytest.mark.parametrize("archive", ARCHIVERS)
def test_archive_over_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, archive: Archiver
) -> None:
    monkeypatch.setattr(ingest, "MAX_UNPACKED_BYTES", 1000)
    path = archive(tmp_path / "alice", under("alice", [("big.bin", os.urandom(1001), 0o644)]))

    with pytest.raises(SubmissionError, match="archive bomb"), ingest.open_submission(path):
        pass


@pytest.mark.parametrize("archive", ARCHIVERS)
def test_archive_with_too_many_members_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, archive: Archiver
) -> None:
    monkeypatch.setattr(ingest, "MAX_MEMBERS", 3)
    entries = [(f"alice/f{n}.txt", b"x", 0o644) for n in range(4)]
    path = archive(tmp_path / "alice", entries)

    with pytest.raises(SubmissionError, match="more than 3 entries"), ingest.open_submission(path):
        pass


@pytest.mark.parametrize("archive", ARCHIVERS)
def test_archive_at_the_member_limit_is_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, archive: Archiver
) -> None:
    monkeypatch.setattr(ingest, "MAX_MEMBERS", 3)
    entries = [(f"alice/f{n}.txt", b"x", 0o644) for n in range(3)]
    path = archive(tmp_path / "alice", entries)

    with ingest.open_submission(path) as sub:
        assert sorted(p.name for p in sub.path.iterdir()) == ["f0.txt", "f1.txt", "f2.txt"]


# --- git bundles ------------------------------------------------------------------------------


def test_git_bundle_clones_with_history(tmp_path: Path) -> None:
    repo = write_folder(tmp_path / "work")
    git(repo, "init", "--quiet")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "first answer")
    bundle = tmp_path / "alice.bundle"
    git(repo, "bundle", "create", "--quiet", str(bundle), "--all")

    with ingest.open_submission(bundle) as sub:
        assert sub.name == "alice"
        assert sub.origin == bundle
        assert sub.has_git is True
        assert sub.path.name == "alice"  # .git beside the files: nothing to unwrap
        assert (sub.path / "run.sh").read_bytes() == RUN_SH
        assert stat.S_IMODE((sub.path / "run.sh").stat().st_mode) & 0o111
        assert git(sub.path, "log", "--format=%s").strip() == "first answer"
        assert sub.digest == ingest.digest(repo)  # the digest leaves .git out


# --- not submissions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "content", "reason"),
    [
        pytest.param("alice", None, "does not exist", id="missing"),
        pytest.param("notes.txt", b"hello", "neither a folder", id="text-file"),
        pytest.param("alice.tar", b"x" * 1024, "neither a folder", id="plain-tar"),
        pytest.param("alice.rar", b"Rar!\x1a\x07\x00", "neither a folder", id="rar"),
    ],
)
def test_not_a_submission_is_refused(tmp_path: Path, filename: str, content: bytes | None, reason: str) -> None:
    path = tmp_path / filename
    if content is not None:
        path.write_bytes(content)

    with pytest.raises(SubmissionError) as caught, ingest.open_submission(path):
        pass

    assert caught.value.path == str(path)
    assert reason in caught.value.reason


# --- finding submissions ----------------------------------------------------------------------


def test_find_submissions_in_a_cohort_folder(tmp_path: Path) -> None:
    cohort = tmp_path / "cohort"
    write_folder(cohort / "carol")
    write_zip(cohort / "alice.zip", under("alice"))
    write_tar(cohort / "bob.tar.gz", under("bob"))
    (cohort / "dan.bundle").write_bytes(b"")
    (cohort / "README.txt").write_text("not a submission")
    (cohort / ".cache").mkdir()
    (cohort / ".DS_Store.zip").write_bytes(b"")

    found = ingest.find_submissions(cohort, recognises=takehomes.recognises)

    assert [p.name for p in found] == ["alice.zip", "bob.tar.gz", "carol", "dan.bundle"]


@pytest.mark.parametrize("marker", ["run.sh", "package.json", "NOTE.md", "cassettes"], ids=str)
def test_find_submissions_on_one_submission_folder(tmp_path: Path, marker: str) -> None:
    folder = tmp_path / "alice"
    folder.mkdir()
    if marker == "cassettes":
        (folder / marker).mkdir()
    else:
        (folder / marker).write_text("x")
    (folder / "src").mkdir()

    assert ingest.find_submissions(folder, recognises=takehomes.recognises) == [folder]


def test_find_submissions_on_one_archive(tmp_path: Path) -> None:
    path = write_zip(tmp_path / "alice.zip", under("alice"))

    assert ingest.find_submissions(path) == [path]


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("alice", "alice"),
        ("alice.zip", "alice"),
        ("bob.tar.gz", "bob"),
        ("carol.tgz", "carol"),
        ("dan.bundle", "dan"),
        ("eve.tar", "eve.tar"),
        ("frank.v2.zip", "frank.v2"),
        ("grace.zip.bak", "grace.zip.bak"),
    ],
    ids=lambda v: v,
)
def test_submission_name(filename: str, expected: str) -> None:
    assert ingest.submission_name(Path("/cohort") / filename) == expected


def test_open_submission_never_touches_the_archive(tmp_path: Path) -> None:
    path = write_zip(tmp_path / "alice.zip", under("alice"))
    before = path.read_bytes()

    with ingest.open_submission(path):
        pass

    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alice.zip"]


def test_a_folder_with_only_a_plugins_marker_is_one_submission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A team's take-home is recognised by its own marker files, not only the kit's."""
    import dataclasses

    plugin = dataclasses.replace(takehomes.load("payments"), id="webhooks", markers=("consumer.mjs",))
    monkeypatch.setattr(takehomes, "available", lambda: [plugin])
    sub = tmp_path / "cohort" / "ada"
    sub.mkdir(parents=True)
    (sub / "consumer.mjs").write_text("export {}\n")
    assert ingest.find_submissions(tmp_path / "cohort", recognises=takehomes.recognises) == [sub]
    assert ingest.find_submissions(sub, recognises=takehomes.recognises) == [sub]
    assert ingest.find_submissions(sub) == [], "intake alone knows only the files any submission may hold"
