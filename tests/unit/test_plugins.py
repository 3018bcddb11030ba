"""A take-home installed as a plugin is found through its entry point, graded, and forgotten when removed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import tiny_submission
from plugin_site import installed

from gradelib import takehomes
from gradelib.errors import UnknownTakehome


def test_an_installed_plugin_is_found_graded_and_forgotten_when_removed(tmp_path: Path) -> None:
    passing, failing = tiny_submission(tmp_path / "ada"), tiny_submission(tmp_path / "bo", "41")
    assert "tiny" not in takehomes.names()
    with installed(tmp_path / "site") as takehome:
        assert takehome == "tiny" and takehomes.names()[:2] == ("payments", "replay"), "the kit's own first"
        assert "tiny" in takehomes.names()
        assert takehomes.detect(passing) == "tiny"
        plugin = takehomes.load("tiny")
        assert plugin.notebook().is_file()
        good, bad = plugin.check(passing), plugin.check(failing)
        assert [(line.id, line.outcome, line.points) for line in good.lines] == [("answer", "pass", 10.0)]
        assert [(line.id, line.outcome, line.points) for line in bad.lines] == [("answer", "fail", 0.0)]
        assert bad.line("answer").message == "printed '41', not 42"
        assert (
            good.facts["printed"] == "42"
            and good.facts["isolation"] == good.line("answer").evidence["run"]["isolation"]
        )
    assert "tiny" not in takehomes.names()
    assert takehomes.detect(passing) is None
    with pytest.raises(UnknownTakehome):
        takehomes.load("tiny")
