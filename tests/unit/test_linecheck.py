"""`@line("id")` binds a check to its rubric line: read from the class, a line the rubric lacks refused at load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tinytakehome
from tinytakehome.grading import TinyGrading

from gradelib.errors import TakeHomeBroken
from gradelib.takehome import BaseGrading, LineResult, TakeHome, line, load_rubric
from gradelib.takehomes.linecheck import bound_lines, unbound_ids


def tiny(grading: Any) -> TakeHome:
    """A record of the test-only `tiny` take-home (its rubric: one line, `answer`) with another grading."""
    return TakeHome(
        id="tiny", title="tiny", package="tinytakehome", grading=grading, markers=("answer.txt",), handout_files=()
    )


class Checks(BaseGrading):
    TAKEHOME = "tiny"

    @line("answer")
    def answered(self) -> LineResult:
        return LineResult("answer", "pass", "")

    @line("style")
    def styled(self) -> LineResult:
        return LineResult("style", "pass", "")


class MoreChecks(Checks):
    @line("answer")
    def answered_again(self) -> LineResult:
        return LineResult("answer", "fail", "")

    @line("tests")
    def styled(self) -> LineResult:  # the same method, now bound to another line
        return LineResult("tests", "pass", "")


def test_the_bindings_are_read_from_the_class_and_its_bases() -> None:
    assert bound_lines(Checks) == {"answer": "answered", "style": "styled"}
    assert bound_lines(MoreChecks) == {"answer": "answered_again", "tests": "styled"}
    assert unbound_ids(bound_lines(Checks), ["answer"]) == ["'style' (styled())"]


def test_two_methods_binding_one_line_are_refused() -> None:
    class Twice(BaseGrading):
        @line("answer")
        def one(self) -> LineResult:
            return LineResult("answer", "pass", "")

        @line("answer")
        def two(self) -> LineResult:
            return LineResult("answer", "pass", "")

    with pytest.raises(TypeError, match=r"one\(\) and two\(\) both check the line 'answer'"):
        bound_lines(Twice)


def test_a_line_its_rubric_lacks_is_refused_when_the_record_is_made() -> None:
    class Misspelt(TinyGrading):
        @line("answr")
        def answer(self) -> LineResult:
            return LineResult("answr", "pass", "")

    with pytest.raises(TakeHomeBroken, match=r"Misspelt checks lines its rubric does not have: 'answr' \(answer\(\)\)"):
        tiny(Misspelt)
    assert tiny(TinyGrading).grading is TinyGrading  # bound to `answer`, which its rubric has


def test_a_grading_bound_by_name_still_works_and_is_told_to_use_line(tmp_path: Path) -> None:
    class ByName(BaseGrading):
        TAKEHOME = "tiny"

        def answer(self) -> LineResult:
            return LineResult("answer", "pass", "")

    with pytest.warns(DeprecationWarning, match=r"ByName binds its checks by method name.*@line"):
        record = tiny(ByName)
    assert bound_lines(record.grading) == {}


def test_a_bound_check_is_the_lines_check_in_rubric_order(tmp_path: Path) -> None:
    (tmp_path / "answer.txt").write_text("42\n")
    rubric = load_rubric(Path(tinytakehome.__file__).parent / "rubric.toml")
    with MoreChecks(tmp_path, rubric=rubric) as grading:
        checks = grading.checks()
    assert {line_id: check.__name__ for line_id, check in checks.items()} == {"answer": "answered_again"}
