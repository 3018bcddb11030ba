"""One record for a line's result: the checks' LineResult is what the gradebook returns and review holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gradelib.gradebook import Gradebook, line_record
from gradelib.result import LineResult, Report
from gradelib.review.scoring import NO_RESULT_MESSAGE, NO_RESULT_OUTCOME, review_lines
from gradelib.takehomes.rubric import default_rubric

LINES = (
    LineResult("identical", "pass", "byte for byte", {"runs": [{"exit_code": 0}]}, 2.0, 2.0),
    LineResult("record", "fail", "went past 40 calls", {"checks": {"a_healthy": False}}, 0.0, 3.0),
    LineResult("volatile", "needs_review", "read the notes", tier="acceptable"),
)


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[Gradebook, int]]:
    book = Gradebook(tmp_path / "gradebook.sqlite")
    sub = book.upsert_submission("replay", "alice", "d", "submissions/alice")
    run_id = book.start_run(sub.id, "0.2.0", "d")
    book.finish_run(run_id, "graded", report=Report("replay", "alice", LINES).to_dict())
    yield book, run_id
    book.close()


def test_the_gradebook_returns_the_lines_it_was_given(stored: tuple[Gradebook, int]) -> None:
    book, run_id = stored
    lines = book.lines(run_id)
    assert all(isinstance(line, LineResult) for line in lines)
    assert tuple(lines) == LINES  # where a line is stored is not part of what it is
    assert [(line.run_id, line.position, line.line_id) for line in lines] == [
        (run_id, 0, "identical"),
        (run_id, 1, "record"),
        (run_id, 2, "volatile"),
    ]
    assert [line.to_dict() for line in lines] == [line.to_dict() for line in LINES]  # the --json shape


def test_a_stored_line_is_its_row_of_the_lines_table(stored: tuple[Gradebook, int]) -> None:
    book, run_id = stored
    assert line_record(book.lines(run_id)[1]) == {
        "run_id": run_id,
        "position": 1,
        "line_id": "record",
        "outcome": "fail",
        "points": 0.0,
        "max_points": 3.0,
        "tier": None,
        "message": "went past 40 calls",
        "evidence": {"checks": {"a_healthy": False}},
    }


def test_from_dict_inverts_to_dict() -> None:
    assert [LineResult.from_dict(line.to_dict()) for line in LINES] == list(LINES)


def test_review_holds_the_kit_line(stored: tuple[Gradebook, int]) -> None:
    book, run_id = stored
    rubric = default_rubric("replay")
    from_book = {line.line_id: line for line in review_lines(rubric, book.lines(run_id))}
    assert from_book == {line.line_id: line for line in review_lines(rubric, LINES)}
    assert from_book["record"].kit == LINES[1]
    assert (from_book["record"].kit_outcome, from_book["record"].kit_message) == ("fail", "went past 40 calls")
    missing = next(line for line in from_book.values() if line.kit is None)
    assert (missing.kit_outcome, missing.kit_message) == (NO_RESULT_OUTCOME, NO_RESULT_MESSAGE)
