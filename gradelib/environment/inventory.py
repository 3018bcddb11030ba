"""What a submission says it needs, as the kit knows it once the setup is done: the Python distributions and
Node packages it declares and where (its files, its lockfiles, its project's metadata as the build backend
wrote it, its workspace members), its own modules and packages, what the setup installed, what it left out,
and the words its scripts and READMEs name commands with.

Read as data, never run. `takehomes/shortfall.py` asks it whether what a failed run missed was declared
(the kit's shortfall) or not (the candidate's).
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import json
import os
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gradelib.environment import evidence
from gradelib.environment.declarationrecords import Reader, normal_name
from gradelib.environment.evidence import READMES
from gradelib.sandbox.mounts import VENV_LINK

# Import names that differ from the distribution that provides them (the common ones): when the setup
# installed nothing that provides one, this says which declared distribution should have.
MODULE_DISTRIBUTIONS: Mapping[str, tuple[str, ...]] = {
    "yaml": ("pyyaml",), "PIL": ("pillow",), "bs4": ("beautifulsoup4",), "dotenv": ("python-dotenv",),
    "sklearn": ("scikit-learn",), "cv2": ("opencv-python", "opencv-python-headless"), "jwt": ("pyjwt",),
    "dateutil": ("python-dateutil",), "attr": ("attrs",), "google": ("protobuf", "google-genai", "google-api-core"),
    "Crypto": ("pycryptodome",), "OpenSSL": ("pyopenssl",), "serial": ("pyserial",), "zmq": ("pyzmq",),
    "git": ("gitpython",), "docx": ("python-docx",), "magic": ("python-magic",), "jose": ("python-jose",),
    "multipart": ("python-multipart",), "slugify": ("python-slugify",), "socks": ("pysocks",),
    "websocket": ("websocket-client",), "tiktoken_ext": ("tiktoken",), "typing_extensions": ("typing-extensions",),
    "pydantic_core": ("pydantic",), "vcr": ("vcrpy",), "respx": ("respx",), "ruamel": ("ruamel-yaml",),
}  # fmt: skip
PYTHON_LOCKS = ("uv.lock", "poetry.lock", "pdm.lock")
NODE_LOCK = "package-lock.json"
PNPM_LOCK = "pnpm-lock.yaml"
PNPM_WORKSPACE = "pnpm-workspace.yaml"
YARN_LOCK = "yarn.lock"
BUN_LOCK = "bun.lock"
MAX_MEMBERS = 50
BUILT = ("dist", "build", "lib", "out")  # where a build script usually puts the code a run starts
VENV_VALUE_OPTIONS = ("-p", "--python", "--prompt", "--seed", "--index-url", "--cache-dir")  # take the next word
WORD_NAME = re.compile(r"[\w.-]+")
ASSIGNMENT = re.compile(
    r"^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_]\w*)[ \t]*(?::{1,2}=|\?=|=)[ \t]*(?P<value>[^\s#;&|]+)[ \t]*$", re.M
)
DOCKERFILES = ("Dockerfile", "Containerfile")
PIP_INSTALL = re.compile(r"(?:\bpip3?|-m\s+pip|\buv\s+pip)\s+install\s+(?P<rest>[^\n]*)")
PIP_VALUE_OPTIONS = frozenset({"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
                               "-f", "--find-links", "--target", "-t", "--prefix", "--root", "--python"})  # fmt: skip
REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
USES_VENV = re.compile(r"(?:^|(?<=[\s\"'=(]))(?:\./)?(?P<name>[\w.-]+)/bin/(?:activate|python[\d.]*|pip[\d.]*)\b", re.M)
REFERENCE = re.compile(r"\$\((?P<a>\w+)\)|\$\{(?P<b>\w+)\}|\$(?P<c>[A-Za-z_]\w*)")
# run by `npm ci` on the root, or by `npm test` / `npm start` before the script itself
INSTALL_SCRIPTS = ("prepare", "postinstall", "install", "preinstall", "prepack", "pretest", "prestart")
BUILDS = re.compile(r"\b(build|compile|tsc|tsup|esbuild|rollup|webpack|swc|babel|ncc|bundle)\b")
MAX_WORD_BYTES = 2 * 1024 * 1024
# The files whose words name the commands a submission runs: scripts, task files, configs, READMEs.
COMMAND_FILES = (
    "run.sh", "Makefile", "makefile", "GNUmakefile", "justfile", "Justfile", "package.json", "pyproject.toml",
    "noxfile.py", "tox.ini", "setup.cfg", "Pipfile", "Procfile", "deno.json", "README.md", "README.rst",
    "README.txt", "README", "INSTALL.md", "SETUP.md", ".tool-versions",
)  # fmt: skip
COMMAND_GLOBS = ("*.sh", "scripts/*", "bin/*")
WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
YARN_KEY = re.compile(r'^"?(?P<name>@?[^@\s"]+)@', re.M)
PNPM_KEY = re.compile(r"^  '?/?(?P<name>@?[^@\s'/]+(?:/[^@\s']+)?)@", re.M)
BUN_KEY = re.compile(r'^\s*"(?P<name>@?[^"@\s]+(?:/[^"@\s]+)?)": \[', re.M)


@dataclass(frozen=True)
class Inventory:
    """What the submission declares, owns and names, and what its setup installed and left out."""

    python: Mapping[str, str] = field(default_factory=dict)  # normalised distribution -> where declared
    node: Mapping[str, str] = field(default_factory=dict)  # npm package -> where declared
    own_modules: Mapping[str, str] = field(default_factory=dict)  # top-level module of its own -> its folder
    own_packages: Mapping[str, str] = field(default_factory=dict)  # its own Node packages (workspaces) -> folder
    installed_modules: Mapping[str, str] = field(default_factory=dict)  # module -> installed distribution
    installed_node: frozenset[str] = frozenset()
    python_left_out: tuple[tuple[str, str], ...] = ()  # (name, where): declared, not installed by the setup
    node_left_out: tuple[tuple[str, str], ...] = ()
    words: frozenset[str] = frozenset()  # what its scripts, task files and READMEs name
    build_script: str | None = None  # the package.json script that builds the code (`build`, `prepare`)
    unbuilt: frozenset[str] = frozenset()  # the usual folders of built code (`dist`) the submission lacks
    venvs: tuple[str, ...] = ()  # the virtualenvs it makes or uses at its top (`venv`), by name
    made_venvs: tuple[str, ...] = ()  # those what runs the code makes itself (`python3 -m venv .venv` in run.sh)
    # (what it asks for, where, the grading machine's): a Python the submission asks for that the machine lacks
    python_unmet: tuple[str, str, str] | None = None
    node_unmet: tuple[str, str, str] | None = None  # the same for Node (`>=22.6`, `.nvmrc`, `v20.20.2`)

    def python_provider(self, module: str) -> tuple[str, str] | None:
        """(distribution, where declared) of the declared distribution that provides `module`, if one does."""
        top = module.split(".")[0]
        for name in (normal_name(top), *MODULE_DISTRIBUTIONS.get(top, ())):
            if (where := self.python.get(normal_name(name))) is not None:
                return normal_name(name), where
        return None


def take(
    root: Path,
    *,
    python: Iterable[tuple[str, str]] = (),
    node: Iterable[tuple[str, str]] = (),
    direct_python: Iterable[tuple[str, str]] = (),
    direct_node: Iterable[tuple[str, str]] = (),
    installed_python: Iterable[str] = (),
    installed_node: Iterable[str] = (),
    venv: Path | None = None,
    python_unmet: tuple[str, str, str] | None = None,
    node_unmet: tuple[str, str, str] | None = None,
) -> Inventory:
    """The inventory of the submission at `root`.

    `python` / `node`: what the kit read from its declarations, as (name, file); `direct_*`: what the setup
    must have installed (declared directly, markers met), checked against `installed_*` (what it put in);
    `venv`: the Python environment it made. Lockfiles and workspace members are read here.
    """
    reader = Reader(Path(root))
    declared_python: dict[str, str] = {}
    declared_node: dict[str, str] = {}
    own_packages = node_members(reader)
    for name, where in [*python, *_python_locks(reader), *dockerfile_installs(reader)]:
        declared_python.setdefault(normal_name(name), where)
    members = [(name, f"{folder}/package.json") for folder in own_packages.values()
               for name in _package_json_names(reader, f"{folder}/package.json")]  # fmt: skip
    for name, where in [*node, *_node_locks(reader), *members]:
        declared_node.setdefault(name, where)
    installed = {normal_name(name) for name in installed_python}
    node_installed = frozenset(installed_node)
    python_left_out = tuple((n, w) for n, w in dict(direct_python).items() if normal_name(n) not in installed)
    node_left_out = tuple(
        (n, w) for n, w in dict(direct_node).items() if n not in node_installed and n not in own_packages
    )
    return Inventory(
        declared_python, declared_node, own_modules(reader), own_packages, _installed_modules(venv),
        node_installed, python_left_out, node_left_out, _words(reader), build_script(reader),
        frozenset(name for name in BUILT if not reader.exists(name)), *venvs(reader), python_unmet, node_unmet,
    )  # fmt: skip


def python_asked(reader: Reader) -> list[tuple[str, str]]:
    """The Pythons the submission asks for, as (specifier, where): `requires-python`, Poetry's `python`,
    Pipfile's `python_version`, `.python-version` (`3.12` is `==3.12.*`)."""
    found: list[tuple[str, str]] = []
    pyproject = _toml(reader, "pyproject.toml")
    project = pyproject.get("project")
    if isinstance(project, dict) and isinstance(project.get("requires-python"), str):
        found.append((project["requires-python"], "pyproject.toml's requires-python"))
    poetry = pyproject.get("tool", {}).get("poetry", {}) if isinstance(pyproject.get("tool"), dict) else {}
    wanted = poetry.get("dependencies", {}).get("python") if isinstance(poetry, dict) else None
    if isinstance(wanted, str) and (spec := _poetry_spec(wanted)):
        found.append((spec, "pyproject.toml's Poetry python"))
    pipfile = _toml(reader, "Pipfile").get("requires")
    if isinstance(pipfile, dict) and isinstance(pipfile.get("python_version"), str):
        found.append((f"=={pipfile['python_version']}.*", "Pipfile's python_version"))
    pinned = (reader.text(".python-version") or "").strip().splitlines()
    version = re.sub(r"^(?:cpython[-@]?|python)", "", pinned[0].strip()) if pinned else ""
    if re.fullmatch(r"3\.\d+(?:\.\d+)?", version):
        found.append((f"=={'.'.join(version.split('.')[:2])}.*", ".python-version"))
    return found


def _poetry_spec(wanted: str) -> str | None:
    """Poetry's `^3.12` / `~3.12` as a PEP 440 specifier (`>=3.12,<4`); others as they are."""
    if match := re.fullmatch(r"\^(\d+)\.(\d+)(?:\.\d+)?", wanted.strip()):
        return f">={match[1]}.{match[2]},<{int(match[1]) + 1}"
    if match := re.fullmatch(r"~(\d+)\.(\d+)(?:\.\d+)?", wanted.strip()):
        return f">={match[1]}.{match[2]},<{match[1]}.{int(match[2]) + 1}"
    return wanted.strip() if re.fullmatch(r"[<>=!~,.\d\s*]+", wanted.strip()) else None


def python_unmet(reader: Reader, version: str) -> tuple[str, str, str] | None:
    """(specifier, where, `version`) for the first Python the submission asks for that `version` does not meet."""
    from packaging.specifiers import (
        InvalidSpecifier,
        SpecifierSet,
    )  # the kit's dependency; the core imports stdlib only

    for spec, where in python_asked(reader):
        try:
            if not SpecifierSet(spec).contains(version, prereleases=True):
                return spec, where, version
        except InvalidSpecifier:
            continue
    return None


def dockerfile_installs(reader: Reader) -> list[tuple[str, str]]:
    """(distribution, file) for what a Dockerfile's `RUN pip install NAME ...` installs: declared by the
    candidate, though the kit builds no image (a run that misses one is the kit's shortfall, not a `fail`)."""
    found: list[tuple[str, str]] = []
    for name in DOCKERFILES:
        text = (reader.text(name) or "").replace("\\\n", " ")
        for match in PIP_INSTALL.finditer(text):
            words = re.split(r"\s+", re.split(r"&&|;|\|", match["rest"])[0].strip())
            skip = False
            for word in words:
                if skip or not word:
                    skip = False
                    continue
                if word in PIP_VALUE_OPTIONS:
                    skip = True
                elif not word.startswith(("-", ".", "/", "$")) and (
                    requirement := REQUIREMENT_NAME.match(word.strip("'\""))
                ):
                    found.append((requirement[0], name))
    return found


def node_unmet(reader: Reader, version: str) -> tuple[str, str, str] | None:
    """(what it asks for, where, `version`) when the submission asks for a newer Node than `version`
    (`v20.20.2`): `.nvmrc` / `.node-version` (`22`, `v22.6.0`), package.json's `engines.node` (`>=22.6`,
    `^22`, `22.x`) or `volta.node`. Only the least version a range admits is compared."""
    have = _version_tuple(version)
    for wanted, where in node_asked(reader):
        least = _version_tuple(re.split(r"\|\|", wanted)[0])
        if have and least and least > have[: len(least)]:
            return wanted, where, version
    return None


def node_asked(reader: Reader) -> list[tuple[str, str]]:
    """The Node versions the submission asks for, as (what, where)."""
    doc = _json(reader, "package.json")
    engines, volta = doc.get("engines"), doc.get("volta")
    asked = [
        *(((reader.text(name) or "").strip(), name) for name in (".nvmrc", ".node-version")),
        (engines.get("node") if isinstance(engines, dict) else None, "package.json's engines.node"),
        (volta.get("node") if isinstance(volta, dict) else None, "package.json's volta.node"),
    ]
    return [(wanted.strip(), where) for wanted, where in asked if isinstance(wanted, str) and wanted.strip()]


def _version_tuple(text: str) -> tuple[int, ...] | None:
    """(22, 6) from `v22.6.0`, `>=22.6`, `^22`, `22.x`; None when it names no version (`lts/*`)."""
    match = re.search(r"(?<![\w.])v?(\d+)(?:\.(\d+))?(?:\.(\d+))?", text.strip())
    if match is None or re.match(r"\s*<", text):
        return None
    return tuple(int(part) for part in match.groups() if part is not None)


def venvs(reader: Reader) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The virtualenvs the submission makes or uses at the top of its folder, by name: made by the README's
    setup or by what runs the code (`python3 -m venv venv`, `virtualenv env`, `uv venv`), or used by what
    runs it (`source venv/bin/activate`, `env/bin/python`); and those that what runs the code makes itself.
    The kit's environment is seen there, so a run's own `pip install -r requirements.txt` into it finds
    what the setup installed."""
    named: list[str] = []
    made: list[str] = []
    texts = evidence.texts(reader)
    values = {m["name"]: m["value"].strip("'\"") for _name, text in texts for m in ASSIGNMENT.finditer(text)}
    runs = {name for name, _text in evidence.texts(reader, runs=True)}
    for name, text in texts:
        text = _expanded(text if name not in READMES else _code_in(text), values)
        for command in re.split(r"&&|\|\||[;|\n]", text):
            path = _venv_path(command.split())
            if path is not None:
                named.append(path)
                made += [path] if name in runs else []
        if name in runs:
            named += [m["name"] for m in USES_VENV.finditer(text) if m["name"] not in (".", "..")]
    return tuple(dict.fromkeys(named)), tuple(dict.fromkeys(made))


def made_venvs(reader: Reader) -> tuple[str, ...]:
    """The virtualenvs what runs the code makes itself, by name (`python3 -m venv .venv` in run.sh)."""
    return venvs(reader)[1]


def _code_in(markdown: str) -> str:
    """The code of a README, one command a line: its fenced blocks and inline code spans, never its prose."""
    fenced = re.findall(r"^\s*(?:```|~~~)[^\n]*\n(.*?)^\s*(?:```|~~~)", markdown, re.M | re.S)
    prose = re.sub(r"^\s*(?:```|~~~)[^\n]*\n.*?^\s*(?:```|~~~)", "", markdown, flags=re.M | re.S)
    return "\n".join([*fenced, *re.findall(r"`([^`\n]+)`", prose)])


def _expanded(word: str, values: Mapping[str, str]) -> str:
    """`$(VENV)`, `${VENV}`, `$VENV` as the Makefile or script set it (`VENV ?= .venv`), else as it was."""
    return REFERENCE.sub(lambda m: values.get(m["a"] or m["b"] or m["c"], m[0]), word)


def _venv_path(words: list[str]) -> str | None:
    """Where `words` (one command) makes a virtualenv, when it does, inside the submission."""
    for at, word in enumerate(words):
        makes = (word == "venv" and at > 0 and words[at - 1] in ("-m", "uv")) or (
            word == "virtualenv" and (at == 0 or words[at - 1] in ("-m", "run", "uvx", "pipx"))
        )
        if not makes:
            continue
        rest = iter(words[at + 1 :])
        for arg in rest:
            if arg in VENV_VALUE_OPTIONS:
                next(rest, None)
            elif not arg.startswith("-"):
                path = os.path.normpath(arg.strip("'\""))
                inside = WORD_NAME.fullmatch(path) and path not in (".", "..")  # a folder at the top
                return path if inside else None
        return VENV_LINK if word == "venv" and words[at - 1] == "uv" else None
    return None


def own_modules(reader: Reader) -> dict[str, str]:
    """The submission's own top-level Python modules and packages (at its root, under `src/`, in each
    workspace member) and the folder each is in."""
    found: dict[str, str] = {}
    for folder in ("", "src", *python_members(reader)):
        for base in (folder, f"{folder}/src" if folder and folder != "src" else None):
            if base is None:
                continue
            path = reader.root / base if base else reader.root
            try:
                entries = sorted(os.scandir(path), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                name = entry.name.removesuffix(".py")
                if not name.isidentifier() or entry.is_symlink():
                    continue
                package = entry.is_dir() and (Path(entry.path) / "__init__.py").is_file()
                if package or (entry.is_file() and entry.name.endswith(".py")):
                    found.setdefault(name, base or ".")
    return found


def python_members(reader: Reader) -> list[str]:
    """The folders of a uv workspace's members (`[tool.uv.workspace] members`, globs inside the submission)."""
    doc = _toml(reader, "pyproject.toml")
    workspace = doc.get("tool", {}).get("uv", {}).get("workspace") if isinstance(doc.get("tool"), dict) else None
    patterns = workspace.get("members") if isinstance(workspace, dict) else None
    return _expand(reader, patterns if isinstance(patterns, list) else [], "pyproject.toml")


def node_members(reader: Reader) -> dict[str, str]:
    """The submission's own Node packages: workspace members (package.json `workspaces`, pnpm-workspace.yaml)
    by name, each with its folder."""
    doc = _json(reader, "package.json")
    spaces = doc.get("workspaces")
    patterns: list[Any] = spaces.get("packages", []) if isinstance(spaces, dict) else spaces or []
    text = reader.text(PNPM_WORKSPACE)
    if text:
        import yaml  # the kit's dependency, needed only for a pnpm workspace

        try:
            pnpm = yaml.safe_load(text)
        except yaml.YAMLError:  # a broken file names no member; pnpm itself says what is wrong
            pnpm = None
        if isinstance(pnpm, dict) and isinstance(pnpm.get("packages"), list):
            patterns = [*patterns, *pnpm["packages"]]
    found: dict[str, str] = {}
    for folder in _expand(reader, patterns if isinstance(patterns, list) else [], "package.json"):
        name = _json(reader, f"{folder}/package.json").get("name")
        if isinstance(name, str) and name:
            found.setdefault(name, folder)
    return found


def _expand(reader: Reader, patterns: list[Any], marker: str) -> list[str]:
    """Folders inside the submission matching workspace globs (`packages/*`), each holding `marker`."""
    found: list[str] = []
    for pattern in patterns:
        if not isinstance(pattern, str) or pattern.startswith(("!", "/")) or ".." in PurePosixPath(pattern).parts:
            continue
        base = PurePosixPath(pattern.split("*", 1)[0].rstrip("/") or ".")
        start = reader.root / base
        if not start.is_dir() or start.is_symlink():
            continue
        for dirpath, dirnames, _files in os.walk(start):
            dirnames[:] = sorted(d for d in dirnames if d not in ("node_modules", ".git", ".venv"))
            rel = Path(dirpath).relative_to(reader.root).as_posix()
            if rel != "." and fnmatch.fnmatch(rel, pattern.rstrip("/")) and (Path(dirpath) / marker).is_file():
                found.append(rel)
            if len(found) >= MAX_MEMBERS or rel.count("/") > pattern.count("/"):
                dirnames[:] = []
    return sorted(set(found))


def _python_locks(reader: Reader) -> list[tuple[str, str]]:
    found = []
    for lock in PYTHON_LOCKS:
        packages = _toml(reader, lock).get("package")
        for package in packages if isinstance(packages, list) else []:
            if isinstance(package, dict) and isinstance(package.get("name"), str):
                found.append((package["name"], lock))
    pipfile_lock = _json(reader, "Pipfile.lock")
    for section in ("default", "develop"):
        table = pipfile_lock.get(section)
        found += [(name, "Pipfile.lock") for name in table] if isinstance(table, dict) else []
    return found


def _node_locks(reader: Reader) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    packages = _json(reader, NODE_LOCK).get("packages")
    for path in packages if isinstance(packages, dict) else {}:
        if "node_modules/" in path:
            found.append((path.rsplit("node_modules/", 1)[1], NODE_LOCK))
    for lock, pattern in ((YARN_LOCK, YARN_KEY), (BUN_LOCK, BUN_KEY)):
        text = reader.text(lock, 16 * 1024 * 1024) or ""
        found += [(match["name"], lock) for match in pattern.finditer(text)]
    text = reader.text(PNPM_LOCK, 16 * 1024 * 1024) or ""
    found += [
        (match["name"], PNPM_LOCK) for match in re.finditer(r"^  '?/?(?P<name>@?[^@\s'/]+(?:/[^@\s']+)?)@", text, re.M)
    ]
    return found


def _package_json_names(reader: Reader, rel: str) -> list[str]:
    doc = _json(reader, rel)
    names: list[str] = []
    for section in ("dependencies", "devDependencies"):
        table = doc.get(section)
        names += [str(name) for name in table] if isinstance(table, dict) else []
    return names


def _installed_modules(venv: Path | None) -> dict[str, str]:
    """Top-level module -> the distribution in `venv` that provides it (from each distribution's files)."""
    if venv is None:
        return {}
    sites = [str(site) for site in venv.glob("lib/python*/site-packages")]
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions(path=sites):
        name = str(dist.metadata["Name"] or "")
        top_level = (dist.read_text("top_level.txt") or "").split()
        for file in dist.files or []:
            parts = PurePosixPath(str(file)).parts
            if parts and parts[0] != ".." and not parts[0].endswith((".dist-info", ".data", ".pth")):
                top_level.append(parts[0].removesuffix(".py"))
        for module in top_level:
            if module.isidentifier() and module != "__pycache__":
                found.setdefault(module, name)
    return found


def _words(reader: Reader) -> frozenset[str]:
    """Every word the submission's scripts, task files, configs and READMEs hold (where commands are named)."""
    names = list(COMMAND_FILES)
    for pattern in COMMAND_GLOBS:
        names += sorted(p.relative_to(reader.root).as_posix() for p in reader.root.glob(pattern) if p.is_file())
    found: set[str] = set()
    budget = MAX_WORD_BYTES
    for name in dict.fromkeys(names):
        text = reader.text(name) if budget > 0 else None
        if text:
            budget -= len(text)
            found.update(WORD.findall(text))
    return frozenset(found)


def build_script(reader: Reader) -> str | None:
    """The name of the package.json script that builds the code: `build`, else a script npm runs on install or
    before the tests (`prepare`, `postinstall`, `pretest`) whose command builds (`"pretest": "tsc"`)."""
    scripts = _json(reader, "package.json").get("scripts")
    if not isinstance(scripts, dict):
        return None
    for name in ("build", *INSTALL_SCRIPTS):
        command = scripts.get(name)
        if isinstance(command, str) and command.strip() and (name == "build" or BUILDS.search(command)):
            return name
    return None


def stdlib(module: str) -> bool:
    """True when `module` is part of the standard library (missing only on a grading machine's broken Python)."""
    return module.split(".")[0] in sys.stdlib_module_names


def _toml(reader: Reader, rel: str) -> dict[str, Any]:
    text = reader.text(rel)
    try:
        doc = tomllib.loads(text) if text else {}
    except tomllib.TOMLDecodeError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _json(reader: Reader, rel: str) -> dict[str, Any]:
    data = reader.read(rel, 16 * 1024 * 1024)
    try:
        doc = json.loads(data) if data else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}
