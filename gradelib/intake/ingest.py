"""Submissions in, safely: folders, .zip, .tar.gz and git bundles; content digest."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import subprocess
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from gradelib.errors import SubmissionError
from gradelib.sandbox import safefs

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".bundle")
MAX_MEMBERS = 20_000
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_DEPTH = 64
MAX_RATIO = 200  # unpacked / packed, beyond which an archive is a bomb
GIT_TIMEOUT = 60
SAFE_GIT_CONFIG = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "protocol.allow=never",
    "-c",
    "protocol.file.allow=always",
)


@dataclass(frozen=True)
class Submission:
    """One candidate's work, unpacked into a folder the kit reads (never writes)."""

    name: str
    path: Path  # the folder with the candidate's files
    origin: Path  # what the reviewer pointed at (folder or archive)
    digest: str  # sha256 over names, kinds and contents (`.git` left out)
    has_git: bool


def submission_name(path: Path) -> str:
    """The candidate's folder name, with any archive suffix removed."""
    name = path.name
    for suffix in ARCHIVE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def is_submission(path: Path) -> bool:
    """True for a folder or a supported archive."""
    return path.is_dir() or path.name.endswith(ARCHIVE_SUFFIXES)


def digest(folder: Path) -> str:
    """Content digest of a folder: paths, kinds, link targets and bytes; `.git` left out."""
    try:
        return _digest(folder)
    except RecursionError as exc:
        raise SubmissionError(str(folder), "folders are nested too deeply to read safely") from exc


def _digest(folder: Path) -> str:
    sha = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in safefs.SKIP_NAMES)
        for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, folder)
            mode = os.lstat(full).st_mode
            sha.update(rel.encode("utf-8", "surrogateescape") + b"\0")
            if stat.S_ISLNK(mode):
                sha.update(b"L" + os.readlink(full).encode("utf-8", "surrogateescape"))
            elif stat.S_ISREG(mode):
                sha.update(b"F" + (b"x" if mode & 0o111 else b"-"))
                with open(full, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        sha.update(block)
            sha.update(b"\0")
    return sha.hexdigest()


@contextlib.contextmanager
def open_submission(path: Path) -> Iterator[Submission]:
    """Unpack (if needed) and describe a submission; temporary files go at exit."""
    path = Path(path)
    if not path.exists():
        raise SubmissionError(str(path), "does not exist")
    if path.is_dir():
        yield Submission(submission_name(path), path, path, digest(path), (path / ".git").is_dir())
        return
    if not path.name.endswith(ARCHIVE_SUFFIXES):
        raise SubmissionError(str(path), "is neither a folder nor a .zip, .tar.gz or git bundle")
    with tempfile.TemporaryDirectory(prefix="gradelib-ingest-") as tmp:
        target = Path(tmp) / submission_name(path)
        if path.name.endswith(".zip"):
            _unzip(path, target)
        elif path.name.endswith(".bundle"):
            _unbundle(path, target)
        else:
            _untar(path, target)
        root = _single_top_folder(target)
        yield Submission(submission_name(path), root, path, digest(root), (root / ".git").is_dir())


def _member_path(archive: Path, name: str) -> PurePosixPath:
    member = PurePosixPath(name)
    if member.is_absolute() or ".." in member.parts or name.startswith(("/", "\\")) or "\\" in name:
        raise SubmissionError(str(archive), f"unsafe entry {name!r} (absolute or leaves the folder)")
    if len(member.parts) > MAX_DEPTH:
        raise SubmissionError(str(archive), f"an entry is nested more than {MAX_DEPTH} folders deep")
    return member


def _check_budget(archive: Path, count: int, unpacked: int) -> None:
    if count > MAX_MEMBERS:
        raise SubmissionError(str(archive), f"more than {MAX_MEMBERS} entries")
    packed = max(archive.stat().st_size, 1)
    if unpacked > MAX_UNPACKED_BYTES or (unpacked > packed * MAX_RATIO and unpacked > 10 * 1024**2):
        raise SubmissionError(str(archive), f"unpacks to {unpacked} bytes: refused as an archive bomb")


def _unzip(archive: Path, target: Path) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            _check_budget(archive, len(infos), sum(i.file_size for i in infos))
            target.mkdir()
            written = 0
            for info in infos:
                member = _member_path(archive, info.filename)
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise SubmissionError(str(archive), f"entry {info.filename!r} is a symlink")
                dest = target.joinpath(*member.parts)
                if info.is_dir():
                    dest.mkdir(parents=True, exist_ok=True)
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(dest, "wb") as out:
                    while block := src.read(1 << 20):
                        written += len(block)
                        if written > MAX_UNPACKED_BYTES:
                            raise SubmissionError(str(archive), "unpacks past the size limit")
                        out.write(block)
                os.chmod(dest, 0o755 if mode & 0o111 else 0o644)
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, zlib.error) as exc:
        raise SubmissionError(str(archive), f"not a readable zip: {exc}") from exc


def _untar(archive: Path, target: Path) -> None:
    try:
        with tarfile.open(archive, "r:*") as tf:
            members = tf.getmembers()
            _check_budget(archive, len(members), sum(m.size for m in members))
            target.mkdir()
            for member in members:
                rel = _member_path(archive, member.name)
                dest = target.joinpath(*rel.parts)
                if member.isdir():
                    dest.mkdir(parents=True, exist_ok=True)
                elif member.isfile():
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    src = tf.extractfile(member)
                    if src is None:
                        continue
                    with src, open(dest, "wb") as out:
                        while block := src.read(1 << 20):
                            out.write(block)
                    os.chmod(dest, 0o755 if member.mode & 0o111 else 0o644)
                else:
                    raise SubmissionError(str(archive), f"entry {member.name!r} is a link or device")
            # tarfile stops quietly at the first unreadable header and never reaches the
            # gzip trailer, so a damaged archive would unpack in part, unnoticed. Reading
            # to the end makes gzip check its CRC (bounded: a bomb could hide past the end).
            drained = 0
            while tf.fileobj is not None and (block := tf.fileobj.read(1 << 20)):
                drained += len(block)
                if drained > MAX_UNPACKED_BYTES:
                    raise SubmissionError(str(archive), "unpacks past the size limit")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise SubmissionError(str(archive), f"not a readable tar.gz: {exc}") from exc


def _unbundle(bundle: Path, target: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(target.parent)}
    try:
        subprocess.run(
            ["git", *SAFE_GIT_CONFIG, "clone", "--quiet", "--no-hardlinks", str(bundle), str(target)],
            check=True,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            env=env,
        )
    except FileNotFoundError as exc:
        raise SubmissionError(str(bundle), "git is not installed, so bundles cannot be read") from exc
    except subprocess.CalledProcessError as exc:
        raise SubmissionError(str(bundle), f"not a readable git bundle: {exc.stderr.decode().strip()}") from exc
    except subprocess.TimeoutExpired as exc:
        raise SubmissionError(str(bundle), "git clone of the bundle timed out") from exc


def _single_top_folder(target: Path) -> Path:
    """Archives often wrap everything in one folder; grade what is inside it."""
    entries = [e for e in target.iterdir() if e.name not in ("__MACOSX",)]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink() and entries[0].name != ".git":
        return entries[0]
    return target


def find_submissions(path: Path, *, depth: int = 2, recognises: Callable[[Path], bool] | None = None) -> list[Path]:
    """One submission, or the submissions inside a folder of them (one level of grouping allowed).

    A folder is a submission when it holds a file any submission may hold, or when `recognises`
    says so (the take-homes' registry, which knows each take-home's own marker files).
    """
    path = Path(path)
    if not path.is_dir() or _looks_like_submission(path, recognises):
        return [path]
    found: list[Path] = []
    for child in sorted(path.iterdir(), key=lambda p: p.name):
        if child.name.startswith(".") or not is_submission(child):
            continue
        if child.is_dir() and not _looks_like_submission(child, recognises) and depth > 1:
            found += find_submissions(child, depth=depth - 1, recognises=recognises)
        else:
            found.append(child)
    return found


# Files any submission may hold (not README.md: a folder of submissions has one too); each take-home's
# own marker files come from its plugin.
COMMON_MARKERS = ("NOTE.md", "tickets.json", "package.json", "requirements.txt", "pyproject.toml")


def _looks_like_submission(folder: Path, recognises: Callable[[Path], bool] | None) -> bool:
    if recognises is not None and recognises(folder):
        return True
    return any((folder / marker).exists() for marker in COMMON_MARKERS)
