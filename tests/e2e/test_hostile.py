"""A hostile cohort, graded for real: nothing a submission does may harm the reviewer, the others or the grades.

Each case in `tests/e2e/hostile/<takehome>/<case>/` is a small repo with one attack (its README
says which); `tests/e2e/hostile/build.py` adds what only a test can make (the reviewer's guessed
absolute paths, symlinks, non-UTF-8 names, git repositories, archives). Most cases are graded
in ONE batch beside copies of two clean samples, as a reviewer runs it (two jobs, names
revealed). The reviewer has planted secrets: a home with SSH and AWS credentials, API keys in
the environment, notes beside the gradebook, another candidate's private file. After the
batch: every submission has an outcome, no planted secret appears in any report or the
gradebook, no file outside the copies changed, no hostile process survives, no report carries
live markup from candidate text, the clean samples got exactly their normal grades, and each
hostile case got its exact outcome with the reason.

Cases that show a defect in the kit are strict xfails whose reason starts with "DEFECT:".
"""

from __future__ import annotations

import importlib.util
import json
import multiprocessing.util
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT, processes_matching

from gradelib import batch, takehomes
from gradelib.gradebook import FINISHED_STATUSES, Gradebook
from gradelib.intake import ingest
from gradelib.result import Report
from gradelib.sandbox import Limits, launchclient, tool
from gradelib.takehomes import replay

HERE = Path(__file__).resolve().parent


def _load_builder() -> ModuleType:
    """tests/e2e/hostile/build.py, under a name no installed package can shadow."""
    spec = importlib.util.spec_from_file_location("gradelib_hostile_build", HERE / "hostile" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


build = _load_builder()
Reviewer = build.Reviewer

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]

EXPECTED_REPLAY = tomllib.loads((HERE / "expected_replay.toml").read_text())
EXPECTED_PAYMENTS = tomllib.loads((HERE / "expected_payments.toml").read_text())
CONTRACT_FACTS = (
    "key_scope", "tests_green_on_own", "tests_red_on_draft", "dropped_payment_on_outage",
    "outage_attempts", "backoff", "slow_distinct_keys",
)  # fmt: skip
# Graded directly with short limits rather than through the batch: through the notebook each of
# a replay grading's six sandbox runs would wait out the kit's 60 s / 120 s limits (8 minutes).
SHORT = Limits(wall_seconds=4, cpu_seconds=4)
SHORT_BOUND = 6 * SHORT.wall_seconds + 30  # six runs, each killed at the limit, plus the kit's own time
HOSTILE_PROCESSES = "gradelib-hostile-"  # every long-lived hostile process renames itself with this
SECRET_FILES = ("*.ipynb", "*.html", "*.json", "gradebook.sqlite*")

REPLAY_CASES = (
    "sleeps-detached", "eats-memory", "floods-stdout", "huge-answers", "steals-secrets", "escapes-copy",
    "links-committed", "links-at-runtime", "weird-names", "kills-parents", "binds-stub-port", "invalid-json",
    "binary-garbage", "no-run-sh", "run-sh-not-executable", "run-sh-symlink", "bad-interpreter", "deep-dirs",
)  # fmt: skip
PAYMENTS_CASES = (
    "steals-secrets", "kills-parents", "binds-gateway-port", "not-a-module", "binary-garbage", "html-injection",
    "links", "hangs", "floods-stdout", "forges-result", "hides-result",
)  # fmt: skip
ARCHIVES = {
    "zip-slip.zip": "zip_slip",
    "tar-absolute.tar.gz": "tar_absolute",
    "tar-symlink.tar.gz": "tar_symlink",
    "tar-hardlink.tar.gz": "tar_hardlink",
    "zip-symlink.zip": "zip_symlink",
    "zip-bomb.zip": "zip_bomb",
    "zip-bomb-declared.zip": "zip_bomb_declared",
    "tar-bomb.tar.gz": "tar_bomb",
    "zip-bad-utf8.zip": "zip_bad_utf8",
    "tar-weird-names.tar.gz": "tar_weird_names",
    "not-an-archive.zip": "not_an_archive",
    "empty.zip": "empty_zip",
}

# Live markup from candidate text: every hostile payload carries "gradelib-xss".
LIVE_MARKUP = (
    re.compile(r"<script\b[^>]*>[^<]*gradelib-xss", re.I),
    re.compile(r"<[a-z][^<>]*\son[a-z]+\s*=[^<>]*gradelib-xss", re.I),
    re.compile(r"<[a-z][^<>]*\s(?:href|src|action|formaction)\s*=\s*[\"']?\s*javascript:[^<>]*gradelib-xss", re.I),
    re.compile(r"<(?:iframe|object|embed|svg|img)\b[^<>]*gradelib-xss", re.I),
)


# -- the reviewer, the cohort, the batch --------------------------------------------------------------


@dataclass
class Graded:
    """The hostile batch and what the checks afterwards need."""

    reviewer: Any  # build.Reviewer
    cohort: Path
    reports: Path
    kit_tmp: Path
    outcomes: dict[tuple[str | None, str], batch.GradeOutcome]
    before: dict[str, tuple[object, ...]]
    after: dict[str, tuple[object, ...]]
    samples_digest: tuple[str, str]
    seconds: float

    def outcome(self, takehome: str | None, name: str) -> batch.GradeOutcome:
        return self.outcomes[(takehome, name)]

    def report(self, takehome: str, name: str) -> dict[str, Any]:
        outcome = self.outcome(takehome, name)
        assert outcome.status == "graded", outcome.error
        assert outcome.notebook is not None
        data: dict[str, Any] = json.loads(Path(outcome.notebook).with_suffix(".json").read_text())
        return data

    def lines(self, takehome: str, name: str) -> dict[str, dict[str, Any]]:
        return {line["id"]: line for line in self.report(takehome, name)["lines"]}


@pytest.fixture(scope="module")
def reviewer_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Any]]:
    """A reviewer with planted secrets (HOME, API keys in the environment); the kit's temp files in one folder."""
    root = tmp_path_factory.mktemp("hostile")
    reviewer = build.plant(root)
    kit_tmp = root / "t"
    kit_tmp.mkdir()
    # This test process's own multiprocessing folder (the warm workers' fork server listens there) is made
    # before TMPDIR points into kit_tmp: it is the harness's, lives as long as the process, and must outlive
    # kit_tmp, or a module run first leaves it there and the next module's fork server cannot start.
    multiprocessing.util.get_temp_dir()
    with pytest.MonkeyPatch.context() as patch:
        for key, value in reviewer.env.items():
            patch.setenv(key, value)
        patch.setenv("TMPDIR", str(kit_tmp))  # the batch's workers
        patch.setattr(tempfile, "tempdir", str(kit_tmp))  # this process (tempfile caches its choice)
        yield root, reviewer
    # The sandbox launcher this process started listens in kit_tmp: stopped with it (the next run starts another).
    launchclient.LAUNCHER.close()
    # deep-dirs leaves a workspace Python's rmtree cannot remove (see its test); rm can.
    subprocess.run(["rm", "-rf", str(kit_tmp)], check=False)


def _build_cohort(root: Path, reviewer: Any) -> Path:
    cohort = root / "cohort"
    replay_dir, payments_dir, archives = cohort / "replay", cohort / "payments", cohort / "archives"
    clean_replay = build.copy_sample("replay", build.CLEAN_REPLAY, replay_dir / build.CLEAN_REPLAY)
    build.copy_sample("payments", build.CLEAN_PAYMENTS, payments_dir / build.CLEAN_PAYMENTS)
    (clean_replay / "PRIVATE.txt").write_text(f"another candidate's private file: {reviewer.markers['OTHER']}\n")
    values = build.targets(reviewer, clean_replay)
    for case in REPLAY_CASES:
        build.write_targets(build.copy_case("replay", case, replay_dir / case), values)
    build.write_targets(build.copy_case("replay", "html-injection", replay_dir / build.HTML_NAME), values)
    build.add_replay_links(replay_dir / "links-committed", reviewer)
    build.add_weird_cassette(replay_dir / "weird-names")
    build.add_replay_garbage(replay_dir / "binary-garbage")
    build.add_clean_replay(replay_dir / "binds-stub-port")
    build.add_run_sh_link(replay_dir / "run-sh-symlink", reviewer)
    build.init_empty_repo(replay_dir / "empty-repo")
    fifo = build.copy_case("replay", "run-sh-not-executable", replay_dir / "fifo-cassette")
    (fifo / "README.md").write_text("Attacks the copier: a named pipe where a cassette should be.\n")
    build.add_fifo(fifo)
    for case in PAYMENTS_CASES:
        build.write_targets(build.copy_case("payments", case, payments_dir / case), values)
    build.add_payments_links(payments_dir / "links", reviewer)
    build.add_payments_garbage(payments_dir / "binary-garbage")
    archives.mkdir()
    for filename, maker in ARCHIVES.items():
        if maker in ("zip_slip", "tar_absolute"):
            getattr(build, maker)(archives / filename, reviewer.outside / f"{filename}.pwned")
        elif maker in ("tar_symlink", "zip_symlink"):
            getattr(build, maker)(archives / filename, reviewer.ssh_key)
        else:
            getattr(build, maker)(archives / filename)
    return cohort


@pytest.fixture(scope="module")
def graded(reviewer_env: tuple[Path, Any]) -> Graded:
    """The hostile cohort and two clean samples, graded in one batch (two jobs, names revealed)."""
    root, reviewer = reviewer_env
    cohort = _build_cohort(root, reviewer)
    protected = [reviewer.outside, reviewer.home / ".ssh", reviewer.home / ".aws", reviewer.home / ".bashrc"]
    protected += [reviewer.notes, cohort]
    samples_before = ingest.digest(build.SAMPLES)
    before = build.snapshot(protected)
    started = time.monotonic()
    outcomes = batch.grade([cohort], reports=reviewer.reports, jobs=2, reveal=True)
    seconds = time.monotonic() - started
    return Graded(
        reviewer=reviewer,
        cohort=cohort,
        reports=reviewer.reports,
        kit_tmp=root / "t",
        outcomes={(o.takehome, o.submission): o for o in outcomes},
        before=before,
        after=build.snapshot(protected),
        samples_digest=(samples_before, ingest.digest(build.SAMPLES)),
        seconds=seconds,
    )


def _report_files(reports: Path) -> list[Path]:
    """Every report the kit wrote (ipynb, html, json) and the gradebook with its journal files."""
    found = [p for pattern in SECRET_FILES for p in reports.rglob(pattern) if ".staging" not in p.parts]
    return sorted(p for p in found if p.is_file() and not p.is_symlink())


def _live_markup(text: str) -> list[str]:
    return [match.group(0)[:120] for pattern in LIVE_MARKUP for match in pattern.finditer(text)]


def _html_outputs(notebook: Path) -> str:
    """Every text/html output of a notebook, joined."""
    doc = json.loads(notebook.read_text(encoding="utf-8"))
    parts = []
    for cell in doc["cells"]:
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html")
            if html:
                parts.append("".join(html) if isinstance(html, list) else html)
    return "\n".join(parts)


# -- what holds for the whole batch ------------------------------------------------------------------


def test_the_batch_finishes_with_an_outcome_for_every_submission(graded: Graded) -> None:
    expected = {("replay", c) for c in (*REPLAY_CASES, build.HTML_NAME, build.CLEAN_REPLAY, "tar-weird-names")}
    expected |= {("payments", c) for c in (*PAYMENTS_CASES, build.CLEAN_PAYMENTS)}
    expected |= {(None, ingest.submission_name(Path(a))) for a in ARCHIVES if a != "tar-weird-names.tar.gz"}
    expected |= {(None, "empty-repo"), (None, "fifo-cassette")}
    assert set(graded.outcomes) == expected
    with Gradebook(graded.reviewer.gradebook) as book:
        runs = book.runs()
    assert runs and {run.status for run in runs} <= set(FINISHED_STATUSES), "a run was left 'running'"
    print(f"\nhostile batch: {len(graded.outcomes)} submissions in {graded.seconds:.0f} s")


def test_the_clean_samples_get_exactly_their_normal_grades(graded: Graded) -> None:
    lines = graded.lines("replay", build.CLEAN_REPLAY)
    assert {k: v["outcome"] for k, v in lines.items()} == EXPECTED_REPLAY[build.CLEAN_REPLAY]
    assert graded.outcome("replay", build.CLEAN_REPLAY).total == 100.0
    report = graded.report("payments", build.CLEAN_PAYMENTS)
    expected = EXPECTED_PAYMENTS[build.CLEAN_PAYMENTS]
    assert {k: report["facts"][k] for k in CONTRACT_FACTS} == {k: expected.get(k) for k in CONTRACT_FACTS}
    tiers = {line["id"]: line["tier"] for line in report["lines"]}
    assert tiers["key_scope"] == expected["key_scope_tier"]
    assert tiers["found_defect"] == expected.get("found_defect_tier")


def test_no_planted_secret_appears_in_any_report_or_the_gradebook(graded: Graded) -> None:
    files = _report_files(graded.reports)
    assert len([f for f in files if f.suffix == ".html"]) >= 30
    secrets_planted = [*graded.reviewer.secrets(), "sk-reviewer-secret-do-not-leak"]
    leaks = {
        str(path.relative_to(graded.reports)): [s for s in secrets_planted if s.encode() in path.read_bytes()]
        for path in files
    }
    assert {path: found for path, found in leaks.items() if found} == {}


def test_no_file_outside_the_copies_changed(graded: Graded) -> None:
    changed = {
        path: (graded.before.get(path), graded.after.get(path))
        for path in graded.before.keys() | graded.after.keys()
        if graded.before.get(path) != graded.after.get(path)
    }
    assert changed == {}
    assert graded.samples_digest[0] == graded.samples_digest[1], "the kit's own sample submissions changed"
    assert not list(graded.reviewer.outside.glob("*.pwned"))
    assert not (build.SAMPLES / "PWNED").exists()


def test_no_staged_copy_of_a_candidates_code_is_left_behind(graded: Graded) -> None:
    """The batch's staged copies (full copies of the candidates' code, signed READMEs included) are gone once it
    has packed them; each grading read its own packed copy."""
    assert not (graded.reports / ".staging").exists()
    assert [p for p in graded.reports.rglob("*") if p.name == "submission" and p.is_dir()] == []


def test_the_vandal_sees_none_of_its_targets(graded: Graded) -> None:
    said = graded.lines("replay", "escapes-copy")["identical"]["evidence"]["runs"][0]["stdout_tail"]
    assert "invisible: " + str(graded.reviewer.outside) in said
    assert "invisible: " + str(graded.reviewer.home / ".ssh") in said
    assert "invisible: " + str(build.SAMPLES) in said
    assert "visible: " not in said.replace("invisible: ", ""), said


def test_no_hostile_process_survives_the_batch(graded: Graded) -> None:
    assert processes_matching(HOSTILE_PROCESSES) == []


def _leftovers(kit_tmp: Path) -> dict[str, str]:
    """What the kit left in its temp folder: {entry: the hostile case it holds a copy of, or "?"}."""
    readmes = {path.read_text(): path.parent.name for path in (HERE / "hostile").glob("*/*/README.md")}
    found = {}
    for entry in sorted(kit_tmp.iterdir()):
        copies = [*entry.glob("*/submission/README.md"), *entry.glob("*/*/*/submission/README.md")]
        found[entry.name] = next((readmes.get(c.read_text(), "?") for c in copies), "?")
    return found


def test_the_kit_leaves_no_workspace_behind(graded: Graded) -> None:
    """Every sandbox workspace, unpacked archive and kernel folder is removed.

    Two known defects leave their workspace behind; their own tests below check it:
    deep-dirs (cleanup raises) and weird-names (the notebook stops before its last cell).
    """
    left = _leftovers(graded.kit_tmp)
    assert {entry: case for entry, case in left.items() if case not in ("deep-dirs", "weird-names")} == {}


def test_no_report_carries_live_markup_from_candidate_text(graded: Graded) -> None:
    """Static check of every HTML report and every notebook's HTML outputs (a browser test does the rest)."""
    found: dict[str, list[str]] = {}
    for outcome in graded.outcomes.values():
        if outcome.html:
            found[outcome.html] = _live_markup(Path(outcome.html).read_text(encoding="utf-8"))
        if outcome.notebook and Path(outcome.notebook).exists():
            found[outcome.notebook] = _live_markup(_html_outputs(Path(outcome.notebook)))
    assert {path: hits for path, hits in found.items() if hits} == {}


@pytest.mark.parametrize(
    ("takehome", "name", "payloads"),
    [
        ("replay", build.HTML_NAME, ("name", "label", "justification", "stdout", "stderr", "missing")),
        ("payments", "html-injection", ("stdout", "stderr", "key", "error", "test", "note-svg")),
    ],
    ids=["replay", "payments"],
)
def test_injected_markup_is_shown_as_text(graded: Graded, takehome: str, name: str, payloads: tuple[str, ...]) -> None:
    """The payloads reach the report (so the static check above is not vacuous), only ever escaped."""
    outcome = graded.outcome(takehome, name)
    assert outcome.status == "graded" and outcome.html
    html = Path(outcome.html).read_text(encoding="utf-8")
    for payload in payloads:
        assert f"gradelib-xss-{payload}" in html, payload
    assert "&lt;script&gt;alert(" in html or "&lt;img src=x onerror=" in html
    assert _live_markup(html) == []
    if takehome == "payments":
        for dropped in ("note'", "note-img", "note-href", "note-click", "note-iframe", "note-md", "note-title"):
            assert f"gradelib-xss-{dropped}" not in html.replace("&#x27;", "'"), dropped


# -- each replay case: its exact outcome and the reason ------------------------------------------------

P, F, E = "pass", "fail", "error"
REPLAY_EXPECTED: dict[str, tuple[tuple[str, str, str, str, str], dict[str, str]]] = {
    # case: ((identical, offline, missing_fixture, record, volatile), {line: words its message holds})
    # A program that crashes fails the lines that need it to work; one killed at a limit is an error;
    # no cassettes at all fails missing_fixture (observed: replay reads no recorded responses).
    "sleeps-detached": ((P, P, F, F, P), {"identical": "the same 1202 bytes", "missing_fixture": "no cassettes"}),
    "eats-memory": ((F, F, F, F, F), {"identical": "exited 1: MemoryError", "record": "exited 1: MemoryError"}),
    "floods-stdout": (
        (E, E, E, F, E),
        {"identical": "printed more than the output limit", "record": "printed more than the output limit"},
    ),
    "huge-answers": ((F, P, F, F, F), {"identical": "over the 8388608-byte limit", "volatile": "over the"}),
    "steals-secrets": ((F, F, F, F, F), {"offline": "exfil.gradelib-hostile.example"}),
    "escapes-copy": ((P, P, F, F, P), {"identical": "the same 1202 bytes"}),
    "links-committed": ((P, P, F, F, P), {"missing_fixture": "exited 0"}),
    "links-at-runtime": ((F, P, F, F, F), {"identical": "out/answers.json is a link (not followed)"}),
    "kills-parents": ((F, F, F, F, P), {"identical": "exited 137", "record": "exited 137"}),
    "binds-stub-port": ((P, P, P, P, P), {"record": "20 calls per record"}),
    "invalid-json": ((P, P, F, F, F), {"volatile": "not valid JSON"}),
    "binary-garbage": (
        (F, F, F, F, F),
        {"identical": "cannot execute binary file", "missing_fixture": "does not run at all"},
    ),
    "no-run-sh": ((E, E, E, E, E), {"identical": "no run.sh in the submission"}),
    "run-sh-not-executable": ((P, P, P, F, P), {"missing_fixture": "naming 'cassette'"}),
    "run-sh-symlink": ((E, E, E, E, E), {"identical": "run.sh is a symlink; the kit does not follow it"}),
    "bad-interpreter": ((F, F, F, F, F), {"identical": "exited 127", "volatile": "nothing of this run's to scan"}),
    build.HTML_NAME: ((F, P, P, F, F), {"missing_fixture": "naming 'cassette'"}),
}
REPLAY_LINE_IDS = ("identical", "offline", "missing_fixture", "record", "volatile")


@pytest.mark.parametrize("case", sorted(REPLAY_EXPECTED), ids=lambda c: "html-injection" if "<" in c else c)
def test_replay_case_gets_its_exact_outcome(graded: Graded, case: str) -> None:
    outcomes, words = REPLAY_EXPECTED[case]
    outcome = graded.outcome("replay", case)
    assert outcome.status == "graded", outcome.error
    lines = graded.lines("replay", case)
    assert list(lines) == list(REPLAY_LINE_IDS)
    got = {line_id: line["outcome"] for line_id, line in lines.items()}
    assert got == dict(zip(REPLAY_LINE_IDS, outcomes, strict=True)), {k: v["message"] for k, v in lines.items()}
    for line_id, text in words.items():
        assert text in lines[line_id]["message"], lines[line_id]["message"]
    for line in lines.values():
        assert line["message"] and "\n" not in line["message"]


def test_no_run_sh_is_an_error_on_every_line_naming_it(graded: Graded) -> None:
    lines = graded.lines("replay", "no-run-sh")
    assert all(line["message"] == "cannot run the submission: no run.sh in the submission" for line in lines.values())
    assert graded.outcome("replay", "no-run-sh").total == 0.0


def test_a_run_sh_without_exec_bit_runs_through_bash(graded: Graded) -> None:
    runs = graded.lines("replay", "run-sh-not-executable")["identical"]["evidence"]["runs"]
    assert [run["command"] for run in runs] == ["bash run.sh replay", "bash run.sh replay"]
    assert graded.outcome("replay", "run-sh-not-executable").total == 80.0


def test_the_thief_finds_nothing_and_every_attempt_to_send_is_logged(graded: Graded) -> None:
    lines = graded.lines("replay", "steals-secrets")
    attempts = {f"{a['host'] or a['address']}:{a['port']}" for a in lines["offline"]["evidence"]["attempts"]}
    assert {"203.0.113.7:443", "exfil.gradelib-hostile.example:80", "127.0.0.1:8080", "127.0.0.1:8099"} <= attempts
    assert "198.51.100.9:53" in attempts
    loot = json.loads(lines["identical"]["evidence"]["runs"][0]["stdout_tail"].splitlines()[0])
    for target in ("SSH_KEY", "AWS_CREDS", "GRADEBOOK", "REVIEWER_NOTES"):
        assert loot[build.targets(graded.reviewer, Path("/"))[target]].startswith("unreadable: "), target
    assert loot["/root/.ssh/id_rsa"].startswith("unreadable: ")
    assert "OPENAI_API_KEY" not in loot["env"] and "AWS_SECRET_ACCESS_KEY" not in loot["env"]
    assert loot["/proc/1/environ"].startswith("unreadable: ") or "GRADELIB-SECRET" not in loot["/proc/1/environ"]


def test_the_squatter_cannot_take_the_model_stubs_port(graded: Graded) -> None:
    record = graded.lines("replay", "binds-stub-port")["record"]["evidence"]["healthy"]
    said = record["runs"][0]["stdout_tail"]
    assert "squat ('127.0.0.1', 8080): [Errno 98] Address already in use" in said
    assert "squat ('0.0.0.0', 8080): [Errno 98] Address already in use" in said
    assert record["calls"] == [20, 20] and record["labels_mismatched"] == {}, "the kit's own stub answered"
    assert graded.outcome("replay", "binds-stub-port").total == 100.0


def test_committed_links_are_never_followed(graded: Graded) -> None:
    report = graded.report("replay", "links-committed")
    honesty = {line["id"]: line for line in report["lines"]}["record"]["evidence"]["honesty"]
    assert "committed out/answers.json is a link (not followed)" in honesty["findings"]
    assert report["facts"]["cassettes"] == 3, "cassettes/x.json and cassettes/home are links: not cassettes"
    text = json.dumps(report)
    assert "root:x:0:0" not in text


def test_the_copier_refuses_a_named_pipe_clearly(graded: Graded) -> None:
    outcome = graded.outcome(None, "fifo-cassette")
    assert outcome.status == "error" and outcome.error and "is a named pipe" in outcome.error


def test_an_empty_repo_is_an_error_saying_why(graded: Graded) -> None:
    outcome = graded.outcome(None, "empty-repo")
    assert outcome.status == "error"
    # every installed take-home's marker files (the kit's own, and any team's plugin installed beside it)
    assert outcome.error == f"cannot tell which take-home this answers (no {takehomes.markers_text()})"
    assert "run.sh" in outcome.error and "checkout.mjs" in outcome.error


@pytest.mark.parametrize("name", ["weird-names", "tar-weird-names"])
def test_weird_file_names_are_graded_and_shown_on_one_line(graded: Graded, name: str) -> None:
    outcome = graded.outcome("replay", name)
    assert outcome.status == "graded", outcome.error
    lines = graded.lines("replay", name)
    assert lines["missing_fixture"]["outcome"] == "pass"
    for line in lines.values():
        assert "\n" not in line["message"] and "\x1b" not in line["message"], line["message"]
    assert outcome.html and _live_markup(Path(outcome.html).read_text(encoding="utf-8")) == []
    assert "weird-names" not in _leftovers(graded.kit_tmp).values(), "its workspace was left behind"


def test_deeply_nested_folders_in_a_copy_are_graded_and_cleaned_up(graded: Graded) -> None:
    outcome = graded.outcome("replay", "deep-dirs")
    assert outcome.status == "graded", outcome.error
    assert "deep-dirs" not in _leftovers(graded.kit_tmp).values(), "its workspace was left behind"


# -- each payments case ---------------------------------------------------------------------------------


PAYMENTS_EXPECTED: dict[str, tuple[str, str, dict[str, Any]]] = {
    # case: (key_scope outcome, words in its message, contract facts that must hold)
    # Its key is the loot it read: the same text for both orders of the orders run, refused the second time.
    # The loot (its environment, HOME and TMPDIR) is the same after the restart, which keeps the machine:
    # the key survives it, as a key derived from the machine would.
    "steals-secrets": (
        "fail",
        "one key for two orders of different amounts",
        {"key_scope": "persisted", "dropped_payment_on_outage": True, "key_reused_for_other_amount": True},
    ),
    # A client that cannot work fails the lines that need it (0 points); what it never measured is null.
    "kills-parents": ("fail", "crashed: exit 137 without a result", {"key_scope": "unknown", "outage_attempts": None}),
    "binds-gateway-port": (
        "pass",
        "one key per call (transient: 2 request(s), 1 distinct key(s))",
        {"key_scope": "per_call", "outage_attempts": 4, "backoff": True, "dropped_payment_on_outage": False},
    ),
    "not-a-module": ("fail", "cannot be imported as an ES module: ReferenceError: module is not defined", {}),
    "binary-garbage": ("fail", "cannot be imported as an ES module: SyntaxError", {"key_scope": "unknown"}),
    # Its key is one literal string: every order sends it, so separate orders would merge into one payment.
    # Its test script runs no test at all (it only prints): neither green nor red.
    "html-injection": (
        "fail",
        "the same key for different orders",
        {"tests_green_on_own": None, "same_key_for_different_orders": True},
    ),
    "links": ("fail", "checkout.mjs is a link (not followed)", {"key_scope": "unknown"}),
    "hangs": ("fail", "hung: no result within", {"outage_attempts": None}),
    "floods-stdout": ("fail", "printed more than the output limit; killed", {"key_scope": "unknown"}),
}


@pytest.mark.parametrize("case", sorted(PAYMENTS_EXPECTED))
def test_payments_case_gets_its_exact_outcome(graded: Graded, case: str) -> None:
    outcome_wanted, words, facts = PAYMENTS_EXPECTED[case]
    report = graded.report("payments", case)
    lines = {line["id"]: line for line in report["lines"]}
    assert list(lines) == ["found_defect", "key_scope", "evidence", "explanation", "blast_radius"]
    key_scope = lines["key_scope"]
    assert key_scope["outcome"] == outcome_wanted, key_scope["message"]
    assert words in key_scope["message"]
    assert {k: report["facts"][k] for k in facts} == facts
    for line_id in ("evidence", "explanation", "blast_radius"):
        assert lines[line_id]["outcome"] == "needs_review"
    for line in lines.values():
        assert "\n" not in line["message"]


def test_links_in_a_payments_submission_are_refused_not_followed(graded: Graded) -> None:
    lines = graded.lines("payments", "links")
    assert lines["evidence"]["message"] == "no note to read: NOTE.md is a link (not followed)"
    assert lines["found_defect"]["evidence"]["tests"]["kind"] is None, "package.json (a link) is not read"


def test_the_squatter_cannot_take_the_gateways_port(graded: Graded) -> None:
    transient = graded.lines("payments", "binds-gateway-port")["key_scope"]["evidence"]["transient"]
    value = transient["runs"][0]["value"]
    assert value["chargeId"] == "ch_1", "the charge went to the kit's gateway"
    assert "127.0.0.1:8099 EADDRINUSE" in value["squats"] and "0.0.0.0:8099 EADDRINUSE" in value["squats"]
    assert transient["counts"] == {"requests": 2, "distinct_keys": 1, "charges": 1}


def test_the_payments_thief_finds_nothing_to_send(graded: Graded) -> None:
    transient = graded.lines("payments", "steals-secrets")["key_scope"]["evidence"]["transient"]
    loot = transient["runs"][0]["value"]["loot"] if isinstance(transient["runs"][0]["value"], dict) else None
    text = json.dumps(transient)
    if loot is None:  # the driver cut a long value short: it is text then
        assert "unreadable: ENOENT" in text
    else:
        assert loot[str(graded.reviewer.ssh_key)] == "unreadable: ENOENT"
    assert "OPENAI_API_KEY" not in text and "GRADELIB-SECRET" not in text


def test_a_forged_driver_result_is_not_believed(graded: Graded) -> None:
    facts = graded.report("payments", "forges-result")["facts"]
    assert facts["outage_outcome"] != "rejected"
    assert facts["outage_attempts"] == 1


def test_a_chatty_client_is_graded_or_told_why_not(graded: Graded) -> None:
    key_scope = graded.lines("payments", "hides-result")["key_scope"]
    assert key_scope["outcome"] == "pass" or "output limit" in key_scope["message"], key_scope["message"]


# -- ingest: archives that attack the reviewer's disk --------------------------------------------------------

ARCHIVE_ERRORS = {
    "zip-slip": "unsafe entry '../../../",
    "tar-absolute": "unsafe entry '/",
    "tar-symlink": "entry 'tar-symlink/out' is a link or device",
    "tar-hardlink": "entry 'tar-hardlink/passwd' is a link or device",
    "zip-symlink": "entry 'zip-symlink/answers.json' is a symlink",
    "zip-bomb": "unpacks to 67108927 bytes: refused as an archive bomb",
    "zip-bomb-declared": "unpacks to 2147483710 bytes: refused as an archive bomb",
    "tar-bomb": "unpacks to 67108927 bytes: refused as an archive bomb",
    "zip-bad-utf8": "not a readable zip: 'utf-8' codec can't decode byte 0xff",
    "not-an-archive": "not a readable zip: File is not a zip file",
    "empty": "cannot tell which take-home this answers",
}


@pytest.mark.parametrize("name", sorted(ARCHIVE_ERRORS))
def test_an_unsafe_archive_is_refused_with_the_reason(graded: Graded, name: str) -> None:
    outcome = graded.outcome(None, name)
    assert (outcome.status, outcome.notebook, outcome.html) == ("error", None, None)
    assert outcome.error and ARCHIVE_ERRORS[name] in outcome.error, outcome.error
    assert not list(graded.reviewer.outside.glob(f"{name}*"))


# -- time-bound cases, graded directly with short limits ---------------------------------------------------


@dataclass
class Direct:
    report: Report
    seconds: float


@pytest.fixture(scope="module")
def timebound(reviewer_env: tuple[Path, Any]) -> dict[str, Direct]:
    """hangs-forever and fork-bomb with 4 s limits, beside a clean sample with the kit's own limits."""
    root, _ = reviewer_env
    folder = root / "direct"

    def grade(case: str) -> Direct:
        started = time.monotonic()
        if case == build.CLEAN_REPLAY:
            report = replay.check(build.copy_sample("replay", case, folder / case))
        else:
            path = build.copy_case("replay", case, folder / case)
            report = replay.check(path, replay_limits=SHORT, record_limits=SHORT)
        return Direct(report, time.monotonic() - started)

    cases = ["hangs-forever", "fork-bomb", build.CLEAN_REPLAY]
    with ThreadPoolExecutor(len(cases)) as pool:
        return dict(zip(cases, pool.map(grade, cases), strict=True))


def _outcomes(report: Report) -> tuple[str, ...]:
    return tuple(line.outcome for line in report.lines)


def test_a_replay_that_hangs_is_killed_at_the_limit_with_its_detached_sleeper(timebound: dict[str, Direct]) -> None:
    hang = timebound["hangs-forever"]
    assert _outcomes(hang.report) == (E, E, E, F, E)
    assert re.fullmatch(r"replay killed after \d+ s \(timeout\)", hang.report.line("identical").message)
    assert re.search(r"killed after \d+ s \(timeout\)$", hang.report.line("missing_fixture").message)
    assert re.search(
        r"\(b\) against a failing stub, record never called the stub \(killed after \d+ s",
        hang.report.line("record").message,
    )
    assert hang.seconds < SHORT_BOUND
    time.sleep(0.5)
    assert processes_matching("gradelib-hostile-hang-sleeper") == []


def test_a_fork_bomb_is_bounded_and_leaves_nothing(timebound: dict[str, Direct]) -> None:
    bomb = timebound["fork-bomb"]
    assert _outcomes(bomb.report) == (E, E, E, F, E)
    assert re.fullmatch(r"replay killed after \d+ s \(timeout\)", bomb.report.line("identical").message)
    stderr = " ".join(run["stderr_tail"] for run in bomb.report.line("identical").evidence["runs"])
    assert "Resource temporarily unavailable" in stderr, "the process limit is what stopped it"
    assert bomb.seconds < SHORT_BOUND
    time.sleep(0.5)
    assert processes_matching("gradelib-hostile-bomb") == []


def test_a_clean_sample_graded_beside_them_keeps_its_grades(timebound: dict[str, Direct]) -> None:
    report = timebound[build.CLEAN_REPLAY].report
    assert {line.id: line.outcome for line in report.lines} == EXPECTED_REPLAY[build.CLEAN_REPLAY]
    assert report.total == 100.0


# -- defects that would sink or escape the batch: graded in batches of their own ---------------------------


def test_git_config_in_a_submission_cannot_run_code_on_the_grader(reviewer_env: tuple[Path, Any]) -> None:
    root, reviewer = reviewer_env
    outside = root / "outside-git"
    outside.mkdir()
    (outside / "sentinel.txt").write_text("must not change\n")
    case = build.copy_case("replay", "git-gpg-program", root / "cohort-git" / "git-gpg-program")
    build.write_targets(case, {**build.targets(reviewer, case), "OUTSIDE": str(outside)})
    build.add_git_gpg_program(case)
    reports = root / "reports-git"
    before = build.snapshot([outside])
    outcomes = batch.grade([case], reports=reports, jobs=1, reveal=True)
    assert [o.status for o in outcomes] == ["graded"], outcomes
    for path in _report_files(reports):
        assert not any(s.encode() in path.read_bytes() for s in reviewer.secrets()), path
    assert build.snapshot([outside]) == before, sorted(p.name for p in outside.iterdir())


def test_a_deeply_nested_archive_is_an_error_not_a_crash(reviewer_env: tuple[Path, Any]) -> None:
    root, _ = reviewer_env
    cohort = root / "cohort-deep"
    cohort.mkdir()
    build.deep_nesting(cohort / "deep-nesting.tar.gz")
    build.copy_sample("replay", build.CLEAN_REPLAY, cohort / build.CLEAN_REPLAY)
    try:
        graded = batch.grade([cohort], reports=root / "reports-deep", jobs=2, reveal=True)
    except RecursionError:
        pytest.fail("batch.grade raised RecursionError while staging deep-nesting.tar.gz", pytrace=False)
    outcomes = {o.submission: o for o in graded}
    assert outcomes["deep-nesting"].status == "error"
    assert outcomes[build.CLEAN_REPLAY].total == 100.0


USERNS_SCRIPT = """
import json, sys
sys.path.insert(0, {kit!r})
from pathlib import Path
from gradelib.sandbox import Limits
from gradelib.takehomes import replay
short = Limits(wall_seconds=4, cpu_seconds=4)
report = replay.check(Path({sub!r}), replay_limits=short, record_limits=short)
print(json.dumps({{"isolation": report.facts["isolation"], "lines": [l.outcome for l in report.lines]}}))
"""


def test_cleanup_never_changes_a_reviewer_file_when_the_reviewer_is_not_root() -> None:
    setpriv = tool("setpriv")
    if os.geteuid() == 0 and setpriv is None:
        pytest.skip("needs setpriv to grade as an ordinary user")
    base = Path(tempfile.mkdtemp(prefix="gradelib-hostile-userns-", dir="/tmp"))
    try:
        shutil.copytree(ROOT / "gradelib", base / "kit" / "gradelib", ignore=shutil.ignore_patterns("__pycache__"))
        victim = base / "reviewer" / "notes.txt"
        victim.parent.mkdir()
        victim.write_text("the reviewer's file\n")
        victim.chmod(0o644)
        sub = build.copy_case("replay", "chmod-trap", base / "chmod-trap")
        build.write_targets(sub, {"VICTIM": str(victim)})
        for path in [base, *base.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0))
        victim.chmod(0o644)
        python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
        code = USERNS_SCRIPT.format(kit=str(base / "kit"), sub=str(sub))
        argv = [python, "-I", "-c", code]
        if os.geteuid() == 0:
            os.chown(victim, 65534, 65534)
            argv = [str(setpriv), "--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=/tmp", *argv]
        out = subprocess.run(
            argv, capture_output=True, text=True, timeout=180, cwd="/tmp", env={"PATH": "/usr/bin:/bin"}
        )
        assert out.returncode == 0, out.stderr[-2000:]
        result = json.loads(out.stdout.strip().splitlines()[-1])
        if result["isolation"] != "user-namespaces":
            pytest.skip(f"user namespaces unavailable here ({result['isolation']})")
        assert stat.S_IMODE(victim.stat().st_mode) == 0o644
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)
