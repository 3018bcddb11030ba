"""What the identical check varies between its two replays, and what it says it could not vary."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradelib.environment.prepared import Environment, Installed
from gradelib.sandbox import libfaketime
from gradelib.takehomes.replay.runs import variations


def _set_up_by(tool: str) -> Environment:
    setup = {"tool": tool, "version": "1", "stable": True, "venv": "venv"}
    python = Installed("python", Path("/cache/envs/x"), "x", (), True, 0.0, setup=setup)
    return Environment(python=python)


def test_a_submission_the_kit_installed_gets_every_variation() -> None:
    described = variations(Environment())[1].described
    assert "working path (another, deeper folder)" in described
    assert "clock +398 days (libfaketime)" in described


@pytest.mark.parametrize(("tool", "clock"), [("poetry", False), ("hatch", False), ("uv", True)])
def test_what_a_tools_environment_pins_is_said_not_varied(tool: str, clock: bool) -> None:
    assert libfaketime(), "./dev setup installs libfaketime"
    second = variations(_set_up_by(tool))[1]
    assert (
        "working path NOT varied: what set the submission up (a tool, its own setup step) keys what it made on it"
        in (second.described)
    )
    assert ("LD_PRELOAD" in second.env) == clock
    said = f"clock NOT shifted: {tool}, which starts the program, fails under libfaketime"
    assert (said in second.described) == (not clock)
