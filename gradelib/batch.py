"""Grade a cohort: one papermill run per submission, in parallel, resumable, failures isolated."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gradelib import __version__, staging
from gradelib.errors import GradelibError
from gradelib.execute import execute, export_html, notebook_for
from gradelib.gradebook import DEFAULT_PATH, Gradebook
from gradelib.reportfiles import refresh_report
from gradelib.review import ENV_HEADLESS

UNKNOWN_TAKEHOME = "unknown"
JOBS_PER_CORE = 2  # measured by benchmarks/cohort.py: 4 jobs beat 2 on 2 cores
LOGS = ".logs"  # per-submission kernel logs beside the reports
SCHEDULER_TIMEOUT = 10  # seconds to reach a Dask scheduler
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
    submission_id: int
    reports: Path
    gradebook: Path


def _grade_job(job: _Job) -> GradeOutcome:
    """In a worker process: run the notebook, export HTML, record the run in the gradebook."""
    started = time.monotonic()
    takehome = job.staged.takehome or UNKNOWN_TAKEHOME
    os.environ[ENV_HEADLESS] = "1"  # the kernel inherits it: the scoring panel renders as a table
    out_dir = job.reports / takehome
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = staging.slug(job.label)
    notebook, result = out_dir / f"{stem}.ipynb", out_dir / f"{stem}.json"
    result.unlink(missing_ok=True)
    with Gradebook(job.gradebook) as book:
        run_id = book.start_run(job.submission_id, __version__, job.staged.digest)
    parameters = {
        "submission": str(job.staged.path),
        "name": job.label,
        "result_path": str(result.resolve()),
        "gradebook": str(job.gradebook.resolve()),
        "rerun": True,  # run the checks (a reviewer's session shows the stored results instead)
        "save": True,  # write result_path (execute() sets both back for reviewers afterwards)
    }
    with _stderr_to(out_dir / LOGS / f"{stem}.log"):  # kernel chatter goes to a log, not the progress bar
        error = execute(notebook_for(takehome), notebook, parameters)
    html = export_html(notebook)
    report: dict[str, Any] | None = None
    if result.exists():
        report = json.loads(result.read_text(encoding="utf-8"))
    elif error is None:
        error = "the notebook ran but wrote no result"
    with Gradebook(job.gradebook) as book:
        book.finish_run(
            run_id,
            "error" if error else "graded",
            report=report,
            error=error,
            notebook=str(notebook),
            html=str(html) if html else None,
        )
        if not error:  # the report's score table, taken again now that the gradebook holds this run's lines
            refresh_report(notebook, book, takehome, job.staged.name)
    return GradeOutcome(
        job.staged.name,
        job.label,
        takehome,
        "error" if error else "graded",
        str(notebook),
        str(html) if html else None,
        error,
        time.monotonic() - started,
        report.get("total") if report else None,
    )


def default_jobs() -> int:
    """Twice the cores: a grading waits (timeouts, backoff, slow gateways) more than it computes."""
    return JOBS_PER_CORE * (os.cpu_count() or 1)


@contextlib.contextmanager
def _stderr_to(log: Path) -> Iterator[None]:
    """Point this worker's stderr (inherited by the kernel it starts) at a log file."""
    log.parent.mkdir(parents=True, exist_ok=True)
    saved = os.dup(2)
    try:
        with open(log, "wb") as handle:
            os.dup2(handle.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


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
) -> list[GradeOutcome]:
    """Grade every submission under `paths`; skip those graded at the same digest unless `force`.

    With `scheduler` (a Dask distributed address) the per-submission work runs on that
    cluster's workers instead of local processes; they need the kit installed, namespaces
    available, and the same paths for `reports` and the submissions (a shared file system).
    """
    reports = Path(reports)
    book_path = Path(gradebook) if gradebook else reports / DEFAULT_PATH.name
    found = staging.discover(list(paths))
    outcomes: list[GradeOutcome] = []
    pending: list[_Job] = []
    done = 0

    def report(outcome: GradeOutcome) -> None:
        nonlocal done
        done += 1
        outcomes.append(outcome)
        if progress:
            progress(done, len(found), outcome)

    if progress:
        progress(0, len(found), None)  # the bar appears before the first submission finishes
    with Gradebook(book_path) as book:
        for origin in found:
            staged = staging.stage(origin, reports, takehome)
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
                pending.append(_Job(staged, label, row.id, reports, book_path))
    if not pending:
        return outcomes
    for job, result in _run_all(pending, jobs, scheduler):
        if isinstance(result, BaseException):  # a worker that died (killed, out of memory): the run stays "running"
            result = GradeOutcome(
                job.staged.name, job.label, job.staged.takehome, "error", None, None, repr(result), 0.0
            )
        report(result)
    return outcomes


def _run_all(
    pending: Sequence[_Job], jobs: int | None, scheduler: str | None
) -> Iterator[tuple[_Job, GradeOutcome | BaseException]]:
    """Each job's outcome (or the exception that killed its worker), in order of completion."""
    if scheduler:
        yield from _run_on_dask(pending, scheduler)
        return
    workers = max(1, min(jobs or default_jobs(), len(pending)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures: dict[Future[GradeOutcome], _Job] = {pool.submit(_grade_job, job): job for job in pending}
        for future in as_completed(futures):
            error = future.exception()
            yield futures[future], error if error is not None else future.result()


def _run_on_dask(pending: Sequence[_Job], scheduler: str) -> Iterator[tuple[_Job, GradeOutcome | BaseException]]:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError as exc:
        raise GradelibError("--scheduler needs Dask: pip install 'gradelib[dask]'") from exc
    try:
        client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
    except OSError as exc:
        raise GradelibError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
    with client:
        futures = {client.submit(_grade_job, job, pure=False, key=f"grade-{job.submission_id}"): job for job in pending}
        for future in dask_completed(futures):
            job = futures[future]
            try:
                yield job, future.result()
            except Exception as exc:
                yield job, exc
