"""The grading machine's Node and npm, and the npm registry the kit installs from."""

from __future__ import annotations

import functools
import shutil
import subprocess

from gradelib.environment.installsettings import InstallSettings
from gradelib.errors import InstallError

DEFAULT_NPM_REGISTRY = "https://registry.npmjs.org/"


def npm_binary() -> str:
    """npm on PATH, or InstallError."""
    found = shutil.which("npm") or shutil.which("npm", path="/usr/local/bin:/usr/bin:/bin")
    if found is None:
        raise InstallError("node", "npm is not installed on the grading machine (apt-get install npm)")
    return found


@functools.cache
def node_version() -> str:
    """`v20.20.2`, or "" when node is missing."""
    node = shutil.which("node") or shutil.which("node", path="/usr/local/bin:/usr/bin:/bin")
    if node is None:
        return ""
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False, timeout=30)
    return done.stdout.strip()


@functools.cache
def configured_registry() -> str:
    """The registry npm uses with the reviewer's configuration (default: the npm registry)."""
    try:
        done = subprocess.run(
            [npm_binary(), "config", "get", "registry"], capture_output=True, text=True, check=False, timeout=30,
            cwd="/",
        )  # fmt: skip
    except (InstallError, OSError, subprocess.TimeoutExpired):
        return DEFAULT_NPM_REGISTRY
    value = done.stdout.strip()
    return value if value.startswith(("http://", "https://")) else DEFAULT_NPM_REGISTRY


def registry(settings: InstallSettings) -> str:
    """The registry the kit installs from: the reviewer's choice, with a trailing slash."""
    chosen = settings.registry or configured_registry()
    return chosen if chosen.endswith("/") else chosen + "/"
