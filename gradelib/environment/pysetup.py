"""Python projects whose own files name Hatch, set up by Hatch itself: `hatch env create`, the kit's
pinned copy, in the sandbox through the registry proxy. The environment is made at the sandbox's fixed
environment path and the project is seen at its fixed submission path, as in every later run, so
`hatch run ...` in run.sh finds the same environment, in sync, offline, with the project installed
in development mode as Hatch does it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.environment import tools, toolsetup
from gradelib.environment.declared import Reader
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError
from gradelib.sandbox.mounts import STABLE_ENV

HATCH_TOML = "hatch.toml"
PYPROJECT = "pyproject.toml"
SCRIPTS = ("run.sh", "Makefile", "justfile", "README.md", "README.rst", "README")
HATCH_USE = re.compile(r"(?<![\w-])hatch\s+(run|env\s+create|shell|test)\b")
VENV = "venv"
DATA = "hatch-data"


@dataclass(frozen=True)
class PythonSetup:
    """Which tool sets a Python project up, at which version, and why the kit chose it."""

    tool: str  # a name in tools.TOOLS
    version: str
    why: str  # `run.sh runs hatch run`
    digest: str  # of the files the tool reads to make the environment: the cache key

    def argv(self) -> list[str]:
        """The setup command."""
        return ["hatch", "env", "create"]

    def env(self, settings: InstallSettings, bin_dir: Path) -> dict[str, str]:
        """What the tool reads its settings from, in setup and in every run (the submission's own pip or
        uv configuration is not read)."""
        env = {
            "HATCH_ENV_TYPE_VIRTUAL_PATH": f"{STABLE_ENV}/{VENV}",
            "HATCH_DATA_DIR": f"{STABLE_ENV}/{DATA}",
            "HATCH_PYTHON": settings.python,
            "HATCH_ENV_TYPE_VIRTUAL_UV_PATH": str(bin_dir / "uv"),
            "HATCH_INTERACTIVE": "false",
            "UV_NO_CONFIG": "1",
            "PIP_CONFIG_FILE": "/dev/null",
        }
        if settings.index_url:
            env |= {"UV_DEFAULT_INDEX": settings.index_url, "PIP_INDEX_URL": settings.index_url}
        return env

    def to_dict(self) -> dict[str, Any]:
        """The report's account: tool, version, why, the command."""
        return {
            "tool": self.tool, "version": self.version, "version_from": "the kit", "why": self.why,
            "command": " ".join(self.argv()), "stable": True,
        }  # fmt: skip


def detect(reader: Reader, pyproject: Mapping[str, Any] | None) -> PythonSetup | None:
    """Hatch, when the submission's files name it: `hatch.toml`, `[tool.hatch.envs]`, or `hatch run` in
    run.sh, a Makefile or the README. None otherwise (the kit's own installers then)."""
    why = None
    hatch_toml = reader.read(HATCH_TOML)
    tool = (pyproject or {}).get("tool")
    if hatch_toml is not None:
        why = "the project has a hatch.toml"
    elif isinstance(tool, dict) and isinstance(tool.get("hatch"), dict) and "envs" in tool["hatch"]:
        why = "pyproject.toml configures Hatch environments ([tool.hatch.envs])"
    else:
        for name in SCRIPTS:
            text = reader.text(name)
            if text and (found := HATCH_USE.search(text)):
                why = f"{name} runs `{found.group(0)}`"
                break
    if why is None:
        return None
    digest = hashlib.sha256()
    for name in (PYPROJECT, HATCH_TOML):
        digest.update(name.encode() + b"\0" + (reader.read(name) or b"") + b"\0")
    hatch = tools.TOOLS["hatch"]
    return PythonSetup(hatch.name, hatch.version, why, digest.hexdigest())


def run(setup: PythonSetup, root: Path, folder: Path, settings: InstallSettings) -> dict[str, Any]:
    """Set the project up in the sandbox; its environment is kept in `folder/env`. Returns the evidence;
    raises InstallError with the tool's own last lines."""
    if settings.offline:
        raise InstallError("python", f"offline: the project is set up by {setup.tool}, which needs the index")
    provisioned = tools.provision(setup.tool, settings, setup.version)
    target = folder / toolsetup.ENV_OUT

    def collect(_: Path, out: Path | None) -> None:
        if out is None or not (out / VENV / "bin" / "python").exists():
            raise InstallError("python", f"{setup.tool} {setup.version} succeeded but made no environment")
        shutil.move(str(out), str(target))

    env = setup.env(settings, provisioned.bin_dir)
    done = toolsetup.run(provisioned, root, setup.argv(), env, settings, "", collect, ecosystem="python", stable=True)
    return setup.to_dict() | done


def installed(venv: Path) -> tuple[tuple[str, str, bool], ...]:
    """(name, version, False) of every distribution in the environment, read by importlib.metadata."""
    sites = [str(site) for site in venv.glob("lib/python*/site-packages")]
    found = {
        (str(dist.metadata["Name"]), dist.version, False)
        for dist in importlib.metadata.distributions(path=sites)
        if dist.metadata["Name"]
    }
    return tuple(sorted(found))
