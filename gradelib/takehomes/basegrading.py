"""The grading mechanics every take-home shares: sandbox, environment, rubric, lines, report, prefetch."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar, Self

from gradelib import runlog
from gradelib.environment import Environment, prepare
from gradelib.errors import RubricError, TakeHomeBroken
from gradelib.result import LineResult, Outcome, Report, Tier
from gradelib.sandbox import Sandbox
from gradelib.takehomes import shortfall
from gradelib.takehomes.contract import TakeHome
from gradelib.takehomes.linecheck import bound_lines, unbound_ids
from gradelib.takehomes.rubric import Rubric, default_rubric, packaged_rubric

INSTALL_FAILED = "the submission's environment could not be set up: {error}"
BOUND_BY_NAME = (
    "{grading} binds its checks by method name, which is deprecated: decorate each check with"
    ' @line("<line id>") from gradelib.takehome (a misspelt method name is then refused, not left unchecked)'
)


def install_failed(environment: Environment) -> str | None:
    """The message every line carries when the submission's environment could not be set up, or None."""
    return INSTALL_FAILED.format(error=environment.error) if environment.error else None


class BaseGrading:
    """One submission being graded: a sandbox of fresh copies, its installed environment, its rubric.

    A take-home subclasses it, sets TAKEHOME, writes one method per rubric line (bound to it with
    `@line("id")`, returning a LineResult) and `facts()`, and lists in `prefetch_tasks` the sandbox
    runs that can go side by side. `report()` then runs every line the rubric names.
    """

    TAKEHOME: ClassVar[str]
    FLAG_RUNTIME_DEPENDENCIES: ClassVar[bool] = False  # flag package.json `dependencies` in the report

    def __init__(
        self,
        submission: Path,
        *,
        name: str | None = None,
        rubric: Rubric | None = None,
        environment: Environment | None = None,
    ) -> None:
        self.submission = Path(submission)
        self.name = name or self.submission.name
        self.rubric = rubric or default_rubric(self.TAKEHOME)
        self.environment = environment if environment is not None else prepare(self.submission)
        self.box = Sandbox(self.submission, mounts=self.environment.mounts())

    def __enter__(self) -> Self:
        self.box.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.box.__exit__(*exc)

    def open(self) -> Self:
        """Enter the sandbox (for notebooks, where a `with` block cannot span cells)."""
        return self.__enter__()

    def close(self) -> None:
        """Remove the sandbox's workspace."""
        self.__exit__(None, None, None)

    def _line(
        self, line_id: str, outcome: Outcome, message: str, evidence: Mapping[str, Any], tier: Tier | None = None
    ) -> LineResult:
        points, maximum = self.rubric.score(line_id, outcome, tier)
        return LineResult(line_id, outcome, message, dict(evidence), points, maximum, tier)

    def prefetch_tasks(self) -> Sequence[Callable[[], object]]:
        """Sandbox runs that can go side by side before the lines read them (none by default)."""
        return ()

    def prefetch(self) -> None:
        """Run the independent sandbox runs side by side: they wait (timeouts, servers) more than compute."""
        tasks = self.prefetch_tasks()
        if not tasks:
            return
        with ThreadPoolExecutor(len(tasks)) as pool:
            for future in [pool.submit(runlog.in_context(task)) for task in tasks]:
                future.result()

    @classmethod
    def check_lines(cls, takehome: TakeHome) -> None:
        """Refuse a grading whose `@line` names a line its take-home's rubric lacks (TakeHomeBroken): the record
        calls it when it is made, so when the take-home's package loads. A rubric that cannot be read is left
        to the grading, which says so."""
        bound = bound_lines(cls)
        if not bound:
            warnings.warn(BOUND_BY_NAME.format(grading=cls.__qualname__), DeprecationWarning, stacklevel=4)
            return
        try:
            line_ids = packaged_rubric(takehome.data(), takehome.id).line_ids
        except (RubricError, ModuleNotFoundError):
            return
        if unknown := unbound_ids(bound, line_ids):
            lines = ", ".join(unknown)
            raise TakeHomeBroken(takehome.id, f"{cls.__qualname__} checks lines its rubric does not have: {lines}")

    def checks(self) -> dict[str, Callable[[], LineResult]]:
        """The line checks, by line id, in rubric order (a rubric line without a check is skipped).

        A grading that binds no check with `@line` is read the deprecated way: a method named after each line.
        """
        names = bound_lines(type(self)) or {line_id: line_id for line_id in self.rubric.line_ids}
        found = {}
        for line_id in self.rubric.line_ids:
            method = getattr(self, names[line_id], None) if line_id in names else None
            if callable(method):
                found[line_id] = method
        return found

    def line(self, line_id: str) -> LineResult:
        """One rubric line's result, its check run now (`unverified` for a line this take-home has no check for)."""
        check = self.checks().get(line_id)
        if check is None:
            return LineResult(line_id, "unverified", f"{self.TAKEHOME} has no check for the line {line_id!r}")
        return self._judged(line_id, check)

    def _judged(self, line_id: str, check: Callable[[], LineResult]) -> LineResult:
        """One line, judged as every line of every take-home is: `error` without running anything when the
        submission could not be set up; else its check, then the kit's-shortfall rule on the runs the check
        made or read (`shortfall.py`)."""
        if message := install_failed(self.environment):
            return self._line(line_id, "error", message, {"environment_error": self.environment.error})
        with runlog.collecting() as runs:
            result = check()
        return shortfall.judge(result, runs, self.environment, self._line)

    def views(self) -> dict[str, Any]:
        """What the take-home's notebook shows beyond the lines, JSON-able, by name (none by default)."""
        return {}

    def facts(self) -> dict[str, Any]:
        """What the kit measured beyond the lines.

        Include `isolation` and `isolation_reason` (a run's `RunResult.isolation.mode` and
        `.reason`): reports and the CLI warn loudly when runs were not network-isolated.
        """
        return {}

    def environment_section(self) -> dict[str, Any]:
        """What the submission declared, what was installed, what was refused (and flagged)."""
        return self.environment.evidence(flag_runtime=self.FLAG_RUNTIME_DEPENDENCIES)

    def report(self) -> Report:
        """Every line, in rubric order, with the facts and the environment."""
        self.prefetch()
        lines = tuple(self._judged(line_id, check) for line_id, check in self.checks().items())
        return Report(self.TAKEHOME, self.name, lines, self.facts(), self.environment_section())
