"""The submission's own setup step, as a careful reviewer finds it: the commands its README's setup section
names (a Makefile or justfile target, a package.json build script, a setup script of its own), and the
setup target run.sh says to run first. Found here, read as data; run by `ownrun.py`.

A command the table's tools already cover (`npm ci`, `uv sync`, `poetry install`, `flit install`) is theirs;
`pip install -r FILE` names a requirements file the kit installs like `requirements.txt`. Only targets,
scripts and script files whose names say they set the project up are run (`make setup`, `just install-dev`,
`npm run build:ts`, `./scripts/bootstrap.sh`, a Python script named `prepare_data`), and build tools the
project declares (`npx tsc`); never its tests, linters, servers, watchers or the program itself.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradelib.environment import evidence, inventory, tooltable
from gradelib.environment.declarationrecords import Reader
from gradelib.environment.evidence import JUSTFILES, MAKEFILES, READMES, RUN_SH
from gradelib.environment.inventory import BUILT, build_script
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
# Targets, recipes and scripts whose names say they set the project up: a word of the name (`install-dev`,
# `build:ts`, `setup_env`) says so and none says it tests, serves, watches or runs the program.
SETUP_WORDS = frozenset({
    "setup", "install", "deps", "dependencies", "bootstrap", "build", "compile", "init", "prepare", "venv", "env",
    "bundle", "tsc", "codegen", "generate", "gen", "vendor", "all",
})  # fmt: skip
# A script file of the submission's own is run only when its name says it installs or prepares (`setup.sh`,
# `scripts/bootstrap.py`); `generate_fixtures.py` may well re-record from the network.
SCRIPT_WORDS = frozenset({"setup", "install", "deps", "bootstrap", "build", "init", "prepare", "venv"})
NOT_SETUP_WORDS = frozenset({
    "test", "tests", "lint", "check", "start", "serve", "server", "watch", "clean", "fmt", "format", "run", "deploy",
    "publish", "release", "docker", "demo", "e2e", "coverage", "uninstall", "reset", "docs",
})  # fmt: skip
SETUP_SCRIPT_SUFFIXES = (".sh", ".bash", ".py")
# Build tools a README may call through the package runner (`npx tsc`, `pnpm exec tsup`); those marked need
# their `build` subcommand (alone they start a server).
BUILD_BINS = frozenset({"tsc", "tsup", "esbuild", "rollup", "webpack", "swc", "babel", "ncc", "unbuild", "tspc"})
BUILD_SUBCOMMAND_BINS = frozenset({"vite", "parcel", "next", "nuxt", "astro"})
BIN_PACKAGES = {"tsc": "typescript", "swc": "@swc/cli", "babel": "@babel/cli", "ncc": "@vercel/ncc", "tspc": "ts-patch"}
NODE_BIN = "node_modules/.bin"
EXAMPLE = re.compile(r"(^|[._-])(example|sample|template|dist|defaults?)([._-]|$)", re.I)
WATCHING = frozenset({"-w", "--watch", "watch", "--serve", "serve", "dev"})
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
    if unbuilt is not None and not any(step.argv[-1] == unbuilt.argv[-1] for step in found):
        found.append(unbuilt)
    return [hooked for step in found[:MAX_STEPS] for hooked in _with_hooks(reader, step)]


def _with_hooks(reader: Reader, step: Step) -> list[Step]:
    """`npm run build` as npm runs it for a reviewer: `prebuild`, `build`, `postbuild` (the kit's steps run with
    lifecycle scripts off, which npm takes to mean its pre and post scripts too), each named on its own."""
    if step.argv[:2] not in (("npm", "run"), ("yarn", "run")) or len(step.argv) != 3 or reader.exists(".yarnrc.yml"):
        return [step]
    scripts = _scripts(reader)
    runner, script = step.argv[0], step.argv[2]
    hooks = [f"pre{script}", script, f"post{script}"]
    return [
        step
        if name == script
        else Step((runner, "run", name), f"{step.why} ({runner} runs `{name}` with it)", step.tool)
        for name in hooks
        if name == script or isinstance(scripts.get(name), str)
    ]


def _unbuilt(reader: Reader) -> Step | None:
    """package.json's script that builds the code (`build`, or a `prepare`/`postinstall` that builds, which a
    reviewer's `npm ci` runs), when what runs the code names a folder it makes that is not there (`node
    dist/main.js`, `"main": "dist/index.js"`, `export * from "./dist/client.js"`)."""
    script = build_script(reader)
    if script is None:
        return None
    runs = (
        "`npm test` runs it first"
        if script == "pretest"
        else "`npm start` runs it first"
        if script == "prestart"
        else "`npm ci` runs it"
    )
    said = "package.json's build script" if script == BUILD else f"package.json's `{script}` script ({runs})"
    for name, text in _naming_texts(reader):
        for folder in BUILT:
            if re.search(rf"(^|[\s\"'(/.]){folder}/", text) and not reader.exists(folder):
                return Step(("npm", "run", script), f"{said} makes {folder}/, which {name} runs", "npm")
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
    return first in (
        "make",
        "just",
        *NODE_RUNNERS,
        "npx",
        "bunx",
        "bash",
        "sh",
        "python",
        "python3",
    ) or first.startswith("./")


def _run_sh_mentions(reader: Reader) -> list[tuple[str, str]]:
    """`make setup`, `just install`, `npm run build` that run.sh names (to run first, or that it runs)."""
    text = reader.text(RUN_SH) or ""
    mentions = r"\b(?:make|just)\s+[\w.-]+|\b(?:npm|pnpm|yarn|bun)\s+run\s+[\w:.-]+"
    return [(RUN_SH, m.group(0)) for m in re.finditer(mentions, text)]


def setup_name(name: str, says: frozenset[str] = SETUP_WORDS) -> bool:
    """Whether a target's, recipe's, script's or file's name says it sets the project up: one of its words is
    in `says`, and none says it tests, serves, watches or runs the program."""
    words = re.split(r"[-_:.\s/]+", re.sub(r"set[-_ ]up", "setup", name.lower()))
    return any(word in says for word in words) and not any(word in NOT_SETUP_WORDS for word in words)


def _step(reader: Reader, command: str, where: str) -> Step | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
        words = words[1:]  # `CI=1 make setup`
    watching = WATCHING - {"-w"} if words[:1] == ["npm"] else WATCHING  # npm's `-w` names a workspace
    if not words or watching & set(words[1:]):
        return None
    shown = " ".join(words)[:80]
    why = f"{RUN_SH} says to run `{shown}` first" if where == RUN_SH else f"{where} says `{shown}`"
    head, rest = words[0], words[1:]
    if head in ("make", "just"):
        return _task_step(reader, head, rest, why)
    if head in (*NODE_RUNNERS, "npx", "bunx"):
        return _node_step(reader, head, rest, why)
    if os.path.normpath(head).startswith(f"{NODE_BIN}/"):  # `./node_modules/.bin/tsc -p tsconfig.build.json`
        return Step(tuple(words), why) if _builds(reader, [Path(head).name, *rest]) else None
    if head == "cp":
        return _example_copy(reader, rest, why)
    if head in ("bash", "sh", "python", "python3") and rest:
        interpreter, head, rest = head, rest[0], rest[1:]
    else:
        interpreter = "bash"
    path = os.path.normpath(head)
    if (
        path.endswith(SETUP_SCRIPT_SUFFIXES) and path != "setup.py" and setup_name(Path(path).stem, SCRIPT_WORDS)
        and not path.startswith("..") and not os.path.isabs(path) and reader.exists(path)
    ):  # fmt: skip
        if path.endswith(".py"):
            runner = interpreter if interpreter.startswith("python") else "python3"
        else:
            runner = interpreter if interpreter in ("bash", "sh") else "bash"
        return Step((runner, path, *rest), why)
    return None


def _example_copy(reader: Reader, rest: list[str], why: str) -> Step | None:
    """`cp .env.example .env`: a file of the submission's that is an example, copied to where the code reads
    it, inside the submission, when nothing is there yet."""
    paths = [word for word in rest if not word.startswith("-")]
    if len(paths) != len(rest) - sum(word in ("-n", "--no-clobber") for word in rest) or len(paths) != 2:
        return None
    source, target = (os.path.normpath(path) for path in paths)
    inside = all(not path.startswith("..") and not os.path.isabs(path) for path in (source, target))
    if not inside or not EXAMPLE.search(Path(source).name) or not reader.exists(source) or reader.exists(target):
        return None
    return Step(("cp", source, target), why)


def _task_step(reader: Reader, head: str, rest: list[str], why: str) -> Step | None:
    """`make setup`, `just install-dev`; a bare `make` when its first target sets the project up."""
    files, pattern = (MAKEFILES, MAKE_TARGET) if head == "make" else (JUSTFILES, JUST_RECIPE)
    targets = [name for name in _targets(reader, files, pattern) if not name.startswith(".")]
    target = rest[0] if rest else targets[0] if targets and head == "make" else None
    if target is None or not setup_name(target) or target not in targets:
        return None
    return Step((head, target), why, "just" if head == "just" else None)


def _node_step(reader: Reader, head: str, rest: list[str], why: str) -> Step | None:
    """A package.json script that sets the project up (`npm run build`, `yarn build:ts`), or a build tool the
    project declares, through its runner (`npx tsc`, `pnpm exec tsup`, `yarn tsc`)."""
    tool = "npm" if head == "npx" else "bun" if head == "bunx" else head
    scripts = _scripts(reader)
    members = _workspace_scripts(reader, head, rest)
    if members is not None:  # `npm run build -w @me/tape`, `pnpm --filter @me/tape build`, `yarn workspace X build`
        script, found = members
        return Step((head, *rest), why, tool) if setup_name(script) and found else None
    if head in ("npx", "bunx"):
        call = rest
    elif rest[:1] in (["exec"], ["x"]):
        call = rest[1:]
    elif rest[:1] == ["run"] and len(rest) > 1:
        script = rest[1]
        return Step((head, "run", script), why, tool) if setup_name(script) and script in scripts else None
    elif rest and head in ("yarn", "pnpm") and rest[0] in scripts:
        script = rest[0]
        return Step((head, "run", script), why, tool) if setup_name(script) else None
    elif rest and head in ("yarn", "pnpm"):
        call = rest
    else:
        return None
    call = [word for word in call if word not in ("--", "--no-install", "--offline", "-y", "--yes")]
    if not call or not _builds(reader, call):
        return None
    return Step((head, *rest), why, tool)


def _workspace_scripts(reader: Reader, head: str, rest: list[str]) -> tuple[str, bool] | None:
    """(the script, whether a workspace member it names has it) for a command that runs a script in the
    submission's own workspace members; None for any other command."""
    members = inventory.node_members(reader)
    words = [word for word in rest if word not in ("--if-present", "--silent", "-s")]
    named: list[str] | None = None
    script = ""
    if head == "npm" and words[:1] == ["run"] and len(words) > 1:
        chosen = [w.split("=", 1)[1] for w in words if w.startswith(("--workspace=", "-w="))]
        chosen += [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-w", "--workspace")]
        if chosen or {"-ws", "--workspaces"} & set(words):
            named, script = chosen or list(members), words[1]
    elif head == "pnpm" and ({"-r", "--recursive"} & set(words) or any(w.startswith("--filter") for w in words)):
        chosen = [w.split("=", 1)[1] for w in words if w.startswith("--filter=")]
        chosen += [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--filter", "-F")]
        plain = [
            w
            for i, w in enumerate(words)
            if not w.startswith("-") and (i == 0 or words[i - 1] not in ("--filter", "-F"))
        ]
        plain = plain[1:] if plain[:1] == ["run"] else plain
        named, script = chosen or list(members), plain[0] if plain else ""
    elif head == "yarn" and words[:1] == ["workspace"] and len(words) > 2:
        named, script = [words[1]], words[3] if words[2] == "run" and len(words) > 3 else words[2]
    if named is None:
        return None
    folders = [members.get(name) for name in named]
    return script, any(
        folder is not None and script in _scripts(reader, f"{folder}/package.json") for folder in folders
    )


def _builds(reader: Reader, call: list[str]) -> bool:
    """Whether `call` runs a build tool the project declares (`tsc -p .`, `vite build`)."""
    name = call[0]
    built = "build" in call[1:] if name in BUILD_SUBCOMMAND_BINS else name in BUILD_BINS
    return built and BIN_PACKAGES.get(name, name) in _declared_node(reader)


def _targets(reader: Reader, names: tuple[str, ...], pattern: re.Pattern[str]) -> list[str]:
    """The targets or recipes of the first of `names` there is, in file order."""
    for name in names:
        text = reader.text(name)
        if text is not None:
            return list(dict.fromkeys(pattern.findall(text)))
    return []


def _package(reader: Reader, name: str = "package.json") -> dict[str, Any]:
    data = reader.read(name)
    try:
        doc = json.loads(data) if data else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _scripts(reader: Reader, name: str = "package.json") -> dict[str, Any]:
    scripts = _package(reader, name).get("scripts")
    return scripts if isinstance(scripts, dict) else {}


def _declared_node(reader: Reader) -> set[str]:
    doc = _package(reader)
    return {name for key in ("dependencies", "devDependencies") if isinstance(doc.get(key), dict) for name in doc[key]}
