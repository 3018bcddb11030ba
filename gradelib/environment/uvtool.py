"""uv, the kit's Python installer: where it is, the environment it runs in, its options, its errors."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess

from gradelib.environment.installsettings import InstallSettings
from gradelib.errors import InstallError

OPT_IN = "--build-source (GRADELIB_BUILD_SOURCE=1) has uv build it inside the sandbox"
ERROR_LINE = re.compile(r"^\s*(error|cause|caused by|hint|×|╰─▶)(:|\s)", re.I)  # noqa: RUF001 - uv prints a multiplication sign


def uv_binary() -> str:
    """The uv that ships with the kit (the `uv` package), else one on PATH."""
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if found is None:
            raise InstallError("python", "uv is not installed (pip install uv)") from None
        return found


@functools.cache
def interpreter_version(python: str) -> str:
    """`3.11.2` for the interpreter that candidate environments are made from."""
    if not os.access(python, os.X_OK):
        raise InstallError("python", f"{python} is missing: install python3 (or set GRADELIB_PYTHON)")
    done = subprocess.run(
        [python, "-I", "-c", "import sys; print('.'.join(map(str, sys.version_info[:3])))"],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    if done.returncode != 0:
        raise InstallError("python", f"{python} does not run: {done.stderr.strip()[:200]}")
    return done.stdout.strip()


def uv_environment() -> dict[str, str]:
    """The environment the kit runs uv in: the reviewer's, minus what would weaken the kit's choices."""
    env = dict(os.environ)
    # The kit's own choices win over the reviewer's environment where they matter for safety.
    for name in ("UV_NO_BUILD", "UV_NO_BINARY", "UV_FIND_LINKS", "UV_PYTHON", "VIRTUAL_ENV", "UV_PROJECT"):
        env.pop(name, None)
    env["UV_NO_PROGRESS"] = "1"
    return env


def index_options(settings: InstallSettings) -> list[str]:
    """uv's `--index-url` / `--offline` for these settings."""
    options = ["--index-url", settings.index_url] if settings.index_url else []
    return [*options, "--offline"] if settings.offline else options


def wheels_only(output: str, *, build: bool) -> str:
    """What the reviewer can do about a package uv refused for want of a wheel (`""` for anything else)."""
    if ("no usable wheels" in output or "--no-build" in output) and not build:
        return f" (the kit installs wheels only: a package that must be built from source is refused; {OPT_IN})"
    return ""


def reason(output: str, *, offline: bool = False, build: bool = False) -> str:
    """uv's own explanation, in a few lines (it names the package it could not install)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    wanted = [line for line in lines if ERROR_LINE.match(line)] or lines[-3:]
    text = " ".join(wanted)[:600] or "the installer failed without saying why"
    text += wheels_only(output, build=build)
    if re.search(r"(dns|connect|network|timed out|failed to fetch)", output, re.I) and not offline:
        text += " (registry unreachable?)"
    return text
