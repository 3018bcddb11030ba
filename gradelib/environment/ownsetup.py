"""The submission's own setup step, as a careful reviewer finds it: the commands its README's setup section
names (a Makefile or justfile target, a package.json build script, a setup script of its own), and the
setup target run.sh says to run first. Found here, read as data; run by `ownrun.py`.

A command the table's tools already cover (`npm ci`, `uv sync`, `poetry install`, `flit install`) is theirs;
`pip install -r FILE` names a requirements file the kit installs like `requirements.txt`. Only targets and
scripts whose names say they set the project up are run (`make setup`, `just install`, `npm run build`),
never its tests, linters or the program itself.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gradelib.environment import evidence, tooltable
from gradelib.environment.declarationrecords import Reader
from gradelib.environment.evidence import JUSTFILES, MAKEFILES, READMES, RUN_SH
from gradelib.environment.inventory import BUILT
from gradelib.sandbox.mounts import STABLE_SUBMISSION

# A README section whose title says it sets the project up (or how to run it, which often starts so).
SECTION = re.compile(
    r"set ?up|install|getting started|quick ?start|build|prerequisite|requirement|usage|running|how to run|develop",
    re.I,
)
HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE = re.compile(r"`([^`\n]+)`")
PROMPT = re.compile(r"^\s*(?:\$|>|#|%)\s+")
SEPARATOR = re.compile(r"\s*(?:&&|;|\|\|)\s*")
# Targets, recipes and scripts whose names say they set the project up.
SETUP_NAMES = re.compile(
    r"^(setup|set-up|install|deps|dependencies|bootstrap|build|compile|init|prepare|venv|env|bundle|tsc|codegen|generate)$",
    re.I,
)
SETUP_SCRIPT = re.compile(r"(setup|install|bootstrap|build|prepare)[\w.-]*\.(sh|bash)$", re.I)
MAKE_TARGET = re.compile(r"^([A-Za-z0-9][\w.-]*)\s*:(?![=:])", re.M)
JUST_RECIPE = re.compile(r"^@?([A-Za-z0-9][\w-]*)(?:\s+[^:\n]*)?:(?!=)", re.M)
NODE_RUNNERS = ("npm", "pnpm", "yarn", "bun")
REQUIREMENTS = re.compile(r"(?:^|\s)(?:-r|--requirement)[=\s]+(?P<file>[^\s;&|]+)")
PIP_SYNC = re.compile(r"(?:pip-sync|uv\s+pip\s+sync)\s+(?P<file>[^\s;&|-][^\s;&|]*)")
MAX_STEPS = 5
BUILD = "build"


@dataclass(frozen=True)
class Step:
    """One command of the submission's own setup, and why the kit runs it."""

    argv: tuple[str, ...]
    why: str  # `README.md's setup section says `make setup``
    tool: str | None = None  # a table tool the command needs on PATH (`just`)
    env: Mapping[str, str] = field(default_factory=dict)  # what the tool reads its settings from (a table row's)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"command": shlex.join(self.argv), "why": self.why}


def table_steps(reader: Reader, registry: str) -> tuple[list[Step], dict[str, str]]:
    """The table's rows that run with the submission's own setup step (deno), as steps, and the variables every
    run then needs (where they left what they fetched)."""
    found: list[Step] = []
    run_env: dict[str, str] = {}
    values = {"submission": STABLE_SUBMISSION, "registry": registry}
    for row in tooltable.table()[1]:
        if row.phase != "own" or (words := evidence.found(row, reader, None)) is None:
            continue
        locked = any(reader.exists(lock) for lock in row.locks)
        commands = row.commands if locked or not row.unlocked else row.unlocked
        env = {name: tooltable.expand(value, values) for name, value in {**row.env, **row.setup_env}.items()}
        found += [Step(argv, row.why.replace("{found}", words), row.tool, env) for argv in commands]
        run_env |= {name: tooltable.expand(value, values) for name, value in {**row.env, **row.run_env}.items()}
    return found, run_env


def steps(reader: Reader) -> list[Step]:
    """The submission's own setup commands, in the order its README gives them (then what run.sh names)."""
    found: list[Step] = []
    for where, command in [*readme_commands(reader), *_run_sh_mentions(reader)]:
        step = _step(reader, command, where)
        if step is not None and step.argv not in {known.argv for known in found}:
            found.append(step)
    unbuilt = _unbuilt(reader)
    if unbuilt is not None and not any(step.argv[-1] == BUILD for step in found):
        found.append(unbuilt)
    return found[:MAX_STEPS]


def _unbuilt(reader: Reader) -> Step | None:
    """package.json's build script, when what runs the code names a folder it makes that is not there
    (`node dist/main.js`, `"main": "dist/index.js"`, `export * from "./dist/client.js"`)."""
    if BUILD not in _scripts(reader):
        return None
    for name, text in _naming_texts(reader):
        for folder in BUILT:
            if re.search(rf"(^|[\s\"'(/.]){folder}/", text) and not reader.exists(folder):
                why = f"package.json's build script makes {folder}/, which {name} runs"
                return Step(("npm", "run", BUILD), why, "npm")
    return None


def _naming_texts(reader: Reader) -> list[tuple[str, str]]:
    """(file, text) of what runs the code: run.sh, package.json, the JavaScript modules at the top."""
    found = [(name, text) for name in (RUN_SH, "package.json") if (text := reader.text(name))]
    try:
        tops = sorted(p.name for p in reader.root.iterdir() if p.suffix in (".mjs", ".js", ".cjs") and p.is_file())
    except OSError:
        tops = []
    return found + [(name, text) for name in tops[:20] if (text := reader.text(name))]


def requirement_files(reader: Reader) -> list[tuple[str, str]]:
    """(file, where named) for each requirements file the README's setup has pip install (`-r dev.txt`)."""
    found = []
    for where, command in readme_commands(reader):
        if not re.search(r"\bpip3?\b|\buv\s+pip\b|\bpip-sync\b", command):
            continue
        for match in [*REQUIREMENTS.finditer(command), *PIP_SYNC.finditer(command)]:
            name = os.path.normpath(match["file"].strip("'\""))
            if not name.startswith("..") and not os.path.isabs(name) and reader.exists(name):
                found.append((name, f"{where} says `{command[:80]}`"))
    return found


def readme_commands(reader: Reader) -> list[tuple[str, str]]:
    """(where, command) for each shell command in the README's setup sections: fenced blocks, prompt
    lines, and inline code in them that starts like a command."""
    for name in READMES:
        text = reader.text(name)
        if text is None:
            continue
        found = []
        for block, inline in _sections(text):
            found += [(f"{name}'s setup section", command) for line in block for command in _commands(line)]
            found += [(f"{name}'s setup section", command) for code in inline for command in _commands(code)
                      if _looks_like_command(command)]  # fmt: skip
        return found
    return []


def _sections(text: str) -> list[tuple[list[str], list[str]]]:
    """(lines in code blocks, inline code spans) of each setup section; the whole text when none is titled so."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading:
            sections.append((heading.group(2), []))
        else:
            sections[-1][1].append(line)
    chosen = [lines for title, lines in sections if title and SECTION.search(title)] or [
        lines for _title, lines in sections
    ]
    return [_code(lines) for lines in chosen]


def _code(lines: list[str]) -> tuple[list[str], list[str]]:
    block: list[str] = []
    inline: list[str] = []
    fenced = False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or (PROMPT.match(line) and line.lstrip().startswith("$")):
            block.append(PROMPT.sub("", line))
        else:
            inline += INLINE.findall(line)
    return block, inline


def _commands(line: str) -> list[str]:
    line = re.sub(r"(^|\s)#.*$", "", PROMPT.sub("", line)).strip()
    return [part.strip() for part in SEPARATOR.split(line) if part.strip()]


def _looks_like_command(text: str) -> bool:
    first = text.split()[0] if text.split() else ""
    return first in ("make", "just", *NODE_RUNNERS, "bash", "sh") or first.startswith("./")


def _run_sh_mentions(reader: Reader) -> list[tuple[str, str]]:
    """`make setup` / `just install` that run.sh tells a reviewer to run first."""
    text = reader.text(RUN_SH) or ""
    return [(RUN_SH, m.group(0)) for m in re.finditer(r"\b(make|just)\s+[\w.-]+", text)]


def _step(reader: Reader, command: str, where: str) -> Step | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
        words = words[1:]  # `CI=1 make setup`
    if not words:
        return None
    shown = " ".join(words)[:80]
    why = f"{RUN_SH} says to run `{shown}` first" if where == RUN_SH else f"{where} says `{shown}`"
    head, rest = words[0], words[1:]
    if head == "make" and rest and SETUP_NAMES.match(rest[0]) and rest[0] in _targets(reader, MAKEFILES, MAKE_TARGET):
        return Step(("make", rest[0]), why)
    if head == "just" and rest and SETUP_NAMES.match(rest[0]) and rest[0] in _targets(reader, JUSTFILES, JUST_RECIPE):
        return Step(("just", rest[0]), why, "just")
    if head in NODE_RUNNERS:
        script = (
            rest[1] if rest[:1] == ["run"] and len(rest) > 1 else rest[0] if rest and head in ("yarn", "pnpm") else None
        )
        if script and SETUP_NAMES.match(script) and script in _scripts(reader):
            return Step((head, "run", script), why, head)
        return None
    if head in ("bash", "sh") and rest:
        head, rest = rest[0], rest[1:]
    path = os.path.normpath(head)
    if SETUP_SCRIPT.search(path) and not path.startswith("..") and not os.path.isabs(path) and reader.exists(path):
        return Step(("bash", path, *rest), why)
    return None


def _targets(reader: Reader, names: tuple[str, ...], pattern: re.Pattern[str]) -> set[str]:
    for name in names:
        text = reader.text(name)
        if text is not None:
            return set(pattern.findall(text))
    return set()


def _scripts(reader: Reader) -> dict[str, Any]:
    data = reader.read("package.json")
    try:
        doc = json.loads(data) if data else {}
    except ValueError:
        return {}
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    return scripts if isinstance(scripts, dict) else {}
