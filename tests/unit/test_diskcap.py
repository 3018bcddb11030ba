"""Bounded disk per grading: a size-limited tmpfs over the sandbox workspace, its /tmp included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.errors import SettingsError
from gradelib.sandbox import Limits, Sandbox, diskcap

FILL = """
import itertools, os, sys
where = sys.argv[1]
block = b"x" * (4 << 20)
for n in itertools.count():  # 4 MiB files, each under the per-file cap, until the kit stops it
    with open(os.path.join(where, f"fill-{n}.bin"), "wb") as handle:
        try:
            handle.write(block)
        except OSError as exc:
            print("write failed:", exc, flush=True)
"""
CAP = 32 * 2**20
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a capped tmpfs needs root")


@pytest.fixture
def sub(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "sub", {"fill.py": FILL, "small.py": "open('out.txt', 'w').write('ok' * 1000)\n"})


@needs_root
@pytest.mark.parametrize("where", [".", "/tmp", "$HOME"], ids=["copy", "tmp", "home"])
def test_filling_the_workspace_ends_that_run_with_a_disk_limit(sub: Path, where: str) -> None:
    with Sandbox(sub, disk_bytes=CAP) as box:
        assert box.disk.bounded and os.statvfs(box.root).f_blocks * os.statvfs(box.root).f_frsize == CAP
        copy = box.copy("fill")
        target = "/tmp" if where == "/tmp" else str(copy) if where == "." else str(box.root)
        argv = ["python3", "fill.py", target if where != "$HOME" else "."]
        cwd = copy
        if where == "$HOME":
            argv = ["sh", "-c", 'exec python3 "$0/fill.py" "$HOME"', str(copy)]
        result = box.run(argv, cwd, limits=Limits(wall_seconds=30))
        assert result.disk_limit_hit and not result.ok and result.exit_code is None
        assert result.duration < 20, "stopped when the disk was full, not at the timeout"
        assert "disk limit reached" in result.status() and "32 MiB" in result.status()
        assert any(note.startswith("disk limit:") for note in result.notes)
        assert result.evidence()["status"] == result.status()
        # what it wrote is gone: the grading's next run has its room back
        again = box.copy("after")
        after = box.run(["python3", "small.py"], again)
        assert after.ok and not after.disk_limit_hit, after.stderr
        assert (again / "out.txt").read_text() == "ok" * 1000  # read on the host side, after the run
        root = box.root
    assert not root.exists(), "the capped workspace is unmounted and removed"


@needs_root
def test_runs_side_by_side_cannot_touch_each_others_copies(sub: Path) -> None:
    with Sandbox(sub, disk_bytes=CAP) as box:
        first, second = box.copy("a"), box.copy("b")
        result = box.run(["sh", "-c", f"echo forged > {second}/small.py; cat {second}/small.py"], first)
        assert result.exit_code != 0
        assert "forged" not in (second / "small.py").read_text()


def test_the_cap_is_configurable_and_a_stale_workspace_is_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(diskcap.ENV_DISK_MIB, "48")
    assert diskcap.configured_limit() == 48 * 2**20
    monkeypatch.setenv(diskcap.ENV_DISK_MIB, "not a number")
    with pytest.raises(SettingsError, match="GRADELIB_DISK_MIB: 'not a number' .* a whole number"):
        diskcap.configured_limit()
    monkeypatch.delenv(diskcap.ENV_DISK_MIB)
    assert diskcap.configured_limit() == diskcap.DEFAULT_DISK_BYTES
    cap = diskcap.workspace(CAP)
    try:
        if cap.bounded:  # a workspace whose owner is gone (a killed kernel) is unmounted by the next one
            stale = cap.folder.with_name(diskcap.WORKSPACE_PREFIX.format(pid=2**22 + 1) + "x")
            stale.mkdir()
            diskcap._mount_tmpfs(stale, CAP)
            assert stale in diskcap.sweep_stale() and not stale.exists()
            assert cap.folder.exists(), "a live owner's workspace stays"
        else:
            assert cap.reason and not cap.full()
    finally:
        diskcap.release(cap)


def test_a_kit_write_waits_for_room_a_run_beside_it_took_then_gives_up(tmp_path: Path) -> None:
    import errno

    box = Sandbox(tmp_path)
    tries: list[int] = []

    def write() -> str:
        tries.append(1)
        if len(tries) < 3:  # the run that filled the workspace is still being stopped
            raise OSError(errno.ENOSPC, "No space left on device")
        return "written"

    box.disk = diskcap.DiskCap(tmp_path, 64 * 2**20, "")
    assert box.with_room(write) == "written" and len(tries) == 3
    box.disk = diskcap.DiskCap(tmp_path, None, "not bounded here")  # nobody else's run can free it
    tries.clear()
    with pytest.raises(OSError):
        box.with_room(write)
    assert len(tries) == 1
