"""Which JavaScript test runner a `test` script calls, and how to make it report test by test.

Read from the script as text: the runner of its last command (what `npm test -- ARGS` appends
to), behind env assignments, `cross-env`, coverage wrappers and the package managers' own
wrappers (`npx`, `pnpm exec`, `yarn`, `npm exec`). Each runner with a machine reporter gets
one: a JSON report file (jest, vitest, mocha), TAP on stdout (ava, node-tap) or in a file
(node:test, through NODE_OPTIONS, paired with the script's own reporters); uvu has none and is
read from its output, as is `bun test`'s `(pass)` / `(fail)` lines.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Runner = Literal["node:test", "jest", "vitest", "mocha", "ava", "tap", "uvu", "bun:test"]
ReportFormat = Literal["jest-json", "mocha-json", "tap", "node-tap", "human"]
RUNNERS: tuple[Runner, ...] = ("node:test", "jest", "vitest", "mocha", "ava", "tap", "uvu", "bun:test")
SCRIPT_GLUE = re.compile(r"&&|\|\||;|\|")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Words before the runner that only start it: env tools, coverage wrappers, the package managers' exec.
PREFIXES = frozenset({"cross-env", "env", "exec", "c8", "nyc", "npx", "dotenv", "time", "nodemon"})
MANAGER_EXEC = {("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "exec"), ("yarn", "run"), ("npm", "exec"), ("pnpm", "run")}
BIN_PATH = re.compile(r"(?:^|/)node_modules/(?:\.bin/(?P<bin>[\w.-]+)|(?P<package>[\w.-]+)/bin/[\w.-]+)$")
NODE_TEST_REPORTER = re.compile(r"--test-reporter(?:=|\s|$)")
NODE_TEST_DESTINATION = re.compile(r"--test-reporter-destination(?:=|\s|$)")
RUN_ALL = frozenset({"run-s", "run-p", "npm-run-all"})  # npm-run-all: other scripts, by name or pattern
MAX_SCRIPT_DEPTH = 4
TAP_COVERAGE_FLAG = "--allow-incomplete-coverage"  # tap 18+: exit 1 for coverage under 100 % is not a test result
OLD_TAP_COVERAGE_FLAG = "--no-check-coverage"


@dataclass(frozen=True)
class RunnerCall:
    """The runner a test script calls and what the kit must know to add a reporter to it."""

    runner: Runner | None  # None: not one the kit knows (its output is still read)
    last: bool = True  # the runner is the script's last command, so arguments after `npm test --` reach it
    reporters: int = 0  # node:test: `--test-reporter` flags in the script
    destinations: int = 0  # node:test: `--test-reporter-destination` flags in the script


@dataclass(frozen=True)
class MachineReport:
    """How to ask a runner for a machine-readable report, and what it will be."""

    args: tuple[str, ...]  # appended after `npm test --`
    env: Mapping[str, str]
    format: ReportFormat
    file: bool  # written to the report file (else read from the run's output)


def detect(script: str, scripts: Mapping[str, str] | None = None) -> RunnerCall:
    """The runner a package.json `test` script calls (the last command's; None when it is none the kit knows).

    A command that runs other scripts of the package (`npm run test:unit`, `run-s lint test:*`,
    `npm-run-all`) is read through, in `scripts`; arguments after `npm test --` then reach the caller,
    not the runner (node:test's report, through NODE_OPTIONS, still does)."""
    segments = _through(script, scripts or {}, MAX_SCRIPT_DEPTH)
    for index in range(len(segments) - 1, -1, -1):
        text, nested = segments[index]
        runner = _segment_runner(text)
        if runner is not None:
            last = index == len(segments) - 1 and not nested
            return RunnerCall(runner, last, *_node_test_flags(text) if runner == "node:test" else (0, 0))
    return RunnerCall(None, last=False)


def _through(script: str, scripts: Mapping[str, str], depth: int) -> list[tuple[str, bool]]:
    """The script's commands, each command that runs other scripts of the package replaced by theirs:
    (command, read through another script)."""
    found: list[tuple[str, bool]] = []
    for segment in (s for s in SCRIPT_GLUE.split(script) if s.strip()):
        called = _called_scripts(segment, scripts) if depth > 0 else []
        if not called:
            found.append((segment, False))
            continue
        for name in called:
            found += [(text, True) for text, _nested in _through(scripts[name], scripts, depth - 1)]
    return found


def _called_scripts(segment: str, scripts: Mapping[str, str]) -> list[str]:
    """The package's scripts one command runs: `npm run x`, `pnpm x`, `yarn run x`, `bun run x`, `run-s a b:*`."""
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    while words and ENV_ASSIGNMENT.match(words[0]):
        words = words[1:]
    if words[:1] and words[0] in RUN_ALL:
        patterns = [w for w in words[1:] if not w.startswith("-")]
        return [name for pattern in patterns for name in sorted(scripts) if fnmatch.fnmatchcase(name, pattern)]
    if words[:2] in (["npm", "run"], ["pnpm", "run"], ["yarn", "run"], ["bun", "run"], ["npm", "run-script"]):
        words = words[2:]
    elif words[:1] in (["pnpm"], ["yarn"]) and len(words) > 1 and words[1] in scripts:
        words = words[1:]
    else:
        return []
    return [words[0]] if words and words[0] in scripts else []


def node_test() -> RunnerCall:
    """`node --test` as the kit runs it when there is no test script."""
    return RunnerCall("node:test")


def _segment_runner(segment: str) -> Runner | None:
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    while words:
        if ENV_ASSIGNMENT.match(words[0]) or words[0] in PREFIXES or words[0].startswith("-"):
            words = words[1:]
        elif tuple(words[:2]) in MANAGER_EXEC:
            words = words[2:]
        elif words[0] in ("pnpm", "yarn", "bunx"):
            words = words[1:]
        else:
            break
    if not words:
        return None
    program = words[0]
    if program.rsplit("/", 1)[-1] == "bun" and words[1:2] == ["test"]:
        return "bun:test"
    if program.rsplit("/", 1)[-1] == "node":
        if "--test" in words:
            return "node:test"
        script = next((w for w in words[1:] if not w.startswith("-")), "")
        match = BIN_PATH.search(script)
        program = (match["bin"] or match["package"]) if match else ""
    name = program.rsplit("/", 1)[-1]
    for runner in RUNNERS:
        if name == runner:
            return runner
    return None


def _node_test_flags(segment: str) -> tuple[int, int]:
    """(`--test-reporter` flags, `--test-reporter-destination` flags) in a `node --test` command."""
    destinations = len(NODE_TEST_DESTINATION.findall(segment))
    return len(NODE_TEST_REPORTER.findall(segment)), destinations


def machine_report(call: RunnerCall, report_file: str, version: str | None = None) -> MachineReport:
    """The arguments (or environment) that make this runner report test by test."""
    runner = call.runner
    if runner == "node:test":
        return MachineReport((), {"NODE_OPTIONS": _node_options(call, report_file)}, "tap", file=True)
    if not call.last or runner is None:
        return MachineReport((), {}, "tap", file=False)  # arguments would go to another command: read the output
    if runner == "vitest":
        return MachineReport(("--reporter=json", f"--outputFile={report_file}"), {}, "jest-json", file=True)
    if runner == "jest":
        return MachineReport(("--json", f"--outputFile={report_file}"), {}, "jest-json", file=True)
    if runner == "mocha":
        args = ("--reporter", "json", "--reporter-option", f"output={report_file}")
        return MachineReport(args, {}, "mocha-json", file=True)
    if runner == "ava":
        return MachineReport(("--tap",), {}, "tap", file=False)
    if runner == "tap":
        return MachineReport(("-R", "tap", *_tap_coverage(version)), {}, "node-tap", file=False)
    return MachineReport((), {}, "human", file=False)  # uvu has no machine reporter; bun's is read from its lines


def _node_options(call: RunnerCall, report_file: str) -> str:
    """TAP into the report file, first of the reporters; the script's own reporters keep their destinations.

    Node pairs reporters with destinations by position, NODE_OPTIONS' first, and refuses unequal
    counts; a script without a reporter of its own gets TAP on stdout too, as `node --test` prints
    it without a terminal (the evidence reads the same as the runner's own output).
    """
    ours = f"--test-reporter=tap --test-reporter-destination={report_file}"
    if call.reporters == 0:
        return ours + " --test-reporter=tap --test-reporter-destination=stdout"
    return ours + " --test-reporter-destination=stdout" * max(0, call.reporters - call.destinations)


def _tap_coverage(version: str | None) -> tuple[str, ...]:
    """node-tap fails a run for coverage under 100 % (15 and later): not a test result, so it is turned off."""
    major = int(version.split(".")[0]) if version and version.split(".")[0].isdigit() else None
    if major is None or major >= 18:
        return (TAP_COVERAGE_FLAG,)
    return (OLD_TAP_COVERAGE_FLAG,) if major >= 15 else ()
