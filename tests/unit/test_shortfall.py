"""The one rule: a run that died on something the submission declares is the kit's `error`; on something
nothing declares, the candidate's `fail` (and a pass resting on such a run is no pass)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import write_tree

from gradelib.cached import cached
from gradelib.environment import Environment, inventory, read_declaration
from gradelib.environment.declarationrecords import Reader
from gradelib.result import LineResult, Outcome
from gradelib.sandbox import Isolation, RunResult
from gradelib.takehomes import shortfall
from gradelib.takehomes.basegrading import BaseGrading
from gradelib.takehomes.linecheck import line
from gradelib.takehomes.rubric import load_rubric


def result(exit_code: int | None, stderr: str, *, timed_out: bool = False, stdout: str = "") -> RunResult:
    return RunResult(
        argv=("./run.sh", "replay"), cwd="<submission>", exit_code=exit_code, timed_out=timed_out, stopped=False,
        output_limit_hit=False, duration=0.1, stdout=stdout, stderr=stderr, stdout_bytes=len(stdout),
        stderr_bytes=len(stderr), connections=(), dns_names=(), opened=(),
        isolation=Isolation("root-namespaces", "test"), traced=True,
    )  # fmt: skip


def environment_of(root: Path, **setup: Any) -> Environment:
    """The environment the kit knows after a setup that installed `installed_python` (nothing by default)."""
    declaration = read_declaration(root)
    declared = [(d.name, d.file) for d in declaration.declared()]
    python = [(n, f) for n, f in declared if f != "package.json"]
    node = [(n, f) for n, f in declared if f == "package.json"]
    taken = inventory.take(
        root, python=python + setup.get("requires", []), node=node, direct_python=setup.get("direct", []),
        installed_python=setup.get("installed_python", ()), installed_node=setup.get("installed_node", ()),
    )  # fmt: skip
    return Environment(declaration, inventory=taken)


def why(run: RunResult, environment: Environment) -> tuple[bool, str] | None:
    found = shortfall.missing_in(run, environment)
    return None if found is None else (found.kit, found.why)


NO_REQUESTS = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'requests'\n"


@pytest.mark.parametrize(
    ("stderr", "name"),
    [
        ("./run.sh: line 2: exec: uv: not found\n", "uv"),
        ("./run.sh: line 7: poetry: command not found\n", "poetry"),
        ("sh: 1: vitest: not found\n", "vitest"),
        ("/usr/bin/env: 'bun': No such file or directory\n", "bun"),
        ("/usr/bin/env: ‘python3.13’: No such file or directory\n", "python3.13"),
    ],
)
def test_a_command_the_files_name_is_the_kits_shortfall(tmp_path: Path, stderr: str, name: str) -> None:
    write_tree(tmp_path, {"run.sh": f'#!/bin/sh\nexec {name} main.ts "$1"\n'})
    assert why(result(127, stderr), environment_of(tmp_path)) == (
        True,
        f"`{name}` is not on the grading machine, nor set up from what the submission declares (exit 127):"
        " the kit cannot run the submission as its README says",
    )


def test_a_command_nothing_names_is_the_candidates(tmp_path: Path) -> None:
    write_tree(tmp_path, {"run.sh": "#!/bin/sh\nexec python3 main.py\n"})
    assert why(result(127, "sh: 1: frobnicate: not found\n"), environment_of(tmp_path)) == (
        False,
        "runs `frobnicate`, which nothing in the submission names or declares",
    )


def test_a_missing_file_of_the_submission_is_judged_as_it_is(tmp_path: Path) -> None:
    missing = result(127, "./run.sh: line 3: ./bin/triage: No such file or directory\n")
    assert why(missing, environment_of(tmp_path)) is None


@pytest.mark.parametrize(
    "run",
    [result(1, "uv: command not found"), result(0, NO_REQUESTS), result(None, "sh: 1: x: not found", timed_out=True)],
    ids=["exit-1", "ok", "timeout"],
)
def test_other_failures_are_nobodys_shortfall(tmp_path: Path, run: RunResult) -> None:
    assert why(run, environment_of(tmp_path)) is None


def test_a_module_of_a_declared_distribution_is_the_kits_shortfall(tmp_path: Path) -> None:
    write_tree(tmp_path, {"requirements.txt": "PyYAML>=6\nrequests>=2\n"})
    environment = environment_of(tmp_path)
    assert why(result(1, NO_REQUESTS), environment) == (
        True,
        "the kit's setup left out requests (declared in requirements.txt): No module named 'requests'",
    )
    no_yaml = result(1, "ModuleNotFoundError: No module named 'yaml'\n")
    assert why(no_yaml, environment) == (
        True,
        "the kit's setup left out pyyaml (declared in requirements.txt): No module named 'yaml'",
    )


def test_a_module_nothing_declares_is_the_candidates(tmp_path: Path) -> None:
    write_tree(tmp_path, {"requirements.txt": "httpx\n"})
    assert why(result(1, NO_REQUESTS), environment_of(tmp_path, installed_python=["httpx"])) == (
        False,
        "imports `requests`, which nothing in the submission declares",
    )


def test_a_runs_own_pip_install_offline_of_a_declared_package_is_the_kits_and_of_another_the_candidates(
    tmp_path: Path,
) -> None:
    """run.sh's own `pip install` into a virtualenv it makes, offline: what the submission declares a reviewer's
    run would have had; what it does not, the candidate's run asks the network for."""
    write_tree(tmp_path, {"requirements.txt": "Requests==2.32.3\n"})
    environment = environment_of(tmp_path, installed_python=["requests"])
    pip_said = (
        "ERROR: Could not find a version that satisfies the requirement {0}\n"
        "ERROR: No matching distribution found for {0}\n"
    )
    assert why(result(1, pip_said.format("requests==2.32.3")), environment) == (
        True,
        "the run installs requests (declared in requirements.txt) itself, and the kit's setup left it no copy to"
        " install offline: No matching distribution found for requests",
    )
    assert why(result(1, pip_said.format("rich")), environment) == (
        False,
        "installs `rich` at run time, which nothing in the submission declares",
    )


def test_a_runs_own_npm_ci_offline_of_a_locked_package_is_the_kits_and_of_another_the_candidates(
    tmp_path: Path,
) -> None:
    packages = {
        "": {"dependencies": {"undici": "^6"}},
        "node_modules/undici": {"version": "6.1.0"},
        "node_modules/@types/node": {"version": "20.1.0"},
    }
    lock = {"lockfileVersion": 3, "packages": packages}
    write_tree(tmp_path, {
        "package.json": json.dumps({"dependencies": {"undici": "^6"}}), "package-lock.json": json.dumps(lock),
    })  # fmt: skip
    environment = environment_of(tmp_path)
    npm_said = (
        "npm error code ENOTCACHED\nnpm error request to https://registry.npmjs.org/{0} failed: cache mode is"
        " 'only-if-cached' but no cached response is available.\n"
    )
    found = why(result(1, npm_said.format("@types%2fnode")), environment)
    assert found is not None and found[0] is True
    assert found[1].startswith("the run installs `@types/node` (declared in package-lock.json) itself, offline")
    assert why(result(1, npm_said.format("left-pad")), environment) == (
        False,
        "installs `left-pad` at run time, which nothing in the submission declares",
    )


@pytest.mark.parametrize(
    ("run_sh", "venvs"),
    [
        ("python3 -m venv .venv\n. .venv/bin/activate\n", (".venv",)),
        ("[ -d venv ] || python3 -m venv --upgrade-deps venv && venv/bin/pip install -r requirements.txt\n", ("venv",)),
        ("virtualenv -p python3 env\n", ("env",)),
        ("uv venv\n", (".venv",)),
        ('python3 -m venv /tmp/v\npython3 -m venv ../up\npython3 -m venv "$HOME/v"\npython3 -m venv a/b\n', ()),
        ("python3 main.py  # no venv here\n", ()),
        ('VENV="${VENV:-x}"\nENV_DIR=.env-py\npython3 -m venv "$ENV_DIR"\n', (".env-py",)),
    ],
    ids=["dot-venv", "venv-guarded", "virtualenv", "uv-venv", "outside-or-nested", "none", "variable"],
)
def test_the_virtualenvs_a_run_makes_at_the_top_of_its_copy_are_found(
    tmp_path: Path, run_sh: str, venvs: tuple[str, ...]
) -> None:
    write_tree(tmp_path, {"run.sh": f"#!/bin/sh\n{run_sh}"})
    assert inventory.made_venvs(Reader(tmp_path)) == venvs


def test_a_virtualenv_the_makefile_run_sh_calls_makes_is_found_through_its_variable(tmp_path: Path) -> None:
    makefile = "VENV ?= .venv\nPY := $(VENV)/bin/python\n\n$(VENV)/bin/activate: requirements.txt\n"
    makefile += "\tpython3 -m venv $(VENV)\n\t$(PY) -m pip install -r requirements.txt\n"
    write_tree(tmp_path, {"run.sh": "#!/bin/sh\nexec make -s replay\n", "Makefile": makefile})
    assert inventory.made_venvs(Reader(tmp_path)) == (".venv",)


def test_the_projects_own_metadata_declares_too(tmp_path: Path) -> None:
    """A setup.py's install_requires, as its backend built the metadata: declared, though no file lists it as data."""
    write_tree(tmp_path, {"setup.py": "from setuptools import setup\nsetup(install_requires=['requests'])\n"})
    bare = environment_of(tmp_path)
    assert why(result(1, NO_REQUESTS), bare) == (False, "imports `requests`, which nothing in the submission declares")
    built = environment_of(tmp_path, requires=[("requests", "setup.py (install_requires)")])
    assert why(result(1, NO_REQUESTS), built) == (
        True,
        "the kit's setup left out requests (declared in setup.py (install_requires)): No module named 'requests'",
    )


def test_a_distribution_declared_but_not_installed_makes_any_missing_module_the_kits(tmp_path: Path) -> None:
    """The setup fell short of a declaration: what its distribution would have provided cannot be told."""
    write_tree(tmp_path, {"requirements.txt": "beautifulsoup4\n"})
    environment = environment_of(tmp_path, direct=[("beautifulsoup4", "requirements.txt")])
    assert why(result(1, "ModuleNotFoundError: No module named 'soupsieve'\n"), environment) == (
        True,
        "the kit's setup left out beautifulsoup4 (declared in requirements.txt): No module named 'soupsieve'",
    )


def test_the_submissions_own_package_is_the_kits_to_install(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.uv.workspace]\nmembers = ["packages/*"]\n',
        "packages/triage/pyproject.toml": '[project]\nname = "triage"\nversion = "1"\n',
        "packages/triage/src/triage/__init__.py": "",
        "packages/triage/src/triage/cli.py": "",
    })  # fmt: skip
    environment = environment_of(tmp_path)
    assert why(result(1, "ModuleNotFoundError: No module named 'triage'\n"), environment) == (
        True,
        "the kit's setup left out the project itself (`triage`, in packages/triage/src): No module named 'triage'",
    )
    assert why(result(1, "ModuleNotFoundError: No module named 'triage.nothing'\n"), environment) is None


def test_a_lockfiles_packages_are_declared(tmp_path: Path) -> None:
    lock = '[[package]]\nname = "triage"\nversion = "0.1"\nsource = { editable = "packages/triage" }\n'
    lock += '\n[[package]]\nname = "anyio"\nversion = "4.9.0"\nsource = { registry = "https://pypi.org/simple" }\n'
    write_tree(tmp_path, {"uv.lock": lock})
    environment = environment_of(tmp_path)
    offline = result(
        1,
        "error: Distribution not found at: ...\n  hint: `anyio` was included because `triage` depends on `httpx`"
        " (network connectivity is disabled)\n",
    )
    assert why(offline, environment) == (
        True,
        "the kit's setup left out anyio, triage (declared in uv.lock): the run's tool tried to install it offline",
    )
    asking = result(2, "error: Failed to fetch `rich` (the network was disabled)\n")
    assert why(asking, environment) is None  # `uv run --with rich`: the candidate's run asks for the network


def test_node_packages_declared_in_a_workspace_or_package_json(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "package.json": json.dumps({"workspaces": ["packages/*"], "dependencies": {"undici": "^6"},
                                    "scripts": {"build": "tsc -p ."}}),
        "packages/idem/package.json": json.dumps({"name": "@me/idem", "dependencies": {"nanoid": "^5"}}),
    })  # fmt: skip
    environment = environment_of(tmp_path)
    cases = {
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'undici' imported from /x/src/live.mjs": (
            True,
            "the kit's setup left out `undici` (declared in package.json): Cannot find package 'undici'",
        ),
        "Error: Cannot find module '@me/idem/keys.js'": (
            True,
            "the kit's setup left out the submission's own package `@me/idem` (in packages/idem):"
            " Cannot find module '@me/idem/keys.js'",
        ),
        'error: Cannot find package "nanoid" from "/gradelib/submission/index.ts"': (
            True,
            'the kit\'s setup left out `nanoid` (declared in packages/idem/package.json): Cannot find package "nanoid"',
        ),
        "Error: Cannot find module 'axios'": (False, "imports `axios`, which nothing in the submission declares"),
        "Error: Cannot find module '<submission>/dist/main.js'": (
            True,
            "`dist/main.js` is made by the submission's build script, which the kit's setup did not run:"
            " Cannot find module '<submission>/dist/main.js'",
        ),
    }
    for said, expected in cases.items():
        assert why(result(1, said), environment) == expected, said
    assert why(result(1, "Error: Cannot find module 'node:sqlite'"), environment) is None
    assert why(result(1, "Error: Cannot find module './lib/keys.js'"), environment) is None


def test_a_missing_standard_module_is_the_grading_machines(tmp_path: Path) -> None:
    found = why(result(1, "ModuleNotFoundError: No module named '_ctypes'\n"), environment_of(tmp_path))
    assert found is not None and found[0] and "standard module `_ctypes`" in found[1]


def line_maker(line_id: str, outcome: Outcome, message: str, evidence: dict[str, Any]) -> LineResult:
    return LineResult(line_id, outcome, message, evidence, 0.0 if outcome != "pass" else 10.0, 10.0)


@pytest.mark.parametrize(
    ("outcome", "declared", "expected"),
    [
        ("pass", True, "error"),
        ("fail", True, "error"),
        ("needs_review", True, "error"),
        ("pass", False, "fail"),
        ("fail", False, "fail"),
        ("needs_review", False, "needs_review"),
        ("error", True, "error"),
    ],
)
def test_the_rule_on_a_lines_outcome(tmp_path: Path, outcome: Outcome, declared: bool, expected: str) -> None:
    write_tree(tmp_path, {"requirements.txt": "requests\n" if declared else "httpx\n"})
    environment = environment_of(tmp_path, installed_python=["httpx"])
    judged = LineResult("record", outcome, "record exited 1", {"calls": 3}, 10.0 if outcome == "pass" else 0.0, 10.0)
    found = shortfall.judge(judged, [result(0, ""), result(1, NO_REQUESTS)], environment, line_maker)
    assert found.outcome == expected
    if expected == "error" and outcome != "error":
        assert found.message.startswith("the kit's setup left out requests")
        assert found.evidence["judged_before"] == {"outcome": outcome, "message": "record exited 1"}
        assert found.evidence["shortfall"]["whose"] == "kit" and found.evidence["calls"] == 3
    if not declared and outcome in ("pass", "fail"):
        assert found.message == "imports `requests`, which nothing in the submission declares: record exited 1"


def test_the_kits_shortfall_wins_over_the_candidates(tmp_path: Path) -> None:
    write_tree(tmp_path, {"requirements.txt": "requests\n"})
    runs = [result(1, "ModuleNotFoundError: No module named 'rich'\n"), result(1, NO_REQUESTS)]
    judged = LineResult("identical", "fail", "replay run A exited 1")
    found = shortfall.judge(judged, runs, environment_of(tmp_path, installed_python=["requests"]), line_maker)
    assert found.outcome == "error" and "left out requests" in found.message


RUBRIC = """
takehome = "probe"
kind = "points"

[[lines]]
id = "answer"
title = "Answers"
weight = 10
"""


class ProbeGrading(BaseGrading):
    """One line whose check reads a cached run made in a prefetch thread: the rule must see that run."""

    TAKEHOME = "probe"

    @cached
    def run(self) -> RunResult:
        script = "echo \"ModuleNotFoundError: No module named 'requests'\" >&2; exit 1"
        return self.box.run(["sh", "-c", script], self.box.copy("probe"))

    def prefetch_tasks(self) -> tuple[Any, ...]:
        return (lambda: self.run,)

    def answer(self) -> LineResult:
        ok = self.run.ok
        return self._line("answer", "pass" if ok else "fail", f"exited {self.run.exit_code}", {})


class BoundProbeGrading(ProbeGrading):
    """The same check bound with `@line` under another name: judged by the rule all the same."""

    @line("answer")
    def answers_as_run(self) -> LineResult:
        return ProbeGrading.answer(self)


@pytest.mark.parametrize("grading", [ProbeGrading, BoundProbeGrading], ids=["by-name", "bound"])
@pytest.mark.parametrize("declared", [True, False], ids=["declared", "undeclared"])
def test_every_line_of_a_grading_is_judged_by_the_rule(
    tmp_path: Path, declared: bool, grading: type[ProbeGrading]
) -> None:
    submission = write_tree(tmp_path / "s", {"requirements.txt": "requests\n" if declared else "httpx\n"})
    rubric_file = tmp_path / "rubric.toml"
    rubric_file.write_text(RUBRIC)
    environment = environment_of(submission, installed_python=["httpx"])
    with grading(submission, rubric=load_rubric(rubric_file), environment=environment) as opened:
        assert opened.checks()["answer"].__name__ == ("answers_as_run" if grading is BoundProbeGrading else "answer")
        judged = opened.report().lines[0]
    if declared:
        assert (judged.outcome, judged.points) == ("error", None) or judged.outcome == "error"
        assert (
            judged.message
            == "the kit's setup left out requests (declared in requirements.txt): No module named 'requests'"
        )
    else:
        assert judged.outcome == "fail"
        assert judged.message == "imports `requests`, which nothing in the submission declares: exited 1"


def test_a_virtualenv_the_readme_makes_or_run_sh_activates_is_named_but_not_made_by_the_runs(tmp_path: Path) -> None:
    readme = "# Triage\n\nWe use a virtualenv under the folder for isolation.\n\n```sh\npython3 -m venv venv\n"
    readme += "source venv/bin/activate\npip install -r requirements.txt\n```\n"
    write_tree(tmp_path, {"README.md": readme, "run.sh": "#!/bin/sh\n. ./pyenv/bin/activate\nexec python main.py\n"})
    assert inventory.venvs(Reader(tmp_path)) == (("pyenv", "venv"), ()), "run.sh first, then the README"


@pytest.mark.parametrize(
    ("files", "unmet"),
    [
        ({".python-version": "3.12\n"}, ("==3.12.*", ".python-version", "3.11.2")),
        ({"pyproject.toml": '[project]\nname = "t"\nrequires-python = ">=3.12"\n'},
         (">=3.12", "pyproject.toml's requires-python", "3.11.2")),
        ({"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.12"\n'},
         (">=3.12,<4", "pyproject.toml's Poetry python", "3.11.2")),
        ({"Pipfile": '[requires]\npython_version = "3.13"\n'}, ("==3.13.*", "Pipfile's python_version", "3.11.2")),
        ({".python-version": "3.11\n", "pyproject.toml": '[project]\nrequires-python = ">=3.10"\n'}, None),
        ({".python-version": "pypy3.10\n"}, None),
    ],
    ids=["python-version", "requires-python", "poetry-caret", "pipfile", "met", "not-cpython"],
)  # fmt: skip
def test_a_python_the_submission_asks_for_is_checked_against_the_machines(
    tmp_path: Path, files: dict[str, str], unmet: tuple[str, str, str] | None
) -> None:
    write_tree(tmp_path, files)
    assert inventory.python_unmet(Reader(tmp_path), "3.11.2") == unmet


def test_a_run_that_died_of_an_older_python_than_asked_is_the_kits(tmp_path: Path) -> None:
    write_tree(tmp_path, {".python-version": "3.12\n", "triage.py": ""})
    taken = inventory.take(tmp_path, python_unmet=inventory.python_unmet(Reader(tmp_path), "3.11.2"))
    environment = Environment(read_declaration(tmp_path), inventory=taken)
    batched = "ImportError: cannot import name 'batched' from 'itertools' (/usr/lib/python3.11/...)\n"
    assert why(result(1, batched), environment) == (
        True,
        "the submission asks for Python ==3.12.* (.python-version); the grading machine runs 3.11.2:"
        " cannot import name 'batched' from 'itertools'",
    )
    own = "ImportError: cannot import name 'parse' from 'triage' (<submission>/triage.py)\n"
    assert why(result(1, own), environment) is None, "a name its own module lacks is the candidate's code"
    met = Environment(read_declaration(tmp_path), inventory=inventory.take(tmp_path))
    assert why(result(1, batched), met) is None, "a Python that meets what it asks for: the code, judged as it is"


def test_a_runs_pip_install_user_refused_by_the_kits_virtualenv_is_the_kits(tmp_path: Path) -> None:
    said = "ERROR: Can not perform a '--user' install. User site-packages are not visible in this virtualenv.\n"
    found = why(result(1, said), environment_of(tmp_path))
    assert found is not None and found[0] is True and "`pip install --user`" in found[1]


@pytest.mark.parametrize(
    ("files", "unmet"),
    [
        ({".nvmrc": "22\n"}, ("22", ".nvmrc", "v20.20.2")),
        ({"package.json": json.dumps({"engines": {"node": ">=22.6.0"}})},
         (">=22.6.0", "package.json's engines.node", "v20.20.2")),
        ({"package.json": json.dumps({"engines": {"node": "^20.10 || >=22"}})}, None),
        ({".node-version": "v20.11.1\n", "package.json": json.dumps({"volta": {"node": "20.20.2"}})}, None),
        ({".nvmrc": "lts/*\n"}, None),
    ],
    ids=["nvmrc", "engines", "range-met", "met", "alias"],
)  # fmt: skip
def test_a_node_the_submission_asks_for_is_checked_against_the_machines(
    tmp_path: Path, files: dict[str, str], unmet: tuple[str, str, str] | None
) -> None:
    write_tree(tmp_path, files)
    assert inventory.node_unmet(Reader(tmp_path), "v20.20.2") == unmet


def test_a_run_that_died_of_an_older_node_than_asked_is_the_kits(tmp_path: Path) -> None:
    write_tree(tmp_path, {".nvmrc": "22\n", "package.json": "{}"})
    taken = inventory.take(tmp_path, node_unmet=inventory.node_unmet(Reader(tmp_path), "v20.20.2"))
    environment = Environment(read_declaration(tmp_path), inventory=taken)
    assert why(result(9, "node: bad option: --experimental-strip-types\n"), environment) == (
        True,
        "the submission asks for Node 22 (.nvmrc); the grading machine runs v20.20.2:"
        " node: bad option: --experimental-strip-types",
    )
    grouped = "TypeError: Object.groupBy is not a function\n    at main (<submission>/src/main.js:3:20)\n"
    assert why(result(1, grouped), environment) is not None
    own = "TypeError: parse is not a function\n"
    assert why(result(1, own), environment) is None, "its own code's mistake: judged as it is"


def test_a_declared_native_addon_never_built_is_the_kits(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": json.dumps({"dependencies": {"better-sqlite3": "^12"}})})
    said = (
        "Error: Could not locate the bindings file. Tried:\n"
        " → <node-env>/node/node_modules/better-sqlite3/build/better_sqlite3.node\n"
        " → <node-env>/node/node_modules/better-sqlite3/build/Release/better_sqlite3.node\n"
        "    at bindings (<node-env>/node/node_modules/bindings/bindings.js:126:9)\n"
    )
    found = why(result(1, said), environment_of(tmp_path))
    assert found is not None and found[0] is True
    assert found[1].startswith(
        "`better-sqlite3` (declared in package.json) is a native addon its install script builds"
    )


def test_a_workspace_packages_built_file_is_made_by_its_build(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "package.json": json.dumps({"workspaces": ["packages/*"]}),
        "packages/tape/package.json": json.dumps({"name": "@me/tape", "scripts": {"build": "tsc"}}),
    })  # fmt: skip
    said = "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '<submission>/node_modules/@me/tape/dist/index.js'\n"
    assert why(result(1, said), environment_of(tmp_path)) == (
        True,
        "`packages/tape/dist/index.js` is made by the build of the submission's own package `@me/tape`, which the"
        " kit's setup did not run",
    )


def test_a_dockerfiles_pip_installs_are_declared(tmp_path: Path) -> None:
    dockerfile = (
        'FROM python:3.12-slim\nRUN pip install --no-cache-dir "PyYAML==6.0.3" requests[socks] \\\n'
        "    -r requirements.txt && rm -rf /root/.cache\nRUN python -m pip install -i https://x/simple tenacity\n"
    )
    write_tree(tmp_path, {"Dockerfile": dockerfile})
    assert inventory.dockerfile_installs(Reader(tmp_path)) == [
        ("PyYAML", "Dockerfile"), ("requests", "Dockerfile"), ("tenacity", "Dockerfile"),
    ]  # fmt: skip
    assert why(result(1, NO_REQUESTS), environment_of(tmp_path)) == (
        True,
        "the kit's setup left out requests (declared in Dockerfile): No module named 'requests'",
    )
