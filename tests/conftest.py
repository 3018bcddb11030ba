"""Shared fixtures: small submissions written on the fly, the sample cohort's location, the e2e marker by folder.

Unit tests live in `tests/unit/`, end-to-end tests (real submissions through the real sandbox,
papermill, installers or a browser) in `tests/e2e/`; every test there is marked `e2e`, and a
test marked `e2e` anywhere else is a usage error, so `-m e2e` and the folder always agree.
"""

from __future__ import annotations

import os
import stat
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from plugin_site import installed
from sample_cohort import GradedCohort, grade_samples

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SAMPLES = ROOT / "submissions"
E2E = TESTS / "e2e"
E2E_MARK = "e2e"
# Candidates' submissions, some with test suites of their own: untrusted code, run only in the sandbox.
collect_ignore = ["e2e/packaging", "e2e/hostile"]


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test under tests/e2e as e2e; refuse an e2e mark outside it."""
    misplaced = []
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(E2E_MARK)
        elif item.get_closest_marker(E2E_MARK):
            misplaced.append(item.nodeid)
    if misplaced:
        raise pytest.UsageError(f"marked {E2E_MARK} outside {E2E.relative_to(ROOT)}/: {', '.join(misplaced)}")


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write {relative path: text} under root; `run.sh` and `*.sh` become executable."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        if rel.endswith(".sh"):
            path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return root


@pytest.fixture
def make_submission(tmp_path: Path) -> Callable[[str, dict[str, str]], Path]:
    """Build a throwaway submission folder from a dict of files."""

    def make(name: str, files: dict[str, str]) -> Path:
        return write_tree(tmp_path / name, files)

    return make


@pytest.fixture(autouse=True)
def _reviewer_secret(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs with a reviewer credential set, which must never reach candidate code."""
    secret = "sk-reviewer-secret-do-not-leak"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    return secret


@pytest.fixture(autouse=True)
def _kit_settings_restored() -> Iterator[None]:
    """`gradelib.cli.main` exports its settings into os.environ (the kernels it starts inherit them): what a
    test's command set there is undone after it, so no later test grades against an index or a cache
    folder that test made (and removed)."""
    before = {name: value for name, value in os.environ.items() if name.startswith("GRADELIB_")}
    yield
    for name in [name for name in os.environ if name.startswith("GRADELIB_") and name not in before]:
        del os.environ[name]
    os.environ.update(before)


def processes_matching(marker: str) -> list[int]:
    """PIDs whose command line contains marker."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = (Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(int(pid))
    return found


@pytest.fixture(scope="module")
def tiny_takehome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The test-only `tiny` take-home (tests/tinytakehome), registered through an entry point for one module."""
    with installed(tmp_path_factory.mktemp("tiny-site")) as takehome:
        yield takehome


def tiny_submission(root: Path, answer: str = "42") -> Path:
    """A `tiny` submission folder: its answer file (42 passes, anything else fails)."""
    return write_tree(root, {"answer.txt": answer + "\n"})


@pytest.fixture(scope="session")
def graded_samples(tmp_path_factory: pytest.TempPathFactory) -> GradedCohort:
    """The sample cohort graded once per session by the real batch, names revealed; read it, never write it."""
    return grade_samples(SAMPLES, tmp_path_factory.mktemp("samples") / "reports")
