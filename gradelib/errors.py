"""The exceptions a caller of gradelib can act on."""

from __future__ import annotations


class GradelibError(Exception):
    """Base of every error the kit raises on purpose."""


class SubmissionError(GradelibError):
    """A submission cannot be read: missing, not a folder or archive, unsafe to unpack."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class SandboxUnavailable(GradelibError):
    """The sandbox cannot start at all on this machine (not: namespaces are off)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RubricError(GradelibError):
    """A rubric file is missing, malformed or does not match its take-home."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class UnknownTakehome(GradelibError):
    """A take-home name the kit does not ship."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"unknown take-home {name!r}; known: {', '.join(known)}")
        self.name = name
        self.known = known


class UnsafeFile(GradelibError):
    """A candidate file the kit will not read: a link, not a regular file, or too large."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ScenarioError(GradelibError):
    """A gateway scenario file is unreadable or malformed, or has no scenario of that name."""

    def __init__(self, path: str, reason: str, scenario: str | None = None) -> None:
        where = f"{path} [{scenario}]" if scenario else path
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.reason = reason
        self.scenario = scenario


class ReportsUnwritable(GradelibError):
    """The reports folder is full or cannot be written: the batch stops (what was written is whole)."""

    def __init__(self, folder: str, reason: str) -> None:
        super().__init__(f"cannot write the reports in {folder}: {reason}")
        self.folder = folder
        self.reason = reason


class BatchRunning(GradelibError):
    """Another batch is grading into the same reports folder or gradebook: this one did nothing."""

    def __init__(self, holder: str, reports: object, gradebook: object) -> None:
        super().__init__(
            f"another `gradelib grade` ({holder}) is grading into {reports} (gradebook {gradebook}):"
            " this batch graded nothing; run it again when that one has finished (it grades only what is left)"
        )
        self.holder = holder


class SchedulerLost(GradelibError):
    """The Dask scheduler went away mid-batch and did not come back: the kit's fault, not a candidate's."""

    def __init__(self, scheduler: str, not_graded: int) -> None:
        super().__init__(
            f"the Dask scheduler at {scheduler or 'the given address'} went away mid-batch and did not come back:"
            f" {not_graded} submission(s) not graded (nothing recorded for them); start it again and run the"
            " same command: it grades only what is left"
        )
        self.scheduler = scheduler
        self.not_graded = not_graded


class GradebookError(GradelibError):
    """A gradebook database or export cannot be used: unreadable, not a gradebook, newer schema, stuck lock."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class GradebookDamaged(GradebookError):
    """A gradebook whose file is damaged: nothing reads on from it or writes to it; `advice` names the newest
    good backup and the `gradelib restore` command."""

    def __init__(self, path: str, damage: str, advice: str) -> None:
        super().__init__(path, f"{damage}: {advice}")
        self.damage = damage
        self.advice = advice


class ReportsOfAnotherGradebook(GradelibError):
    """A reports folder that belongs to another gradebook than the one a batch was given: nothing is graded."""

    def __init__(self, reports: str, owner: str, gradebook: str, flag: str) -> None:
        super().__init__(
            f"{reports} holds the reports of another gradebook ({owner}), not of {gradebook}: give that gradebook"
            f" with --gradebook, another folder with --reports, or {flag} to move the folder to {gradebook} on"
            " purpose (its reports are then written again from it)"
        )
        self.reports = reports
        self.owner = owner
        self.gradebook = gradebook


class NothingToGrade(GradelibError):
    """A path given to grade is not there, or holds no submission: refused before anything is made."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}; nothing graded, no gradebook or report made")
        self.path = path
        self.reason = reason


class GradebookMissing(GradelibError):
    """A command that reads a gradebook was pointed where there is none (reading never creates one)."""

    def __init__(self, path: str, hint: str = "") -> None:
        # hint: how to name another gradebook, and those near the path (gradebook/nearby.py)
        told = f"no gradebook at {path}: grade the cohort first (gradelib grade)"
        super().__init__(f"{told}, {hint}" if hint else told)
        self.path = path
        self.hint = hint


class UnknownSubmission(GradelibError):
    """A blind label (or name) that names no submission of the take-home in the gradebook."""

    def __init__(self, takehome: str, label: str, gradebook: str, known: tuple[str, ...], more: int = 0) -> None:
        listed = ", ".join(known) + (f" and {more} more" if more else "")
        its = f"its submissions: {listed}" if known else f"it has no {takehome} submission"
        super().__init__(f"no {takehome} submission {label!r} in {gradebook} ({its})")
        self.takehome = takehome
        self.label = label
        self.gradebook = gradebook
        self.known = known


class CommentRequired(GradelibError):
    """A reviewer score overrides the kit's automated result without saying why."""

    def __init__(self, line_id: str, kit_value: str, value: str) -> None:
        super().__init__(f"{line_id}: overriding the kit's {kit_value!r} with {value!r} needs a comment")
        self.line_id = line_id
        self.kit_value = kit_value
        self.value = value


class ScoreRejected(GradelibError):
    """A reviewer score cannot be saved: unknown submission, blank reviewer, line or value."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ReviewerMissing(GradelibError):
    """A command that works for one reviewer (`queue`) was told no name: neither its flag nor GRADELIB_REVIEWER."""

    def __init__(self, flag: str, variable: str) -> None:
        super().__init__(f"say whose it is: {flag} NAME, or set {variable}")
        self.flag = flag
        self.variable = variable


class RecordRefused(GradelibError):
    """A calibration meeting's record (resolution, decision, clarification) cannot be kept: say what to fix."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InstallError(GradelibError):
    """A submission's declared dependencies could not be installed (registry, size, time, build)."""

    def __init__(self, ecosystem: str, reason: str, *, subject: str | None = None) -> None:
        prefix = f"{ecosystem} dependencies" if subject is None else subject
        super().__init__(f"{prefix}: {reason}" if prefix else reason)
        self.ecosystem = ecosystem
        self.reason = reason


class TakeHomeBroken(GradelibError):
    """A registered take-home plugin cannot be used: it fails to import or is not a TakeHome."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"take-home {name!r}: {reason}")
        self.name = name
        self.reason = reason


class SettingsError(GradelibError):
    """A `GRADELIB_*` environment variable the kit does not know, or a value it cannot mean (`more`: the others)."""

    def __init__(self, variable: str, reason: str, *, more: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__("; ".join(f"{name}: {why}" for name, why in ((variable, reason), *more)))
        self.variable = variable
        self.reason = reason
        self.more = more
