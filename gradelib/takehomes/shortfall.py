"""The one rule for every line of every take-home: a run that died on something the submission declares is
the kit's shortfall (`error`), one that died on something nothing declares is the candidate's (`fail`).

A run that failed because a module, a package or a command was missing says nothing about the candidate's
code when the submission declared it (its requirements, lockfile, project metadata, workspace members, the
commands its files name): a reviewer who set it up as its README says would have run it. Then the line is
`error`, "the kit's setup left out X (declared in FILE)". What was never declared stays the candidate's: the
line fails, saying so ("imports `requests`, which nothing in the submission declares").

`BaseGrading` applies it to every line it judges, with the runs that line's check made or read
(`gradelib.runlog`); a take-home does nothing to have it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from gradelib.environment import Environment
from gradelib.environment.declarationrecords import normal_name, some_of
from gradelib.environment.inventory import BUILT, Inventory, stdlib
from gradelib.result import LineResult, Outcome
from gradelib.sandbox import RunResult

EXIT_NOT_FOUND = 127
COMMAND_NOT_FOUND = re.compile(r"(?:^|[\s:])(?:exec: )?(?P<name>[^\s:'\"`]+): (?:command )?not found\b", re.M)
ENV_NOT_FOUND = re.compile(r"env: [`'‘\"]?(?P<name>[^'’\"`\s]+)[`'’\"]?: No such file or directory")  # noqa: RUF001 - coreutils quotes
NO_SUCH_FILE = re.compile(r"(?P<name>[^\s:'\"`]+): No such file or directory")
WRAPPER_NOT_FOUND = re.compile(r"^Command not found: (?P<name>\S+)", re.M)  # poetry run, pdm run
NO_MODULE = re.compile(r"No module named '(?P<name>[\w.]+)'")
NODE_MISSING = re.compile(r"Cannot find (?:package|module) ['\"](?P<name>[^'\"\s]+)['\"]")
UV_OFFLINE = re.compile(r"[Nn]etwork (?:connectivity is disabled|was disabled)|--offline")
UV_NAMED = re.compile(r"`(?P<name>[A-Za-z0-9][\w.-]*)`")
NPM_NOT_CACHED = re.compile(
    r"request to \S+?/(?P<name>@[^\s/]+(?:/|%2[fF])[^\s/]+|[^\s/@]+) failed: cache mode is 'only-if-cached'"
)
# what an older Python than the code was written for says (`itertools.batched`, a `type X = ...` statement)
OLDER_PYTHON = re.compile(
    r"cannot import name '\w+' from '(?P<from>[\w.]+)'"
    r"|module '(?P<module>[\w.]+)' has no attribute '\w+'"
    r"|^SyntaxError: ",
    re.M,
)
# what an older Node than the code was written for says (`--experimental-strip-types`, `node:sqlite`, `.ts`)
OLDER_NODE = re.compile(
    r"node: bad option: \S+|ERR_UNKNOWN_FILE_EXTENSION|ERR_UNKNOWN_BUILTIN_MODULE|No such built-in module: \S+"
    r"|^SyntaxError: .*$|\b[A-Z]\w*\.\w+ is not a function"
    r"|\.(?:toSorted|toReversed|toSpliced|findLast|union|intersection|difference|groupBy) is not a function",
    re.M,
)
NATIVE_ADDON = re.compile(r"Could not locate the bindings file|No native build was found|\.node['\"]?\)?$", re.M)
IN_NODE_MODULES = re.compile(r"node_modules/(?P<name>@[^/\s'\"]+/[^/\s'\"]+|[^/\s'\"@.][^/\s'\"]*)/")
ADDON_LOADERS = frozenset({"bindings", "node-gyp-build", "prebuild-install", "node-pre-gyp", "@mapbox/node-pre-gyp"})
PIP_USER = re.compile(r"Can not perform a '--user' install\. User site-packages are not visible in this virtualenv\.")
PIP_UNREACHABLE = re.compile(r"No matching distribution found for (?P<name>[A-Za-z0-9][\w.-]*)")
STUB_PREFIXES = ("<submission>/", "/gradelib/submission/")
MAX_SHOWN = 80


@dataclass(frozen=True)
class Missing:
    """What a failed run missed: a module, a package, a command or a built file; whose fault; why, in words."""

    kind: str  # "module", "package", "command", "file"
    name: str
    kit: bool  # the kit's shortfall (declared, or the grading machine's); False: the candidate's
    why: str

    def evidence(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"missing": self.kind, "name": self.name, "whose": "kit" if self.kit else "candidate", "why": self.why}


def missing_in(run: RunResult, environment: Environment) -> Missing | None:
    """What this failed run missed, and whose shortfall that is; None when it did not die of something missing."""
    if run.ok or run.timed_out or run.stopped or run.output_limit_hit or run.disk_limit_hit:
        return None
    said = f"{run.stderr}\n{run.stdout}"
    inventory = environment.inventory
    if run.exit_code == EXIT_NOT_FOUND and (name := _missing_command(said)):
        return _command(name, inventory)
    if match := WRAPPER_NOT_FOUND.search(said):
        return _command(match["name"][:MAX_SHOWN], inventory)
    if match := NO_MODULE.search(said):
        return _module(match["name"], match[0], inventory)
    if match := NODE_MISSING.search(said):
        return _node(match["name"], match[0], inventory)
    if UV_OFFLINE.search(said):
        return _offline_sync(said, inventory)
    if (found := _older_python(said, inventory) or _older_node(said, inventory) or _user_install(said)) is not None:
        return found
    if NATIVE_ADDON.search(said) and (packages := _addon_packages(said)):
        return _native_addon(packages[0], inventory)
    if match := PIP_UNREACHABLE.search(said):
        return _pip_offline(match["name"], match[0], inventory)
    if match := NPM_NOT_CACHED.search(said):
        return _npm_offline(match["name"].replace("%2f", "/").replace("%2F", "/"), match[0], inventory)
    return None


def judge(
    result: LineResult,
    runs: Iterable[RunResult],
    environment: Environment,
    line: Callable[[str, Outcome, str, dict[str, Any]], LineResult],
) -> LineResult:
    """`result` as the rule has it: `error` when one of the line's `runs` died on something the submission
    declares; a pass that rests on a run which died on something undeclared fails, saying so. `line` makes
    the new result (the grading's, which scores it)."""
    if result.outcome == "error":
        return result
    found = [(missing, run) for run in runs if (missing := missing_in(run, environment)) is not None]
    kit = [(missing, run) for missing, run in found if missing.kit]
    if not found:
        return result
    missing, run = (kit or found)[0]  # the kit's shortfall first: never the candidate's blame when there is one
    evidence = dict(result.evidence) | {"shortfall": missing.evidence() | {"run": run.evidence()}}
    if missing.kit:
        evidence["judged_before"] = {"outcome": result.outcome, "message": result.message}
        return line(result.id, "error", missing.why, evidence)
    if result.outcome in ("pass", "fail"):
        return line(result.id, "fail", f"{missing.why}: {result.message}", evidence)
    return result


def _missing_command(said: str) -> str | None:
    """The command the shell could not find; None when it is one of the submission's own files."""
    for pattern in (ENV_NOT_FOUND, COMMAND_NOT_FOUND, NO_SUCH_FILE):
        for match in pattern.finditer(said):
            name = match["name"].strip()[:MAX_SHOWN]
            if "/" in name and not name.startswith("/"):
                return None  # `./bin/triage`: a file of the submission's that is missing is the candidate's doing
            if name and not name.startswith(("-", "line")):
                return name
    return None


def _command(name: str, inventory: Inventory) -> Missing:
    base = name.rsplit("/", 1)[-1]
    if base in inventory.words or name.startswith("/"):
        why = (
            f"`{name}` is not on the grading machine, nor set up from what the submission declares (exit 127):"
            " the kit cannot run the submission as its README says"
        )
        return Missing("command", name, True, why)
    return Missing("command", name, False, f"runs `{name}`, which nothing in the submission names or declares")


def _module(module: str, said: str, inventory: Inventory) -> Missing | None:
    top = module.split(".")[0]
    if stdlib(module):
        why = f"the grading machine's Python lacks the standard module `{top}` ({said})"
        return Missing("module", module, True, why)
    if (folder := inventory.own_modules.get(top)) is not None:
        if module != top:
            return None  # its own package was found, a part of it was not: the candidate's code, judged as it is
        where = "the submission's root" if folder == "." else folder
        why = f"the kit's setup left out the project itself (`{top}`, in {where}): {said}"
        return Missing("module", module, True, why)
    if (dist := inventory.installed_modules.get(top)) is not None:
        why = f"the run could not import `{top}`, which {dist} provides in the environment the kit set up: {said}"
        return Missing("module", module, True, why)
    if (provider := inventory.python_provider(top)) is not None:
        name, where = provider
        return Missing("module", module, True, f"the kit's setup left out {name} (declared in {where}): {said}")
    if inventory.python_left_out:
        names = some_of([f"{name} (declared in {where})" for name, where in inventory.python_left_out])
        return Missing("module", module, True, f"the kit's setup left out {names}: {said}")
    return Missing("module", module, False, f"imports `{top}`, which nothing in the submission declares")


def _node(target: str, said: str, inventory: Inventory) -> Missing | None:
    if target.startswith("node:"):
        return None
    relative = _relative(target)
    if relative is not None and (own := _own_built(relative, inventory)) is not None:
        return own
    if relative is not None:
        if inventory.build_script and relative.split("/")[0] in inventory.unbuilt:
            why = f"`{relative}` is made by the submission's build script, which the kit's setup did not run: {said}"
            return Missing("file", relative, True, why)
        return None  # a file of its own that is not there: the candidate's code, judged as it is
    parts = target.split("/")
    package = "/".join(parts[:2]) if target.startswith("@") else parts[0]
    if (folder := inventory.own_packages.get(package)) is not None:
        why = f"the kit's setup left out the submission's own package `{package}` (in {folder}): {said}"
        return Missing("package", package, True, why)
    if (where := inventory.node.get(package)) is not None:
        return Missing("package", package, True, f"the kit's setup left out `{package}` (declared in {where}): {said}")
    if package in inventory.installed_node:
        return Missing("package", package, True, f"the run could not find `{package}`, which the kit installed: {said}")
    if inventory.node_left_out:
        names = some_of([f"{name} (declared in {where})" for name, where in inventory.node_left_out])
        return Missing("package", package, True, f"the kit's setup left out {names}: {said}")
    return Missing("package", package, False, f"imports `{package}`, which nothing in the submission declares")


def _relative(target: str) -> str | None:
    """The submission-relative path of a missing file (`dist/main.js`), None when `target` is a package name."""
    for prefix in STUB_PREFIXES:
        if target.startswith(prefix):
            return target[len(prefix) :]
    return target if target.startswith((".", "/")) else None


def _offline_sync(said: str, inventory: Inventory) -> Missing | None:
    """A wrapper (uv run) that tried to install, offline, what the setup should have: declared packages it
    names are the kit's shortfall; a package nothing declares (`uv run --with rich`) is the candidate's run
    asking for the network."""
    named = [match["name"] for match in UV_NAMED.finditer(said)]
    declared = [(name, found[1]) for name in named if (found := inventory.python_provider(name)) is not None]
    if not declared:
        return None
    names = some_of(list(dict.fromkeys(name for name, _where in declared)))
    why = f"the kit's setup left out {names} (declared in {declared[0][1]}): the run's tool tried to install it offline"
    return Missing("package", declared[0][0], True, why)


def _pip_offline(name: str, said: str, inventory: Inventory) -> Missing:
    """The run's own `pip install` (into a virtualenv run.sh makes) found no copy of a package offline: one the
    submission declares is the kit's shortfall, since a reviewer's run has it; one it does not declare is the
    candidate's run asking the network for it."""
    if (where := inventory.python.get(normal_name(name))) is not None:
        why = (
            f"the run installs {normal_name(name)} (declared in {where}) itself, and the kit's setup left it no"
            f" copy to install offline: {said}"
        )
        return Missing("package", normal_name(name), True, why)
    return Missing("package", name, False, f"installs `{name}` at run time, which nothing in the submission declares")


def _npm_offline(name: str, said: str, inventory: Inventory) -> Missing:
    """The run's own `npm ci` / `npm install` fetched a package offline and npm's cache had no copy: one the
    submission declares (package.json, its lockfile) is the kit's shortfall, one it does not is the
    candidate's run asking the network for it."""
    if (where := inventory.node.get(name)) is not None:
        why = f"the run installs `{name}` (declared in {where}) itself, offline, with no copy in its npm cache: {said}"
        return Missing("package", name, True, why)
    return Missing("package", name, False, f"installs `{name}` at run time, which nothing in the submission declares")


def _older_python(said: str, inventory: Inventory) -> Missing | None:
    """A run that died of an older Python than the submission asks for (`cannot import name 'batched' from
    'itertools'`, a SyntaxError), on a grading machine whose Python does not meet it: the kit's environment."""
    asked = inventory.python_unmet
    match = OLDER_PYTHON.search(said) if asked is not None else None
    if asked is None or match is None:
        return None
    module = match["from"] or match["module"]
    if module is not None and not stdlib(module):
        return None  # a module of its own or a package's lacks a name: the candidate's code, judged as it is
    why = f"the submission asks for Python {asked[0]} ({asked[1]}); the grading machine runs {asked[2]}: {match[0]}"
    return Missing("interpreter", f"python{asked[0]}", True, why)


def _user_install(said: str) -> Missing | None:
    """`pip install --user` refused by the kit's virtualenv, which every run's Python is."""
    if (match := PIP_USER.search(said)) is None:
        return None
    why = f"the run installs with `pip install --user`, which the kit's virtualenv refuses: {match[0]}"
    return Missing("command", "pip install --user", True, why)


def _older_node(said: str, inventory: Inventory) -> Missing | None:
    """A run that died of an older Node than the submission asks for (`node: bad option:
    --experimental-strip-types`), on a grading machine whose Node is older: the kit's environment."""
    asked = inventory.node_unmet
    match = OLDER_NODE.search(said) if asked is not None else None
    if asked is None or match is None:
        return None
    said = match[0][:MAX_SHOWN]
    why = f"the submission asks for Node {asked[0]} ({asked[1]}); the grading machine runs {asked[2]}: {said}"
    return Missing("interpreter", f"node {asked[0]}", True, why)


def _native_addon(package: str, inventory: Inventory) -> Missing:
    """A declared package whose native addon was never built: its install script makes it, and the kit runs
    no dependency's install script."""
    where = inventory.node.get(package)
    if where is None and package not in inventory.installed_node:
        return Missing("package", package, False, f"loads `{package}`, which nothing in the submission declares")
    declared = f" (declared in {where})" if where else ""
    why = (
        f"`{package}`{declared} is a native addon its install script builds, and the kit runs no dependency's"
        " install script: it cannot set this package up as a reviewer's `npm ci` does"
    )
    return Missing("package", package, True, why)


def _addon_packages(said: str) -> list[str]:
    """The packages whose folders a failed native-addon load names, most named first (the loader itself,
    `bindings`, last)."""
    named = [match["name"] for match in IN_NODE_MODULES.finditer(said)]
    counted = sorted(dict.fromkeys(named), key=lambda name: (name in ADDON_LOADERS, -named.count(name)))
    return counted


def _own_built(relative: str, inventory: Inventory) -> Missing | None:
    """`node_modules/@me/tape/dist/index.js`: the built code of one of the submission's own workspace packages,
    which that package's build makes; the kit's setup did not run it."""
    match = re.match(r"node_modules/(?P<name>@[^/]+/[^/]+|[^/@][^/]*)/(?P<folder>[^/]+)/", relative)
    if match is None or match["name"] not in inventory.own_packages or match["folder"] not in BUILT:
        return None
    folder = inventory.own_packages[match["name"]]
    why = (
        f"`{folder}/{relative[match.end('name') + 1 :]}` is made by the build of the submission's own package"
        f" `{match['name']}`, which the kit's setup did not run"
    )
    return Missing("file", relative, True, why)
