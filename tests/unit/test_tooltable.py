"""The one table of real tools (`tooltable.toml`): whole, and each row's evidence read from a submission's files."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import evidence, read_declaration, tooltable
from gradelib.environment.declarationrecords import Reader
from gradelib.environment.nodeinstall import setup_of
from gradelib.environment.pysetup import detect

REGISTRY = "https://registry.npmjs.org/"
# The rows issue 45 asks for: a convention nobody listed costs a tenth of the verdicts.
PYTHON_ROWS = {"uv-project", "uv-script", "poetry", "poetry-project", "pdm", "hatch", "pipenv", "flit", "nox", "tox"}
NODE_ROWS = {"npm", "yarn", "yarn-berry", "pnpm", "bun", "deno"}


def test_the_table_is_whole() -> None:
    tools, rows = tooltable.table()
    assert {row.id for row in rows if row.ecosystem == "python"} >= PYTHON_ROWS
    assert {row.id for row in rows if row.ecosystem == "node"} >= NODE_ROWS
    for row in rows:
        assert row.tool in tools and row.commands, row.id
        assert all(argv and argv[0] in {*tools[row.tool].commands, "uv"} for argv in row.commands), row.id
        assert row.evidence, f"{row.id}: a row without evidence is never chosen"
    for tool in tools.values():
        assert tool.commands and tool.version and tool.package, tool.name
        assert tool.ecosystem != "python" or tool.released, f"{tool.name}: resolved as released, or it rots"


@pytest.mark.parametrize(
    ("files", "row", "why"),
    [
        ({"noxfile.py": "import nox\n", "run.sh": 'exec nox -s "$1"\n'}, "nox", "run.sh runs `nox`"),
        ({"tox.ini": "[tox]\n", "run.sh": "exec tox -q -e replay\n"}, "tox", "run.sh runs `tox`"),
        ({"uv.lock": "version = 1\n"}, "uv-project", "the submission has a uv.lock"),
        (
            {"pyproject.toml": '[build-system]\nbuild-backend = "flit_core.buildapi"\n', "README.md": "flit install\n"},
            "flit",
            "its build backend is flit_core.buildapi and README.md runs `flit install`",
        ),
        (
            {
                "pyproject.toml": '[build-system]\nbuild-backend = "poetry.core.masonry.api"\n',
                "run.sh": "poetry run x\n",
            },
            "poetry-project",
            "run.sh runs `poetry run`",
        ),
    ],
)
def test_a_python_row_is_chosen_by_its_evidence(tmp_path: Path, files: dict[str, str], row: str, why: str) -> None:
    write_tree(tmp_path, files)
    text = files.get("pyproject.toml")
    setup = detect(Reader(tmp_path), tomllib.loads(text) if text else None)
    assert setup is not None and setup.kind == row and why in setup.why


def test_a_noxfile_nothing_runs_is_not_a_setup(tmp_path: Path) -> None:
    """Tests in a noxfile that run.sh never calls: the code runs without nox."""
    write_tree(tmp_path, {"noxfile.py": "import nox\n", "run.sh": "exec python3 main.py\n"})
    assert detect(Reader(tmp_path), None) is None


def test_nox_runs_reuse_the_sessions_it_made(tmp_path: Path) -> None:
    write_tree(tmp_path, {"noxfile.py": "import nox\n", "run.sh": 'exec nox -s "$1"\n'})
    setup = detect(Reader(tmp_path), None)
    assert setup is not None
    assert setup.run_args() == ["-R", "--envdir", "/gradelib/env/nox"]
    assert setup.commands()[0][:2] == ["nox", "--install-only"]


@pytest.mark.parametrize(
    ("files", "row", "lockfile"),
    [
        ({"bun.lock": "{}\n"}, "bun", "bun.lock"),
        ({"package-lock.json": '{"lockfileVersion": 3, "packages": {"": {}}}', "bun.lock": "{}\n"}, "npm",
         "package-lock.json"),
        ({}, "bun", None),  # no lockfile: what runs the code names the tool
    ],
)  # fmt: skip
def test_a_lockfile_names_the_node_tool_before_anything_else(
    tmp_path: Path, files: dict[str, str], row: str, lockfile: str | None
) -> None:
    package = {"dependencies": {"undici": "^6"}, "scripts": {"test": "bun test"}}
    write_tree(tmp_path, {"package.json": json.dumps(package), **files})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.setup_id == row
    assert (declaration.node.setup_lockfile or declaration.node.lockfile) == lockfile


def test_bun_named_by_the_scripts_sets_up_a_project_without_a_lockfile(tmp_path: Path) -> None:
    package = {"devDependencies": {"@types/bun": "^1"}, "scripts": {"test": "bun test"}}
    write_tree(tmp_path, {"package.json": json.dumps(package)})
    node = read_declaration(tmp_path, registry=REGISTRY).node
    assert node is not None and (node.setup_id, node.why) == ("bun", "package.json's scripts runs `bun`")
    setup = setup_of(node)
    assert setup.argv(REGISTRY)[:2] == ["bun", "install"] and "--frozen-lockfile" not in setup.argv(REGISTRY)
    assert "--ignore-scripts" in setup.argv(REGISTRY)


def test_pnpm_named_by_package_manager_alone(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": json.dumps({"dependencies": {"a": "1"}, "packageManager": "pnpm@10.2.0"})})
    node = read_declaration(tmp_path, registry=REGISTRY).node
    assert node is not None
    setup = setup_of(node)
    assert (setup.tool, setup.version, setup.pinned_by) == ("pnpm", "10.2.0", "packageManager")
    assert "--no-frozen-lockfile" in setup.argv(REGISTRY)


@pytest.mark.parametrize(("yarnrc", "linker", "kept"), [("nodeLinker: pnp\n", "pnp", True), ("", "", False)])
def test_yarn_berry_keeps_plug_n_play_when_the_project_chose_it(
    tmp_path: Path, yarnrc: str, linker: str, kept: bool
) -> None:
    berry = '__metadata:\n  version: 8\n  cacheKey: 10c0\n\n"mocha@npm:^11.1.0":\n  version: 11.7.1\n'
    files = {"package.json": json.dumps({"devDependencies": {"mocha": "^11.1.0"}}), "yarn.lock": berry}
    write_tree(tmp_path, files | ({".yarnrc.yml": yarnrc} if yarnrc else {}))
    node = read_declaration(tmp_path, registry=REGISTRY).node
    assert node is not None and node.linker == linker
    setup = setup_of(node)
    assert setup.env(REGISTRY)["YARN_NODE_LINKER"] == (linker or "node-modules")
    assert (".pnp.cjs" in setup.kept()) is kept
    assert setup.env(REGISTRY, cache_at="/cache/x")["YARN_CACHE_FOLDER"] == "/cache/x"


def test_a_workspace_and_a_path_dependency_inside_the_submission_are_its_own_code(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "package.json": json.dumps({"workspaces": ["packages/*"], "dependencies": {"keys": "file:libs/keys",
                                    "outside": "file:../elsewhere"}}),
        "packages/idem/package.json": json.dumps({"name": "@me/idem", "dependencies": {"nanoid": "^5"}}),
        "libs/keys/package.json": json.dumps({"name": "keys"}),
    })  # fmt: skip
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.members == ("libs/keys", "packages/idem")
    assert [d.name for d in declaration.node.dependencies] == ["keys"]
    [refused] = declaration.refused
    assert refused.text.startswith("outside:") and "outside the submission" in refused.reason


def test_evidence_in_words_names_what_was_found(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Makefile": "replay:\n\tnox -s replay\n", "run.sh": "exec make replay\n"})
    [nox] = [row for row in tooltable.rows("python") if row.id == "nox"]
    assert evidence.found(nox, Reader(tmp_path), None) is None  # no noxfile
    write_tree(tmp_path, {"noxfile.py": ""})
    assert evidence.found(nox, Reader(tmp_path), None) == "the submission has a noxfile.py and Makefile runs `nox`"
