"""The environment cache's handling of what a setup made in place: kept readable, or discarded."""

from __future__ import annotations

import os
from pathlib import Path

from gradelib.environment import cache


def test_what_a_setup_left_loses_its_set_id_bits_and_write_bits_for_others_once_kept(tmp_path: Path) -> None:
    folder = tmp_path / "env"
    (folder / "bin").mkdir(parents=True)
    tool = folder / "bin" / "tool"
    tool.write_text("#!/bin/sh\n")
    os.chmod(tool, 0o6777)  # noqa: S103 (what a hostile setup leaves)
    os.chmod(folder / "bin", 0o2777)  # noqa: S103
    cache.readable(folder)
    assert tool.stat().st_mode & 0o7777 == 0o755
    assert (folder / "bin").stat().st_mode & 0o7777 == 0o755


def test_a_failed_setups_folder_is_discarded_whatever_its_modes_and_its_links_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "reviewer"
    outside.mkdir()
    (outside / "notes.txt").write_text("mine")
    folder = tmp_path / "env"
    (folder / "locked" / "deep").mkdir(parents=True)
    (folder / "locked" / "deep" / "f").write_text("x")
    (folder / "out").symlink_to(outside, target_is_directory=True)
    os.chmod(folder / "locked" / "deep", 0)
    os.chmod(folder / "locked", 0)
    cache.discard(folder)
    assert not folder.exists() and not folder.is_symlink()
    assert (outside / "notes.txt").read_text() == "mine"
    cache.discard(folder)  # nothing there: nothing to do
