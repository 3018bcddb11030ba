"""The submission's own setup step, found as a careful reviewer finds it, and what it made, told apart from
what was there and what the kit put there."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import ownrun, ownsetup
from gradelib.environment.declarationrecords import Reader
from gradelib.sandbox.box import link_node_modules, place_product
from gradelib.sandbox.mounts import COPY, LINK

MAKEFILE = "help:\n\t@echo targets\nsetup: .venv\n.venv:\n\tpython3 -m venv .venv\nlint:\n\truff .\n"


def steps_of(root: Path) -> list[tuple[tuple[str, ...], str]]:
    return [(step.argv, step.why) for step in ownsetup.steps(Reader(root))]


@pytest.mark.parametrize(
    "readme",
    [
        "# Triage\n\n## Setup\n\n```bash\nmake setup\n```\n\n## Lint\n\n```\nmake lint\n```\n",
        "# Triage\n\n## Getting started\n\n1. Run `make setup` once.\n2. `./run.sh replay`\n",
        "# Triage\n\n## Install\n\n    $ make setup && ./run.sh replay\n",
    ],
    ids=["fenced", "inline", "prompt"],
)
def test_the_readmes_setup_section_names_the_step(tmp_path: Path, readme: str) -> None:
    write_tree(tmp_path, {"Makefile": MAKEFILE, "README.md": readme})
    assert steps_of(tmp_path) == [(("make", "setup"), "README.md's setup section says `make setup`")]


def test_only_steps_that_set_the_project_up_and_exist_are_taken(tmp_path: Path) -> None:
    readme = (
        "## Setup\n\n```\nmake lint\nmake deploy\njust install\nnpm run test\nnpm run build\n./scripts/setup.sh\n```\n"
    )
    package = {"scripts": {"build": "tsc -p .", "test": "node --test"}}
    write_tree(tmp_path, {
        "Makefile": MAKEFILE, "README.md": readme, "package.json": json.dumps(package),
        "scripts/setup.sh": "echo ok\n",
    })  # fmt: skip
    assert [argv for argv, _why in steps_of(tmp_path)] == [("npm", "run", "build"), ("bash", "scripts/setup.sh")]


def test_run_sh_saying_to_run_a_target_first_names_it(tmp_path: Path) -> None:
    run_sh = '#!/bin/sh\n[ -d .venv ] || { echo "run `make setup` first"; exit 1; }\nexec .venv/bin/python main.py\n'
    write_tree(tmp_path, {"Makefile": MAKEFILE, "run.sh": run_sh})
    assert steps_of(tmp_path) == [(("make", "setup"), "run.sh says to run `make setup` first")]


def test_a_build_script_whose_output_the_code_runs_is_the_step(tmp_path: Path) -> None:
    package = {"scripts": {"build": "tsc"}, "main": "dist/index.js"}
    write_tree(tmp_path, {"package.json": json.dumps(package), "checkout.mjs": 'export * from "./dist/client.js";\n'})
    assert steps_of(tmp_path) == [
        (("npm", "run", "build"), "package.json's build script makes dist/, which package.json runs")
    ]
    (tmp_path / "dist").mkdir()
    assert steps_of(tmp_path) == [], "already built: nothing to run"


def test_requirement_files_the_readme_installs_are_declared(tmp_path: Path) -> None:
    readme = "## Setup\n\n```\npython -m venv .venv\npip install -r requirements-dev.txt\n```\n"
    write_tree(tmp_path, {"README.md": readme, "requirements-dev.txt": "httpx==0.28.1\n"})
    assert ownsetup.requirement_files(Reader(tmp_path)) == [
        ("requirements-dev.txt", "README.md's setup section says `pip install -r requirements-dev.txt`")
    ]
    from gradelib.environment import read_declaration

    declaration = read_declaration(tmp_path)
    assert declaration.python is not None and [d.spec for d in declaration.python.requirements] == ["httpx==0.28.1"]


def test_what_the_step_made_is_told_from_what_was_there_and_what_the_kit_put(tmp_path: Path) -> None:
    original = write_tree(tmp_path / "original", {"main.py": "print(1)\n", "src/app.ts": "x\n", "gen.txt": "old\n"})
    copy = write_tree(tmp_path / "copy", {"main.py": "print(1)\n", "src/app.ts": "x\n", "gen.txt": "new\n"})
    write_tree(copy, {"dist/main.js": "x\n", "dist/lib/a.js": "y\n", ".venv/bin/python": "", "src/app.js": "z\n"})
    (copy / "node_modules").mkdir()  # the kit's: its inode is known
    placed = {"node_modules": os.lstat(copy / "node_modules").st_ino}
    assert ownrun.made(original, copy, placed) == [".venv", "dist", "gen.txt", "src/app.js"]


def test_a_product_reaches_a_copy_as_a_link_or_a_copy(tmp_path: Path) -> None:
    kept = write_tree(tmp_path / "kept", {"dist/main.js": "x\n", ".pnp.cjs": "pnp\n", ".venv/pyvenv.cfg": "home\n"})
    copy = write_tree(tmp_path / "copy", {"main.mjs": ""})
    place_product(copy, "dist", kept / "dist", COPY)
    place_product(copy, ".pnp.cjs", kept / ".pnp.cjs", COPY)
    place_product(copy, ".venv", kept / ".venv", LINK)
    assert (
        (copy / "dist").is_dir() and not (copy / "dist").is_symlink() and (copy / "dist/main.js").read_text() == "x\n"
    )
    assert (copy / ".pnp.cjs").is_file() and not (copy / ".pnp.cjs").is_symlink()
    assert (copy / ".venv").is_symlink() and (copy / ".venv").resolve() == kept / ".venv"


def test_the_tools_own_links_in_node_modules_resolve_in_each_copy(tmp_path: Path) -> None:
    """A workspace member's link (`@me/idem -> ../../packages/idem`) must lead to the copy's own folder, never to
    the cache, which other submissions share."""
    installed = tmp_path / "cache" / "node_modules"
    write_tree(installed, {"undici/package.json": "{}", "@me/.keep": ""})
    (installed / "@me" / "idem").symlink_to("../../packages/idem")
    (installed / "left-pad").symlink_to(".pnpm/left-pad@1/node_modules/left-pad")
    copy = write_tree(tmp_path / "copy", {"packages/idem/index.js": "module.exports = 1\n"})
    link_node_modules(copy, installed)
    assert (copy / "node_modules/undici").resolve() == installed / "undici"
    assert (copy / "node_modules/@me/idem").resolve() == copy / "packages/idem"
    assert os.readlink(copy / "node_modules/left-pad") == ".pnpm/left-pad@1/node_modules/left-pad"


@pytest.mark.parametrize(
    ("name", "sets_up"),
    [
        ("setup", True), ("install-dev", True), ("build:ts", True), ("set-up", True), ("deps_install", True),
        ("prepare_fixtures", True), ("bootstrap", True), ("build:watch", False), ("test", False),
        ("dev", False), ("start", False), ("lint", False), ("clean-build", False), ("replay", False),
        ("install-and-test", False),
    ],
)  # fmt: skip
def test_a_name_sets_up_when_a_word_says_so_and_none_says_it_runs_tests_or_serves(name: str, sets_up: bool) -> None:
    assert ownsetup.setup_name(name) is sets_up


def test_names_a_reviewer_reads_as_setup_are_run_in_readme_order(tmp_path: Path) -> None:
    readme = (
        "## Getting started\n\n```\nmake\nmake install-dev\nyarn build:ts\npython scripts/prepare_fixtures.py\n"
        "python main.py replay\nnpm run dev\nyarn test\n```\n"
    )
    makefile = "install-dev:\n\tpip install -e .\nrun:\n\tpython main.py\n"
    package = {"scripts": {"build:ts": "tsc", "dev": "tsc -w", "test": "vitest"}}
    write_tree(tmp_path, {
        "Makefile": makefile, "README.md": readme, "package.json": json.dumps(package),
        "scripts/prepare_fixtures.py": "print('ok')\n", "main.py": "print('run')\n",
    })  # fmt: skip
    assert [argv for argv, _why in steps_of(tmp_path)] == [
        ("make", "install-dev"),
        ("yarn", "run", "build:ts"),
        ("python", "scripts/prepare_fixtures.py"),
    ], "a bare `make` whose first target sets up is that target; the program, a watcher and the tests are not"


def test_a_bare_make_whose_first_target_runs_the_program_is_not_a_step(tmp_path: Path) -> None:
    write_tree(
        tmp_path, {"Makefile": "run:\n\tpython main.py\nsetup:\n\tpip install .\n", "README.md": "## Setup\n\n`make`\n"}
    )
    assert steps_of(tmp_path) == []


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("npx tsc", ("npx", "tsc")),
        ("npx tsc -p tsconfig.build.json", ("npx", "tsc", "-p", "tsconfig.build.json")),
        ("pnpm exec tsup", ("pnpm", "exec", "tsup")),
        ("yarn tsc", ("yarn", "tsc")),
        ("npx vite build", ("npx", "vite", "build")),
        ("npx vite", None),
        ("npx tsc --watch", None),
        ("npx esbuild src/main.ts", None),  # not declared
        ("npx cowsay hi", None),
    ],
)
def test_a_build_tool_the_project_declares_runs_through_its_runner(
    tmp_path: Path, command: str, argv: tuple[str, ...] | None
) -> None:
    package = {"devDependencies": {"typescript": "5.6.3", "tsup": "8.3.0", "vite": "5.4.0", "cowsay": "1.6.0"}}
    write_tree(tmp_path, {"README.md": f"## Build\n\n```sh\n$ {command}\n```\n", "package.json": json.dumps(package)})
    found = steps_of(tmp_path)
    assert [step for step, _why in found] == ([argv] if argv else [])
    if argv:
        assert found[0][1] == f"README.md's setup section says `{command}`"


def test_run_sh_running_a_build_script_names_it(tmp_path: Path) -> None:
    package = {"scripts": {"build": "tsc", "replay": "node dist/main.js"}}
    write_tree(
        tmp_path, {"package.json": json.dumps(package), "run.sh": "#!/bin/sh\nnpm run build >&2\nexec npm run replay\n"}
    )
    assert [argv for argv, _why in steps_of(tmp_path)] == [("npm", "run", "build")]


def test_a_script_file_runs_only_when_its_name_says_it_installs_or_prepares(tmp_path: Path) -> None:
    readme = (
        "## Setup\n\n```\npython scripts/generate_fixtures.py\n./scripts/install_deps.sh\n"
        "python setup.py develop\n```\n"
    )
    write_tree(tmp_path, {
        "README.md": readme, "scripts/generate_fixtures.py": "", "scripts/install_deps.sh": "", "setup.py": "",
    })  # fmt: skip
    assert [argv for argv, _why in steps_of(tmp_path)] == [("bash", "scripts/install_deps.sh")]


def test_a_prepare_script_that_builds_is_run_when_its_output_is_missing(tmp_path: Path) -> None:
    """`npm ci` runs the root's own `prepare` for a reviewer; the kit's installs run no lifecycle script, so
    the build it does is the setup step. One that does not build (`husky`) is never run."""
    package = {"scripts": {"prepare": "tsc -p .", "start": "node dist/main.js"}, "main": "dist/main.js"}
    write_tree(tmp_path, {"package.json": json.dumps(package)})
    assert steps_of(tmp_path) == [
        (
            ("npm", "run", "prepare"),
            "package.json's `prepare` script (`npm ci` runs it) makes dist/, which package.json runs",
        )
    ]
    package["scripts"]["prepare"] = "husky"
    write_tree(tmp_path, {"package.json": json.dumps(package)})
    assert steps_of(tmp_path) == []


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("npm run build -w @me/tape", ("npm", "run", "build", "-w", "@me/tape")),
        ("npm run build --workspace=@me/tape", ("npm", "run", "build", "--workspace=@me/tape")),
        ("npm run build --workspaces --if-present", ("npm", "run", "build", "--workspaces", "--if-present")),
        ("pnpm --filter @me/tape build", ("pnpm", "--filter", "@me/tape", "build")),
        ("pnpm -r run build", ("pnpm", "-r", "run", "build")),
        ("yarn workspace @me/tape build", ("yarn", "workspace", "@me/tape", "build")),
        ("npm run test -w @me/tape", None),
        ("npm run build -w @me/nothing", None),
    ],
)
def test_a_script_of_the_submissions_own_workspace_member_is_a_step(
    tmp_path: Path, command: str, argv: tuple[str, ...] | None
) -> None:
    write_tree(tmp_path, {
        "package.json": json.dumps({"private": True, "workspaces": ["packages/*"]}),
        "packages/tape/package.json": json.dumps({"name": "@me/tape", "scripts": {"build": "tsc", "test": "vitest"}}),
        "README.md": f"## Setup\n\n```\nnpm ci\n{command}\n```\n",
    })  # fmt: skip
    assert [step for step, _why in steps_of(tmp_path)] == ([argv] if argv else [])


def test_npm_runs_a_scripts_pre_and_post_scripts_with_it_so_the_kit_names_them(tmp_path: Path) -> None:
    """The kit's steps run with lifecycle scripts off, which npm takes to cover `prebuild` and `postbuild`."""
    package = {"scripts": {"prebuild": "rm -rf dist", "build": "tsc", "postbuild": "cp src/prompt.txt dist/"}}
    write_tree(tmp_path, {"package.json": json.dumps(package), "README.md": "## Setup\n\n`npm ci && npm run build`\n"})
    assert [argv for argv, _why in steps_of(tmp_path)] == [
        ("npm", "run", "prebuild"), ("npm", "run", "build"), ("npm", "run", "postbuild"),
    ]  # fmt: skip


def test_a_build_tool_from_node_modules_bin_and_a_bare_make_all_are_steps(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "package.json": json.dumps({"devDependencies": {"typescript": "5.9.3"}}),
        "Makefile": "all: dist/main.js\n\ndist/main.js: node_modules\n\tnpx tsc\n",
        "README.md": (
            "## Setup\n\n```\nmake\n./node_modules/.bin/tsc -p tsconfig.build.json\n./node_modules/.bin/eslint .\n```\n"
        ),
    })  # fmt: skip
    assert [argv for argv, _why in steps_of(tmp_path)] == [
        ("make", "all"), ("./node_modules/.bin/tsc", "-p", "tsconfig.build.json"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("cp .env.example .env", ("cp", ".env.example", ".env")),
        ("cp -n config.sample.toml config.toml", ("cp", "config.sample.toml", "config.toml")),
        ("cp .env.example ../.env", None),  # outside the submission
        ("cp notes.txt .env", None),  # not an example
        ("cp -r .env.example .env", None),  # not a plain copy
        ("cp .env.example present.env", None),  # already there
    ],
)
def test_an_example_file_the_readme_copies_into_place_is_a_step(
    tmp_path: Path, command: str, argv: tuple[str, ...] | None
) -> None:
    write_tree(tmp_path, {
        ".env.example": "MODEL=x\n", "config.sample.toml": "", "notes.txt": "", "present.env": "",
        "README.md": f"## Setup\n\n```\n{command}\n```\n",
    })  # fmt: skip
    assert [step for step, _why in steps_of(tmp_path)] == ([argv] if argv else [])


def test_a_pretest_script_that_builds_what_the_client_imports_is_the_step(tmp_path: Path) -> None:
    """`"pretest": "tsc"`: a reviewer's `npm test` builds dist/ first; the client re-exports from it."""
    package = {"scripts": {"pretest": "tsc", "test": "node --test"}}
    write_tree(tmp_path, {"package.json": json.dumps(package), "checkout.mjs": 'export * from "./dist/checkout.js";\n'})
    assert steps_of(tmp_path) == [
        (
            ("npm", "run", "pretest"),
            "package.json's `pretest` script (`npm test` runs it first) makes dist/, which checkout.mjs runs",
        )
    ]
