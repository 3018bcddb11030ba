"""The contract between the kit and a take-home: the `TakeHome` record every take-home registers (the
kit's own included) and the `Grading` it makes for each submission.

A take-home is a package that exposes one `TakeHome` under the entry-point group
`gradelib.takehomes` (read by `gradelib.takehomes`). The core holds take-homes only through these two
types, and knows none by name. From the record it reads: the take-home's name and title, how to
recognise a submission, how to grade one (`grading`), its rubric, handout and notebook (package data,
or a notebook path), the lines its notebook shows as a note, how its evidence keys read, the loopback
servers a reviewer can start by hand, the failure modes the cohort charts count, and its sample
cohort. A grading gives every line's result, the report, the environment section, and the views its
notebook shows beyond the lines (JSON-able data under names it chooses, stored with the results so a
reviewer's notebook shows them without running anything).
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
# The kit's own notebooks: the repository's top-level notebooks/ (gradelib/notebooks links to it, and the
# wheel carries them there as package data). A team's take-home keeps its notebook in its own package.
KIT_NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
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
    """One submission being graded: a context manager whose `report()` runs every check
    (`gradelib.takehome.BaseGrading` provides all of it but the lines and views)."""

    name: str

    def __enter__(self) -> Grading: ...

    def __exit__(self, *exc: object) -> None: ...

    def prefetch(self) -> None:
        """Start the sandbox runs the lines share (side by side), before any line reads them."""

    def line(self, line_id: str) -> LineResult:
        """One rubric line's result (its check run now, or the result it already has)."""

    def report(self) -> Report:
        """Every line in rubric order, the facts and the environment section."""

    def environment_section(self) -> dict[str, Any]:
        """What the submission declared, what was installed, what was refused."""

    def views(self) -> dict[str, Any]:
        """What the take-home's notebook shows beyond the lines: JSON-able data under names it chooses
        (`{"attempts": {...}}`), stored beside the results by the batch."""


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
    notebook_file: str = NOTEBOOK_FILE  # in its package data
    notebook_path: Path | None = None  # or a notebook elsewhere (the kit's own: the top-level notebooks/)
    run_seconds: float = DEFAULT_RUN_SECONDS  # the most one grading's sandboxed runs take (wall limits, summed)
    note_lines: tuple[str, ...] = ()  # lines its notebook shows as a note card (the candidate's writing)
    labels: Mapping[str, str] = field(default_factory=dict)  # its evidence keys as a reader says them

    def __post_init__(self) -> None:
        # A grading that binds its checks to rubric lines (`BaseGrading`, `@line`) checks them now, while the
        # take-home's package loads: a line its rubric lacks is refused, not silently left unchecked.
        check_lines = getattr(self.grading, "check_lines", None)
        if callable(check_lines):
            check_lines(self)

    def data(self) -> Traversable:
        """The package-data folder."""
        return resources.files(self.package)

    def notebook(self) -> Path:
        """The parameterized notebook a batch runs once per submission."""
        if self.notebook_path is not None:
            return self.notebook_path
        return Path(str(self.data().joinpath(self.notebook_file)))

    def recognises(self, folder: Path) -> bool:
        """Whether a submission folder holds one of the take-home's marker files."""
        return any((Path(folder) / marker).exists() or (Path(folder) / marker).is_symlink() for marker in self.markers)

    def check(self, submission: Path, **options: Any) -> Report:
        """Grade one submission folder: every line, in rubric order."""
        with self.grading(submission, **options) as grading:
            return grading.report()
