"""A batch in the terminal: a submission the kit could not check is never "ok", the end lists what needs a look,
the last line counts it; colour only on a terminal that has it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gradelib.batch import GradeOutcome
from gradelib.batch.console import (
    RESET,
    UNCHECKED_COLOUR,
    last_line,
    needs_a_look,
    outcome_line,
    use_colour,
    why_unchecked,
)

NO_RUN_SH = "cannot run the submission: no run.sh in the submission"
REPORTS = Path("reports")


def _outcome(label: str, status: str = "graded", unchecked: tuple[str, ...] = (), **more: object) -> GradeOutcome:
    number = label.rsplit("#", 1)[-1]
    values: dict[str, object] = {
        "submission": f"name-{number}", "label": label, "takehome": "replay", "status": status,
        "notebook": f"reports/replay/submission-{int(number):02d}.ipynb",
        "html": f"reports/replay/submission-{int(number):02d}.html", "error": None, "seconds": 2.0, "total": 80.0,
        "unchecked": unchecked,
    }  # fmt: skip
    values.update(more)
    return GradeOutcome(**values)  # type: ignore[arg-type]


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_a_submission_with_no_line_checked_is_printed_as_such_not_ok() -> None:
    outcome = _outcome("Submission #2", unchecked=(NO_RUN_SH,) * 5, total=0.0)
    line = outcome_line(outcome)
    assert (
        line == f"replay/Submission #2: could not check 5 lines: {NO_RUN_SH} (2 s): reports/replay/submission-02.html"
    )
    assert "ok" not in line.split(":")[1] and outcome.ended_in_error
    painted = outcome_line(outcome, colour=True)
    assert painted == f"{UNCHECKED_COLOUR}{line}{RESET}"
    assert (
        outcome_line(_outcome("Submission #1"))
        == "replay/Submission #1: ok (2 s), total 80: reports/replay/submission-01.html"
    )
    assert "\033" not in outcome_line(_outcome("Submission #1"), colour=True), "an ok line keeps the terminal's colour"


def test_the_reason_is_the_lines_shared_one_or_the_first_and_how_many_more() -> None:
    assert why_unchecked(["a hang"]) == "could not check 1 line: a hang"
    assert why_unchecked(["x", "y", "x"]) == "could not check 3 lines: x (and 1 other reason)"
    assert why_unchecked(["x", "y", "z"]) == "could not check 3 lines: x (and 2 other reasons)"


def test_candidate_text_in_a_coloured_line_is_escaped_before_the_colour_is_added() -> None:
    outcome = _outcome("Submission #3", unchecked=("run.sh printed \x1b[2Jcleared",))
    painted = outcome_line(outcome, colour=True)
    assert painted.count("\x1b") == 2 and painted.startswith(UNCHECKED_COLOUR) and painted.endswith(RESET)


@pytest.mark.parametrize(
    ("tty", "environ", "coloured"),
    [
        (True, {"TERM": "xterm-256color"}, True),
        (True, {}, True),
        (True, {"NO_COLOR": "1"}, False),
        (True, {"NO_COLOR": ""}, True),  # no-color.org: an empty value does not count
        (True, {"TERM": "dumb"}, False),
        (False, {"TERM": "xterm"}, False),  # a pipe, a file, CI's log
    ],
    ids=["terminal", "no TERM", "NO_COLOR", "NO_COLOR empty", "dumb terminal", "not a terminal"],
)
def test_colour_only_where_the_terminal_has_it(tty: bool, environ: dict[str, str], coloured: bool) -> None:
    assert use_colour(_Stream(tty), environ) is coloured


def test_the_end_lists_what_needs_a_look_in_label_order_and_the_last_line_counts_it() -> None:
    outcomes = [
        _outcome("Submission #10", status="error", error="the notebook's kernel died: SIGKILL", html=None),
        _outcome("Submission #1"),
        _outcome("Submission #2", unchecked=(NO_RUN_SH,) * 5),
        _outcome("Submission #3", status="up_to_date", unchecked=("a hang",), seconds=0.0),
        _outcome("Submission #4", status="up_to_date", seconds=0.0),
    ]
    assert needs_a_look(outcomes) == [
        "needs a look: 3 submissions",
        f"  replay/Submission #2: could not check 5 lines: {NO_RUN_SH}: reports/replay/submission-02.html",
        "  replay/Submission #3: could not check 1 line: a hang: reports/replay/submission-03.html",
        "  replay/Submission #10: grading failed: the notebook's kernel died: SIGKILL:"
        " reports/replay/submission-10.ipynb",
    ]
    assert last_line(outcomes, REPORTS) == (
        "graded 1, up to date 1, errors 3 (2 of them with lines the kit could not check); reports in reports/"
    )


def test_a_clean_batch_says_nothing_more_than_its_counts() -> None:
    graded = [_outcome("Submission #1"), _outcome("Submission #2")]
    assert needs_a_look(graded) == []
    assert last_line(graded, REPORTS) == "graded 2, up to date 0, errors 0; reports in reports/"
    skipped = [_outcome("Submission #1", status="up_to_date"), _outcome("Submission #2", status="up_to_date")]
    assert last_line(skipped, REPORTS) == "all 2 submissions are up to date (use --force to grade them again)"
    stale = [*skipped[:1], _outcome("Submission #2", status="up_to_date", unchecked=("a hang",))]
    assert last_line(stale, REPORTS).startswith("graded 0, up to date 1, errors 1 (1 of them")
