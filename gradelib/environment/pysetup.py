"""Python submissions set up by the tool their files name, from the kit's table (`tooltable.toml`): the first
row whose evidence the files hold (Hatch, uv, Poetry, PDM, Pipenv, nox, tox, flit, a PEP 723 script ...),
its commands run by the kit's pinned copy of the tool, in the sandbox through the registry proxy.

The environment is made at the sandbox's fixed environment path and the submission is seen at its fixed
submission path, as in every later run, so `hatch run`, `uv run`, `poetry run`, `pdm run`, `pipenv run`,
`nox -s ...` or `tox -e ...` in run.sh finds the same environment, in sync, offline (the tools key what they
made on the project's path, an editable install points there). A row's `run_args` reach every run's use of
the tool through a wrapper first on PATH (`nox` reuses its sessions' environments and installs nothing).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.environment import cache, evidence, toolpin, tools, toolsetup, tooltable
from gradelib.environment.declarationrecords import Reader
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.tooltable import SetupRow
from gradelib.errors import InstallError
from gradelib.sandbox.mounts import STABLE_ENV

VENV = "venv"
WRAPPERS = "commands"  # in the environment: the tool's commands with the row's run_args
SCRIPT_BLOCK = evidence.SCRIPT_BLOCK


@dataclass(frozen=True)
class PythonSetup:
    """Which tool sets a Python submission up (a row of the table), at which version, and why."""

    kind: str  # the setup row's id
    version: str
    why: str  # `run.sh runs `hatch run``
    digest: str  # of the files the tool reads to make the environment: the cache key
    scripts: tuple[str, ...] = ()  # uv-script: the scripts with inline metadata
    requires: str = ""  # the tool version the project asks for (`requires-poetry`, uv's `required-version`)
    picked: str = ""  # {pick} in the row's commands: what runs the code chose (a Hatch environment's name)

    @property
    def row(self) -> SetupRow:
        """The table's row."""
        return tooltable.row(self.kind)

    @property
    def tool(self) -> str:
        """The tool's name in tools.TOOLS."""
        return self.row.tool

    def commands(self, settings: InstallSettings | None = None) -> list[list[str]]:
        """The setup commands (a command naming `{script}` once per script with inline metadata)."""
        values = _places() | ({"python": settings.python} if settings else {}) | {"pick": self.picked}
        found = []
        for argv in self.row.commands:
            if any("{script}" in word for word in argv):
                found += [[word.replace("{script}", script) for word in argv] for script in self.scripts]
            else:
                found.append([tooltable.expand(word, values) for word in argv])
        return [list(argv) for argv in dict.fromkeys(tuple(argv) for argv in found)]  # a {pick} may repeat one

    def checks(self) -> list[list[str]]:
        """The tool's own consistency check, run offline once the setup is done."""
        return [[tooltable.expand(word, _places()) for word in argv] for argv in self.row.check]

    def env(self, settings: InstallSettings, tool_root: Path, *, run: bool = False) -> dict[str, str]:
        """What the tool reads its settings from, in setup and (`run`) in every run (the submission's own
        pip, uv or Poetry configuration is not read). A variable naming the index is left out when the
        reviewer configured none (the tool's default, PyPI)."""
        values = _places() | {"python": settings.python, "tool": str(tool_root), "index": settings.index_url or ""}
        extra = self.row.run_env if run else self.row.setup_env
        found = {}
        for name, template in {**self.row.env, **extra}.items():
            if "{index}" in template and not settings.index_url:
                continue
            found[name] = tooltable.expand(template, values)
        return found

    def run_args(self) -> list[str]:
        """What every run's use of the tool gets first (`-R --envdir ...` for nox)."""
        return [tooltable.expand(word, _places()) for word in self.row.run_args]

    def to_dict(self, settings: InstallSettings | None = None) -> dict[str, Any]:
        """The report's account: tool, version, why, the command."""
        return {
            "tool": self.tool, "version": self.version, "version_from": "the kit", "why": self.why,
            "command": " && ".join(shlex.join(argv) for argv in self.commands(settings)), "stable": True,
            "setup": self.kind,
        }  # fmt: skip


def _places() -> dict[str, str]:
    return {"env": STABLE_ENV}


def detect(reader: Reader, pyproject: Mapping[str, Any] | None) -> PythonSetup | None:
    """The first row of the table whose evidence the submission's files hold, or None (the kit's own
    installers then: requirements files, `[project]` and `setup.py` through uv)."""
    for row in tooltable.rows("python"):
        words = evidence.found(row, reader, pyproject)
        if words is None:
            continue
        why = row.why.replace("{found}", words)
        if row.id == "uv-script":
            return _script_setup(reader, row, why)
        setup = PythonSetup(row.id, tools.TOOLS[row.tool].version, why, _digest(reader, row))
        return dataclasses.replace(setup, requires=toolpin.asked(row.pinned_by, pyproject), picked=_pick(reader, row))
    return None


def _pick(reader: Reader, row: SetupRow) -> str:
    """What the row's {pick} stands for: the first of its patterns that what runs the code matches."""
    texts = evidence.texts(reader, runs=True) if row.picks else []
    for pattern, value in row.picks:
        for _name, text in texts:
            if (match := re.search(pattern, text)) is not None and (value or match["value"]):
                return value or match["value"]
    return row.pick_default


def _digest(reader: Reader, row: SetupRow) -> str:
    digest = hashlib.sha256(row.id.encode())
    for name in evidence.files_read(reader, row.reads):
        digest.update(name.encode() + b"\0" + (reader.read(name) or b"") + b"\0")
    return digest.hexdigest()


def _script_setup(reader: Reader, row: SetupRow, why: str) -> PythonSetup:
    """A uv setup per script at the top with inline metadata; the cache key is their metadata blocks."""
    scripts = evidence.inline_scripts(reader)
    digest = hashlib.sha256()
    for name in scripts:
        data = reader.read(name) or b""
        start = SCRIPT_BLOCK.search(data)
        digest.update(name.encode() + b"\0" + data[start.start() if start else 0 :].split(b"\n# ///", 2)[0])
    return PythonSetup(row.id, tools.TOOLS[row.tool].version, why, digest.hexdigest(), tuple(scripts))


def run(setup: PythonSetup, root: Path, folder: Path, settings: InstallSettings) -> dict[str, Any]:
    """Set the project up in the sandbox; its environment is kept in `folder/env`. Returns the evidence;
    raises InstallError with the tool's own last lines."""
    if settings.offline:
        raise InstallError("python", f"offline: the project is set up by {setup.tool}, which needs the index")
    setup, provisioned, chosen = _provision(setup, settings)
    also = [tools.provision(name, settings) for name in setup.row.also]
    target = folder / toolsetup.ENV_OUT
    made: list[str] = []

    def collect(_: Path, out: Path | None) -> None:
        venv = _venv(setup, out) if out is not None else None
        if out is None or venv is None:
            raise InstallError("python", f"{setup.tool} {setup.version} succeeded but made no environment")
        made.append(venv)
        if setup.row.run_args:
            _wrappers(setup, provisioned, out)
        cache.adopt(out, target)

    env = setup.env(settings, provisioned.root)
    done = toolsetup.run(
        provisioned, root, setup.commands(settings), env, settings, "", collect, ecosystem="python", stable=True,
        checks=setup.checks(), also=also,
    )  # fmt: skip
    note = {"note": chosen.note} if chosen.note else {}
    wrapped = {"wrappers": f"{STABLE_ENV}/{WRAPPERS}"} if setup.row.run_args else {}
    return setup.to_dict(settings) | {"version_from": chosen.version_from} | note | done | {"venv": made[0]} | wrapped


def _provision(setup: PythonSetup, settings: InstallSettings) -> tuple[PythonSetup, tools.Provisioned, toolpin.Chosen]:
    """The tool at the version the project asks for when it can be had, else the kit's (with a note)."""
    chosen = toolpin.choose(setup.tool, setup.requires, settings, setting=setup.row.pinned_by)
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
    """The environment's folder inside `out`: the first match of the row's `venv` glob (a script's: the
    first script's, in uv's cache)."""
    stem = Path(setup.scripts[0]).stem if setup.scripts else ""
    pattern = setup.row.venv.replace("{script_stem}", stem) or VENV
    made = [path for path in sorted(out.glob(pattern)) if (path / "bin" / "python").exists()]
    return str(made[0].relative_to(out)) if made else None


def _wrappers(setup: PythonSetup, provisioned: tools.Provisioned, out: Path) -> None:
    """The tool's commands, each a script that runs the real one with the row's run_args first."""
    folder = out / WRAPPERS
    folder.mkdir(exist_ok=True)
    for name in provisioned.tool.commands:
        script = folder / name
        real = shlex.quote(str(provisioned.command(name)))
        script.write_text(f'#!/bin/sh\nexec {real} {shlex.join(setup.run_args())} "$@"\n', encoding="utf-8")
        os.chmod(script, 0o755)  # noqa: S103 - run by the sandbox's user, as every tool folder is


def installed(venv: Path) -> tuple[tuple[str, str, bool], ...]:
    """(name, version, False) of every distribution in the environment, read by importlib.metadata."""
    sites = [str(site) for site in venv.glob("lib/python*/site-packages")]
    found = {
        (str(dist.metadata["Name"]), dist.version, False)
        for dist in importlib.metadata.distributions(path=sites)
        if dist.metadata["Name"]
    }
    return tuple(sorted(found))
