"""When a run failed because of the grading machine, not the submission: the line is `error`, never `fail`.

A command that is not there (exit 127: `uv: command not found`, `env: 'bun': No such file or
directory`) or a package the submission declares that its program cannot import (`No module
named 'openai'`, `Cannot find package 'undici'`) says nothing about the candidate's code: a
reviewer who followed the README on a machine with that tool would have run it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gradelib.environment import Environment
from gradelib.sandbox import RunResult

EXIT_NOT_FOUND = 127
COMMAND_NOT_FOUND = re.compile(r"(?:^|[\s:])(?:exec: )?(?P<name>[^\s:'\"`]+): (?:command )?not found\b", re.M)
ENV_NOT_FOUND = re.compile(r"env: [`'‘\"]?(?P<name>[^'’\"`\s]+)[`'’\"]?: No such file or directory")  # noqa: RUF001 - coreutils quotes
NO_SUCH_FILE = re.compile(r"(?P<name>[^\s:'\"`]+): No such file or directory")
NO_MODULE = re.compile(r"No module named '(?P<name>[\w.]+)'")
NODE_MISSING = re.compile(r"Cannot find (?:package|module) '(?P<name>(?:@[\w.-]+/)?[\w.-]+)")
MAX_SHOWN = 80


def explain(run: RunResult, environment: Environment) -> str | None:
    """Why this run failed because of the grading machine (the kit's environment), or None."""
    if run.ok or run.timed_out or run.stopped or run.output_limit_hit or run.disk_limit_hit:
        return None
    said = f"{run.stderr}\n{run.stdout}"
    if run.exit_code == EXIT_NOT_FOUND:
        name = _missing_command(said)
        if name is not None:
            return (
                f"`{name}` is not on the grading machine, nor installed from what the submission declares"
                f" (exit 127): the kit cannot run the submission as its README says"
            )
    if (match := NO_MODULE.search(said)) and _declared_python(match["name"], environment):
        top = match["name"].split(".")[0]
        return f"the declared package providing `{top}` cannot be imported in the kit's environment ({match[0]})"
    if (match := NODE_MISSING.search(said)) and match["name"] in _declared_node(environment):
        return f"the declared package `{match['name']}` cannot be found in the kit's node_modules"
    return None


def first(runs: Iterable[RunResult | None], environment: Environment) -> tuple[str, RunResult] | None:
    """The first run (in order) that failed because of the grading machine, with why."""
    for run in runs:
        if run is not None and (why := explain(run, environment)):
            return why, run
    return None


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


def _declared_python(module: str, environment: Environment) -> bool:
    """True when a package the submission declared (and the kit installed) provides this module."""
    top = module.split(".")[0]
    wanted = {top.lower(), top.lower().replace("_", "-")}
    declared = {d.name.lower().replace("_", "-") for d in environment.declaration.declared() if d.ecosystem == "python"}
    if wanted & declared:
        return True
    venv = environment.python.venv if environment.python else None
    if venv is None:
        return False
    return any(
        (site / top).is_dir() or (site / f"{top}.py").is_file() for site in venv.glob("lib/python*/site-packages")
    )


def _declared_node(environment: Environment) -> set[str]:
    node = environment.declaration.node
    return {d.name for d in (*node.dependencies, *node.dev_dependencies)} if node else set()
