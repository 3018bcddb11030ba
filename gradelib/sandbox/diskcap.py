"""Bounded disk for one grading: a size-limited tmpfs mounted over its sandbox workspace.

Why per grading and on the host side: the kit makes fresh copies before a run and reads
answers files from them after it, so the capped space must be visible outside the run's
mount namespace too; one cap over the whole workspace (copies, each run's HOME and /tmp)
bounds the total, and it ends with the grading (an unmount frees it at once). A tmpfs needs
no loop device and no image file; its pages count as memory, so the cap is modest.

Mounting in the host's mount namespace needs real root. Otherwise the workspace stays on
the ordinary disk (bounded per file and by time only) and the kit says so once.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gradelib.sandbox.environ import real_root
from gradelib.settings import DEFAULT_DISK_MIB, current_settings
from gradelib.settings import ENV_DISK_MIB as ENV_DISK_MIB  # the operator's cap per grading, in MiB

DEFAULT_DISK_BYTES = DEFAULT_DISK_MIB * 2**20
MIN_DISK_BYTES = 4 * 2**20
FULL_MARGIN_BYTES = 256 * 1024  # less free than this: the workspace is full
WORKSPACE_PREFIX = "gradelib-ws{pid}-"  # the owner's pid, so a leftover of a killed kernel can be swept
MNT_DETACH = 2
NOT_ROOT = "mounting a size-limited tmpfs needs root; workspaces are on the ordinary disk"

_libc = ctypes.CDLL(None, use_errno=True)
_told: str | None = None  # why disk is not bounded in this process; said once


@dataclass(frozen=True)
class DiskCap:
    """The workspace of one grading and the cap on what it may hold (None: not bounded)."""

    folder: Path
    limit: int | None
    reason: str  # why there is no cap, or "" when there is one

    @property
    def bounded(self) -> bool:
        """Whether a size-limited file system holds the workspace."""
        return self.limit is not None

    def free(self) -> int:
        """Bytes still free in the workspace."""
        try:
            info = os.statvfs(self.folder)
        except OSError:
            return 0
        return info.f_bavail * info.f_frsize

    def full(self) -> bool:
        """Whether the cap is reached (never true for an unbounded workspace)."""
        return self.bounded and self.free() < FULL_MARGIN_BYTES

    def describe(self) -> str:
        """`1024 MiB` or `not bounded: ...`, for notes and reports."""
        if self.limit is None:
            return f"not bounded: {self.reason}"
        return f"{self.limit // 2**20} MiB"


def configured_limit(default: int = DEFAULT_DISK_BYTES) -> int:
    """The cap per grading: `$GRADELIB_DISK_MIB` when set, else `default`."""
    settings = current_settings()
    return max(settings.disk_mib * 2**20, MIN_DISK_BYTES) if settings.given("disk_mib") else default


def _mount_tmpfs(folder: Path, limit: int) -> None:
    options = f"size={limit},mode=0711,nr_inodes=1m".encode()
    if _libc.mount(b"tmpfs", str(folder).encode(), b"tmpfs", 2 | 4, options) != 0:  # MS_NOSUID | MS_NODEV
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _unmount(folder: Path) -> None:
    _libc.umount2(str(folder).encode(), MNT_DETACH)


def workspace(limit: int | None = None) -> DiskCap:
    """A fresh workspace folder, capped at `limit` bytes (default: `configured_limit()`) where the kit can mount."""
    global _told
    limit = configured_limit() if limit is None else max(limit, MIN_DISK_BYTES)
    sweep_stale()
    folder = Path(tempfile.mkdtemp(prefix=WORKSPACE_PREFIX.format(pid=os.getpid())))
    if not real_root():
        _told = _told or NOT_ROOT
        return DiskCap(folder, None, _told)
    try:
        _mount_tmpfs(folder, limit)
    except OSError as exc:
        _told = _told or f"cannot mount a size-limited tmpfs: {exc}"
        return DiskCap(folder, None, _told)
    return DiskCap(folder, limit, "")


def release(cap: DiskCap) -> None:
    """Unmount a capped workspace (what it held is freed at once) and remove its folder."""
    if cap.bounded:
        _unmount(cap.folder)
    with contextlib.suppress(OSError):
        cap.folder.rmdir()


def unbounded_reason() -> str | None:
    """Why gradings on this machine cannot bound disk use (the fallback), or None when they can."""
    return _told or (None if real_root() else NOT_ROOT)


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def sweep_stale(parent: Path | None = None) -> list[Path]:
    """Unmount capped workspaces whose owner process is gone (a kernel killed mid-grading)."""
    parent = Path(parent or tempfile.gettempdir()).resolve()
    swept: list[Path] = []
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return swept
    for line in mounts:
        fields = line.split()
        if len(fields) < 5:
            continue
        point = Path(fields[4].replace("\\040", " "))
        stem = WORKSPACE_PREFIX.split("{")[0]
        if point.parent != parent or not point.name.startswith(stem):
            continue
        owner = point.name[len(stem) :].split("-", 1)[0]
        if owner.isdigit() and not _alive(int(owner)):
            _unmount(point)
            with contextlib.suppress(OSError):
                point.rmdir()
            swept.append(point)
    return swept
