"""The run wrappers candidates write in run.sh and test scripts, as the sandbox provides them.

Standalone on purpose (standard library only, never imports gradelib): the kit links `uv`,
`poetry`, `pipenv`, `npx`, `pnpm` and `yarn` to this file in a read-only folder first on the
sandbox PATH. Each runs the command it wraps in the environment the kit prepared before the
run (`uv run --frozen python -m app` runs `python -m app` with the installed packages), offline;
none installs or resolves anything. An install step with nothing to add (`uv sync`, `poetry
install`, `pnpm install --frozen-lockfile`) succeeds with a note on stderr, since the kit has
installed what the submission declares; one that asks for a new package fails, saying why.
Each use is appended to the file named by $GRADELIB_KIT_LOG, for the environment's evidence.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Sequence

PREFIX = "gradelib:"
EXIT_REFUSED = 2
EXIT_NOT_FOUND = 127
KIT_LOG = "GRADELIB_KIT_LOG"
# Options that take a value, per tool (the others are flags).
UV_VALUES = frozenset({
    "--with", "--with-requirements", "--with-editable", "--python", "-p", "--project", "--directory", "--package",
    "--extra", "--group", "--no-group", "--only-group", "--env-file", "--index", "--index-url", "--default-index",
    "--extra-index-url", "--find-links", "-f", "--config-file", "--cache-dir", "--color", "--python-preference",
    "--resolution", "--prerelease", "--link-mode", "--index-strategy", "--keyring-provider", "--exclude-newer",
    "--refresh-package", "--reinstall-package", "--upgrade-package", "-P", "--no-binary-package",
    "--no-build-package", "--config-setting", "-C",
})  # fmt: skip
UV_ADDS = frozenset({"--with", "--with-requirements", "--with-editable"})
POETRY_VALUES = frozenset({"-C", "--directory", "-P", "--project", "--with", "--without", "--only", "-E", "--extras"})
PNPM_VALUES = frozenset({"-C", "--dir", "--filter", "-F", "--reporter", "--loglevel", "--workspace-root"})
YARN_VALUES = frozenset({"--cwd", "--mutex", "--network-timeout", "--modules-folder", "--cache-folder"})
NPX_VALUES = frozenset({"-p", "--package", "-c", "--call", "--cache", "--userconfig", "--registry"})
REQUIREMENT_FILES = frozenset({"-r", "--requirement", "-c", "--constraint"})
NOTHING_TO_ADD = "the kit installed what the submission declares before this run; nothing to do (offline)"


def say(text: str) -> None:
    """One line on stderr, marked as the kit's."""
    print(f"{PREFIX} {text}", file=sys.stderr)


def log(wrapper: str, argv: Sequence[str]) -> None:
    """Append this use to the kit's log of the run (best effort: a candidate may have removed it)."""
    path = os.environ.get(KIT_LOG)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"wrapper": wrapper, "argv": list(argv)[:20]}) + "\n")
    except OSError:
        pass


def refuse(text: str, code: int = EXIT_REFUSED) -> int:
    """Say why a wrapper will not do what it was asked, and fail."""
    say(text)
    return code


def split_options(args: list[str], values: frozenset[str]) -> tuple[dict[str, str], list[str]]:
    """(options before the first word that is not one, the rest): `-C dir run x` -> ({-C: dir}, [run, x])."""
    options: dict[str, str] = {}
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        word = args[index]
        if word == "--":
            index += 1
            break
        name, equals, value = word.partition("=")
        if not equals and name in values and index + 1 < len(args):
            value = args[index + 1]
            index += 1
        options[name] = value if (equals or name in values) else ""
        index += 1
    return options, args[index:]


def chdir_for(options: dict[str, str], *names: str) -> None:
    """Change to the folder an option names (`--directory`, `-C`, `--cwd`)."""
    for name in names:
        if options.get(name):
            os.chdir(options[name])


def execute(command: list[str]) -> int:
    """Replace this process with `command`, found on PATH; 127 when there is no such command."""
    if not command:
        return refuse("no command to run")
    if command[0].endswith(".py") and os.path.isfile(command[0]):
        command = ["python", *command]
    try:
        os.execvp(command[0], command)
    except FileNotFoundError:
        return refuse(f"{command[0]}: command not found", EXIT_NOT_FOUND)
    except PermissionError:
        return refuse(f"{command[0]}: permission denied", 126)
    return 0  # not reached


# -- Python: uv, poetry, pipenv ----------------------------------------------------------------


def uv(args: list[str]) -> int:
    """`uv run ...`, `uv sync`, `uv pip install -r ...` in the prepared environment."""
    options, rest = split_options(args, UV_VALUES)
    chdir_for(options, "--directory")
    if not rest:
        return refuse("uv: only `uv run`, `uv sync` and `uv pip install -r` are available in the sandbox")
    command, rest = rest[0], rest[1:]
    if command == "run":
        log("uv run", rest)
        return uv_run(rest)
    if command in ("sync", "lock"):
        log(f"uv {command}", rest)
        say(f"uv {command}: {NOTHING_TO_ADD}")
        return 0
    if command == "pip" and rest[:1] in (["install"], ["sync"]):
        log(f"uv pip {rest[0]}", rest[1:])
        return install_step(f"uv pip {rest[0]}", rest[1:], UV_VALUES)
    if command == "add":
        return refuse(f"uv add {' '.join(rest)}: {asks_to_add(rest)}")
    if command in ("--version", "version", "self"):
        print("uv (the grading kit's wrapper: runs commands in the prepared environment)")
        return 0
    return refuse(f"uv {command}: not available in the sandbox (the kit provides `uv run` and `uv sync`)")


def uv_run(args: list[str]) -> int:
    """`uv run [--frozen|--locked|--no-sync|...] [-m module | script.py | command] args`."""
    options, command = split_options(args, UV_VALUES | {"-m", "--module"})
    added = [f"{name} {value}".strip() for name, value in options.items() if name in UV_ADDS]
    if added:
        return refuse(f"uv run {added[0]}: {asks_to_add(added)}")
    chdir_for(options, "--directory")
    if options.get("--env-file"):
        load_env_file(options["--env-file"])
    for name in ("-m", "--module"):
        if name in options:
            return execute(["python", "-m", options[name], *command])
    return execute(command)


def load_env_file(path: str) -> None:
    """`KEY=value` lines of a dotenv file into the environment (as `uv run --env-file` does)."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return
    for line in lines:
        key, equals, value = line.strip().removeprefix("export ").partition("=")
        if equals and key.strip() and not key.lstrip().startswith("#"):
            os.environ[key.strip()] = value.strip().strip("'\"")


def install_step(what: str, args: list[str], values: frozenset[str]) -> int:
    """An install that names no new package (`-r requirements.txt`, `.`, `-e .`): done; one that does: refused."""
    named = []
    words = iter(args)
    for word in words:
        if word in REQUIREMENT_FILES or (word in values and word not in ("-e", "--editable")):
            next(words, None)  # the option's value: a requirements file, a folder
        elif not word.startswith("-") and word not in (".", "./") and not word.startswith((".[", "./")):
            named.append(word)
    if named:
        return refuse(f"{what} {' '.join(named)}: {asks_to_add(named)}")
    say(f"{what}: {NOTHING_TO_ADD}")
    return 0


def asks_to_add(packages: Sequence[str]) -> str:
    """Why a wrapper asked to add a package fails here."""
    shown = ", ".join(packages[:3])
    return (
        f"asks to install {shown} at run time; the kit installs only what the submission declares,"
        " before the run, and runs it offline"
    )


def poetry(args: list[str]) -> int:
    """`poetry run ...`, `poetry install` in the prepared environment."""
    options, rest = split_options(args, POETRY_VALUES)
    chdir_for(options, "-C", "--directory")
    command, rest = (rest[0], rest[1:]) if rest else ("", [])
    if command == "run":
        log("poetry run", rest)
        return execute(rest)
    if command in ("install", "sync", "lock", "check"):
        log(f"poetry {command}", rest)
        say(f"poetry {command}: {NOTHING_TO_ADD}")
        return 0
    if command == "add":
        return refuse(f"poetry add {' '.join(rest)}: {asks_to_add(rest)}")
    return refuse(f"poetry {command}: not available in the sandbox (the kit provides `poetry run`, `poetry install`)")


def pipenv(args: list[str]) -> int:
    """`pipenv run ...`, `pipenv install` / `sync` in the prepared environment."""
    _, rest = split_options(args, frozenset({"--python"}))
    command, rest = (rest[0], rest[1:]) if rest else ("", [])
    if command == "run":
        log("pipenv run", rest)
        return execute(rest)
    if command in ("install", "sync"):
        log(f"pipenv {command}", rest)
        return install_step(f"pipenv {command}", rest, frozenset())
    return refuse(f"pipenv {command}: not available in the sandbox (the kit provides `pipenv run`)")


# -- Node: npx, pnpm, yarn ---------------------------------------------------------------------


def package_root(start: str) -> str | None:
    """The nearest folder at or above `start` that has a package.json."""
    folder = os.path.abspath(start)
    while True:
        if os.path.isfile(os.path.join(folder, "package.json")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def bin_dirs(start: str) -> list[str]:
    """Every `node_modules/.bin` at or above `start`, nearest first (as npm puts them on PATH)."""
    found = []
    folder = os.path.abspath(start)
    while True:
        candidate = os.path.join(folder, "node_modules", ".bin")
        if os.path.isdir(candidate):
            found.append(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


def with_bins() -> dict[str, str]:
    """This environment with the packages' bins first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([*bin_dirs(os.getcwd()), env.get("PATH", "")])
    return env


def run_bin(tool: str, name: str, args: list[str]) -> int:
    """A package's bin from node_modules/.bin (never downloaded); 127 naming it when it is not installed."""
    for folder in bin_dirs(os.getcwd()):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            os.environ.update(with_bins())
            os.execv(path, [path, *args])
    return refuse(
        f"{tool} {name}: {name} is not installed in node_modules: the kit installs what package.json declares"
        " and downloads nothing at run time",
        EXIT_NOT_FOUND,
    )


def scripts() -> dict[str, str]:
    """The nearest package.json's `scripts`."""
    root = package_root(os.getcwd())
    if root is None:
        return {}
    try:
        with open(os.path.join(root, "package.json"), encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError):
        return {}
    found = doc.get("scripts") if isinstance(doc, dict) else None
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def run_script(name: str, args: list[str], *, pre_post: bool) -> int:
    """A package.json script in `sh`, with the bins on PATH and the arguments appended (as npm does)."""
    known = scripts()
    os.chdir(package_root(os.getcwd()) or os.getcwd())  # scripts run in the package's folder
    env = with_bins() | {"npm_lifecycle_event": name}
    order = [f"pre{name}", name, f"post{name}"] if pre_post else [name]
    for step in order:
        if step not in known:
            continue
        line = known[step] + ("".join(f" {shlex.quote(a)}" for a in args) if step == name else "")
        code = os.spawnvpe(os.P_WAIT, "sh", ["sh", "-c", line], env | {"npm_lifecycle_script": known[step]})
        if code != 0:
            return code
    return 0


def npx(args: list[str]) -> int:
    """`npx [--no-install|-y|-p pkg] bin args`: the installed bin, never a download."""
    options, rest = split_options(args, NPX_VALUES)
    if "-c" in options or "--call" in options:
        log("npx -c", [options.get("-c") or options.get("--call", "")])
        return os.spawnvpe(os.P_WAIT, "sh", ["sh", "-c", options.get("-c") or options["--call"]], with_bins())
    if not rest:
        return refuse("npx: no command to run")
    log("npx", rest)
    name = rest[0]
    if "@" in name[1:]:  # `tsx@4`: the version is what npm would download; the installed one runs
        name = name[0] + name[1:].split("@", 1)[0]
    return run_bin("npx", name.rsplit("/", 1)[-1] if name.startswith("@") else name, rest[1:])


def pnpm(args: list[str]) -> int:
    """`pnpm exec bin`, `pnpm run script`, `pnpm script`, `pnpm install` in the prepared node_modules."""
    options, rest = split_options(args, PNPM_VALUES)
    chdir_for(options, "-C", "--dir")
    if not rest or rest[0] in ("install", "i", "fetch"):
        log("pnpm install", rest[1:])
        return install_node("pnpm install", rest[1:])
    command, rest = rest[0], rest[1:]
    if command == "exec":
        _, rest = split_options(rest, PNPM_VALUES)
        log("pnpm exec", rest)
        return run_bin("pnpm exec", rest[0], rest[1:]) if rest else refuse("pnpm exec: no command")
    if command in ("add", "dlx", "update", "up"):
        return refuse(f"pnpm {command} {' '.join(rest)}: {asks_to_add(rest or [command])}")
    if command in ("run", "run-script"):
        _, rest = split_options(rest, PNPM_VALUES)
        command, rest = (rest[0], rest[1:]) if rest else ("", [])
    log(f"pnpm {command}", rest)
    if command in scripts():
        return run_script(command, rest, pre_post=False)
    if command == "node":
        return execute(["node", *rest])
    return run_bin("pnpm", command, rest)


def yarn(args: list[str]) -> int:
    """`yarn`, `yarn install`, `yarn run script`, `yarn script`, `yarn bin`, `yarn node` (yarn 1's rules)."""
    options, rest = split_options(args, YARN_VALUES)
    chdir_for(options, "--cwd")
    if not rest or rest[0] == "install":
        log("yarn install", rest[1:])
        return install_node("yarn install", rest[1:])
    command, rest = rest[0], rest[1:]
    if command in ("add", "dlx", "upgrade", "up"):
        return refuse(f"yarn {command} {' '.join(rest)}: {asks_to_add(rest or [command])}")
    if command == "run":
        _, rest = split_options(rest, YARN_VALUES)
        command, rest = (rest[0], rest[1:]) if rest else ("", [])
    if command == "exec":
        log("yarn exec", rest)
        return run_bin("yarn exec", rest[0], rest[1:]) if rest else refuse("yarn exec: no command")
    log(f"yarn {command}", rest)
    if command in scripts():
        return run_script(command, rest, pre_post=True)
    if command == "node":
        return execute(["node", *rest])
    return run_bin("yarn", command, rest)


def install_node(what: str, args: list[str]) -> int:
    """`pnpm install` / `yarn install` with no package named: already done by the kit."""
    named = [a for a in args if not a.startswith("-")]
    if named:
        return refuse(f"{what} {' '.join(named)}: {asks_to_add(named)}")
    say(f"{what}: {NOTHING_TO_ADD}")
    return 0


WRAPPERS = {"uv": uv, "poetry": poetry, "pipenv": pipenv, "npx": npx, "pnpm": pnpm, "yarn": yarn}


def main(argv: list[str]) -> int:
    """Dispatch on the name this file was started under."""
    tool = os.path.basename(argv[0])
    wrapper = WRAPPERS.get(tool)
    if wrapper is None:
        return refuse(f"{tool}: not a wrapper the kit provides ({', '.join(WRAPPERS)})")
    return wrapper(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
