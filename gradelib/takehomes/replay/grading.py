"""The five `replay` checks: identical, offline, missing_fixture, record, volatile."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradelib.display import errorline
from gradelib.environment import Environment
from gradelib.errors import UnsafeFile
from gradelib.lazy import cached
from gradelib.result import LineResult, Report
from gradelib.sandbox import Limits, RunResult, Service, libfaketime, safefs, tool
from gradelib.takehomes.base import BaseGrading
from gradelib.takehomes.installguard import needs_install
from gradelib.takehomes.plugin import EntryView, FailureMode, outcome_is
from gradelib.takehomes.replay import diff, fixtures, volatile
from gradelib.takehomes.replay.liverecord import ENV_BASE_URL, LiveEndpoint, LiveRelay, endpoint_from_env
from gradelib.takehomes.replay.modelstub import ModelStub, packaged_tickets
from gradelib.takehomes.rubric import Rubric

TAKEHOME = "replay"
RUN_SH = "run.sh"
ANSWERS = "out/answers.json"
CASSETTES = "cassettes"
TICKETS = "tickets.json"
LABELS = ("billing", "bug", "account", "feature_request", "other")
MAX_CALLS = 40
STUB_PORT = 8080
DNS_PORT = 53
STUB_KEY = "gradelib-stub-key"
CHECK_SALT = "gradelib-record-check"  # labels differ from any committed recording
MAX_ANSWERS_BYTES = 8 * 1024 * 1024
MAX_TICKETS_BYTES = 1024 * 1024
LOUD_WORDS = ("fixture", "cassette", "record")
REPLAY_LIMITS = Limits(wall_seconds=60, cpu_seconds=60)
RECORD_LIMITS = Limits(wall_seconds=120, cpu_seconds=120)
GIT_LIMITS = Limits(wall_seconds=30, cpu_seconds=30)
# The most one grading's sandboxed runs can take, their wall limits summed: replays A and B, the
# missing-fixture replay and the one after record; two records and one against the failing stub,
# and a live re-record; the git history. The batch's deadline for a grading is built on it.
RUN_SECONDS = 4 * REPLAY_LIMITS.wall_seconds + 4 * RECORD_LIMITS.wall_seconds + GIT_LIMITS.wall_seconds
HANDOUT_FILES = (("HANDOUT.md", "README.md"), ("tickets.json", "tickets.json"), ("labels.json", "labels.json"))
# What each mode must write (TAKEHOMES.md), removed from a copy before the run: a line judges
# only what the run itself wrote, never a file the candidate shipped.
REPLAY_OUTPUTS = (ANSWERS,)
RECORD_OUTPUTS = (ANSWERS, CASSETTES)  # a folder: every file in it
MAX_SAID = 200
ANSWERS_NOT_WRITTEN = f"{ANSWERS} was not written"


@dataclass(frozen=True)
class Variation:
    """How the environment of one replay differs from the other's."""

    name: str
    env: Mapping[str, str]
    umask: int
    nest: str
    reverse_order: bool
    hostname: str
    cpus: tuple[int, ...] | None = None
    described: tuple[str, ...] = field(default_factory=tuple)


def variations() -> tuple[Variation, Variation]:
    """The two replay environments; everything cheap that a deterministic program ignores."""
    first = Variation(
        "run A",
        {"PYTHONHASHSEED": "1", "TZ": "GMT+12", "LANG": "C", "LC_ALL": "C"},
        0o022,
        "",
        False,
        "replay-a",
    )
    env_b = {
        "PYTHONHASHSEED": "2",
        "TZ": "GMT-14",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PATH": "/usr/local/bin:/usr/bin:/bin:/opt/replay-b/bin",
    }
    described = [
        "PYTHONHASHSEED 1 -> 2",
        "TZ GMT+12 -> GMT-14",
        "locale C -> C.UTF-8",
        "umask 022 -> 002",
        "working path (another, deeper folder)",
        "file creation order reversed",
        "hostname",
        "PATH extra entry",
    ]
    faketime = libfaketime()
    if faketime:
        env_b |= {"LD_PRELOAD": faketime, "FAKETIME": "+398d", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
        described.append("clock +398 days (libfaketime)")
    else:
        described.append("clock NOT shifted: libfaketime is not installed")
    cpus = (0,) if (os.cpu_count() or 1) > 1 else None
    if cpus:
        described.append("CPU count 1 (taskset)")
    second = Variation("run B", env_b, 0o002, "elsewhere/deeper", True, "replay-b", cpus, tuple(described))
    return first, second


@dataclass(frozen=True)
class Replay:
    """One replay run and the answers file it left."""

    run: RunResult
    answers: bytes | None
    problem: str | None  # why answers is None or unusable

    @property
    def wrote(self) -> bool:
        """Whether the run left an answers file at all, usable or not (too big, a link)."""
        return self.answers is not None or self.problem != ANSWERS_NOT_WRITTEN


@dataclass(frozen=True)
class RecordRuns:
    """What the record line judges: two records against healthy stubs, a replay, a record against a failing one."""

    healthy: ModelStub  # the stub of the first record
    healthy_again: ModelStub  # the stub of the second, "twice in a row"
    first: RunResult
    second: RunResult
    after: Replay  # replay, from the cassettes the records left
    failing: ModelStub
    failing_run: RunResult

    def runs(self) -> tuple[RunResult, ...]:
        """Every run of the record line, in the order they ran."""
        return (self.first, self.second, self.after.run, self.failing_run)

    def wrong_labels(self) -> dict[str, dict[str, str | None]]:
        """Tickets the replay after record labelled differently from the healthy stub."""
        expected = self.healthy.expected_labels()
        got = _labels(self.after.answers)
        return {
            tid: {"stub": label, "replay": got.get(tid)} for tid, label in expected.items() if got.get(tid) != label
        }

    def checks(self, wrong: Mapping[str, object]) -> dict[str, bool]:
        """(a) capped and replayable against a healthy stub, (b) gave up against a failing one, (c) twice."""
        first, second, after, failing, failing_run = self.first, self.second, self.after, self.failing, self.failing_run
        return {
            "a_healthy": first.ok
            and self.healthy.call_count <= MAX_CALLS
            and after.run.ok
            and bool(self.healthy.expected_labels())
            and not wrong,
            # Gave up: it really called the stub, then exited non-zero on its own within the cap.
            "b_failing": 0 < failing.call_count <= MAX_CALLS
            and not failing_run.ok
            and failing_run.exit_code is not None,
            "c_twice": first.ok and second.ok and self.healthy_again.call_count <= MAX_CALLS,
        }

    def evidence(self, checks: Mapping[str, bool], wrong: Mapping[str, object], honesty: Any) -> dict[str, Any]:
        """The record line's evidence (the shape the reports and their golden files show)."""
        return {
            "checks": checks,
            "healthy": {
                "calls": [self.healthy.call_count, self.healthy_again.call_count],
                "runs": [self.first.evidence(), self.second.evidence()],
                "replay_after": self.after.run.evidence(),
                "replay_after_wrote_answers": self.after.answers is not None,
                "labels_mismatched": wrong,
            },
            "failing": {"calls": self.failing.call_count, "run": self.failing_run.evidence()},
            "honesty": honesty,
        }


def _record_failures(runs: RecordRuns, checks: Mapping[str, bool], wrong: Mapping[str, object]) -> list[str]:
    """Why each failed check of the record line failed; an error already shown is not repeated."""
    first, second, after, failing, failing_run = runs.first, runs.second, runs.after, runs.failing, runs.failing_run
    failures = []
    shown: set[str] = set()

    def ended(run: RunResult) -> str:
        """`_failed(run)`, shortened when the same error was already shown in this message."""
        text = _failed(run)
        if text in shown and ": " in text:
            return text.split(": ", 1)[0] + " (the same error)"
        shown.add(text)
        return text

    if not checks["a_healthy"]:
        if runs.healthy.call_count > MAX_CALLS:
            failures.append(f"(a) went past {MAX_CALLS} model calls against the healthy stub")
        elif not first.ok:
            failures.append(f"(a) record against the healthy stub {ended(first)}")
        elif not after.run.ok or after.answers is None:
            failures.append(f"(a) replay after record {_no_answers(after)}")
        else:
            failures.append(f"(a) replay after record disagrees with the stub on {len(wrong) or 'all'} ticket(s)")
    if not checks["b_failing"]:
        if failing.call_count == 0:
            failures.append(f"(b) against a failing stub, record never called the stub ({ended(failing_run)})")
        else:
            what = ended(failing_run)
            if failing_run.stopped:
                what = f"still calling, so the kit stopped it after {failing_run.duration:.0f} s"
            failures.append(f"(b) against a failing stub: {failing.call_count} calls (cap {MAX_CALLS}), {what}")
    if not checks["c_twice"]:
        if not second.ok:
            failures.append(f"(c) second record in a row {ended(second)}")
        elif not first.ok:
            failures.append(f"(c) the first of two records in a row {ended(first)}")
        else:
            failures.append(f"(c) the second record in a row went past {MAX_CALLS} model calls")
    return failures


def _command(copy: Path, mode: str) -> list[str]:
    """`./run.sh MODE` when run.sh is executable with a shebang, else `bash run.sh MODE`."""
    script = copy / RUN_SH
    try:
        head = safefs.read_file(copy, RUN_SH, 1 << 20) or b""
    except UnsafeFile:
        head = b""
    if os.access(script, os.X_OK) and head.startswith(b"#!"):
        return ["./" + RUN_SH, mode]
    return ["bash", RUN_SH, mode]


def _answers(copy: Path) -> tuple[bytes | None, str | None]:
    try:
        data = safefs.read_file(copy, ANSWERS, MAX_ANSWERS_BYTES)
    except UnsafeFile as exc:
        return None, f"{ANSWERS} {exc.reason}"
    return (data, None) if data is not None else (None, ANSWERS_NOT_WRITTEN)


def _clear_outputs(copy: Path, outputs: tuple[str, ...]) -> None:
    """Remove what a mode is supposed to write, so the run has to write it itself."""
    for output in outputs:
        files = safefs.list_files(copy, output)  # a folder's files; [] for a file
        for path in files or [output]:
            safefs.remove_file(copy, path)


def _said(run: RunResult) -> str:
    """The line that says why a run failed: a traceback's error, not Node's banner nor a stack frame."""
    line = errorline.error_line(run.stderr) or errorline.error_line(run.stdout)
    return line if len(line) <= MAX_SAID else line[: MAX_SAID - 1] + "…"


def _failed(run: RunResult) -> str:
    """How a run ended, with its error line when that was not well: `exited 1: KeyError: 'MODEL'`."""
    if run.exit_code is None:
        return run.status()
    line = _said(run) if run.exit_code != 0 else ""
    return f"exited {run.exit_code}: {line}" if line else f"exited {run.exit_code}"


def _no_answers(replay: Replay) -> str:
    """Why a replay left no usable answers file, as a phrase after "replay run A "."""
    if not replay.run.ok:
        return _failed(replay.run)
    if replay.wrote and replay.problem:
        return f"exited 0, but {replay.problem}"
    return f"exited 0 without writing {ANSWERS} (the kit removes the submitted one before each run)"


def _labels(data: bytes | None) -> dict[str, str]:
    try:
        doc = json.loads(data or b"")
    except ValueError:
        return {}
    if not isinstance(doc, list):
        return {}
    return {str(r["id"]): str(r.get("label")) for r in doc if isinstance(r, dict) and "id" in r}


def answers_problems(data: bytes | None) -> list[str]:
    """What is wrong with an answers file against the contract (empty when fine)."""
    if data is None:
        return ["no answers file"]
    try:
        doc = json.loads(data)
    except ValueError as exc:
        return [f"not valid JSON: {exc}"]
    if not isinstance(doc, list):
        return ["not a JSON array"]
    problems: list[str] = []
    for position, row in enumerate(doc):
        if not isinstance(row, dict):
            problems.append(f"row {position} is not an object")
            continue
        missing = [k for k in ("id", "label", "justification") if k not in row]
        if missing:
            problems.append(f"row {position} lacks {', '.join(missing)}")
        elif row["label"] not in LABELS:
            problems.append(f"row {position} has label {str(row['label'])[:40]!r}, not one of the handout's")
    return problems[:10]


def changed_between(a: Replay, b: Replay) -> list[dict[str, Any]]:
    """Values that changed between the two replays (reordering alone is not volatile data)."""
    if a.answers is None or b.answers is None:
        return []
    return [vars(c) for c in diff.compare(a.answers, b.answers).changes if c.kind == "changed"]


class ReplayGrading(BaseGrading):
    """Grades one `replay` submission; each check runs (and caches) the sandbox runs it needs."""

    TAKEHOME = TAKEHOME

    def __init__(
        self,
        submission: Path,
        *,
        name: str | None = None,
        rubric: Rubric | None = None,
        replay_limits: Limits = REPLAY_LIMITS,
        record_limits: Limits = RECORD_LIMITS,
        live: LiveEndpoint | None = None,
        environment: Environment | None = None,
    ) -> None:
        super().__init__(submission, name=name, rubric=rubric, environment=environment)
        self.replay_limits, self.record_limits = replay_limits, record_limits
        self.live = live if live is not None else endpoint_from_env()

    # -- facts about the submission ------------------------------------------------------
    @cached
    def missing_run_sh(self) -> str | None:
        """Why the submission cannot be run at all, or None."""
        path = self.submission / RUN_SH
        if path.is_symlink():
            return f"{RUN_SH} is a symlink; the kit does not follow it"
        if not path.is_file():
            return f"no {RUN_SH} in the submission"
        return None

    @cached
    def tickets(self) -> list[dict[str, str]]:
        """The submission's tickets, or the handout's when its copy is unusable."""
        try:
            doc = json.loads(safefs.read_file(self.submission, TICKETS, MAX_TICKETS_BYTES) or b"")
            rows = [{"id": str(t["id"]), "body": str(t["body"])} for t in doc]
            return rows if rows else packaged_tickets()
        except (UnsafeFile, ValueError, TypeError, KeyError):
            return packaged_tickets()

    @cached
    def tickets_match_handout(self) -> bool:
        """Whether tickets.json holds the handout's tickets."""
        return self.tickets == packaged_tickets()

    @cached
    def cassettes(self) -> list[str]:
        """Committed cassette files, relative to the submission."""
        return safefs.list_files(self.submission, CASSETTES)

    # -- sandbox runs (cached) ------------------------------------------------------------
    def _replay(self, variation: Variation, *, trace_files: bool = False) -> Replay:
        copy = self.box.copy(
            variation.name.replace(" ", "-"), reverse_order=variation.reverse_order, nest=variation.nest
        )
        _clear_outputs(copy, REPLAY_OUTPUTS)
        run = self.box.run(
            _command(copy, "replay"),
            copy,
            env=variation.env,
            limits=self.replay_limits,
            umask=variation.umask,
            cpus=variation.cpus,
            hostname=variation.hostname,
            trace_files=trace_files,
        )
        answers, problem = _answers(copy)
        return Replay(run, answers, problem)

    @cached
    def replays(self) -> tuple[Replay, Replay]:
        """The two replays of the identical check, run side by side."""
        first, second = variations()
        with ThreadPoolExecutor(2) as pool:
            a = pool.submit(self._replay, first, trace_files=True)
            b = pool.submit(self._replay, second)
            return a.result(), b.result()

    @cached
    def removed_cassette(self) -> str | None:
        """The cassette the missing-fixture run deletes: among those replay read, chosen by hash."""
        a = self.replays[0].run
        # Paths in a run's result show its copy as `a.cwd` (a placeholder): relative paths are in it too.
        inside = (p.removeprefix(a.cwd + "/") for p in a.opened if not p.startswith("/"))
        opened = {os.path.normpath(p) for p in inside if not p.startswith("<")}
        used = [c for c in self.cassettes if os.path.normpath(c) in opened]
        pool = sorted(used or self.cassettes)
        if not pool:
            return None
        index = int(hashlib.sha256("\n".join(pool).encode("utf-8", "surrogateescape")).hexdigest(), 16) % len(pool)
        return pool[index]

    @cached
    def missing_replay(self) -> Replay | None:
        """A replay with one cassette deleted (and no answers file to start from)."""
        if self.removed_cassette is None:
            return None
        copy = self.box.copy("missing-fixture")
        safefs.remove_file(copy, self.removed_cassette)
        _clear_outputs(copy, REPLAY_OUTPUTS)
        run = self.box.run(_command(copy, "replay"), copy, limits=self.replay_limits)
        data, problem = _answers(copy)
        return Replay(run, data, problem)

    def _stub_service(self, stub: ModelStub) -> Service:
        env = {"OPENAI_BASE_URL": "http://{host}:{port}/v1", "OPENAI_API_KEY": STUB_KEY, "MODEL": stub.model}
        return Service("model-stub", STUB_PORT, stub.serve, env)

    def _record(self, copy: Path, stub: ModelStub) -> RunResult:
        """`./run.sh record` against `stub`, stopped once it goes past the cap (the verdict is in)."""
        return self.box.run(
            _command(copy, "record"),
            copy,
            limits=self.record_limits,
            services=[self._stub_service(stub)],
            stop_when=lambda: stub.call_count > MAX_CALLS,
        )

    @cached
    def record_runs(self) -> RecordRuns:
        """Record twice against a healthy stub, then replay; record once against a failing one."""
        healthy_copy = self.box.copy("record")
        _clear_outputs(healthy_copy, RECORD_OUTPUTS)
        stubs = [ModelStub("healthy", tickets=self.tickets, salt=CHECK_SALT) for _ in range(2)]
        runs = []
        for stub in stubs:
            runs.append(self._record(healthy_copy, stub))
            _clear_outputs(healthy_copy, (ANSWERS,))  # the cassettes stay: "twice in a row", then replay
        after = self.box.run(_command(healthy_copy, "replay"), healthy_copy, limits=self.replay_limits)
        answers, problem = _answers(healthy_copy)
        failing = ModelStub("failing", tickets=self.tickets)
        failing_copy = self.box.copy("record-failing")
        _clear_outputs(failing_copy, RECORD_OUTPUTS)
        failing_run = self._record(failing_copy, failing)
        return RecordRuns(stubs[0], stubs[1], runs[0], runs[1], Replay(after, answers, problem), failing, failing_run)

    def _replay_runs(self, *, missing: bool = False) -> list[RunResult | None]:
        """The replay-mode runs a line reads: the two replays, and the missing-fixture one."""
        runs: list[RunResult | None] = [replay.run for replay in self.replays]
        if missing:
            runs.append(self.missing_replay.run if self.missing_replay is not None else None)
        return runs

    def _unrunnable(self, line_id: str) -> LineResult | None:
        if self.missing_run_sh:
            return self._line(line_id, "error", f"cannot run the submission: {self.missing_run_sh}", {})
        return None

    # -- the five lines ---------------------------------------------------------------------
    @needs_install
    def identical(self) -> LineResult:
        """Two replays in fresh copies, environment varied: byte-identical answers?"""
        if early := self._unrunnable("identical") or self._kit_fault("identical", self._replay_runs()):
            return early
        a, b = self.replays
        evidence: dict[str, Any] = {
            "variations": list(variations()[1].described),
            "runs": [a.run.evidence(), b.run.evidence()],
        }
        for replay in (a, b):
            if replay.run.timed_out or replay.run.output_limit_hit or replay.run.disk_limit_hit:
                return self._line("identical", "error", f"replay {replay.run.status()}", evidence)
        for replay, label in ((a, "run A"), (b, "run B")):
            if not replay.run.ok or replay.answers is None:
                return self._line("identical", "fail", f"replay {label} {_no_answers(replay)}", evidence)
        comparison = diff.compare(a.answers or b"", b.answers or b"")
        evidence |= {
            "identical": comparison.identical,
            "unified_diff": comparison.unified,
            "cause": comparison.cause,
            "cause_detail": comparison.cause_detail,
            "json_changes": [vars(c) for c in comparison.changes[:50]],
            "answers_problems": answers_problems(a.answers),
        }
        if comparison.identical:
            size = len(a.answers or b"")
            return self._line("identical", "pass", f"both replays wrote the same {size} bytes", evidence)
        message = f"the two replays differ; likely cause: {comparison.cause} ({comparison.cause_detail})"
        return self._line("identical", "fail", message, evidence)

    @needs_install
    def offline(self) -> LineResult:
        """Every replay-mode run was offline: any attempted connection fails the line."""
        if early := self._unrunnable("offline") or self._kit_fault("offline", self._replay_runs(missing=True)):
            return early
        runs = [("run A", self.replays[0].run), ("run B", self.replays[1].run)]
        if self.missing_replay is not None:
            runs.append(("missing-fixture run", self.missing_replay.run))
        attempts = [
            {
                "run": label,
                "syscall": c.syscall,
                "address": c.address,
                "port": c.port,
                "host": c.host,
                "result": c.result,
                "pid": c.pid,
            }
            for label, run in runs
            for c in run.network_attempts
        ]
        names = sorted({n for _, run in runs for n in run.dns_names})
        evidence = {
            "attempts": attempts,
            "dns_names": names,
            "isolation": runs[0][1].isolation.reason,
            "runs_checked": [label for label, _ in runs],
        }
        isolation = runs[0][1].isolation
        if not isolation.network_verified:
            return self._line("offline", "unverified", f"network isolation unavailable: {isolation.reason}", evidence)
        if not runs[0][1].traced:
            return self._line("offline", "unverified", "strace is not installed: attempts cannot be seen", evidence)
        if attempts:
            # The most telling attempt: one to a named host, else one that is not a DNS query.
            first = next((a for a in attempts if a["host"]), None) or next(
                (a for a in attempts if a["port"] != DNS_PORT), attempts[0]
            )
            where = f"{first['host'] or first['address']}:{first['port']}"
            looked_up = f"; looked up {', '.join(names[:3])}" if names else ""
            count = len(attempts)
            message = f"{count} network attempt(s) in replay mode, e.g. {where} in the {first['run']}{looked_up}"
            return self._line("offline", "fail", message, evidence)
        if all(r.run.timed_out or r.run.output_limit_hit for r in self.replays):
            return self._line("offline", "error", f"replay {self.replays[0].run.status()}", evidence)
        if not any(r.run.ok and r.wrote for r in self.replays):
            # The kit saw no attempt, but a replay that crashes or writes nothing never did its work
            # offline: the line needs the program to work, so it fails (TAKEHOMES.md) and says why.
            message = (
                f"no connection attempted, but no replay did its work offline: run A {_no_answers(self.replays[0])}"
            )
            return self._line("offline", "fail", message, evidence)
        return self._line("offline", "pass", f"no connection attempted in {len(runs)} replay runs", evidence)

    @needs_install
    def missing_fixture(self) -> LineResult:
        """One cassette deleted: replay must fail loudly, offline, without writing answers.

        Loudly means because of the missing fixture: the same replay with every fixture present
        completes, and the message the program ends with (a crash's own error line, not the
        frames and handled errors of its traceback) names the fixture, a cassette or record.
        """
        if early := self._unrunnable("missing_fixture") or self._kit_fault(
            "missing_fixture", self._replay_runs(missing=True)
        ):
            return early
        control = self.replays
        evidence: dict[str, Any] = {"with_every_fixture": [r.run.status() for r in control]}
        if all(r.run.timed_out or r.run.output_limit_hit for r in control):
            message = f"replay with every fixture present: {control[0].run.status()}"
            return self._line("missing_fixture", "error", message, evidence)
        removed, replay = self.removed_cassette, self.missing_replay
        if not any(r.run.ok for r in control):
            without = f"without {removed}" if removed else "without a fixture"
            message = (
                f"replay does not run at all, even with every fixture present (run A {_failed(control[0].run)}), "
                f"so how it fails {without} says nothing about a missing fixture"
            )
            return self._line("missing_fixture", "fail", message, evidence)
        if removed is None or replay is None:
            # Observed, not unobservable: a replay that runs with no recorded responses reads none.
            message = f"no cassettes in {CASSETTES}/, so replay reads no recorded responses and none can go missing"
            return self._line("missing_fixture", "fail", message, evidence)
        run = replay.run
        last_word = errorline.last_word(run.stdout + "\n" + run.stderr)
        words = [*LOUD_WORDS, Path(removed).name.lower(), Path(removed).stem.lower()]
        named = [w for w in words if w and w in last_word.lower()]
        evidence |= {
            "removed": removed,
            "run": run.evidence(),
            "named": named,
            "said": _said(run),
            "answers_written": replay.wrote,
        }
        if run.timed_out or run.output_limit_hit or run.disk_limit_hit:
            return self._line("missing_fixture", "error", f"replay without {removed}: {run.status()}", evidence)
        problems = []
        if run.exit_code == 0:
            problems.append("exited 0")
        elif not named:
            what = f" (it ended with: {_said(run)})" if _said(run) else " (it printed nothing)"
            problems.append(f"exited {run.exit_code}, but its message names no fixture, cassette or record{what}")
        if run.network_attempts:
            problems.append(f"attempted {len(run.network_attempts)} network connection(s)")
        if replay.wrote:
            problems.append(f"wrote {ANSWERS} anyway (a silently degraded answer)")
        if problems:
            return self._line("missing_fixture", "fail", f"without {removed}, replay " + "; ".join(problems), evidence)
        message = f"without {removed}, replay exited {run.exit_code} naming {named[0]!r}"
        return self._line("missing_fixture", "pass", message, evidence)

    @needs_install
    def record(self) -> LineResult:
        """Record against the kit's stub: capped, re-runnable, feeds replay; fixtures honest."""
        if early := self._unrunnable("record") or self._kit_fault("record", self.record_runs.runs()):
            return early
        runs = self.record_runs
        wrong = runs.wrong_labels()
        checks = runs.checks(wrong)
        honesty = self.honesty()
        evidence = runs.evidence(checks, wrong, honesty)
        failures = _record_failures(runs, checks, wrong)
        if failures:
            return self._line("record", "fail", "; ".join(failures), evidence)
        findings = honesty["findings"]
        if findings:
            return self._line(
                "record", "needs_review", f"capped and re-runnable, but fixtures look edited: {findings[0]}", evidence
            )
        message = (
            f"{runs.healthy.call_count} calls per record, re-runnable, replay reproduced the stub's labels; "
            f"against a failing stub it gave up after {runs.failing.call_count} calls ({runs.failing_run.status()})"
        )
        return self._line("record", "pass", message, evidence)

    def honesty(self) -> dict[str, Any]:
        """Fixture honesty: committed labels vs a fresh replay, cassettes that stand out, git history."""
        findings: list[str] = []
        try:
            committed = safefs.read_file(self.submission, ANSWERS, MAX_ANSWERS_BYTES)
        except UnsafeFile as exc:
            committed = None
            findings.append(f"committed {ANSWERS} {exc.reason}")
        fresh = _labels(self.replays[0].answers)
        stored = _labels(committed)
        disagree = {
            tid: {"committed": label, "replay": fresh.get(tid)}
            for tid, label in stored.items()
            if fresh and fresh.get(tid) != label
        }
        if disagree:
            findings.append(
                f"the submitted {ANSWERS} disagrees with this run's replay of the committed cassettes "
                f"on {len(disagree)} ticket(s)"
            )
        odd = fixtures.standouts(self.submission, self.cassettes)
        findings += [f"{s.path} {s.reasons[0]}" for s in odd]
        late = fixtures.late_edits(self.git_log, self.cassettes)
        findings += [f"{e.path} edited in a later commit ({e.commit} {e.subject!r}) than its siblings" for e in late]
        live = self.live_rerecord(stored)
        if live.get("finding"):
            findings.append(live["finding"])
        if not stored:
            compared = f"not compared: the submission has no usable {ANSWERS}"
        elif not fresh:
            compared = f"not compared: replay run A wrote no usable {ANSWERS}"
        else:
            compared = f"the submitted {ANSWERS} (the one file read as shipped) against replay run A's"
        return {
            "live_rerecord": live,
            "findings": findings,
            "committed_answers": compared,
            "committed_vs_replay": disagree,
            "standouts": [{"path": s.path, "reasons": list(s.reasons)} for s in odd],
            "late_edits": [vars(e) for e in late],
            "cassettes": len(self.cassettes),
        }

    @cached
    def git_log(self) -> str:
        """The history of cassettes/, from git run in the sandbox (the repository is the candidate's)."""
        git = self.submission / ".git"
        if git.is_symlink() or not git.is_dir() or len(self.cassettes) < fixtures.MIN_SIBLINGS:
            return ""
        copy = self.box.copy("git-history", include_git=True)
        run = self.box.run(list(fixtures.GIT_LOG_ARGV), copy, limits=GIT_LIMITS)
        return run.stdout if run.ok else ""

    def live_rerecord(self, committed: Mapping[str, str]) -> dict[str, Any]:
        """Record once more with one ticket's calls relayed to the reviewer's real endpoint."""
        if self.live is None:
            return {"done": False, "why": f"no live endpoint given (set {ENV_BASE_URL} to spot-check one fixture)"}
        ids = sorted(committed) or sorted(t["id"] for t in self.tickets)
        ticket = ids[int(hashlib.sha256("\n".join(ids).encode("utf-8", "surrogateescape")).hexdigest(), 16) % len(ids)]
        relay = LiveRelay(self.live, ticket)
        copy = self.box.copy("live-record")
        _clear_outputs(copy, RECORD_OUTPUTS)
        run = self._record(copy, ModelStub("healthy", tickets=self.tickets, relay=relay))
        live_label, stored = relay.label, committed.get(ticket)
        result: dict[str, Any] = {
            "done": True,
            "endpoint": self.live.base_url,
            "ticket": ticket,
            "live_label": live_label,
            "committed_label": stored,
            "live_calls": len(relay.replies),
            "run": run.evidence(),
        }
        if live_label is None:
            result["finding"] = f"live re-record of {ticket} got no label ({len(relay.replies)} live calls)"
        elif live_label != stored:
            result["finding"] = f"live model labels {ticket} {live_label!r}, the committed fixture says {stored!r}"
        return result

    @needs_install
    def volatile(self) -> LineResult:
        """Timestamps, random ids, durations, token counts, model ids in the graded file."""
        if early := self._unrunnable("volatile") or self._kit_fault("volatile", self._replay_runs()):
            return early
        a, b = self.replays
        source, data = "run A's output", a.answers
        if a.run.timed_out or a.run.output_limit_hit:
            return self._line("volatile", "error", f"replay run A {a.run.status()}", {"source": None})
        if data is None:
            # The submitted copy was removed before the run; what the candidate shipped is not scanned.
            message = f"nothing of this run's to scan: replay run A {_no_answers(a)}"
            return self._line("volatile", "fail", message, {"source": None, "run": a.run.evidence()})
        try:
            doc = json.loads(data)
        except ValueError as exc:
            return self._line("volatile", "fail", f"{ANSWERS} is not valid JSON: {exc}", {"source": source})
        known = [t["body"] for t in self.tickets]
        found = [vars(f) for f in volatile.scan(doc, known_text=known)]
        paths = sorted({f["path"] for f in found} | {c["path"] for c in changed_between(a, b)})
        changed = changed_between(a, b)
        evidence = {"source": source, "findings": found, "changed_between_runs": changed[:50]}
        if found or changed:
            first = found[0] if found else None
            what = (
                f"{first['kind']} at {first['path']} ({first['value'][:60]})"
                if first
                else f"{changed[0]['path']} changes between runs"
            )
            return self._line("volatile", "fail", f"{len(paths)} volatile value(s) in {ANSWERS}, e.g. {what}", evidence)
        return self._line(
            "volatile", "pass", f"no timestamps, ids, durations, token counts or model ids in {source}", evidence
        )

    def facts(self) -> dict[str, Any]:
        """What the kit measured beyond the lines."""
        run = self.replays[0].run if not (self.missing_run_sh or self.environment.error) else None
        return {
            "tickets_match_handout": self.tickets_match_handout,
            "cassettes": len(self.cassettes),
            "isolation": run.isolation.mode if run else None,
            "isolation_reason": run.isolation.reason if run else None,
            "strace": tool("strace") is not None,
            "libfaketime": libfaketime() is not None,
            "answers_problems": answers_problems(self.replays[0].answers) if run else [],
        }

    def prefetch_tasks(self) -> tuple[Callable[[], object], ...]:
        """The replays, the records and the git history: each works on its own copy."""
        if self.missing_run_sh or self.environment.error:
            return ()
        return (lambda: self.replays, lambda: self.record_runs, lambda: self.git_log)

    def prefetch(self) -> None:
        """The side-by-side runs, then the missing-fixture replay (it deletes a cassette replay A read)."""
        super().prefetch()
        if self.prefetch_tasks():
            self.missing_replay  # noqa: B018


GRADING = ReplayGrading


def check(
    submission: Path,
    *,
    name: str | None = None,
    rubric: Rubric | None = None,
    replay_limits: Limits = REPLAY_LIMITS,
    record_limits: Limits = RECORD_LIMITS,
    live: LiveEndpoint | None = None,
) -> Report:
    """Grade one replay submission folder."""
    grading = ReplayGrading(
        submission, name=name, rubric=rubric, replay_limits=replay_limits, record_limits=record_limits, live=live
    )
    with grading:
        return grading.report()


def _failure_cause(cause: str | None) -> Callable[[EntryView], bool]:
    """The identical line failed, and the kit named this likely cause (None: any cause it did not name)."""

    def seen(entry: EntryView) -> bool:
        line = entry.line_results.get("identical")
        found = line.evidence.get("cause") if line is not None and line.outcome == "fail" else None
        return found == cause if cause else found is not None and found not in CAUSES

    return seen


def _live_fallback(entry: EntryView) -> bool:
    line = entry.line_results.get("missing_fixture")
    run = line.evidence.get("run") if line is not None else None
    return bool(isinstance(run, Mapping) and run.get("connections"))


CAUSES = {"timestamp": "timestamp in the output", "random_id": "random id per row", "ordering": "unordered output"}
FAILURE_MODES: tuple[FailureMode, ...] = (
    *(FailureMode(label, _failure_cause(cause)) for cause, label in CAUSES.items()),
    FailureMode("replays differ (other cause)", _failure_cause(None)),
    FailureMode("live call on a missing fixture", _live_fallback),
    FailureMode("network attempt in replay", outcome_is("offline", "fail")),
    FailureMode("fixtures look edited", outcome_is("record", "needs_review")),
    FailureMode("record not capped or not re-runnable", outcome_is("record", "fail")),
    FailureMode("volatile data in answers.json", outcome_is("volatile", "fail")),
)
