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
