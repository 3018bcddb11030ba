"""What a take-home provides the kit: the plugin record every take-home registers, the kit's own included.

A take-home is a package that exposes one `TakeHome` under the entry-point group
`gradelib.takehomes` (see `gradelib.takehomes.registry`). The kit reads everything it needs
from it: how to recognise a submission, the grading class, the package data (rubric, handout,
notebook), the loopback servers a reviewer can start by hand, the failure modes the cohort
charts count, and its sample cohort.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Protocol

from gradelib.result import LineResult, Report

RUBRIC_FILE = "rubric.toml"
NOTEBOOK_FILE = "notebook.ipynb"
DEFAULT_RUN_SECONDS = 1200.0  # a plugin that does not say: twenty minutes of sandboxed runs


class EntryView(Protocol):
    """One graded submission as a failure mode sees it: its lines by id and its facts."""

    @property
    def line_results(self) -> Mapping[str, LineResult]: ...

    @property
    def facts(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class FailureMode:
    """A failure the cohort charts count: a label and how to see it in a graded submission."""

    label: str
    seen: Callable[[EntryView], bool]


def outcome_is(line_id: str, outcome: str) -> Callable[[EntryView], bool]:
    """A failure-mode test: the line ended with this outcome."""

    def seen(entry: EntryView) -> bool:
        line = entry.line_results.get(line_id)
        return line is not None and line.outcome == outcome

    return seen


def fact_is(key: str, value: Any) -> Callable[[EntryView], bool]:
    """A failure-mode test: the measured fact has this value (`None` means "not measured" only if asked)."""
    return lambda entry: key in entry.facts and entry.facts[key] == value


class Grading(Protocol):
    """One submission being graded: a context manager whose `report()` runs every check."""

    def __enter__(self) -> Grading: ...

    def __exit__(self, *exc: object) -> None: ...

    def prefetch(self) -> None: ...

    def report(self) -> Report: ...

    def environment_section(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class TakeHome:
    """Everything the kit needs to know about one take-home."""

    id: str
    title: str
    package: str  # the package holding its data: rubric.toml, the handout, notebook.ipynb
    grading: Callable[..., Grading]  # (submission, *, name=, rubric=, environment=) -> Grading
    markers: tuple[str, ...]  # files (or folders) whose presence says a submission answers it
    handout_files: tuple[tuple[str, str], ...]  # (package data path, name in the handout folder)
    failure_modes: tuple[FailureMode, ...] = ()
    servers: Mapping[str, Callable[[Sequence[str]], int]] = field(default_factory=dict)  # `gradelib NAME ...`
    samples: Path | None = None  # its sample cohort, when it ships one
    notebook_file: str = NOTEBOOK_FILE
    run_seconds: float = DEFAULT_RUN_SECONDS  # the most one grading's sandboxed runs take (wall limits, summed)

    def data(self) -> Traversable:
        """The package-data folder."""
        return resources.files(self.package)

    def notebook(self) -> Path:
        """The parameterized notebook a batch runs once per submission."""
        return Path(str(self.data().joinpath(self.notebook_file)))

    def recognises(self, folder: Path) -> bool:
        """Whether a submission folder holds one of the take-home's marker files."""
        return any((Path(folder) / marker).exists() or (Path(folder) / marker).is_symlink() for marker in self.markers)

    def check(self, submission: Path, **options: Any) -> Report:
        """Grade one submission folder: every line, in rubric order."""
        with self.grading(submission, **options) as grading:
            return grading.report()
