"""The runs every `replay` line reads, each done once per grading and cached: the two replays in varied
environments, the replay with a fixture deleted, the records against the kit's stubs, the git history."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradelib.takehome import (
    BaseGrading,
    Environment,
    Limits,
    LineResult,
    Rubric,
    RunResult,
    Service,
    UnsafeFile,
    cached,
    error_line,
    in_context,
    libfaketime,
    list_files,
    read_file,
    remove_file,
    tool,
)
from gradelib.takehomes.replay import diff, fixtures
from gradelib.takehomes.replay.liverecord import ENV_BASE_URL, LiveEndpoint, LiveRelay, endpoint_from_env
from gradelib.takehomes.replay.modelstub import ModelStub, packaged_tickets

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
RERECORD_SALT = "gradelib-rerecord-check"  # and from the clean recording's: the re-record over committed fixtures
MAX_ANSWERS_BYTES = 8 * 1024 * 1024
MAX_TICKETS_BYTES = 1024 * 1024
LOUD_WORDS = ("fixture", "cassette", "record")
REPLAY_LIMITS = Limits(wall_seconds=60, cpu_seconds=60)
RECORD_LIMITS = Limits(wall_seconds=120, cpu_seconds=120)
GIT_LIMITS = Limits(wall_seconds=30, cpu_seconds=30)
# The most one grading's sandboxed runs can take, their wall limits summed: replays A and B, the
# missing-fixture replay, the one after record and the one after the re-record over the committed
# fixtures; two records, one against the failing stub, the re-record and a live re-record; the git
# history. The batch's deadline for a grading is built on it.
RUN_SECONDS = 5 * REPLAY_LIMITS.wall_seconds + 5 * RECORD_LIMITS.wall_seconds + GIT_LIMITS.wall_seconds
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


def variations(environment: Environment | None = None) -> tuple[Variation, Variation]:
    """The two replay environments; everything cheap that a deterministic program ignores.

    When the tool that set the submission up keys its environment on the submission's path, the
    working path cannot vary; when that tool is a Python package manager that starts the program
    (`poetry run`, `hatch run`), the clock is not shifted (libfaketime breaks its waits). The
    evidence says so."""
    stable_paths = environment is not None and environment.mounts().stable_paths
    runner = environment.python_runner() if environment is not None else None
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
        "working path NOT varied: what set the submission up (a tool, its own setup step) keys what it made on it"
        if stable_paths
        else "working path (another, deeper folder)",
        "file creation order reversed",
        "hostname",
        "PATH extra entry",
    ]
    faketime = libfaketime()
    if faketime and runner:
        described.append(f"clock NOT shifted: {runner}, which starts the program, fails under libfaketime")
    elif faketime:
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
    """What the record line judges: two records against healthy stubs, a replay, a record against a failing one,
    and a re-record over the submission's own committed fixtures, then a replay."""

    healthy: ModelStub  # the stub of the first record
    healthy_again: ModelStub  # the stub of the second, "twice in a row"
    first: RunResult
    second: RunResult
    after: Replay  # replay, from the cassettes the records left
    failing: ModelStub
    failing_run: RunResult
    over: ModelStub  # the re-record's stub: answers other than the committed fixtures'
    over_run: RunResult  # record over the committed fixtures (they stay in the copy)
    over_after: Replay  # replay after it: must give the re-record's answers

    def runs(self) -> tuple[RunResult, ...]:
        """Every run of the record line, in the order they ran."""
        return (self.first, self.second, self.after.run, self.failing_run, self.over_run, self.over_after.run)

    def wrong_labels(self) -> dict[str, dict[str, str | None]]:
        """Tickets the replay after record labelled differently from the healthy stub."""
        return _disagreements(self.healthy, self.after)

    def stale_labels(self) -> dict[str, dict[str, str | None]]:
        """Tickets the replay after the re-record over the committed fixtures answered otherwise than the
        re-record's stub would answer (every ticket, asked or not): a fixture that survived the re-record (the
        article's "fixture that lies"), or a ticket the re-record did not ask again."""
        got = labels_in(self.over_after.answers)
        return {
            tid: {"stub": label, "replay": got.get(tid)}
            for tid, label in self.over.labels().items()
            if got.get(tid) != label
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
            "e_over_committed": self.over_run.ok
            and self.over.call_count <= MAX_CALLS
            and self.over_after.run.ok
            and bool(self.over.labels())
            and not self.stale_labels(),
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
            "over_committed": {
                "calls": self.over.call_count,
                "run": self.over_run.evidence(),
                "replay_after": self.over_after.run.evidence(),
                "stale": self.stale_labels(),
            },
            "honesty": honesty,
        }


def _disagreements(stub: ModelStub, replay: Replay) -> dict[str, dict[str, str | None]]:
    """Tickets a replay labelled otherwise than the stub that was just recorded against."""
    got = labels_in(replay.answers)
    return {
        tid: {"stub": label, "replay": got.get(tid)}
        for tid, label in stub.expected_labels().items()
        if got.get(tid) != label
    }


def _command(copy: Path, mode: str) -> list[str]:
    """`./run.sh MODE` when run.sh is executable with a shebang, else `bash run.sh MODE`."""
    script = copy / RUN_SH
    try:
        head = read_file(copy, RUN_SH, 1 << 20) or b""
    except UnsafeFile:
        head = b""
    if os.access(script, os.X_OK) and head.startswith(b"#!"):
        return ["./" + RUN_SH, mode]
    return ["bash", RUN_SH, mode]


def _answers(copy: Path) -> tuple[bytes | None, str | None]:
    try:
        data = read_file(copy, ANSWERS, MAX_ANSWERS_BYTES)
    except UnsafeFile as exc:
        return None, f"{ANSWERS} {exc.reason}"
    return (data, None) if data is not None else (None, ANSWERS_NOT_WRITTEN)


def _clear_outputs(copy: Path, outputs: tuple[str, ...]) -> None:
    """Remove what a mode is supposed to write, so the run has to write it itself."""
    for output in outputs:
        files = list_files(copy, output)  # a folder's files; [] for a file
        for path in files or [output]:
            remove_file(copy, path)


def error_said(run: RunResult) -> str:
    """The line that says why a run failed: a traceback's error, not Node's banner nor a stack frame."""
    line = error_line(run.stderr) or error_line(run.stdout)
    return line if len(line) <= MAX_SAID else line[: MAX_SAID - 1] + "…"


def how_it_ended(run: RunResult) -> str:
    """How a run ended, with its error line when that was not well: `exited 1: KeyError: 'MODEL'`."""
    if run.exit_code is None:
        return run.status()
    line = error_said(run) if run.exit_code != 0 else ""
    return f"exited {run.exit_code}: {line}" if line else f"exited {run.exit_code}"


def why_no_answers(replay: Replay) -> str:
    """Why a replay left no usable answers file, as a phrase after "replay run A "."""
    if not replay.run.ok:
        return how_it_ended(replay.run)
    if replay.wrote and replay.problem:
        return f"exited 0, but {replay.problem}"
    return f"exited 0 without writing {ANSWERS} (the kit removes the submitted one before each run)"


def labels_in(data: bytes | None) -> dict[str, str]:
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


class ReplayRuns(BaseGrading):
    """One `replay` submission's sandbox runs, each started on first use and kept (`cached`); the lines judge them."""

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
            doc = json.loads(read_file(self.submission, TICKETS, MAX_TICKETS_BYTES) or b"")
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
        return list_files(self.submission, CASSETTES)

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
        first, second = variations(self.environment)
        with ThreadPoolExecutor(2) as pool:
            a = pool.submit(in_context(self._replay), first, trace_files=True)
            b = pool.submit(in_context(self._replay), second)
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
        remove_file(copy, self.removed_cassette)
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
        over_copy = self.box.copy("record-over-committed")
        _clear_outputs(over_copy, REPLAY_OUTPUTS)  # the committed fixtures stay: the re-record must replace them
        over = ModelStub("healthy", tickets=self.tickets, salt=RERECORD_SALT)
        over_run = self._record(over_copy, over)
        _clear_outputs(over_copy, REPLAY_OUTPUTS)
        over_after = self.box.run(_command(over_copy, "replay"), over_copy, limits=self.replay_limits)
        over_answers, over_problem = _answers(over_copy)
        return RecordRuns(
            stubs[0], stubs[1], runs[0], runs[1], Replay(after, answers, problem), failing, failing_run,
            over, over_run, Replay(over_after, over_answers, over_problem),
        )  # fmt: skip

    def _unrunnable(self, line_id: str) -> LineResult | None:
        if self.missing_run_sh:
            return self._line(line_id, "error", f"cannot run the submission: {self.missing_run_sh}", {})
        return None

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
