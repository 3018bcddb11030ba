"""A run that failed because of the grading machine (a missing command, a declared package that will not load)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import Environment, read_declaration
from gradelib.sandbox import Isolation, RunResult
from gradelib.takehomes import kitfault


def result(exit_code: int | None, stderr: str, *, timed_out: bool = False) -> RunResult:
    return RunResult(
        argv=("./run.sh", "replay"), cwd="<submission>", exit_code=exit_code, timed_out=timed_out, stopped=False,
        output_limit_hit=False, duration=0.1, stdout="", stderr=stderr, stdout_bytes=0, stderr_bytes=len(stderr),
        connections=(), dns_names=(), opened=(), isolation=Isolation("root-namespaces", "test"), traced=True,
    )  # fmt: skip


NOTHING = Environment()


@pytest.mark.parametrize(
    ("stderr", "name"),
    [
        ("./run.sh: line 2: exec: uv: not found\n", "uv"),
        ("./run.sh: line 7: poetry: command not found\n", "poetry"),
        ("sh: 1: vitest: not found\n", "vitest"),
        ("/usr/bin/env: 'bun': No such file or directory\n", "bun"),
        ("/usr/bin/env: ‘python3.13’: No such file or directory\n", "python3.13"),
        ("gradelib: npx cowsay: cowsay is not installed in node_modules\ngradelib: x: command not found\n", "x"),
    ],
)
def test_a_missing_command_is_the_machines_fault(stderr: str, name: str) -> None:
    why = kitfault.explain(result(127, stderr), NOTHING)
    assert why is not None and f"`{name}` is not on the grading machine" in why


def test_a_missing_file_of_the_submission_is_the_candidates_fault() -> None:
    assert kitfault.explain(result(127, "./run.sh: line 3: ./bin/triage: No such file or directory\n"), NOTHING) is None


@pytest.mark.parametrize(
    "run",
    [result(1, "uv: command not found"), result(0, ""), result(None, "sh: 1: x: not found", timed_out=True)],
    ids=["exit-1", "ok", "timeout"],
)
def test_other_failures_are_not_the_machines(run: RunResult) -> None:
    assert kitfault.explain(run, NOTHING) is None


def test_a_declared_package_that_does_not_import_is_the_kits_fault(tmp_path: Path) -> None:
    package = json.dumps({"dependencies": {"undici": "^6"}})
    write_tree(tmp_path, {"requirements.txt": "python-dotenv>=1\nopenai\n", "package.json": package})
    environment = Environment(read_declaration(tmp_path))
    traceback = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'openai.types'\n"
    assert "providing `openai`" in (kitfault.explain(result(1, traceback), environment) or "")
    undeclared = "ModuleNotFoundError: No module named 'requests'\n"
    assert kitfault.explain(result(1, undeclared), environment) is None
    node = "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'undici' imported from /x/src/live.mjs\n"
    assert "`undici`" in (kitfault.explain(result(1, node), environment) or "")
    assert kitfault.explain(result(1, node.replace("undici", "axios")), environment) is None
