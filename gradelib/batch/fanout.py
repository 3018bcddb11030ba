"""Grade a cohort: parcels out to local processes or a Dask cluster, reports and gradebook written here."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gradelib import __version__
from gradelib.batch.parcel import Artifacts, Parcel, install_env, pack
from gradelib.batch.worker import grade_parcel
from gradelib.errors import GradelibError
from gradelib.gradebook import DEFAULT_PATH, Gradebook, SubmissionRow
from gradelib.intake import staging
from gradelib.notebook import views_path
from gradelib.review.reportfiles import refresh_report
from gradelib.sandbox import diskcap

UNKNOWN_TAKEHOME = "unknown"
JOBS_PER_CORE = 2  # measured by benchmarks/cohort.py: 4 jobs beat 2 on 2 cores
LOGS = ".logs"  # per-submission kernel logs beside the reports
Status = Literal["graded", "error", "up_to_date"]


@dataclass(frozen=True)
class GradeOutcome:
    """What happened to one submission in a batch."""

    submission: str  # the candidate's folder name
    label: str  # what reports show: "Submission #3", or the name with --reveal
    takehome: str | None
    status: Status
    notebook: str | None
    html: str | None
    error: str | None
    seconds: float
    total: float | None = None


@dataclass(frozen=True)
class _Job:
    staged: staging.Staged
    label: str
    run_id: int
    parcel: Parcel


def _parcel(book: Gradebook, staged: staging.Staged, row: SubmissionRow, label: str, paths: _Paths) -> Parcel:
    """What a worker gets for one submission: its bytes, a gradebook excerpt, the driver's settings."""
    if staged.path is None:
        raise ValueError(f"{staged.name} was not staged")
    stem = staging.slug(label)
    shown = {  # the parameters the saved notebook shows: the driver's paths, where a reviewer re-runs it
        "submission": str(staged.path),
        "name": label,
        "result_path": str(paths.out_dir(row.takehome).resolve() / f"{stem}.json"),
        "gradebook": str(paths.gradebook.resolve()),
    }
    return Parcel(
        key=f"grade-{row.takehome}-{stem}-{uuid.uuid4().hex[:12]}",
        takehome=row.takehome,
        label=label,
        stem=stem,
        digest=staged.digest,
        kit_version=__version__,
        files=pack(staged.path),
        gradebook=book.excerpt(row.takehome, row.name),
        install_env=install_env(os.environ),
        shown_parameters=tuple(shown.items()),
    )


@dataclass(frozen=True)
class _Paths:
    reports: Path
    gradebook: Path

    def out_dir(self, takehome: str) -> Path:
        return self.reports / takehome


def _write(path: Path, data: bytes | None) -> Path | None:
    """Write atomically (a reader never sees half a report); with no data, remove a stale file."""
    if data is None:
        path.unlink(missing_ok=True)
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    partial.replace(path)
    return path


def _record(book: Gradebook, job: _Job, result: Artifacts | BaseException, paths: _Paths) -> GradeOutcome:
    """On the driver: write one submission's reports and close its run in the gradebook (the one writer)."""
    staged, takehome = job.staged, job.parcel.takehome
    if isinstance(result, BaseException):  # its worker died too often, or the task itself crashed
        died = f"{type(result).__name__}: {result}"[:500]
        book.finish_run(job.run_id, "error", error=died)
        return GradeOutcome(staged.name, job.label, staged.takehome, "error", None, None, died, 0.0)
    out_dir, stem = paths.out_dir(takehome), job.parcel.stem
    notebook = _write(out_dir / f"{stem}.ipynb", result.notebook)
    html = _write(out_dir / f"{stem}.html", result.html)
    _write(out_dir / f"{stem}.json", result.result)
    _write(views_path(out_dir / f"{stem}.json"), result.views)
    _write(out_dir / LOGS / f"{stem}.log", result.log)
    error, report = result.error, None
    if result.result is not None:
        try:
            report = json.loads(result.result)
        except ValueError as exc:
            error = error or f"the notebook wrote an unreadable result: {exc}"
    status: Status = "error" if error else "graded"
    book.finish_run(
        job.run_id,
        status,
        report=report,
        error=error,
        notebook=str(notebook) if notebook else None,
        html=str(html) if html else None,
        seconds=result.seconds,
    )
    if not error and notebook:  # the report's score table, taken again now that the gradebook holds this run
        refresh_report(notebook, book, takehome, staged.name)
    total = report.get("total") if report else None
    return GradeOutcome(
        staged.name,
        job.label,
        takehome,
        status,
        str(notebook) if notebook else None,
        str(html) if html else None,
        error,
        result.seconds,
        total,
    )


def default_jobs() -> int:
    """Twice the cores: a grading waits (timeouts, backoff, slow gateways) more than it computes."""
    return JOBS_PER_CORE * (os.cpu_count() or 1)


def grade(
    paths: Sequence[Path],
    *,
    reports: Path = Path("reports"),
    gradebook: Path | None = None,
    takehome: str | None = None,
    jobs: int | None = None,
    force: bool = False,
    reveal: bool = False,
    progress: Callable[[int, int, GradeOutcome | None], None] | None = None,
    scheduler: str | None = None,
    notice: Callable[[str], None] | None = None,
) -> list[GradeOutcome]:
    """Grade every submission under `paths`; skip those graded at the same digest unless `force`.

    Each submission goes out as a `Parcel` (its bytes) to a local process, or with
    `scheduler` (a Dask distributed address) to that cluster's workers, which need the kit
    and namespaces but no path or database of this machine. Their artifacts come back;
    this process alone writes the reports and the gradebook. `notice` hears what is said
    once (a worker that takes no work).
    """
    paths_ = _Paths(Path(reports), Path(gradebook) if gradebook else Path(reports) / DEFAULT_PATH.name)
    found = staging.discover(list(paths))
    outcomes: list[GradeOutcome] = []
    done = 0

    def report(outcome: GradeOutcome) -> None:
        nonlocal done
        done += 1
        outcomes.append(outcome)
        if progress:
            progress(done, len(found), outcome)

    with contextlib.ExitStack() as stack:
        client = stack.enter_context(_cluster_session(scheduler, notice)) if scheduler else None  # fail early
        unbounded = None if scheduler else diskcap.unbounded_reason()
        if unbounded and notice:
            notice(f"disk use per grading is not bounded here ({unbounded})")
        if progress:
            progress(0, len(found), None)  # the bar appears before the first submission finishes
        book = stack.enter_context(Gradebook(paths_.gradebook))
        pending = _plan(book, found, paths_, takehome, force, reveal, report)
        for job, result in _run_all(pending, jobs, client):
            report(_record(book, job, result, paths_))
    return outcomes


def _plan(
    book: Gradebook,
    found: Sequence[Path],
    paths: _Paths,
    takehome: str | None,
    force: bool,
    reveal: bool,
    report: Callable[[GradeOutcome], None],
) -> list[_Job]:
    """Stage each submission; report the unreadable and the up to date; open a run for each of the rest.

    A run is opened "running" when it is sent out, so a batch killed on the driver leaves it
    unfinished and the next batch grades that submission again.
    """
    pending: list[_Job] = []
    for origin in found:
        staged = staging.stage(origin, paths.reports, takehome)
        row = book.upsert_submission(
            staged.takehome or UNKNOWN_TAKEHOME, staged.name, staged.digest, str(staged.origin)
        )
        label = staged.name if reveal else row.blind_label
        if staged.error or staged.path is None:
            run_id = book.start_run(row.id, __version__, staged.digest)
            book.finish_run(run_id, "error", error=staged.error)
            report(GradeOutcome(staged.name, label, staged.takehome, "error", None, None, staged.error, 0.0))
        elif not force and book.up_to_date(row.takehome, row.name, staged.digest):
            report(GradeOutcome(staged.name, label, staged.takehome, "up_to_date", None, None, None, 0.0))
        else:
            try:
                item = _parcel(book, staged, row, label, paths)
            except (OSError, RecursionError) as exc:  # a tree that cannot be packed must not stop the batch
                run_id = book.start_run(row.id, __version__, staged.digest)
                error = f"cannot be sent to a worker: {type(exc).__name__}: {exc}"[:500]
                book.finish_run(run_id, "error", error=error)
                report(GradeOutcome(staged.name, label, staged.takehome, "error", None, None, error, 0.0))
                continue
            pending.append(_Job(staged, label, book.start_run(row.id, __version__, staged.digest), item))
    return pending


@contextlib.contextmanager
def _cluster_session(scheduler: str, notice: Callable[[str], None] | None) -> Iterator[Any]:
    try:
        from gradelib.batch import cluster
    except ImportError as exc:
        raise GradelibError("--scheduler needs Dask: pip install 'gradelib[dask]'") from exc
    with cluster.session(scheduler, notice or (lambda _message: None)) as client:
        yield client


def _run_all(
    pending: Sequence[_Job], jobs: int | None, client: Any
) -> Iterator[tuple[_Job, Artifacts | BaseException]]:
    """Each job's artifacts (or the exception that killed its worker), in order of completion."""
    if not pending:
        return
    by_key = {job.parcel.key: job for job in pending}
    if client is not None:
        from gradelib.batch import cluster

        for item, result in cluster.run_parcels(client, [job.parcel for job in pending]):
            yield by_key[item.key], result
        return
    workers = max(1, min(jobs or default_jobs(), len(pending)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures: dict[Future[Artifacts], _Job] = {pool.submit(grade_parcel, job.parcel): job for job in pending}
        for future in as_completed(futures):
            error = future.exception()
            yield futures[future], error if error is not None else future.result()
