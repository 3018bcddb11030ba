"""A new take-home installed into the kit's own environment (the interpreter running the kit), so that the next
`gradelib check NAME ...` finds it; or, where that cannot be done, the one command that does it."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gradelib.environment.uvtool import uv_binary, uv_environment
from gradelib.errors import InstallError

INSTALL_SECONDS = 600.0  # an editable install fetches its build backend (setuptools) once
SHOWN_LINES = 3  # of the installer's output, when it failed


@dataclass(frozen=True)
class Installed:
    """What `install` did: the command it ran, whether it worked, and if not why and what to run instead."""

    command: tuple[str, ...]
    ok: bool
    why: str = ""  # the installer's last lines, when it failed
    instead: tuple[str, ...] = ()  # the command a team runs itself: the kit's interpreter's pip


def pip_command(folder: Path, *, quiet: bool = False) -> tuple[str, ...]:
    """The kit's own interpreter's pip installing `folder` editable: what a team can always run."""
    options = ("--quiet", "--disable-pip-version-check") if quiet else ()
    return (sys.executable, "-m", "pip", "install", *options, "-e", str(folder.resolve()))


def install_command(folder: Path) -> tuple[str, ...] | None:
    """How the kit installs `folder` into its own environment: this interpreter's pip, which sees what this
    interpreter imports (the kit included, however it was installed); else the kit's uv aimed at this interpreter;
    None when it has neither."""
    if importlib.util.find_spec("pip") is not None:
        return pip_command(folder, quiet=True)
    try:
        return (uv_binary(), "pip", "install", "--python", sys.executable, "-e", str(folder.resolve()))
    except InstallError:
        return None


def install(folder: Path) -> Installed:
    """Install the take-home package in `folder` (editable) into the environment running the kit."""
    instead = pip_command(folder)
    command = install_command(folder)
    if command is None:
        return Installed(instead, False, "neither uv nor pip is installed beside the kit", instead)
    env = uv_environment() if Path(command[0]).name.startswith("uv") else dict(os.environ)
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=INSTALL_SECONDS, check=False
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Installed(command, False, str(exc), instead)
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        return Installed(command, False, " ".join(lines[-SHOWN_LINES:]) or f"exit {done.returncode}", instead)
    return Installed(command, True)


def gradelib_command() -> str:
    """How to call this kit from a shell: `gradelib` when that is this environment's own, else its full path, else
    its interpreter with `-m gradelib` (a `gradelib` found elsewhere on PATH is another environment's)."""
    beside = Path(sys.executable).parent / "gradelib"
    if not beside.exists():
        return f"{shlex.quote(sys.executable)} -m gradelib"
    found = shutil.which("gradelib")
    if found is not None and Path(found).resolve() == beside.resolve():
        return "gradelib"
    return shlex.quote(str(beside))
