"""The candidate's tests on their code, on the model draft and on the kit's minimal fixes, test by test."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gradelib.takehome import RunResult, UnsafeFile, first_error_line, list_files, read_file, remove_file, takehome_data
from gradelib.takehomes.payments import testrunners
from gradelib.takehomes.payments.testreports import (
    REPORT,
    CaseResult,
    CaseStatus,
    Counts,
    names,
    read_results,
    tap_failure,
)
from gradelib.takehomes.payments.testrunners import Runner, RunnerCall

CHECKOUT = "checkout.mjs"
PACKAGE_JSON = "package.json"
MAX_PACKAGE_BYTES = 256 * 1024
MAX_REPORT_BYTES = 8 * 1024 * 1024
NPM_PLACEHOLDER = "no test specified"  # `npm init`'s default test script, which only fails
# What `node --test` finds on its own (Node 20): *.test.js, *-test.js, *_test.js, test-*.js,
# test.js and anything under a test/ folder, each also as .mjs and .cjs.
TEST_FILE = re.compile(r"(^|/)(test/.*|[^/]*[.\-_]test|test-[^/]*|test)\.[cm]?js$")
TAKEHOME = "payments"
# The code each variant puts in place of checkout.mjs (package data of the take-home); None: theirs.
VARIANTS: Mapping[str, tuple[str, ...] | None] = {
    "own": None,
    "draft": ("draft", "checkout.mjs"),
    "per_call_fix": ("fixes", "per-call.mjs"),
    "persisted_fix": ("fixes", "persisted.mjs"),
}
FIXES = ("per_call_fix", "persisted_fix")
MAX_LISTED = 50
# A test's own server listens on port 0: the port it gets differs on every run, so it is masked.
EPHEMERAL_LOOPBACK = re.compile(r"(127\.\d+\.\d+\.\d+|::1|\[::1\]):(3[2-9]\d{3}|[4-6]\d{4})\b")

# The handout's gateway address: `$GATEWAY_URL` is promised to checkout.mjs when the client runs, not to the
# tests, which run with nothing of the kit's listening; a suite that reaches for this address is run again
# with the handout's own stub listening there, as a reviewer who read the handout would.
HANDOUT_PORT = 8099
LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1", "localhost")
WITH_STUB = (
    f"run again with the handout's gateway stub listening on 127.0.0.1:{HANDOUT_PORT}: the tests reached for"
    " the handout's gateway address, and nothing listened there on the first run"
)

# (argv, copy, extra env, with the handout's stub) -> the sandboxed run; the caller brings the limits.
RunTests = Callable[[Sequence[str], Path, Mapping[str, str], bool], RunResult]


def package_scripts(root: Path) -> dict[str, str]:
    """package.json's scripts, by name (the ones that are text)."""
    try:
        package = json.loads(read_file(root, PACKAGE_JSON, MAX_PACKAGE_BYTES) or b"null")
    except (ValueError, UnsafeFile):
        return {}
    scripts = package.get("scripts") if isinstance(package, dict) else None
    return {str(k): v for k, v in scripts.items() if isinstance(v, str)} if isinstance(scripts, dict) else {}


def test_script(root: Path) -> str | None:
    """The package.json `test` script, unless it is missing, empty or npm's placeholder."""
    try:
        package = json.loads(read_file(root, PACKAGE_JSON, MAX_PACKAGE_BYTES) or b"null")
    except (UnsafeFile, ValueError):
        package = None
    scripts = package.get("scripts") if isinstance(package, dict) else None
    script = scripts.get("test") if isinstance(scripts, dict) else None
    if isinstance(script, str) and script.strip() and NPM_PLACEHOLDER not in script:
        return script
    return None


def find_tests(root: Path) -> tuple[str, tuple[str, ...]] | None:
    """("npm", npm test) for a package.json test script, ("node", node --test) for test files."""
    if test_script(root) is not None:
        return "npm", ("npm", "test")
    for path in list_files(root):
        if "node_modules" in Path(path).parts:
            continue
        if TEST_FILE.search(path):
            return "node", ("node", "--test")
    return None


@dataclass(frozen=True)
class VariantRun:
    """The suite run once, with one variant of checkout.mjs in place."""

    variant: str
    run: RunResult
    tests: tuple[CaseResult, ...]
    read_as: str  # json / tap / human / none
    runner: Runner | None = None
    counts: Counts | None = None  # a runner that names only its failures (uvu): its totals
    flaky: tuple[str, ...] = ()  # tests that failed on one of two runs of this variant and passed on the other
    first: str | None = None  # the first run's summary, when this run is a re-run
    with_stub: bool = False  # run with the handout's gateway stub listening on its address

    @property
    def ran(self) -> bool:
        """True when the runner ran at least one test (not only files that failed to load)."""
        return any(not test.file_level for test in self.tests) or bool(self.counts and self.counts.total)

    @property
    def unread(self) -> str | None:
        """Why a run that ran tests and exited non-zero says nothing: no failed test could be read, or None."""
        killed = self.run.timed_out or self.run.stopped or self.run.output_limit_hit or self.run.disk_limit_hit
        if self.run.ok or not self.ran or killed or names(self.tests, "fail") or self.file_failed:
            return None
        return f"{self.runner or 'the test script'} {self.run.status()}, but no failed test could be read from it"

    @property
    def never_ran(self) -> str | None:
        """Why no test ran (command not found, a test file that cannot load), or None."""
        if self.ran:
            return None
        out, err = self.run.stdout, self.run.stderr
        said = (
            first_error_line(err, strict=True)
            or first_error_line(out, strict=True)
            or tap_failure(out)
            or first_error_line(err)
            or first_error_line(out)
        )
        return f"{self.run.status()}, no test ran" + (f": {said}" if said else "")

    @property
    def green(self) -> bool:
        """Tests ran, none failed, and the runner exited 0."""
        return self.ran and self.run.ok and not names(self.tests, "fail")

    def status(self, name: str) -> CaseStatus | None:
        """The named test's status in this run, or None when it is not there (or the run cannot say)."""
        if self.unread:
            return None
        found = next((test.status for test in self.tests if test.name == name), None)
        if found is None and self.counts is not None and self.ran and not self.file_failed:
            return "pass"  # a runner that names only its failures ran this test and did not fail it
        return found

    @property
    def worth_rerun(self) -> bool:
        """Red only through named failing tests (ran, read, not killed, all files loaded): a re-run can tell a flake."""
        killed = self.run.timed_out or self.run.stopped or self.run.output_limit_hit or self.run.disk_limit_hit
        failed = bool(names(self.tests, "fail"))
        return failed and self.ran and not (killed or self.unread or self.file_failed)

    @property
    def file_failed(self) -> bool:
        """True when a whole test file failed to load in this run."""
        return any(test.file_level for test in self.tests)

    def summary(self) -> str:
        """`3 of 5 failed` or why no test ran."""
        if why := self.never_ran or self.unread:
            return why
        failed = len(names(self.tests, "fail"))
        total = self.counts.total if self.counts else len(self.tests)
        return f"{self.run.status()}, {failed} of {total} failed"

    def evidence(self) -> dict[str, Any]:
        """A JSON-ready summary: the run, how the results were read, the tests by status."""
        run = self.run.evidence()
        run["connections"] = list(
            dict.fromkeys(EPHEMERAL_LOOPBACK.sub(r"\1:<ephemeral port>", c) for c in run["connections"])
        )
        return {
            "run": run,
            "read_as": self.read_as,
            "summary": self.summary(),
            "never_ran": self.never_ran,
            "unread": self.unread,
            "failed": names(self.tests, "fail")[:MAX_LISTED],
            "passed": names(self.tests, "pass")[:MAX_LISTED],
            "skipped": len(names(self.tests, "skip")),
            "flaky": list(self.flaky[:MAX_LISTED]),
            "first_run": self.first,
            "with_handout_stub": self.with_stub,
        }


@dataclass(frozen=True)
class SuiteRuns:
    """The candidate's tests on each variant that was run, and what that says about the key."""

    kind: str | None  # "npm", "node" or None (no tests)
    command: tuple[str, ...]
    runner: Runner | None = None
    runs: Mapping[str, VariantRun] | None = None
    problem: str | None = None  # why the kit could not run them

    @property
    def own(self) -> VariantRun | None:
        """The run on the candidate's own code."""
        return (self.runs or {}).get("own")

    @property
    def draft(self) -> VariantRun | None:
        """The run with the model draft in place."""
        return (self.runs or {}).get("draft")

    @property
    def never_ran(self) -> str | None:
        """Why the suite says nothing at all: no test ran on the candidate's own code, or none could be read."""
        return (self.own.never_ran or self.own.unread) if self.own is not None else None

    @property
    def green_on_own(self) -> bool | None:
        """Green on the candidate's code; None without tests, when no test ran or none could be read."""
        if self.own is None or self.never_ran:
            return None
        return self.own.green

    def red_on_draft_tests(self) -> list[str]:
        """Tests that failed with the draft in place (or whose file no longer loaded)."""
        draft = self.draft
        if draft is None:
            return []
        runs = [run for run in (self.own, draft) if run is not None]
        every = dict.fromkeys(test.name for run in runs for test in run.tests if not test.file_level)
        return [
            name for name in every if draft.status(name) == "fail" or (draft.status(name) is None and draft.file_failed)
        ]

    def catching(self) -> dict[str, list[str]]:
        """The tests that catch the key: red on the draft, green on a minimal fix (test -> fixes)."""
        fixes = [(self.runs or {}).get(fix) for fix in FIXES]
        found = {}
        flaky = set(self.own.flaky) if self.own is not None else set()
        for name in self.red_on_draft_tests():
            if name in flaky:
                continue  # it fails now and then on their code: its red on the draft says nothing
            green_on = [run.variant for run in fixes if run is not None and run.status(name) == "pass"]
            if green_on:
                found[name] = green_on
        return found

    @property
    def red_on_draft(self) -> bool | None:
        """Some test red on the draft and green on a fix; None when no test ran (or could be read) on either."""
        if self.own is None or self.never_ran or self.draft is None or self.draft.unread:
            return None
        return bool(self.catching())

    def evidence(self) -> dict[str, Any]:
        """A JSON-ready summary: every variant's run and the tests that catch the key."""
        catching = self.catching()
        return {
            "kind": self.kind,
            "command": " ".join(self.command),
            "runner": self.runner,
            "problem": self.problem,
            "handout_stub": WITH_STUB if self.own is not None and self.own.with_stub else None,
            "never_ran": self.never_ran,
            "green_on_own": self.green_on_own,
            "red_on_draft": self.red_on_draft,
            "catches_the_key": [{"test": name, "green_on": fixes} for name, fixes in catching.items()],
            "red_on": {name: names(run.tests, "fail")[:MAX_LISTED] for name, run in (self.runs or {}).items()},
            **{name: run.evidence() for name, run in (self.runs or {}).items()},
        }


def variant_source(variant: str) -> str | None:
    """The packaged code a variant puts in place of checkout.mjs (None: the candidate's own)."""
    parts = VARIANTS[variant]
    return None if parts is None else takehome_data(TAKEHOME).joinpath(*parts).read_text(encoding="utf-8")


def run_suites(
    submission: Path,
    binary: str,
    copy: Callable[[str], Path],
    run_tests: RunTests,
    versions: Mapping[str, str] | None = None,
    *,
    command: tuple[str, ...] | None = None,
) -> SuiteRuns:
    """The tests on their code and on the draft; on both fixes too when a test went red on the draft.

    `binary` is the npm or node found for the suite's kind; `copy(label)` makes a fresh copy;
    `versions` are the installed packages' versions (node-tap's options changed with its major); `command`
    is how the test script starts when not by npm (`yarn run test`, for Plug'n'Play).
    """
    found = find_tests(submission)
    if found is None:
        return SuiteRuns(None, ())
    kind, command = found[0], command or found[1]
    call = (
        testrunners.detect(test_script(submission) or "", package_scripts(submission))
        if kind == "npm"
        else testrunners.node_test()
    )
    runner = call.runner
    runner_version = (versions or {}).get(runner) if runner else None
    runs: dict[str, VariantRun] = {}
    stub = False  # once their code's run needed the handout's stub, every variant runs with it
    for variant in VARIANTS:
        if variant in FIXES and not SuiteRuns(kind, command, runner, runs).red_on_draft_tests():
            break
        if variant == "draft" and (runs["own"].never_ran or runs["own"].unread):
            break  # nothing ran (or could be read) on their code: the other variants cannot say more
        try:
            run = _run_variant(variant, binary, command, call, copy, run_tests, runner_version, stub=stub)
            if variant == "own" and not run.green and reached_for_the_gateway(run.run):
                stubbed = _run_variant("own", binary, command, call, copy, run_tests, runner_version, stub=True)
                if says_more(stubbed, run):
                    run, stub = stubbed, True
            runs[variant] = run
            if variant == "own" and run.worth_rerun:
                again = _run_variant(
                    "own", binary, command, call, copy, run_tests, runner_version, stub=stub, again=True
                )
                runs["own"] = rerun(run, again)
        except OSError as exc:
            problem = f"cannot put the {variant} in place of {CHECKOUT}: {exc}"
            return SuiteRuns(kind, command, runner, runs, problem)
    return SuiteRuns(kind, command, runner, runs)


def reached_for_the_gateway(run: RunResult) -> bool:
    """The suite connected (or said it failed to connect) to the handout's gateway address on loopback."""
    tried = any(c.is_network and c.port == HANDOUT_PORT and c.address.lower() in LOOPBACK for c in run.connections)
    text = run.stdout + "\n" + run.stderr
    return tried or ("ECONNREFUSED" in text and f":{HANDOUT_PORT}" in text)


def says_more(stubbed: VariantRun, alone: VariantRun) -> bool:
    """The run with the handout's stub listening says more than the one without: green where that one was
    not, or more tests passed (a suite that starts its own server there is not helped by a second one)."""
    if stubbed.green != alone.green:
        return stubbed.green
    return len(names(stubbed.tests, "pass")) > len(names(alone.tests, "pass"))


def rerun(first: VariantRun, again: VariantRun) -> VariantRun:
    """The second run of a suite that was red on their code, naming the tests whose result changed between the two.

    A timing-bound test (growing backoff gaps, a deadline) can fail on a loaded grading machine and
    pass on the next run: the second run decides, and the tests that flipped are shown as flaky.
    """
    before = {test.name: test.status for test in first.tests if not test.file_level}
    after = {test.name: test.status for test in again.tests if not test.file_level}
    flipped = [
        name for name in dict.fromkeys([*before, *after]) if {before.get(name), after.get(name)} == {"pass", "fail"}
    ]
    return replace(again, flaky=tuple(flipped), first=first.summary())


def _run_variant(
    variant: str,
    binary: str,
    command: tuple[str, ...],
    call: RunnerCall,
    copy: Callable[[str], Path],
    run_tests: RunTests,
    version: str | None,
    *,
    stub: bool = False,
    again: bool = False,
) -> VariantRun:
    folder = copy(f"tests-{variant.replace('_', '-')}" + ("-stub" if stub else "") + ("-again" if again else ""))
    source = variant_source(variant)
    if source is not None:
        target = folder / CHECKOUT
        if target.is_symlink() or target.is_file():
            target.unlink()
        target.write_text(source, encoding="utf-8")
        target.chmod(0o644)
    suffix = ".json" if call.runner in ("jest", "vitest", "mocha") else ".tap"
    report_name = REPORT + suffix
    remove_file(folder, report_name)  # judge only what this run writes
    report = testrunners.machine_report(call, str(folder / report_name), version)
    argv = [binary, *command[1:], *(("--", *report.args) if report.args else ())]
    run = run_tests(argv, folder, report.env, stub)
    raw = None
    if report.file:
        try:
            raw = read_file(folder, report_name, MAX_REPORT_BYTES)
        except UnsafeFile:
            raw = None
    text = raw.decode("utf-8", errors="replace") if raw is not None else None
    reading = read_results(run.stdout + "\n" + run.stderr, text, report.format, call.runner, str(folder))
    return VariantRun(variant, run, reading.tests, reading.read_as, call.runner, reading.counts, with_stub=stub)
