"""Grade a cohort: parcels out to local processes or a Dask cluster, reports and gradebook written here."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Literal

from gradelib import __version__, similarity
from gradelib.batch import batchlock, staging
from gradelib.batch.deadline import grading_deadline
from gradelib.batch.parcel import Artifacts, Parcel, install_env, pack
from gradelib.batch.reportname import report_stem
from gradelib.batch.worker import WARMUP_MODULE, adopt, grade_parcel
from gradelib.environment.installsettings import InstallSettings
from gradelib.errors import GradelibError, ReportsOfAnotherGradebook, ReportsUnwritable, SchedulerLost
from gradelib.gradebook import DEFAULT_PATH, Gradebook, SubmissionRow
from gradelib.gradebook.health import CODE_TABLES, READ_TABLES, check
from gradelib.gradebook.identity import label_for
from gradelib.notebook import report_from_dict, views_path
from gradelib.review import reportowner
from gradelib.review.reportfiles import run_form
from gradelib.review.reportowner import ReportRecord
from gradelib.review.reportwriter import warm_exporter, write_report
from gradelib.sandbox import diskcap
from gradelib.settings import ENV_WARM_WORKERS as ENV_WARM_WORKERS  # "0": every local worker starts fresh
from gradelib.settings import current_settings
from gradelib.similarity.handoutbase import handout_base

UNKNOWN_TAKEHOME = "unknown"
JOBS_PER_CORE = 2  # measured by benchmarks/cohort.py: 4 jobs beat 2 on 2 cores
LOGS = ".logs"  # per-submission kernel logs beside the reports
STOP_SECONDS = 3.0  # a worker asked to stop gets this long before it is killed
WAKE_SECONDS = 0.5  # the driver waits for gradings in steps this long, so it always sees a stop signal soon
INTERRUPTED = "interrupted: the batch was stopped before this submission was graded; `gradelib grade` grades it"
Status = Literal["graded", "error", "up_to_date"]
ERROR_OUTCOME = "error"  # a line's outcome when the kit could not check it (TAKEHOMES.md)


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
    # the message of each line the kit could not check (`error`): graded now, or, up to date, when it was graded
    unchecked: tuple[str, ...] = ()

    @property
    def ended_in_error(self) -> bool:
        """Whether its grading failed or left a line unchecked: it needs a look, and `grade` exits 1."""
        return self.status == "error" or bool(self.unchecked)


@dataclass(frozen=True)
class _Job:
    staged: staging.Staged
    label: str
    run_id: int
    parcel: Parcel
    shown_parameters: Mapping[str, str]  # what its report's parameters cell says: the driver's paths


def _parcel(
    book: Gradebook, staged: staging.Staged, row: SubmissionRow, label: str, paths: _Paths, timeout: float | None
) -> Parcel:
    """What a worker gets for one submission: its bytes, a gradebook excerpt, the driver's settings, its deadline."""
    if staged.path is None:
        raise ValueError(f"{staged.name} was not staged")
    install = InstallSettings.from_env()
    stem = report_stem(label)
    return Parcel(
        key=f"grade-{row.takehome}-{stem}-{uuid.uuid4().hex[:12]}",
        takehome=row.takehome,
        label=label,
        stem=stem,
        digest=staged.digest,
        kit_version=__version__,
        files=pack(staged.path),
        gradebook=book.excerpt(row.takehome, row.name),
        install_env=install_env(install.environment()),
        deadline=grading_deadline(row.takehome, install, timeout),
    )


def _shown(staged: staging.Staged, takehome: str, label: str, paths: _Paths) -> dict[str, str]:
    """The parameters a report's notebook shows: the driver's paths, where a reviewer re-runs it."""
    return {
        "submission": str(staged.origin.resolve()),  # as given: the staged copy is gone once the batch is packed
        "name": label,
        "result_path": str(paths.out_dir(takehome).resolve() / f"{report_stem(label)}.json"),
        "gradebook": str(paths.gradebook.resolve()),
    }


@dataclass(frozen=True)
class _Paths:
    reports: Path
    gradebook: Path

    def out_dir(self, takehome: str) -> Path:
        return self.reports / takehome


def _writable(folder: Path) -> None:
    """The reports folder can be written, or ReportsUnwritable before anything is graded."""
    probe = folder / f".gradelib-probe-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"probe")
        probe.unlink()
    except OSError as exc:
        raise ReportsUnwritable(str(folder), str(exc.strerror or exc)) from exc


def _record(book: Gradebook, job: _Job, result: Artifacts | BaseException, paths: _Paths) -> GradeOutcome:
    """On the driver: write one submission's reports, once, and close its run in the gradebook (the one writer).

    The report's final form is made here from what the worker ran and what the driver knows (the parameters a
    reviewer re-runs it with, its record, the score table and verdict card of this gradebook with the run's
    lines), written whole with its JSON result, views and log, and the run recorded right after.
    """
    staged, takehome = job.staged, job.parcel.takehome
    if isinstance(result, BaseException):  # its worker died too often, or the task itself crashed
        died = f"{type(result).__name__}: {result}"[:500]
        book.finish_run(job.run_id, "error", error=died)
        return GradeOutcome(staged.name, job.label, staged.takehome, "error", None, None, died, 0.0)
    out_dir, stem = paths.out_dir(takehome), job.parcel.stem
    record = ReportRecord(book.id, job.run_id, staged.digest, takehome, job.label)
    error, report = result.error, None
    if result.result is not None:
        try:
            report = json.loads(result.result)
        except ValueError as exc:
            error = error or f"the notebook wrote an unreadable result: {exc}"
    graded = report_from_dict(report) if report is not None and not error else None
    form = run_form(book, takehome, staged.name, graded, job.shown_parameters, record)
    json_path = out_dir / f"{stem}.json"
    beside = [
        (json_path, result.result),
        (views_path(json_path), result.views),
        (out_dir / LOGS / f"{stem}.log", result.log),
    ]
    try:
        written = write_report(out_dir / f"{stem}.ipynb", result.notebook, form, beside)
    except ReportsUnwritable as exc:
        book.finish_run(job.run_id, "error", error=f"the reports could not be written: {exc}")
        raise
    notebook, html = written[out_dir / f"{stem}.ipynb"], written[out_dir / f"{stem}.html"]
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
    if notebook:
        _record_folder(book, paths, [(f"{takehome}/{stem}", record)])
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
        _unchecked(
            (str(line.get("outcome")), str(line.get("message") or "")) for line in (report or {}).get("lines", [])
        ),
    )


def _unchecked(lines: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The messages of the lines the kit could not check (outcome `error`), from (outcome, message) in report order."""
    return tuple(message for outcome, message in lines if outcome == ERROR_OUTCOME)


def _up_to_date(book: Gradebook, staged: staging.Staged, row: SubmissionRow, label: str) -> GradeOutcome:
    """A submission graded before at this digest: its reports, and the lines that grading could not check."""
    run = book.latest_run(row.takehome, row.name, graded_only=True)
    unchecked = _unchecked((line.outcome, line.message) for line in book.lines(run.id)) if run is not None else ()
    notebook, html = (run.notebook, run.html) if run is not None else (None, None)
    return GradeOutcome(staged.name, label, staged.takehome, "up_to_date", notebook, html, None, 0.0, None, unchecked)


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
    grading_timeout: float | None = None,
    move_reports: bool = False,
) -> list[GradeOutcome]:
    """Grade every submission under `paths`; skip those graded at the same digest unless `force`.

    Each submission goes out as a `Parcel` (its bytes) to a local process, or with
    `scheduler` (a Dask distributed address) to that cluster's workers, which need the kit
    and namespaces but no path or database of this machine. Their artifacts come back;
    this process alone writes the reports and the gradebook. `notice` hears what is said
    once (a worker that takes no work, kernels that start fresh). A grading that runs past
    `grading_timeout` seconds (default: the take-home's own bound, `batch/deadline.py`) is
    killed and recorded as an error. The local processes, and the fork server they are forked
    from, are started here and ended here however the batch ends: a caller has nothing to end.

    Refused before anything is made: a path not there or with no submission, a damaged gradebook,
    a reports folder of another gradebook (`move_reports` moves it here: its reports go). A new
    gradebook is made and `notice` says so. Staged copies are removed once packed for grading.
    """
    paths_ = _Paths(Path(reports), Path(gradebook) if gradebook else Path(reports) / DEFAULT_PATH.name)
    found = staging.discover(list(paths))
    new = _refuse_early(paths_, move_reports)
    outcomes: list[GradeOutcome] = []
    done = 0

    def report(outcome: GradeOutcome) -> None:
        nonlocal done
        done += 1
        outcomes.append(outcome)
        if progress:
            progress(done, len(found), outcome)

    with contextlib.ExitStack() as stack:
        stack.enter_context(batchlock.held(paths_.reports, paths_.gradebook))  # one batch at a time, or refuse
        client = stack.enter_context(_cluster_session(scheduler, notice)) if scheduler else None  # fail early
        if not scheduler:  # a kernel killed mid-grading (deadline, Ctrl+C) leaves its capped workspace mounted
            stack.callback(diskcap.sweep_stale)
        # started now, so the fork server's imports overlap the staging and fingerprinting below; ended on the way out
        workers = stack.enter_context(_local_workers()) if not scheduler and found else None
        _warm_reports(found)
        _say_unbounded(scheduler, notice)
        if progress:
            progress(0, len(found), None)  # the bar appears before the first submission finishes
        _writable(paths_.reports)
        book = stack.enter_context(_open_gradebook(paths_, new, notice))
        stack.callback(staging.remove_staged, paths_.reports)  # however the batch ends
        pending = _plan(book, found, paths_, _Options(takehome, force, reveal, grading_timeout), report)
        staging.remove_staged(paths_.reports)  # every grading has its packed copy: none is kept on disk
        stack.enter_context(_terminate_as_interrupt())
        open_runs = {job.run_id: job for job in pending}
        said: set[str] = set()
        try:
            for job, result in _run_all(pending, jobs, client, workers, scheduler):
                open_runs.pop(job.run_id, None)
                report(_record(book, job, result, paths_))
                for message in () if isinstance(result, BaseException) else result.notices:
                    if notice and message not in said:
                        said.add(message)
                        notice(message)
        except BaseException as exc:  # nothing half done, the rest for next time
            _close_open_runs(book, open_runs, lost=isinstance(exc, SchedulerLost))
            raise
    return outcomes


def _warm_reports(found: Sequence[object]) -> None:
    """Compile the reports' HTML exporter in a thread while the batch stages: this process makes every report."""
    if found:
        threading.Thread(target=warm_exporter, name="gradelib-warm-exporter", daemon=True).start()


def _say_unbounded(scheduler: str | None, notice: Callable[[str], None] | None) -> None:
    """Say once when this machine cannot bound a grading's disk use (local workers only)."""
    unbounded = None if scheduler else diskcap.unbounded_reason()
    if unbounded and notice:
        notice(f"disk use per grading is not bounded here ({unbounded})")


def _refuse_early(paths: _Paths, move: bool) -> bool:
    """Before anything is made: a damaged gradebook, or a reports folder of another gradebook, is refused.
    Whether the gradebook is new (not there yet)."""
    new = not paths.gradebook.exists()
    if not new:
        check(paths.gradebook, READ_TABLES + CODE_TABLES)
    _check_owner(paths, new, move)
    return new


@contextlib.contextmanager
def _open_gradebook(paths: _Paths, new: bool, notice: Callable[[str], None] | None) -> Iterator[Gradebook]:
    """The batch's gradebook, made when new (and said so), written once and backed up; the reports folder its."""
    with Gradebook(paths.gradebook) as book:
        if new and notice:
            notice(f"new gradebook at {paths.gradebook}")
        book.probe_write()
        book.backup()  # the reviewers' work as it was before this batch, kept beside the gradebook
        _take_folder(book, paths, notice)
        yield book


def _check_owner(paths: _Paths, new: bool, move: bool) -> None:
    """ReportsOfAnotherGradebook when the reports folder records another gradebook than this one (unless `move`)."""
    owner = reportowner.folder_owner(paths.reports)
    if owner is None or move:
        return
    mine = ""
    if not new:
        with Gradebook(paths.gradebook, readonly=True) as book:
            mine = book.id
    if owner.gradebook != mine:
        theirs = f"{owner.path or 'a gradebook'} (id {owner.gradebook[:8]})"
        given = f"{paths.gradebook}" + (" (not there yet)" if new else f" (id {mine[:8] or 'none'})")
        raise ReportsOfAnotherGradebook(str(paths.reports), theirs, given, reportowner.MOVE_FLAG)


def _take_folder(book: Gradebook, paths: _Paths, notice: Callable[[str], None] | None) -> None:
    """Record the reports folder as this gradebook's; reports of another gradebook in it (a move asked for) go."""
    owner = reportowner.folder_owner(paths.reports)
    if owner is not None and owner.gradebook != book.id:
        foreign = reportowner.foreign_reports(paths.reports, book.id)
        for report in foreign:
            reportowner.remove_report(report)
        if notice:
            notice(
                f"{paths.reports} moved to the gradebook {paths.gradebook} (was {owner.path}):"
                f" {len(foreign)} report(s) of that gradebook removed"
            )
    _record_folder(book, paths)


def _record_folder(book: Gradebook, paths: _Paths, written: Sequence[tuple[str, ReportRecord]] = ()) -> None:
    """The folder's record of its gradebook and reports, or ReportsUnwritable when the folder takes no more."""
    try:
        reportowner.record_folder(paths.reports, book.id, paths.gradebook, written)
    except OSError as exc:
        raise ReportsUnwritable(str(paths.reports), str(exc.strerror or exc)) from exc


def _close_open_runs(book: Gradebook, open_runs: Mapping[int, _Job], *, lost: bool) -> None:
    """The runs a stopped batch leaves open: marked interrupted (Ctrl+C, SIGTERM, a full reports folder),
    or removed when the batch lost its cluster (the kit's fault, not the candidates': no error line for
    what never ran)."""
    for run_id in open_runs:
        with contextlib.suppress(GradelibError):
            if lost:
                book.drop_run(run_id)
            else:
                book.finish_run(run_id, "error", error=INTERRUPTED)


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the batch as Ctrl+C does (in the main thread; elsewhere signals stay as they are)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@dataclass(frozen=True)
class _Options:
    takehome: str | None
    force: bool
    reveal: bool
    grading_timeout: float | None


def _plan(
    book: Gradebook,
    found: Sequence[Path],
    paths: _Paths,
    options: _Options,
    report: Callable[[GradeOutcome], None],
) -> list[_Job]:
    """Stage each submission; report the unreadable and the up to date; open a run for each of the rest.

    A run is opened "running" when it is sent out, so a batch killed on the driver leaves it
    unfinished and the next batch grades that submission again.
    """
    pending: list[_Job] = []
    planned: list[tuple[staging.Staged, SubmissionRow, str]] = []
    for origin in found:
        staged = staging.stage(origin, paths.reports, options.takehome)
        row = book.upsert_submission(
            staged.takehome or UNKNOWN_TAKEHOME, staged.name, staged.digest, str(staged.origin)
        )
        planned.append((staged, row, label_for(row, reveal=options.reveal)))
        if staged.path is not None and not staged.error:
            _keep_code(book, row.takehome, staged)
    for takehome in sorted({row.takehome for staged, row, _ in planned if staged.path is not None}):
        _similar_views(book, takehome, options.reveal)
    for staged, row, label in planned:
        if staged.error or staged.path is None:
            run_id = book.start_run(row.id, __version__, staged.digest)
            book.finish_run(run_id, "error", error=staged.error)
            report(GradeOutcome(staged.name, label, staged.takehome, "error", None, None, staged.error, 0.0))
        elif not options.force and _is_up_to_date(
            book, row, staged.digest, paths.out_dir(row.takehome) / report_stem(label)
        ):
            report(_up_to_date(book, staged, row, label))
        else:
            try:
                item = _parcel(book, staged, row, label, paths, options.grading_timeout)
            except (OSError, RecursionError) as exc:  # a tree that cannot be packed must not stop the batch
                run_id = book.start_run(row.id, __version__, staged.digest)
                error = f"cannot be sent to a worker: {type(exc).__name__}: {exc}"[:500]
                book.finish_run(run_id, "error", error=error)
                report(GradeOutcome(staged.name, label, staged.takehome, "error", None, None, error, 0.0))
                continue
            pending.append(
                _Job(
                    staged,
                    label,
                    book.start_run(row.id, __version__, staged.digest),
                    item,
                    _shown(staged, row.takehome, label, paths),
                )
            )
    return pending


def _is_up_to_date(book: Gradebook, row: SubmissionRow, digest: str, stem: Path) -> bool:
    """Whether the latest run graded exactly this content cleanly and the report on disk shows that run of this
    gradebook: a report of another gradebook or another run is written again."""
    run = book.latest_run(row.takehome, row.name)
    if run is None or run.status != "graded" or run.digest != digest:
        return False
    return reportowner.shows(stem.with_name(f"{stem.name}.ipynb"), book.id, run.id)


def _keep_code(book: Gradebook, takehome: str, staged: staging.Staged) -> None:
    """Keep a staged submission's code for the similarity check; one that cannot be read is left out of it."""
    if staged.path is None:
        return
    try:
        similarity.keep(book, takehome, staged.digest, staged.name, staged.path, handout_base(takehome))
    except (OSError, ValueError, RecursionError, LookupError):  # its report says it was not compared
        return


def _similar_views(book: Gradebook, takehome: str, reveal: bool) -> None:
    """Store each graded submission's "similar submissions" view, for its report (and its worker's excerpt)."""
    similarity.refresh(book, takehome, handout_base(takehome))  # sources an earlier kit fingerprinted otherwise
    reports = {row.name: f"{report_stem(label_for(row, reveal=reveal))}.html" for row in book.submissions(takehome)}
    book.put_similar_views(takehome, similarity.report_views(book, takehome, reports, reveal=reveal))


@contextlib.contextmanager
def _cluster_session(scheduler: str, notice: Callable[[str], None] | None) -> Iterator[Any]:
    try:
        from gradelib.batch import cluster
    except ImportError as exc:
        raise GradelibError("--scheduler needs Dask: pip install 'gradelib[dask]'") from exc
    with cluster.session(scheduler, notice or (lambda _message: None)) as client:
        yield client


def _run_all(
    pending: Sequence[_Job], jobs: int | None, client: Any, workers: _LocalWorkers | None, scheduler: str | None = None
) -> Iterator[tuple[_Job, Artifacts | BaseException]]:
    """Each job's artifacts (or the exception that killed its worker), in order of completion."""
    if not pending:
        return
    if client is not None:
        from gradelib.batch import cluster

        by_key = {job.parcel.key: job for job in pending}
        for item, result in cluster.run_parcels(client, [job.parcel for job in pending], scheduler or ""):
            yield by_key[item.key], result
        return
    if workers is None:
        raise ValueError("local gradings need the batch's workers (_local_workers)")
    yield from workers.run(pending, jobs)


@dataclass
class _ForkServerUsers:
    """The fork server is one per process: the batches using it are counted, so the last one ends it."""

    lock: threading.Lock = field(default_factory=threading.Lock)  # also held while a pool starts (`_start`)
    batches: int = 0


_USERS = _ForkServerUsers()


@contextlib.contextmanager
def _local_workers() -> Iterator[_LocalWorkers]:
    """The batch's local workers, started here and ended here whatever way the batch ends (it returns,
    raises, is stopped by Ctrl+C or SIGTERM): the pool's processes first, then the fork server they were
    forked from (by the last batch of this process that uses it). Each end is bounded (`_LocalWorkers.stop`,
    `_end_fork_server`); no caller has anything left to end."""
    context = _warm_context()
    with _USERS.lock:
        _USERS.batches += 1
        _start_early(context)
    try:
        workers = _LocalWorkers(context)
        try:
            yield workers
            workers.finish()
        finally:
            workers.stop()  # nothing left to do after `finish`; after a failure, the workers are ended now
    finally:
        with _USERS.lock:
            _USERS.batches -= 1
            if not _USERS.batches and context.get_start_method() == "forkserver":
                _end_fork_server()


class _LocalWorkers:
    """The processes that grade a batch on this machine: a pool forked warm (`_warm_context`), with a handle
    of our own on each of its processes. Started by `run`, ended by `_local_workers`."""

    def __init__(self, context: multiprocessing.context.BaseContext) -> None:
        self.context = context
        self.pool: ProcessPoolExecutor | None = None
        self.processes: list[BaseProcess] = []

    def run(self, pending: Sequence[_Job], jobs: int | None) -> Iterator[tuple[_Job, Artifacts | BaseException]]:
        """Each job's artifacts (or the exception that killed its worker), in order of completion."""
        futures = self._start(pending, max(1, min(jobs or default_jobs(), len(pending))))
        try:
            while futures:
                # Woken at least every WAKE_SECONDS: a Ctrl+C or SIGTERM another thread of this process received is
                # acted on then (Python runs signal handlers in the main thread only, between bytecodes), not when
                # the next grading ends, which may be half an hour away.
                done, _ = wait(futures, timeout=WAKE_SECONDS, return_when=FIRST_COMPLETED)
                for future in done:
                    error = future.exception()
                    # popped: a finished future holds its artifacts (notebook, HTML), which must not stay for the
                    # whole batch
                    yield futures.pop(future), error if error is not None else future.result()
        except BaseException:  # stopped (Ctrl+C, SIGTERM, a full reports folder): no grading goes on behind it
            self.stop()
            raise

    def _start(self, pending: Sequence[_Job], workers: int) -> dict[Future[Artifacts], _Job]:
        """The pool, every job submitted to it, and a handle on each process it started for them."""
        with _USERS.lock:  # another batch of this process starting its pool now would mix its processes with ours
            before = set(multiprocessing.active_children())
            self.pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=self.context,
                initializer=adopt,
                initargs=(dict(os.environ), os.getcwd(), list(sys.path)),
            )
            try:
                return {self.pool.submit(grade_parcel, job.parcel): job for job in pending}
            finally:
                # The pool starts its processes as work is submitted (one per submission until it has `workers`)
                # and no more later: each is a child of this process, here by now, and ours to end.
                self.processes = [child for child in multiprocessing.active_children() if child not in before]

    def finish(self) -> None:
        """Wait for the pool's processes to exit once their work is done."""
        if self.pool is not None:
            self.pool.shutdown(wait=True)

    def stop(self) -> None:
        """End the pool's processes now; what each started (kernels, sandboxed runs) ends with it.

        Every process is asked at once and they share one deadline: a stop takes at most twice
        STOP_SECONDS, however many workers there are and however busy the machine is."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        for ask in ("terminate", "kill"):
            if not any(child.is_alive() for child in self.processes):
                return
            for child in self.processes:
                if child.is_alive():
                    with contextlib.suppress(OSError):
                        getattr(child, ask)()
            deadline = time.monotonic() + STOP_SECONDS
            for child in self.processes:
                child.join(max(0.0, deadline - time.monotonic()))


def _warm_context() -> multiprocessing.context.BaseContext:
    """Workers forked from one process that has imported what a grading needs (`warmup`); new interpreters
    (spawn) where there is no fork server or `GRADELIB_WARM_WORKERS=0`."""
    cold = not current_settings().warm_workers
    if cold or "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([WARMUP_MODULE])
    return context


def _start_early(context: multiprocessing.context.BaseContext) -> None:
    """Start the workers' fork server now: it imports what a grading needs (a second or two) while this
    process stages the cohort, instead of after; the pool's workers, from the same context, are forked
    from it. Nothing to start for new interpreters (spawn)."""
    if context.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    try:
        forkserver.ensure_running()
    except OSError:  # the pool starts it (and says why it cannot) with its first worker
        return


def _end_fork_server() -> None:
    """Stop the fork server the batch's workers were forked from and reap it (its workers' CPU and memory then
    count as this process's children's); the next batch of this process starts a new one.

    The one place the kit reaches into CPython's internals, because nothing public stops this server: its pid,
    the descriptor that keeps it alive and its socket are held only by `multiprocessing.forkserver._forkserver`,
    whose own `_stop` waits without a bound. Bounded here: a fork server that has not exited STOP_SECONDS after
    it was told (a worker's kernel that outlived its worker still holds its descriptor) is killed, so a stopped
    batch ends promptly whatever else runs on the machine. Any process it forked that is still there (a worker
    no pool knows of: a Ctrl+C in the middle of starting one) is killed first; none outlives the batch."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    lock = getattr(server, "_lock", None)
    if server is None or lock is None:
        return
    with lock:
        pid, alive = getattr(server, "_forkserver_pid", None), getattr(server, "_forkserver_alive_fd", None)
        if pid is None:
            return
        for stray in _children(pid):
            with contextlib.suppress(OSError):
                os.kill(stray, signal.SIGKILL)
        if alive is not None:
            with contextlib.suppress(OSError):
                os.close(alive)  # the server exits once this and every worker's copy are closed
        if not _reaped(pid, STOP_SECONDS):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            _reaped(pid, STOP_SECONDS)
        address = getattr(server, "_forkserver_address", None)
        if isinstance(address, str) and not address.startswith("\0"):
            with contextlib.suppress(OSError):
                os.unlink(address)
        # forgotten as CPython's `_stop` forgets it: the next pool of this process starts a new server
        server._forkserver_alive_fd = server._forkserver_pid = server._forkserver_address = None


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    parent = int(handle.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):  # ended meanwhile
                continue
            if parent == pid:
                found.append(int(entry.name))
    return found


def _reaped(pid: int, seconds: float) -> bool:
    """Wait up to `seconds` for child `pid` to exit and reap it; True once it is gone."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return True
        if done:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
