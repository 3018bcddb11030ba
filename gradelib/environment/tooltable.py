"""The kit's table of real tools, read from `tooltable.toml` (package data): how each tool is provisioned,
and each setup row's evidence, commands and how runs use the tool offline.

Nothing here runs a tool. `tools.py` provisions the `[tools]` rows; `pysetup.py` and `nodesetup.py` pick
the first `[[setups]]` row whose evidence a submission's files hold (`evidence.py`) and run its commands.
"""

from __future__ import annotations

import functools
import platform
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

TABLE = "tooltable.toml"
SOURCES = ("kit", "pypi", "npm")
ECOSYSTEMS = ("python", "node")
CONDITIONS = frozenset({"file", "contains", "pyproject", "backend", "names", "runs", "package_manager",
                        "script_metadata"})  # fmt: skip


class TableError(ValueError):
    """The tool table itself is wrong (a kit defect: its tests read the table whole)."""


@dataclass(frozen=True)
class Tool:
    """One tool: its name, where it comes from, the version the kit pins, its commands."""

    name: str
    ecosystem: str  # where it is provisioned from: "kit" (the kit's own uv), "python" (PyPI), "node" (npm)
    package: str
    version: str
    commands: tuple[str, ...]
    # A Python tool's dependencies are resolved as the index stood the day after this version's release:
    # the tool as it was released. Its requirements are open ranges, and a later release of one of them
    # can break it (PDM 2.29.4 does not start with hishel 2.0, published nine days after it).
    released: str = ""
    links: Mapping[str, str] = field(default_factory=dict)  # command -> its file in the package (a binary)


@dataclass(frozen=True)
class SetupRow:
    """One way a tool sets a submission up: when (evidence), how (commands), and how runs use it."""

    id: str
    ecosystem: str
    tool: str
    why: str
    evidence: tuple[Mapping[str, Any], ...]
    commands: tuple[tuple[str, ...], ...]
    reads: tuple[str, ...] = ()
    unlocked: tuple[tuple[str, ...], ...] = ()  # the commands when the submission has none of `locks`
    check: tuple[tuple[str, ...], ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    setup_env: Mapping[str, str] = field(default_factory=dict)
    run_env: Mapping[str, str] = field(default_factory=dict)
    run_args: tuple[str, ...] = ()
    venv: str = ""
    locks: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()
    pinned_by: str = ""
    direct: Mapping[str, str] | None = None
    project: bool = False
    linker: str = ""
    also: tuple[str, ...] = ()  # other tools its commands use (on PATH in the setup)
    stable: bool = False
    phase: str = ""  # "own": run with the submission's own setup step, in its copy (deno)
    scripts: tuple[str, ...] = ()  # how runs start package.json's scripts when `npm run` cannot
    # {pick} in its commands: (pattern, value) for the first pattern what runs the code matches, the value
    # or else the pattern's `value` group (the Hatch environment run.sh runs, `hatch run app:start`); else
    # `pick_default`
    picks: tuple[tuple[str, str], ...] = ()
    pick_default: str = ""


@functools.cache
def table() -> tuple[Mapping[str, Tool], tuple[SetupRow, ...]]:
    """The tools by name and the setup rows in order, checked whole (TableError)."""
    doc = tomllib.loads(resources.files(__package__).joinpath(TABLE).read_text(encoding="utf-8"))
    tools = {name: _tool(name, row) for name, row in doc.get("tools", {}).items()}
    rows = tuple(_row(row, tools) for row in doc.get("setups", []))
    ids = [row.id for row in rows]
    if len(set(ids)) != len(ids):
        raise TableError(f"{TABLE}: setup ids repeat: {ids}")
    return tools, rows


def tools() -> Mapping[str, Tool]:
    """Every tool the kit can provision, by name."""
    return table()[0]


def rows(ecosystem: str) -> tuple[SetupRow, ...]:
    """The setup rows of one ecosystem, in the order they are tried."""
    return tuple(row for row in table()[1] if row.ecosystem == ecosystem)


def row(setup_id: str) -> SetupRow:
    """One setup row by its id; KeyError when there is none."""
    for found in table()[1]:
        if found.id == setup_id:
            return found
    raise KeyError(setup_id)


def _tool(name: str, doc: Mapping[str, Any]) -> Tool:
    source = doc.get("source")
    if source not in SOURCES:
        raise TableError(f"{TABLE}: tool {name}: source must be one of {SOURCES}")
    arch = dict(doc.get("arch") or {}).get(platform.machine(), platform.machine())
    ecosystem = {"kit": "kit", "pypi": "python", "npm": "node"}[source]
    links = {command: str(path).format(arch=arch) for command, path in dict(doc.get("links") or {}).items()}
    return Tool(
        name, ecosystem, str(doc["package"]).format(arch=arch), str(doc["version"]), tuple(doc["commands"]),
        str(doc.get("released", "")), links,
    )  # fmt: skip


def _row(doc: Mapping[str, Any], tools: Mapping[str, Tool]) -> SetupRow:
    setup_id = str(doc.get("id", "?"))
    if doc.get("ecosystem") not in ECOSYSTEMS or doc.get("tool") not in tools:
        raise TableError(f"{TABLE}: setup {setup_id}: an ecosystem of {ECOSYSTEMS} and a tool of [tools] are needed")
    for alternative in doc.get("evidence", []):
        if unknown := set(alternative) - CONDITIONS:
            raise TableError(f"{TABLE}: setup {setup_id}: unknown evidence {sorted(unknown)}")
    for other in doc.get("also", []):
        if other not in tools:
            raise TableError(f"{TABLE}: setup {setup_id}: `also` names no tool {other}")

    def commands(key: str) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(str(word) for word in argv) for argv in doc.get(key, []))

    return SetupRow(
        id=setup_id, ecosystem=str(doc["ecosystem"]), tool=str(doc["tool"]), why=str(doc.get("why", "{found}")),
        evidence=tuple(dict(alternative) for alternative in doc.get("evidence", [])), commands=commands("commands"),
        reads=tuple(doc.get("reads", [])), unlocked=commands("unlocked"), check=commands("check"),
        env=dict(doc.get("env", {})), setup_env=dict(doc.get("setup_env", {})), run_env=dict(doc.get("run_env", {})),
        run_args=tuple(doc.get("run_args", [])), venv=str(doc.get("venv", "")), locks=tuple(doc.get("locks", [])),
        keep=tuple(doc.get("keep", [])), pinned_by=str(doc.get("pinned_by", "")),
        direct=dict(doc["direct"]) if "direct" in doc else None, project=bool(doc.get("project", False)),
        linker=str(doc.get("linker", "")), also=tuple(doc.get("also", [])), stable=bool(doc.get("stable", False)),
        phase=str(doc.get("phase", "")), scripts=tuple(doc.get("scripts", [])),
        picks=tuple(
            (str(pick["pattern"]), str(pick.get("value", ""))) if isinstance(pick, dict) else (str(pick), "")
            for pick in doc.get("picks", [])
        ),
        pick_default=str(doc.get("pick_default", "")),
    )  # fmt: skip


def expand(template: str, values: Mapping[str, str]) -> str:
    """A table value with its `{placeholders}` filled in (an unknown one is left as it is)."""
    for key, value in values.items():
        template = template.replace(f"{{{key}}}", value)
    return template
