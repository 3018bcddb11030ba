"""The sandbox's run wrappers (`uv run`, `poetry run`, `npx`, `pnpm`, `yarn`): run what they wrap, install nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import wrappers

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@pytest.fixture
def wrapped(tmp_path: Path) -> Path:
    """The wrappers' bin folder, made in a temporary cache for this interpreter."""
    return wrappers.folder(tmp_path / "cache", sys.executable) / wrappers.BIN


def run(bin_dir: Path, cwd: Path, *argv: str, path: str = "") -> subprocess.CompletedProcess[str]:
    search = ":".join(p for p in (str(bin_dir), path, SYSTEM_PATH) if p)
    env = {"PATH": search, "GRADELIB_KIT_LOG": str(cwd / "kit.log")}
    return subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=30, check=False)


def logged(cwd: Path) -> list[dict[str, object]]:
    return wrappers.used((cwd / "kit.log").read_text().splitlines()) if (cwd / "kit.log").exists() else []


def test_the_folder_is_made_once_and_names_every_wrapper(tmp_path: Path) -> None:
    first = wrappers.folder(tmp_path, "/usr/bin/python3")
    assert wrappers.folder(tmp_path, "/usr/bin/python3") == first
    assert sorted(os.listdir(first / wrappers.BIN)) == sorted(wrappers.NAMES)
    assert (first / wrappers.SCRIPT).read_text().startswith("#!/usr/bin/python3 -IS\n")


@pytest.mark.parametrize(
    "argv",
    [
        ("uv", "run", "--frozen", "python3", "-c", "print('ran')"),
        ("uv", "run", "--locked", "--no-sync", "-q", "python3", "-c", "print('ran')"),
        ("uv", "--offline", "run", "--", "python3", "-c", "print('ran')"),
        ("poetry", "run", "python3", "-c", "print('ran')"),
        ("poetry", "-C", ".", "run", "python3", "-c", "print('ran')"),
        ("pipenv", "run", "python3", "-c", "print('ran')"),
    ],
)
def test_python_wrappers_run_the_command(wrapped: Path, tmp_path: Path, argv: tuple[str, ...]) -> None:
    done = run(wrapped, tmp_path, *argv)
    assert (done.returncode, done.stdout) == (0, "ran\n"), done.stderr
    assert logged(tmp_path)[0]["wrapper"] == f"{argv[0]} run"


def test_uv_run_module_and_script_forms(wrapped: Path, tmp_path: Path) -> None:
    write_tree(tmp_path, {"app/__init__.py": "", "app/__main__.py": "import sys; print('module', sys.argv[1:])\n",
                          "main.py": "import sys; print('script', sys.argv[1:])\n"})  # fmt: skip
    link = tmp_path / "bin"
    link.mkdir()
    (link / "python").symlink_to(sys.executable)
    done = run(wrapped, tmp_path, "uv", "run", "--frozen", "-m", "app", "replay", path=str(link))
    assert done.stdout == "module ['replay']\n", done.stderr
    done = run(wrapped, tmp_path, "uv", "run", "main.py", "record", path=str(link))
    assert done.stdout == "script ['record']\n", done.stderr


@pytest.mark.parametrize(
    "argv",
    [("uv", "sync", "--frozen"), ("uv", "pip", "install", "-r", "requirements.txt"),
     ("uv", "pip", "install", "-e", "."), ("poetry", "install", "--no-root"), ("pipenv", "install", "--dev"),
     ("pnpm", "install", "--frozen-lockfile"), ("yarn",), ("yarn", "install", "--frozen-lockfile")],
)  # fmt: skip
def test_install_steps_with_nothing_to_add_succeed(wrapped: Path, tmp_path: Path, argv: tuple[str, ...]) -> None:
    write_tree(tmp_path, {"package.json": "{}"})
    done = run(wrapped, tmp_path, *argv)
    assert done.returncode == 0
    assert "the kit installed what the submission declares" in done.stderr


@pytest.mark.parametrize(
    "argv",
    [("uv", "add", "rich"), ("uv", "run", "--with", "rich", "python3", "-c", "1"), ("uv", "pip", "install", "rich"),
     ("poetry", "add", "httpx"), ("pipenv", "install", "requests"), ("pnpm", "add", "zod"), ("yarn", "add", "zod"),
     ("pnpm", "dlx", "cowsay")],
)  # fmt: skip
def test_a_wrapper_asked_to_add_a_package_fails(wrapped: Path, tmp_path: Path, argv: tuple[str, ...]) -> None:
    done = run(wrapped, tmp_path, *argv)
    assert done.returncode == 2
    assert "asks to install" in done.stderr and "offline" in done.stderr


def _node_project(root: Path) -> Path:
    package = {"scripts": {"test": 'echo test-ran "$@"', "pretest": "echo pre", "start": "node -e 1"}}
    write_tree(root, {"package.json": json.dumps(package), "node_modules/.bin/mocha": '#!/bin/sh\necho mocha "$@"\n'})
    (root / "node_modules/.bin/mocha").chmod(0o755)
    (root / "sub").mkdir()
    return root


@pytest.mark.parametrize(
    ("argv", "out"),
    [
        (("npx", "--no-install", "mocha", "--reporter", "dot"), "mocha --reporter dot\n"),
        (("npx", "-y", "mocha@11"), "mocha\n"),
        (("pnpm", "exec", "mocha", "x"), "mocha x\n"),
        (("pnpm", "mocha"), "mocha\n"),
        (("yarn", "mocha", "--bail"), "mocha --bail\n"),
        (("yarn", "exec", "mocha"), "mocha\n"),
        (("pnpm", "test", "a b"), "test-ran a b\n"),  # pnpm runs no pre/post scripts
        (("yarn", "test", "a"), "pre\ntest-ran a\n"),  # yarn 1 does
        (("yarn", "run", "test"), "pre\ntest-ran\n"),
    ],
)
def test_node_wrappers_run_bins_and_scripts(wrapped: Path, tmp_path: Path, argv: tuple[str, ...], out: str) -> None:
    root = _node_project(tmp_path)
    done = run(wrapped, root / "sub", *argv)
    assert (done.returncode, done.stdout) == (0, out), done.stderr


def test_a_bin_that_is_not_installed_is_not_downloaded(wrapped: Path, tmp_path: Path) -> None:
    root = _node_project(tmp_path)
    done = run(wrapped, root, "npx", "--yes", "cowsay", "hi")
    assert done.returncode == 127
    assert "cowsay is not installed in node_modules" in done.stderr and "downloads nothing" in done.stderr
    assert logged(root) == [{"wrapper": "npx", "argv": ["cowsay", "hi"]}]


def test_a_command_the_wrapper_cannot_find_exits_127(wrapped: Path, tmp_path: Path) -> None:
    done = run(wrapped, tmp_path, "uv", "run", "no-such-tool-xyz")
    assert done.returncode == 127 and "no-such-tool-xyz: command not found" in done.stderr


def test_the_log_is_read_back_once_each_and_sorted() -> None:
    lines = [
        json.dumps({"wrapper": "uv run", "argv": ["python", "-m", "app"]}),
        "not json",
        json.dumps({"wrapper": "npx", "argv": ["tsx"]}),
        json.dumps({"wrapper": "uv run", "argv": ["python", "-m", "app"]}),
        json.dumps(["wrong shape"]),
    ]
    assert wrappers.used(lines) == [
        {"wrapper": "npx", "argv": ["tsx"]},
        {"wrapper": "uv run", "argv": ["python", "-m", "app"]},
    ]
