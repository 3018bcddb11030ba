"""Submissions packaged, run and tested the way candidates do, graded by the real batch, installers and sandbox.

The cohort in `tests/e2e/packaging/` (real lockfiles made by uv, Poetry, pipenv, npm, pnpm and
yarn; no node_modules or virtualenvs) is graded once for this module; each folder is a correct
solution or has the facts `expected_packaging.toml` names. The other tests write what goes wrong
on the grading machine or in a build, and check that it is an `error` with the reason, never a
`fail`. These tests reach PyPI and the npm registry, as CI does.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLES, write_tree
from sample_cohort import GradedCohort, grade_samples

from gradelib import cli
from gradelib.environment import npm
from gradelib.takehomes.rubric import default_rubric

pytestmark = pytest.mark.e2e

PACKAGING = Path(__file__).parent / "packaging"
EXPECTED: dict[str, dict[str, dict[str, Any]]] = tomllib.loads(
    (Path(__file__).parent / "expected_packaging.toml").read_text()
)
FOLDERS = {"replay": ("replay", "replay-node"), "payments": ("payments",)}
CASES = [(takehome, name) for takehome, names in EXPECTED.items() for name in names]
AMARA = SAMPLES / "replay" / "amara-okafor"
RUN_SH = '#!/usr/bin/env bash\nset -euo pipefail\ncd "$(dirname "$0")"\nexec {command} "$1"\n'
REPLAY_LINES = default_rubric("replay").line_ids
VARYING = {"duration_s", "install_seconds", "build_seconds", "cache", "time", "gaps_ms", "gaps_ms_per_run"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> GradedCohort:
    return grade_samples(PACKAGING, tmp_path_factory.mktemp("packaging") / "reports")


def test_every_folder_has_its_expectations() -> None:
    found = {
        (takehome, path.name)
        for takehome, folders in FOLDERS.items()
        for folder in folders
        for path in (PACKAGING / folder).iterdir()
        if path.is_dir()
    }
    assert found == set(CASES)


def _environment(graded: GradedCohort, takehome: str, name: str) -> dict[str, Any]:
    environment: dict[str, Any] = graded.result(takehome, name)["environment"]
    assert environment["error"] is None, environment["error"]
    return environment


def _honoured(environment: dict[str, Any]) -> list[str]:
    return [lock["file"] for lock in environment["lockfiles"] if lock["honoured"]]


@pytest.mark.parametrize("name", sorted(EXPECTED["replay"]))
def test_a_correct_replay_packaged_another_way_passes_every_line(graded: GradedCohort, name: str) -> None:
    expected = EXPECTED["replay"][name]
    report = graded.report("replay", name)
    assert {line.id: line.outcome for line in report.lines} == dict.fromkeys(REPLAY_LINES, "pass"), [
        line.message for line in report.lines
    ]
    environment = _environment(graded, "replay", name)
    project = environment["project"]
    assert (project or {}).get("name") == expected.get("project")
    if project:
        assert project["installed"] and project["backend"] and project["why"]
    assert _honoured(environment) == ([expected["lockfile"]] if "lockfile" in expected else [])
    assert _set_up_by(environment) == expected.get("setup")
    assert _own_steps(environment) == expected.get("steps", [])
    assert _tools(environment) == expected.get("tools", [])


def _own_steps(environment: dict[str, Any]) -> list[str]:
    """The submission's own setup commands the kit ran (`make setup`), in order."""
    return [step["command"] for step in (environment.get("setup_steps") or {}).get("steps") or []]


def _tools(environment: dict[str, Any]) -> list[str]:
    """The table's tools its run commands name, on the runs' PATH (`just 1.59.0`)."""
    return [f"{tool['tool']} {tool['version']}" for tool in environment.get("tools") or []]


def _set_up_by(environment: dict[str, Any]) -> str | None:
    """`pnpm 9.15.9`: the real tool that set the submission up, when it was not the kit's own installers."""
    found = [f"{i['setup']['tool']} {i['setup']['version']}" for i in environment["installed"] if i.get("setup")]
    assert len(found) <= 1, found
    return found[0] if found else None


@pytest.mark.parametrize("name", sorted(EXPECTED["payments"]))
def test_payments_suites_are_read_with_their_own_runner(graded: GradedCohort, name: str) -> None:
    expected = dict(EXPECTED["payments"][name])
    result = graded.result("payments", name)
    facts = result["facts"]
    found_defect = next(line for line in result["lines"] if line["id"] == "found_defect")
    assert found_defect["evidence"]["tests"]["runner"] == expected.pop("runner")
    if lockfile := expected.pop("lockfile", None):
        assert _honoured(_environment(graded, "payments", name)) == [lockfile]
    if setup := expected.pop("setup", None):
        assert _set_up_by(_environment(graded, "payments", name)) == setup
    assert _own_steps(_environment(graded, "payments", name)) == expected.pop("steps", [])
    tests = found_defect["evidence"]["tests"]
    stub = expected.pop("handout_stub", False)  # run again beside the handout's stub, and only then
    assert (tests["handout_stub"] is not None) == stub and tests["own"]["with_handout_stub"] == stub
    assert {key: facts[key] for key in expected} == expected, found_defect["message"]
    assert found_defect["outcome"] == "pass" and found_defect["tier"] == "strong"


def test_a_mocha_suite_red_on_the_draft_is_read_as_red(graded: GradedCohort) -> None:
    tests = graded.result("payments", "priya-raman")["lines"][0]["evidence"]["tests"]
    assert tests["draft"]["run"]["exit_code"] == 5  # mocha exits with the number of failed tests
    assert len(tests["draft"]["failed"]) == 5
    assert tests["draft"]["read_as"] == "json"


def test_a_key_kept_in_the_temp_folder_survives_the_restart(graded: GradedCohort) -> None:
    restart = graded.result("payments", "omar-haddad")["lines"][1]["evidence"]["restart"]
    assert restart["counts"] == {"requests": 2, "distinct_keys": 1, "charges": 1}


def _replay_like(root: Path, files: dict[str, str]) -> Path:
    """A correct replay solution (a sample's code) packaged or started as `files` say."""
    shutil.copytree(AMARA, root, symlinks=True)
    return write_tree(root, files)


def _check(takehome: str, path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert cli.main(["check", takehome, str(path), "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def test_a_project_whose_build_fails_is_an_error_naming_its_backend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = """
        [build-system]
        requires = ["hatchling"]
        build-backend = "hatchling.build"

        [project]
        name = "ticket-bot"
        version = "0.1.0"

        [project.scripts]
        ticket-bot = "triage:main"
    """
    run_sh = RUN_SH.format(command="ticket-bot")
    document = _check(
        "replay", _replay_like(tmp_path / "ticket-bot", {"pyproject.toml": pyproject, "run.sh": run_sh}), capsys
    )
    assert {line["outcome"] for line in document["lines"]} == {"error"}
    message = document["lines"][0]["message"]
    assert "building the project ticket-bot with its build backend hatchling.build failed" in message
    assert "Unable to determine which files to ship" in message  # the build's own last lines


def test_a_command_missing_on_the_grading_machine_is_an_error_not_a_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool the kit's table lacks (conda cannot be had from the registries here), named by run.sh."""
    run_sh = RUN_SH.format(command="conda run python -B triage.py")
    document = _check("replay", _replay_like(tmp_path / "conda-user", {"run.sh": run_sh}), capsys)
    assert {line["outcome"] for line in document["lines"]} == {"error"}
    assert all("`conda` is not on the grading machine" in line["message"] for line in document["lines"])


def test_a_setup_step_that_installs_into_the_active_environment_runs_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make install` = `pip install -r requirements.txt` into whatever environment is active: the kit's
    (read-only to every run) is writable to the step through an overlay whose writes are dropped."""
    files = {
        "requirements.txt": "six\n",
        "Makefile": "install:\n\tpip install -r requirements.txt\n\tpip install six\n",
        "README.md": "# Triage\n\n## Setup\n\n```\nmake install\n./run.sh replay\n```\n",
    }
    document = _check("replay", _replay_like(tmp_path / "make-install", files), capsys)
    assert {line["outcome"] for line in document["lines"]} == {"pass"}, [line["message"] for line in document["lines"]]
    assert _own_steps(document["environment"]) == ["make install"]


@pytest.mark.parametrize(
    ("scripts", "setup", "step"),
    [
        ({}, "npm ci\nnpx tsc -p tsconfig.json", "npx tsc -p tsconfig.json"),
        ({"prepare": "tsc -p tsconfig.json"}, "npm ci", "npm run prepare"),
    ],
    ids=["npx-tsc-in-readme", "prepare-script"],
)
def test_typescript_built_the_way_the_readme_or_npm_ci_builds_it_is_set_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scripts: dict[str, str], setup: str, step: str
) -> None:
    """TypeScript compiled by `npx tsc` as the README says, or by the root's `prepare` script that a reviewer's
    `npm ci` runs, with no build script: without the step, run.sh stops at "dist/ not built" and every line
    would be the candidate's fail."""
    root = tmp_path / "tsc-built"
    shutil.copytree(PACKAGING / "replay-node" / "marta-kowalczyk", root)
    package = json.loads((root / "package.json").read_text())
    del package["scripts"]["build"]
    package["scripts"] |= scripts
    readme = f"# triage\n\n## Setup\n\n```sh\n{setup}\n```\n\nthen `./run.sh replay`.\n"
    write_tree(root, {"package.json": json.dumps(package, indent=2), "README.md": readme})
    document = _check("replay", root, capsys)
    assert {line["outcome"] for line in document["lines"]} == {"pass"}, [line["message"] for line in document["lines"]]
    assert _own_steps(document["environment"]) == [step]


MAKES_VENV = """#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
python3 -m venv {venv}
source {venv}/bin/activate
pip install -q {install}
python -c "import six"
exec python -B triage.py "$1"
"""


@pytest.mark.parametrize("venv", [".venv", "venv"])
def test_a_run_that_makes_its_own_virtualenv_and_pip_installs_finds_what_the_setup_installed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], venv: str
) -> None:
    """run.sh makes a virtualenv and installs requirements.txt into it on every run, offline in grading: the
    kit's environment is seen there, writable to each run (its writes dropped), so pip finds it satisfied."""
    run_sh = MAKES_VENV.format(venv=venv, install="-r requirements.txt")
    files = {"requirements.txt": "six==1.17.0\n", "run.sh": run_sh}
    document = _check("replay", _replay_like(tmp_path / "own-venv", files), capsys)
    assert {line["outcome"] for line in document["lines"]} == {"pass"}, [line["message"] for line in document["lines"]]


def test_a_virtualenv_the_readme_makes_and_run_sh_activates_is_the_kits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """README: `python3 -m venv venv`, `pip install -r requirements.txt`; run.sh: `source venv/bin/activate`."""
    readme = "# Triage\n\n## Setup\n\n```\npython3 -m venv venv\nvenv/bin/pip install -r requirements.txt\n```\n"
    run_sh = RUN_SH.replace(
        "exec {command}", "source venv/bin/activate\npython -c 'import six'\nexec python -B triage.py"
    )
    files = {"requirements.txt": "six==1.17.0\n", "run.sh": run_sh, "README.md": readme}
    document = _check("replay", _replay_like(tmp_path / "readme-venv", files), capsys)
    assert {line["outcome"] for line in document["lines"]} == {"pass"}, [line["message"] for line in document["lines"]]


def test_a_run_that_pip_installs_what_nothing_declares_is_the_candidates_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_sh = MAKES_VENV.format(venv=".venv", install="-r requirements.txt rich")
    files = {"requirements.txt": "six==1.17.0\n", "run.sh": run_sh}
    document = _check("replay", _replay_like(tmp_path / "own-venv-rich", files), capsys)
    assert {line["outcome"] for line in document["lines"]} == {"fail"}
    assert "installs `rich` at run time, which nothing in the submission declares" in document["lines"][0]["message"]


SETUPS = Path(__file__).parent / "setups"


def test_a_newer_node_than_the_machines_is_an_error_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`.nvmrc` 22, `engines` >=22.6, `node --experimental-strip-types src/main.ts`: on an older Node the run
    dies of the grading machine's Node, never the candidate's code."""
    root = shutil.copytree(SETUPS / "node-newer", tmp_path / "node-newer")
    document = _check("replay", root, capsys)
    machine = npm.node_version()
    if tuple(int(part) for part in machine.lstrip("v").split(".")[:2]) >= (22, 6):
        assert {line["outcome"] for line in document["lines"]} == {"pass"}
        return
    assert {line["outcome"] for line in document["lines"]} == {"error"}
    assert all(
        line["message"].startswith(f"the submission asks for Node 22 (.nvmrc); the grading machine runs {machine}")
        for line in document["lines"]
    ), [line["message"] for line in document["lines"]]


def test_a_declared_native_addon_is_an_error_not_a_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """better-sqlite3, whose install script builds its addon: the kit runs no dependency's install script."""
    root = shutil.copytree(SETUPS / "native-addon", tmp_path / "native-addon")
    document = _check("replay", root, capsys)
    assert {line["outcome"] for line in document["lines"]} == {"error"}
    assert all(
        line["message"].startswith("`better-sqlite3` (declared in package.json) is a native addon")
        for line in document["lines"]
    ), [line["message"] for line in document["lines"]]


def test_a_tool_of_the_table_that_run_sh_names_is_on_the_runs_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """bun, provisioned from the npm registry because run.sh runs it, with nothing else naming it."""
    run_sh = RUN_SH.replace("exec {command}", "bun --version >&2\nexec python3 -B triage.py")
    document = _check("replay", _replay_like(tmp_path / "bun-named", {"run.sh": run_sh}), capsys)
    assert {line["outcome"] for line in document["lines"]} == {"pass"}
    [tool] = document["environment"]["tools"]
    assert (tool["tool"], tool["why"]) == ("bun", "run.sh runs `bun`")


def test_a_declared_package_the_program_cannot_import_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # run.sh names the system interpreter outright: the kit's environment (with `tenacity`) is not what runs
    run_sh = RUN_SH.format(command='/usr/bin/python3 -c "import tenacity"')
    document = _check(
        "replay", _replay_like(tmp_path / "system-python", {"run.sh": run_sh, "requirements.txt": "tenacity\n"}), capsys
    )
    assert {line["outcome"] for line in document["lines"]} == {"error"}
    assert document["lines"][0]["message"] == (
        "the run could not import `tenacity`, which tenacity provides in the environment the kit set up:"
        " No module named 'tenacity'"
    )


def test_uv_asked_to_install_at_run_time_fails_in_uvs_own_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`uv run --with rich` is the kit's real uv, offline in the run: the candidate's program asks for the
    network the handout forbids, and the evidence carries uv's own reason."""
    run_sh = RUN_SH.format(command="uv run --with rich python3 -B triage.py")
    document = _check("replay", _replay_like(tmp_path / "with-rich", {"run.sh": run_sh}), capsys)
    identical = document["lines"][0]
    assert identical["outcome"] == "fail"
    assert "network was disabled" in json.dumps(identical["evidence"])


def test_a_suite_that_exits_non_zero_with_no_failure_read_is_never_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = PACKAGING / "payments" / "elena-vasquez"
    copy = tmp_path / "exits-7"
    shutil.copytree(source, copy, symlinks=True)
    package = json.loads((copy / "package.json").read_text())
    package["scripts"]["test"] = "npx --no-install mocha --reporter spec; exit 7"  # the runner is not its last command
    (copy / "package.json").write_text(json.dumps(package, indent=2))
    document = _check("payments", copy, capsys)
    assert document["facts"]["tests_green_on_own"] is None and document["facts"]["tests_red_on_draft"] is None
    found_defect = document["lines"][0]
    assert found_defect["outcome"] == "needs_review" and found_defect["tier"] is None
    assert "exit 7, but no failed test could be read" in found_defect["message"]


def _comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value


def test_a_built_project_graded_from_two_folders_gives_the_same_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = []
    for parent in ("first", "second/deeper"):
        copy = tmp_path / parent / "thabo-nkosi"
        shutil.copytree(PACKAGING / "replay" / "thabo-nkosi", copy, symlinks=True)
        documents.append(_comparable(_check("replay", copy, capsys)))
    assert documents[0] == documents[1]
    assert documents[0]["environment"]["project"]["editable"] is True
    assert str(tmp_path) not in json.dumps(documents[0])
