"""Copying and reading candidate files without following links out of their folder."""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from gradelib.errors import SubmissionError, UnsafeFile

SKIP_NAMES = frozenset({".git"})
MAX_FILES = 20_000
MAX_TOTAL_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class CopyStats:
    """What a copy took over and what it left out."""

    files: int
    bytes: int
    symlinks: int
    skipped: tuple[str, ...]


def copy_tree(src: Path, dst: Path, *, reverse_order: bool = False, include_git: bool = False) -> CopyStats:
    """Copy a submission folder: files and folders, links as links (never followed), each file with its own
    modification time.

    Devices, FIFOs and sockets are skipped; `.git` is left out (the candidate's
    code has no business with it) unless `include_git`. `reverse_order` creates entries in reverse
    name order, which changes directory listing order on some file systems.
    """
    files = total = links = 0
    skipped: list[str] = []
    dst.mkdir(parents=True, exist_ok=False)
    stack: list[tuple[Path, Path]] = [(src, dst)]
    while stack:
        here, there = stack.pop()
        entries = sorted(os.scandir(here), key=lambda e: e.name, reverse=reverse_order)
        for entry in entries:
            rel = os.path.relpath(entry.path, src)
            target = there / entry.name
            if entry.name in SKIP_NAMES and not include_git:
                continue
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(entry.path), target)
                links += 1
            elif stat.S_ISDIR(mode):
                target.mkdir()
                stack.append((Path(entry.path), target))
            elif stat.S_ISREG(mode):
                files += 1
                total += entry.stat(follow_symlinks=False).st_size
                if files > MAX_FILES or total > MAX_TOTAL_BYTES:
                    raise SubmissionError(str(src), "too many files or bytes to copy safely")
                shutil.copyfile(entry.path, target, follow_symlinks=False)
                os.chmod(target, stat.S_IMODE(mode) & 0o777)
                # its own time, as a checkout has it: `make` compares it with what the setup made after it
                info = entry.stat(follow_symlinks=False)
                os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=False)
            else:
                skipped.append(rel)
    return CopyStats(files=files, bytes=total, symlinks=links, skipped=tuple(skipped))


def chown_tree(root: Path, uid: int, gid: int) -> None:
    """Give a copy to the sandbox user (links themselves, never their targets)."""
    os.lchown(root, uid, gid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), uid, gid)


def read_file(root: Path, rel: str, max_bytes: int) -> bytes | None:
    """Read `root/rel` without following any link; None when it does not exist.

    Raises UnsafeFile for a link anywhere on the path, a non-regular file, or
    one larger than `max_bytes`.
    """
    parts = [p for p in Path(rel).parts if p not in ("", ".")]
    if not parts or ".." in parts or Path(rel).is_absolute():
        raise UnsafeFile(rel, "path leaves the submission")
    dir_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for part in parts[:-1]:
            try:
                next_fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
            except FileNotFoundError:
                return None
            except (NotADirectoryError, OSError) as exc:
                raise UnsafeFile(rel, f"{part!r} is a link or not a folder") from exc
            os.close(dir_fd)
            dir_fd = next_fd
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise UnsafeFile(rel, "is a link (not followed)") from exc
    finally:
        os.close(dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(rel, "is not a regular file")
        if info.st_size > max_bytes:
            raise UnsafeFile(rel, f"is {info.st_size} bytes, over the {max_bytes}-byte limit")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise UnsafeFile(rel, f"is over the {max_bytes}-byte limit")
        return data
    finally:
        os.close(fd)


def list_files(root: Path, rel: str = ".") -> list[str]:
    """Regular files below `root/rel`, relative to root, sorted; links are not followed."""
    base = root / rel
    if base.is_symlink() or not base.is_dir():
        return []
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
        for name in filenames:
            full = os.path.join(dirpath, name)
            if os.path.isfile(full) and not os.path.islink(full):
                found.append(os.path.relpath(full, root))
    return sorted(found)


def remove_file(root: Path, rel: str) -> bool:
    """Delete the file or link `root/rel` (never what a link points to); False when there was none.

    Nothing is removed through a linked or missing folder on the way, so a copy whose `out` is a
    link to the reviewer's files cannot make the kit delete them.
    """
    parts = [p for p in Path(rel).parts if p not in ("", ".")]
    if not parts or ".." in parts or Path(rel).is_absolute():
        raise UnsafeFile(rel, "path leaves the submission")
    folder = root
    for part in parts[:-1]:
        folder = folder / part
        if folder.is_symlink() or not folder.is_dir():
            return False
    target = folder / parts[-1]
    if not (target.is_symlink() or target.is_file()):
        return False
    target.unlink()
    return True
