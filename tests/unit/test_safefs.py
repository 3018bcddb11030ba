"""Unit tests for gradelib.sandbox.safefs: copying, chowning, reading and listing candidate files."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from gradelib.errors import SubmissionError, UnsafeFile
from gradelib.sandbox import safefs

PASSWD = Path("/etc/passwd")


def write_submission(root: Path) -> Path:
    """A small submission with a script, a module, a nested folder and a `.git` folder."""
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "src" / "main.py").chmod(0o644)
    (root / "src" / "pkg" / "data.bin").write_bytes(bytes(range(256)))
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def tree(root: Path) -> dict[str, str]:
    """Every entry below root (lstat, never followed) as relpath -> kind/content."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath, name)
            rel = str(full.relative_to(root))
            mode = full.lstat().st_mode
            if stat.S_ISLNK(mode):
                found[rel] = f"link->{os.readlink(full)}"
            elif stat.S_ISDIR(mode):
                found[rel] = "dir"
            else:
                found[rel] = f"file {oct(stat.S_IMODE(mode))} {full.read_bytes()!r}"
    return found


# --- copy_tree --------------------------------------------------------------------------------


def test_copy_tree_copies_files_folders_and_exec_bits(tmp_path: Path) -> None:
    src = write_submission(tmp_path / "src")
    dst = tmp_path / "dst"

    stats = safefs.copy_tree(src, dst)

    assert (dst / "run.sh").read_text() == "#!/bin/sh\necho hi\n"
    assert stat.S_IMODE((dst / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((dst / "src" / "main.py").stat().st_mode) == 0o644
    assert (dst / "src" / "pkg" / "data.bin").read_bytes() == bytes(range(256))
    assert stats.files == 3
    assert stats.bytes == len("#!/bin/sh\necho hi\n") + len("print('hi')\n") + 256
    assert stats.symlinks == 0
    assert stats.skipped == ()


def test_copy_tree_drops_the_setuid_bit(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "tool").write_text("x")
    (src / "tool").chmod(0o4755)

    safefs.copy_tree(src, tmp_path / "dst")

    assert stat.S_IMODE((tmp_path / "dst" / "tool").stat().st_mode) == 0o755


def test_copy_tree_leaves_out_git(tmp_path: Path) -> None:
    src = write_submission(tmp_path / "src")

    stats = safefs.copy_tree(src, tmp_path / "dst")

    assert not (tmp_path / "dst" / ".git").exists()
    assert ".git" not in stats.skipped


@pytest.mark.parametrize(
    "target",
    [str(PASSWD), "../../outside.txt", "src", "does-not-exist"],
    ids=["absolute-etc-passwd", "relative-escape", "folder-inside", "dangling"],
)
def test_copy_tree_recreates_links_without_following(tmp_path: Path, target: str) -> None:
    src = write_submission(tmp_path / "src")
    (tmp_path / "outside.txt").write_text("secret outside the submission\n")
    os.symlink(target, src / "link")
    dst = tmp_path / "dst"

    stats = safefs.copy_tree(src, dst)

    assert (dst / "link").is_symlink()
    assert os.readlink(dst / "link") == target
    assert stats.symlinks == 1
    assert stats.files == 3  # the link was not counted (nor copied) as a file
    # Only the submission's own entries came over (the link as a link), nothing from behind it.
    expected = {k: v for k, v in tree(src).items() if not k.startswith(".git")}
    assert tree(dst) == expected


def test_copy_tree_never_copies_a_link_targets_content(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    os.symlink(PASSWD, src / "passwd")
    dst = tmp_path / "dst"

    stats = safefs.copy_tree(src, dst)

    assert stat.S_ISLNK((dst / "passwd").lstat().st_mode)
    assert stats.bytes == 0
    passwd = PASSWD.read_bytes()
    for dirpath, _dirs, files in os.walk(dst):
        for name in files:
            full = Path(dirpath, name)
            if not full.is_symlink():
                assert full.read_bytes() != passwd


def test_copy_tree_skips_fifos_and_reports_them(tmp_path: Path) -> None:
    src = write_submission(tmp_path / "src")
    os.mkfifo(src / "pipe")
    os.mkfifo(src / "src" / "nested-pipe")
    dst = tmp_path / "dst"

    stats = safefs.copy_tree(src, dst)

    assert sorted(stats.skipped) == ["pipe", os.path.join("src", "nested-pipe")]
    assert not os.path.lexists(dst / "pipe")
    assert not os.path.lexists(dst / "src" / "nested-pipe")
    assert stats.files == 3


def test_copy_tree_refuses_too_many_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safefs, "MAX_FILES", 3)
    src = tmp_path / "src"
    src.mkdir()
    for n in range(5):
        (src / f"f{n}.txt").write_text("x")

    with pytest.raises(SubmissionError) as caught:
        safefs.copy_tree(src, tmp_path / "dst")

    assert caught.value.path == str(src)
    assert "too many files" in caught.value.reason


def test_copy_tree_accepts_exactly_max_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safefs, "MAX_FILES", 3)
    src = tmp_path / "src"
    src.mkdir()
    for n in range(3):
        (src / f"f{n}.txt").write_text("x")

    assert safefs.copy_tree(src, tmp_path / "dst").files == 3


def test_copy_tree_refuses_too_many_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safefs, "MAX_TOTAL_BYTES", 100)
    src = tmp_path / "src"
    src.mkdir()
    (src / "big.bin").write_bytes(b"x" * 101)

    with pytest.raises(SubmissionError, match="too many files or bytes"):
        safefs.copy_tree(src, tmp_path / "dst")


@pytest.mark.parametrize(
    ("reverse_order", "expected"),
    [(False, ["a.txt", "b.txt", "c.txt"]), (True, ["c.txt", "b.txt", "a.txt"])],
    ids=["name-order", "reverse-order"],
)
def test_copy_tree_creation_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reverse_order: bool, expected: list[str]
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("b.txt", "c.txt", "a.txt"):
        (src / name).write_text(name)
    created: list[str] = []
    real_copyfile = shutil.copyfile

    def recording_copyfile(source: str, target: Path, *, follow_symlinks: bool = True) -> object:
        created.append(Path(target).name)
        return real_copyfile(source, target, follow_symlinks=follow_symlinks)

    monkeypatch.setattr(safefs.shutil, "copyfile", recording_copyfile)

    safefs.copy_tree(src, tmp_path / "dst", reverse_order=reverse_order)

    assert created == expected
    assert tree(tmp_path / "dst") == tree(src)


def test_copy_tree_refuses_an_existing_destination(tmp_path: Path) -> None:
    src = write_submission(tmp_path / "src")
    dst = tmp_path / "dst"
    dst.mkdir()

    with pytest.raises(FileExistsError):
        safefs.copy_tree(src, dst)


# --- chown_tree -------------------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_chown_tree_changes_links_not_their_targets(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not the candidate's\n")
    root = write_submission(tmp_path / "copy")
    os.symlink(outside, root / "escape")
    os.symlink("run.sh", root / "inside")
    before = outside.stat()
    uid, gid = 54321, 54322

    safefs.chown_tree(root, uid, gid)

    for dirpath, dirnames, filenames in os.walk(root):
        for name in [".", *dirnames, *filenames]:
            info = os.lstat(os.path.join(dirpath, name))
            assert (info.st_uid, info.st_gid) == (uid, gid), os.path.join(dirpath, name)
    after = outside.stat()
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)


# --- read_file --------------------------------------------------------------------------------


def test_read_file_reads_a_nested_file(tmp_path: Path) -> None:
    root = write_submission(tmp_path / "sub")

    assert safefs.read_file(root, "src/pkg/data.bin", 1024) == bytes(range(256))
    assert safefs.read_file(root, "./run.sh", 1024) == b"#!/bin/sh\necho hi\n"


@pytest.mark.parametrize("rel", ["nope.txt", "missing/dir/file.txt", "src/nope.py"], ids=str)
def test_read_file_missing_is_none(tmp_path: Path, rel: str) -> None:
    root = write_submission(tmp_path / "sub")

    assert safefs.read_file(root, rel, 1024) is None


def _link_to_passwd(root: Path) -> str:
    os.symlink(PASSWD, root / "answers.json")
    return "answers.json"


def _link_inside(root: Path) -> str:
    os.symlink("run.sh", root / "alias.sh")
    return "alias.sh"


def _linked_parent_out(root: Path) -> str:
    os.symlink("/etc", root / "cassettes")
    return "cassettes/passwd"


def _linked_parent_in(root: Path) -> str:
    os.symlink("src", root / "code")
    return "code/main.py"


def _parent_is_a_file(root: Path) -> str:
    return "run.sh/child"


def _dotdot(root: Path) -> str:
    return "../outside.txt"


def _dotdot_inside(root: Path) -> str:
    return "src/../run.sh"


def _absolute(root: Path) -> str:
    return str(PASSWD)


def _empty(root: Path) -> str:
    return ""


def _folder(root: Path) -> str:
    return "src"


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        pytest.param(_link_to_passwd, "link", id="file-links-to-etc-passwd"),
        pytest.param(_link_inside, "link", id="file-links-inside"),
        pytest.param(_linked_parent_out, "link or not a folder", id="parent-links-to-etc"),
        pytest.param(_linked_parent_in, "link or not a folder", id="parent-links-inside"),
        pytest.param(_parent_is_a_file, "link or not a folder", id="parent-is-a-file"),
        pytest.param(_dotdot, "leaves the submission", id="dotdot"),
        pytest.param(_dotdot_inside, "leaves the submission", id="dotdot-inside"),
        pytest.param(_absolute, "leaves the submission", id="absolute"),
        pytest.param(_empty, "leaves the submission", id="empty"),
        pytest.param(_folder, "not a regular file", id="a-folder"),
    ],
)
def test_read_file_refuses_unsafe_paths(tmp_path: Path, setup: Callable[[Path], str], reason: str) -> None:
    (tmp_path / "outside.txt").write_text("outside\n")
    root = write_submission(tmp_path / "sub")
    rel = setup(root)

    with pytest.raises(UnsafeFile) as caught:
        safefs.read_file(root, rel, 1 << 20)

    assert caught.value.path == rel
    assert reason in caught.value.reason


def test_read_file_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    root = write_submission(tmp_path / "sub")
    os.mkfifo(root / "answers.json")
    outcome: list[BaseException | bytes | None] = []

    def read() -> None:
        try:
            outcome.append(safefs.read_file(root, "answers.json", 1024))
        except BaseException as exc:
            outcome.append(exc)

    # A blocking open() of a FIFO with no writer never returns: run it where we can time it out.
    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(timeout=3)
    if worker.is_alive():
        # Unblock the reader so the test process can exit, then fail.
        with open(root / "answers.json", "wb"):
            pass
        pytest.fail("read_file blocked on a FIFO")
    assert len(outcome) == 1
    assert isinstance(outcome[0], UnsafeFile)
    assert "not a regular file" in outcome[0].reason


@pytest.mark.parametrize(
    ("size", "max_bytes", "ok"),
    [(100, 100, True), (101, 100, False), (0, 0, True), (1, 0, False)],
    ids=["at-limit", "one-over", "empty-zero-limit", "one-byte-zero-limit"],
)
def test_read_file_size_limit(tmp_path: Path, size: int, max_bytes: int, ok: bool) -> None:
    root = tmp_path / "sub"
    root.mkdir()
    (root / "data.bin").write_bytes(b"x" * size)

    if ok:
        assert safefs.read_file(root, "data.bin", max_bytes) == b"x" * size
    else:
        with pytest.raises(UnsafeFile) as caught:
            safefs.read_file(root, "data.bin", max_bytes)
        assert caught.value.reason == f"is {size} bytes, over the {max_bytes}-byte limit"


# --- list_files -------------------------------------------------------------------------------


def test_list_files_sorted_and_skips_links(tmp_path: Path) -> None:
    root = tmp_path / "sub"
    (root / "cassettes" / "b").mkdir(parents=True)
    (root / "cassettes" / "z.json").write_text("{}")
    (root / "cassettes" / "a.json").write_text("{}")
    (root / "cassettes" / "b" / "m.json").write_text("{}")
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "hidden.json").write_text("{}")
    os.symlink(PASSWD, root / "cassettes" / "passwd.json")
    os.symlink("a.json", root / "cassettes" / "alias.json")
    os.symlink("../elsewhere", root / "cassettes" / "linked-dir")

    assert safefs.list_files(root, "cassettes") == [
        "cassettes/a.json",
        "cassettes/b/m.json",
        "cassettes/z.json",
    ]
    assert safefs.list_files(root) == [
        "cassettes/a.json",
        "cassettes/b/m.json",
        "cassettes/z.json",
        "elsewhere/hidden.json",
    ]


@pytest.mark.parametrize("kind", ["missing", "linked-folder", "a-file"], ids=str)
def test_list_files_on_a_non_folder_is_empty(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "sub"
    root.mkdir()
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "x.json").write_text("{}")
    if kind == "linked-folder":
        os.symlink(tmp_path / "real", root / "cassettes")
    elif kind == "a-file":
        (root / "cassettes").write_text("not a folder")

    assert safefs.list_files(root, "cassettes") == []


def test_remove_file_removes_a_file_or_a_link_itself(tmp_path: Path) -> None:
    outside = tmp_path / "reviewer.txt"
    outside.write_text("keep")
    root = tmp_path / "copy"
    (root / "out").mkdir(parents=True)
    (root / "out" / "answers.json").write_text("[]")
    (root / "out" / "link.json").symlink_to(outside)
    assert safefs.remove_file(root, "out/answers.json")
    assert safefs.remove_file(root, "out/link.json")
    assert not (root / "out" / "answers.json").exists() and not (root / "out" / "link.json").is_symlink()
    assert outside.read_text() == "keep"
    assert not safefs.remove_file(root, "out/answers.json"), "already gone"


def test_remove_file_never_goes_through_a_linked_folder(tmp_path: Path) -> None:
    reviewer = tmp_path / "reviewer"
    reviewer.mkdir()
    (reviewer / "answers.json").write_text("keep")
    root = tmp_path / "copy"
    root.mkdir()
    (root / "out").symlink_to(reviewer)
    assert not safefs.remove_file(root, "out/answers.json")
    assert (reviewer / "answers.json").read_text() == "keep"
    (root / "folder.json").mkdir()
    assert not safefs.remove_file(root, "folder.json"), "a folder is not a file"
    with pytest.raises(UnsafeFile):
        safefs.remove_file(root, "../reviewer/answers.json")


def test_a_copy_keeps_each_files_own_modification_time(tmp_path: Path) -> None:
    """`make` compares a checkout's files with what the setup made after them: a copy made now must not make
    `requirements.txt` look newer than `.venv/.installed`."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "requirements.txt").write_text("six\n")
    os.utime(source / "requirements.txt", ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    safefs.copy_tree(source, tmp_path / "copy")
    assert (tmp_path / "copy" / "requirements.txt").stat().st_mtime_ns == 1_600_000_000_000_000_000
