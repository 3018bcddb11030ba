"""Python submissions set up by the tool their files name, the kit's pinned copy, in the sandbox through
the registry proxy: a project that names Hatch by `hatch env create`, a uv project (`uv.lock`) by
`uv sync --frozen`, a Poetry project by `poetry install`, a PDM one by `pdm sync`, a Pipenv one by
`pipenv sync --dev` (`pipenv install --dev` for a Pipfile alone), a script with inline metadata
(PEP 723) by `uv sync --script`. The environment is made at the sandbox's fixed environment path and
the submission is seen at its fixed submission path, as in every later run, so `hatch run`, `uv
run`, `poetry run`, `pdm run` or `pipenv run` in run.sh finds the same environment, in sync, offline
(Hatch, Poetry, PDM and Pipenv key it on the project's path, uv a script's environment on the
script's, an editable install points there).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.environment import cache, toolpin, tools, toolsetup
from gradelib.environment.declared import Reader
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError
from gradelib.sandbox.mounts import STABLE_ENV

HATCH_TOML = "hatch.toml"
PYPROJECT = "pyproject.toml"
SCRIPTS = ("run.sh", "Makefile", "justfile", "README.md", "README.rst", "README")
HATCH_USE = re.compile(r"(?<![\w-])hatch\s+(run|env\s+create|shell|test)\b")
# Where a script's inline metadata starts (PEP 723's own pattern for the opening line); uv reads the block.
SCRIPT_BLOCK = re.compile(rb"^# /// script\s*$", re.M)
MAX_SCRIPTS = 20
VENV = "venv"
DATA = "hatch-data"
UV_CACHE = "uv-cache"
SCRIPT_ENVS = "environments-v2"  # where uv keeps a script's environment in its cache
POETRY_VENVS = "poetry-venvs"
PDM_DATA = "xdg-data"  # PDM keeps its virtualenvs under the user data folder (no variable moves them alone)
KIND_TOOL = {
    "hatch": "hatch", "uv-project": "uv", "uv-script": "uv", "poetry": "poetry", "pdm": "pdm", "pipenv": "pipenv",
    "pipenv-unlocked": "pipenv",
}  # fmt: skip
PIPENV_VENVS = "pipenv-venvs"
LOCKS = {"uv-project": ("uv.lock",), "poetry": ("poetry.lock",), "pdm": ("pdm.lock",), "pipenv": ("Pipfile.lock",)}
COMMANDS = {
    "hatch": ("hatch", "env", "create"),
    "uv-project": ("uv", "sync", "--frozen"),
    "poetry": ("poetry", "install", "--no-interaction"),
    "pdm": ("pdm", "sync"),
    "pipenv": ("pipenv", "sync", "--dev"),
    "pipenv-unlocked": ("pipenv", "install", "--dev"),  # a Pipfile alone: Pipenv locks it, then installs
}


@dataclass(frozen=True)
class PythonSetup:
    """Which tool sets a Python submission up, how, at which version, and why the kit chose it."""

    kind: str  # a key of KIND_TOOL
    version: str
    why: str  # `run.sh runs hatch run`
    digest: str  # of the files the tool reads to make the environment: the cache key
    scripts: tuple[str, ...] = ()  # uv-script: the scripts with inline metadata
    requires: str = ""  # the tool version the project asks for (`requires-poetry`, uv's `required-version`)

    @property
    def tool(self) -> str:
        """The tool's name in tools.TOOLS."""
        return KIND_TOOL[self.kind]

    def commands(self) -> list[list[str]]:
        """The setup commands."""
        if self.kind == "uv-script":
            return [["uv", "sync", "--script", script] for script in self.scripts]
        return [list(COMMANDS[self.kind])]

    def env(self, settings: InstallSettings, tool_root: Path, *, run: bool = False) -> dict[str, str]:
        """What the tool reads its settings from, in setup and (`run`) in every run (the submission's own
        pip, uv or Poetry configuration is not read)."""
        index = settings.index_url
        common = {"PIP_CONFIG_FILE": "/dev/null", "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"}
        if self.kind in ("uv-script", "uv-project"):
            env = common | {
                "UV_CACHE_DIR": f"{STABLE_ENV}/{UV_CACHE}", "UV_PYTHON": settings.python, "UV_NO_PROGRESS": "1",
            }  # fmt: skip
            if self.kind == "uv-project":
                env["UV_PROJECT_ENVIRONMENT"] = f"{STABLE_ENV}/{VENV}"
            if run:
                return env | {"UV_OFFLINE": "1"}
            return env | ({"UV_DEFAULT_INDEX": index} if index else {})
        if self.kind == "pdm":
            env = common | {
                "XDG_DATA_HOME": f"{STABLE_ENV}/{PDM_DATA}", "PDM_VENV_IN_PROJECT": "false", "PDM_USE_VENV": "true",
                "PDM_CHECK_UPDATE": "false", "PDM_NON_INTERACTIVE": "1",
            }  # fmt: skip
            return env | ({"PDM_PYPI_URL": index} if index else {})
        if self.tool == "pipenv":
            env = common | {
                "WORKON_HOME": f"{STABLE_ENV}/{PIPENV_VENVS}", "PIPENV_VENV_IN_PROJECT": "0", "PIPENV_YES": "1",
                "PIPENV_NOSPIN": "1", "PIPENV_IGNORE_VIRTUALENVS": "1", "PIPENV_PYTHON": settings.python,
                "PIPENV_VERBOSITY": "-1", "PIP_NO_INDEX": "0",  # the runs' `pip` is offline, not this setup's
            }  # fmt: skip
            return env | ({"PIPENV_PYPI_MIRROR": index} if index else {})
        if self.kind == "poetry":
            env = common | {
                "POETRY_VIRTUALENVS_PATH": f"{STABLE_ENV}/{POETRY_VENVS}", "POETRY_VIRTUALENVS_IN_PROJECT": "false",
                "POETRY_VIRTUALENVS_CREATE": "true", "POETRY_NO_INTERACTION": "1",
            }  # fmt: skip
            return env
        env = common | {
            "HATCH_ENV_TYPE_VIRTUAL_PATH": f"{STABLE_ENV}/{VENV}",
            "HATCH_DATA_DIR": f"{STABLE_ENV}/{DATA}",
            "HATCH_PYTHON": settings.python,
            "HATCH_ENV_TYPE_VIRTUAL_UV_PATH": str(tool_root / "bin" / "uv"),  # the uv Hatch comes with
            "HATCH_INTERACTIVE": "false",
        }
        if index:
            env |= {"UV_DEFAULT_INDEX": index, "PIP_INDEX_URL": index}
        return env

    def to_dict(self) -> dict[str, Any]:
        """The report's account: tool, version, why, the command."""
        return {
            "tool": self.tool, "version": self.version, "version_from": "the kit", "why": self.why,
            "command": " && ".join(" ".join(argv) for argv in self.commands()), "stable": True,
        }  # fmt: skip


def detect(reader: Reader, pyproject: Mapping[str, Any] | None) -> PythonSetup | None:
    """The tool the submission's files name, first of: Hatch (`hatch.toml`, `[tool.hatch.envs]`, or
    `hatch run` in run.sh, a Makefile or the README), uv (`uv.lock`), Poetry (`poetry.lock`), PDM
    (`pdm.lock`), Pipenv (`Pipfile.lock`, then a Pipfile alone), Poetry (`[tool.poetry]` without a
    lock), uv for scripts at the top with inline metadata (PEP 723). None otherwise (the kit's own
    installers then: requirements files and `[project]` through uv)."""
    found = (
        _hatch(reader, pyproject)
        or _by_file(reader, "uv-project", "uv.lock", (PYPROJECT, "uv.lock"))
        or _by_file(reader, "poetry", "poetry.lock", (PYPROJECT, "poetry.lock"))
        or _by_file(reader, "pdm", "pdm.lock", (PYPROJECT, "pdm.lock"))
        or _by_file(reader, "pipenv", "Pipfile.lock", ("Pipfile", "Pipfile.lock"))
        or _by_file(reader, "pipenv-unlocked", "Pipfile", ("Pipfile",))
        or _poetry_project(reader, pyproject)
        or _scripts(reader)
    )
    if found is None or found.kind == "uv-script":
        return found
    return dataclasses.replace(found, requires=toolpin.asked(found.tool, pyproject))


def _setup(reader: Reader, kind: str, why: str, files: tuple[str, ...], **more: Any) -> PythonSetup:
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0" + (reader.read(name) or b"") + b"\0")
    return PythonSetup(kind, tools.TOOLS[KIND_TOOL[kind]].version, why, digest.hexdigest(), **more)


def _by_file(reader: Reader, kind: str, name: str, files: tuple[str, ...]) -> PythonSetup | None:
    if not reader.exists(name):
        return None
    return _setup(reader, kind, f"the submission has a {name}", files)


def _poetry_project(reader: Reader, pyproject: Mapping[str, Any] | None) -> PythonSetup | None:
    tool = (pyproject or {}).get("tool")
    if not (isinstance(tool, dict) and isinstance(tool.get("poetry"), dict)):
        return None
    return _setup(reader, "poetry", "pyproject.toml is a Poetry project ([tool.poetry])", (PYPROJECT,))


def _scripts(reader: Reader) -> PythonSetup | None:
    try:
        names = sorted(p.name for p in reader.root.iterdir() if p.suffix == ".py" and p.is_file())[:MAX_SCRIPTS]
    except OSError:
        return None
    scripts = [name for name in names if (data := reader.read(name)) is not None and SCRIPT_BLOCK.search(data)]
    if not scripts:
        return None
    digest = hashlib.sha256()
    for name in scripts:
        data = reader.read(name) or b""
        start = SCRIPT_BLOCK.search(data)
        digest.update(name.encode() + b"\0" + data[start.start() if start else 0 :].split(b"\n# ///", 2)[0])
    why = f"{', '.join(scripts)} declare{'s' if len(scripts) == 1 else ''} dependencies inline (PEP 723)"
    return PythonSetup("uv-script", tools.TOOLS["uv"].version, why, digest.hexdigest(), tuple(scripts))


def _hatch(reader: Reader, pyproject: Mapping[str, Any] | None) -> PythonSetup | None:
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
    return _setup(reader, "hatch", why, (PYPROJECT, HATCH_TOML))


def run(setup: PythonSetup, root: Path, folder: Path, settings: InstallSettings) -> dict[str, Any]:
    """Set the project up in the sandbox; its environment is kept in `folder/env`. Returns the evidence;
    raises InstallError with the tool's own last lines."""
    if settings.offline:
        raise InstallError("python", f"offline: the project is set up by {setup.tool}, which needs the index")
    setup, provisioned, chosen = _provision(setup, settings)
    target = folder / toolsetup.ENV_OUT
    made: list[str] = []

    def collect(_: Path, out: Path | None) -> None:
        venv = _venv(setup, out) if out is not None else None
        if out is None or venv is None:
            raise InstallError("python", f"{setup.tool} {setup.version} succeeded but made no environment")
        made.append(venv)
        cache.adopt(out, target)

    env = setup.env(settings, provisioned.root)
    done = toolsetup.run(
        provisioned, root, setup.commands(), env, settings, "", collect, ecosystem="python", stable=True
    )
    note = {"note": chosen.note} if chosen.note else {}
    return setup.to_dict() | {"version_from": chosen.version_from} | note | done | {"venv": made[0]}


def _provision(setup: PythonSetup, settings: InstallSettings) -> tuple[PythonSetup, tools.Provisioned, toolpin.Chosen]:
    """The tool at the version the project asks for when it can be had, else the kit's (with a note)."""
    chosen = toolpin.choose(setup.tool, setup.requires, settings)
    try:
        provisioned = tools.provision(setup.tool, settings, chosen.version)
    except InstallError as exc:
        kit = tools.TOOLS[setup.tool].version
        if chosen.version == kit:
            raise
        chosen = toolpin.Chosen(kit, "the kit", f"{chosen.version_from}: {chosen.version} could not be provisioned "
                                f"({exc.reason}); used {kit}")  # fmt: skip
        provisioned = tools.provision(setup.tool, settings, kit)
    return dataclasses.replace(setup, version=chosen.version), provisioned, chosen


def _venv(setup: PythonSetup, out: Path) -> str | None:
    """The environment's folder inside `out` (a script's: the first script's, in uv's cache)."""
    if setup.kind == "uv-script":
        found = sorted((out / UV_CACHE / SCRIPT_ENVS).glob(f"{Path(setup.scripts[0]).stem}-*"))
    elif setup.kind == "poetry":
        found = sorted((out / POETRY_VENVS).glob("*"))
    elif setup.tool == "pipenv":
        found = sorted((out / PIPENV_VENVS).glob("*"))
    elif setup.kind == "pdm":
        found = sorted((out / PDM_DATA / "pdm" / "venvs").glob("*"))
    else:
        found = [out / VENV]
    made = [path for path in found if (path / "bin" / "python").exists()]
    return str(made[0].relative_to(out)) if made else None


def installed(venv: Path) -> tuple[tuple[str, str, bool], ...]:
    """(name, version, False) of every distribution in the environment, read by importlib.metadata."""
    sites = [str(site) for site in venv.glob("lib/python*/site-packages")]
    found = {
        (str(dist.metadata["Name"]), dist.version, False)
        for dist in importlib.metadata.distributions(path=sites)
        if dist.metadata["Name"]
    }
    return tuple(sorted(found))
