"""A team's own starter code never counts in the similarity check: set per take-home, or given to a scan."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradelib.batch.preflight import preflight
from gradelib.settings import load
from gradelib.similarity import fingerprint
from gradelib.similarity.handoutbase import StarterUnreadable, base_with, starter_files, starter_paths

STARTER = (
    "export function retryWithBackoff(call, attempts) {\n"
    + "".join(
        f"  const step{n} = await call({n}) + attempts * {n};\n  if (step{n} > {n}) return step{n};\n"
        for n in range(12)
    )
    + "}\n"
)


def test_the_setting_names_paths_per_take_home(tmp_path: Path) -> None:
    environ = {"GRADELIB_STARTER_PAYMENTS": f"{tmp_path / 'a'}:{tmp_path / 'b.mjs'}", "GRADELIB_STARTER_REPLAY": ""}
    settings = load(environ)
    assert starter_paths("payments", settings) == [tmp_path / "a", tmp_path / "b.mjs"]
    assert starter_paths("replay", settings) == [] and starter_paths("webhooks", settings) == []


def test_starter_code_leaves_the_submissions_own_copy_of_it_out(tmp_path: Path) -> None:
    (tmp_path / "starter").mkdir()
    (tmp_path / "starter" / "retry.mjs").write_text(STARTER)
    submission = tmp_path / "sub"
    submission.mkdir()
    (submission / "checkout.mjs").write_text(STARTER.replace("retryWithBackoff", "again"))
    without = fingerprint(submission, base_with("payments", []))
    files = starter_files([tmp_path / "starter"])
    assert [name for name, _ in files] == ["retry.mjs"]
    with_starter = fingerprint(submission, base_with("payments", files))
    assert without.hashes and not with_starter.hashes, "renamed, the starter code is still the starter code"


def test_a_starter_path_that_is_not_there_stops_the_batch_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(StarterUnreadable, match="--template .*nowhere: no such file or folder"):
        starter_files([tmp_path / "nowhere"], named_by="--template")
    monkeypatch.setenv("GRADELIB_STARTER_REPLAY", str(tmp_path / "nowhere"))
    with pytest.raises(StarterUnreadable, match="GRADELIB_STARTER_REPLAY .*nowhere"):
        preflight(["replay"])
