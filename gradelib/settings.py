"""Every `GRADELIB_*` variable the kit knows, in one table, read once into a typed, checked `Settings`.

The table (`SETTINGS`) is the only list: the README's table of settings is generated from it
(`markdown_table`), `gradelib settings` shows it, and any `GRADELIB_*` variable not in it, or a value
its type cannot mean, is a `SettingsError` before anything runs. No other module reads a kit setting
from the environment (`tests/unit/test_settings.py` says where one does).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from gradelib.errors import SettingsError
from gradelib.safetext import terminal_text

PREFIX = "GRADELIB_"
USER = "user"  # a lead or reviewer sets it
INTERNAL = "internal"  # the kit sets it for its own child processes (kernels, workers)
DEVELOPMENT = "development"  # read by the kit's own test suite, never by the kit
DEFAULT, ENVIRONMENT, FLAG = "default", "environment", "flag"  # where a value came from
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
FAMILY_MARK = "<"  # a row named `GRADELIB_STARTER_<TAKEHOME>` stands for a family of variables
FAMILY_SUFFIX = re.compile(r"\w+", re.ASCII)  # a take-home's id, in any case
FAMILY_LIKENESS = 0.8  # how close a name's head must be to a family's prefix to be taken for a misspelling
HIDDEN = "(set, hidden)"
CACHE_HOME_VARIABLES = ("HOME", "XDG_CACHE_HOME")  # what the default cache folder depends on

ENV_CACHE_DIR = "GRADELIB_CACHE_DIR"
ENV_INDEX_URL = "GRADELIB_INDEX_URL"
ENV_NPM_REGISTRY = "GRADELIB_NPM_REGISTRY"
ENV_OFFLINE = "GRADELIB_OFFLINE"
ENV_BUILD_SOURCE = "GRADELIB_BUILD_SOURCE"
ENV_INSTALL_SECONDS = "GRADELIB_INSTALL_SECONDS"
ENV_PYTHON = "GRADELIB_PYTHON"
ENV_NO_NAMESPACES = "GRADELIB_NO_NAMESPACES"
ENV_DISK_MIB = "GRADELIB_DISK_MIB"
ENV_SANDBOX_LAUNCHER = "GRADELIB_SANDBOX_LAUNCHER"
ENV_KERNEL_FORK = "GRADELIB_KERNEL_FORK"
ENV_WARM_WORKERS = "GRADELIB_WARM_WORKERS"
ENV_REVEAL = "GRADELIB_REVEAL"
ENV_REVIEWER = "GRADELIB_REVIEWER"
ENV_DECISIONS = "GRADELIB_DECISIONS"
ENV_LIVE_BASE_URL = "GRADELIB_LIVE_BASE_URL"
ENV_LIVE_API_KEY = "GRADELIB_LIVE_API_KEY"
ENV_LIVE_MODEL = "GRADELIB_LIVE_MODEL"
ENV_STARTER = "GRADELIB_STARTER_<TAKEHOME>"
ENV_HEADLESS = "GRADELIB_HEADLESS"
ENV_UPDATE_GOLDEN = "GRADELIB_UPDATE_GOLDEN"
ENV_DOCS_SCREENSHOTS = "GRADELIB_DOCS_SCREENSHOTS"
ENV_BENCH_REEXEC = "GRADELIB_BENCH_REEXEC"

SYSTEM_PYTHON = "/usr/bin/python3"  # what the sandbox sees (root's home, pyenv's python, is not there)
DEFAULT_INSTALL_SECONDS = 300.0  # one setup command of an environment (uv, npm, a tool), in the sandbox
DEFAULT_DISK_MIB = 1024  # one grading's workspace
DEFAULT_DECISIONS = ("advance", "hold", "decline")
# What each type accepts, as an error message says it.
ACCEPTS = {
    "bool": "1, true, yes, on or 0, false, no, off (any case)",
    "int": "a whole number, at least 1",
    "float": "a number greater than 0",
    "path": "a path",
    "str": "any text",
    "list": "words separated by commas",
    "paths": f"paths separated by {os.pathsep!r}",
}
TYPE_NAMES = {"list": "list of words", "paths": "list of paths"}


@dataclass(frozen=True)
class Setting:
    """One row of the table: a variable, the `Settings` field it fills, its type, meaning and flag."""

    name: str  # the variable; `GRADELIB_STARTER_<TAKEHOME>` names a family
    field: str  # the `Settings` attribute holding its value
    kind: str  # a key of ACCEPTS
    meaning: str  # one line
    flag: str = ""  # the command-line flag that overrides it, if any
    role: str = USER
    default_text: str = ""  # how the default reads where the value alone does not say it
    secret: bool = False  # never shown: `gradelib settings` says only that it is set

    @property
    def family(self) -> str:
        """The prefix of a family's variables (`GRADELIB_STARTER_`), or "" for a single variable."""
        return self.name.split(FAMILY_MARK, 1)[0] if FAMILY_MARK in self.name else ""


SETTINGS: tuple[Setting, ...] = (
    Setting(ENV_CACHE_DIR, "cache_dir", "path", "where installed environments and the kit's tools are cached",
            "--cache-dir", default_text="$XDG_CACHE_HOME/gradelib, else ~/.cache/gradelib"),
    Setting(ENV_INDEX_URL, "index_url", "str", "the Python package index installs use",
            "--index-url", default_text="uv's own configuration (PyPI)"),
    Setting(ENV_NPM_REGISTRY, "npm_registry", "str", "the npm registry installs use",
            "--registry", default_text="npm's own configuration (the npm registry)"),
    Setting(ENV_OFFLINE, "offline", "bool", "install only from the cache (fill it with `gradelib deps fetch`)",
            "--offline"),
    Setting(ENV_BUILD_SOURCE, "build_source", "bool",
            "let uv build a package with no usable wheel from its sdist, in the sandbox", "--build-source"),
    Setting(ENV_INSTALL_SECONDS, "install_seconds", "float",
            "the time cap of one setup command of an environment (uv, npm, a package manager), in seconds"),
    Setting(ENV_PYTHON, "python", "path", "the interpreter environments are made with (the sandbox must see it)"),
    Setting(ENV_DISK_MIB, "disk_mib", "int",
            "the disk cap of one grading's workspace, in MiB (where the kit can mount)"),
    Setting(ENV_NO_NAMESPACES, "no_namespaces", "bool",
            "run candidates' code without the sandbox's namespaces (limits only; reports say so)"),
    Setting(ENV_SANDBOX_LAUNCHER, "sandbox_launcher", "bool",
            "fork sandboxed runs from the launcher (off: each starts a fresh interpreter)"),
    Setting(ENV_KERNEL_FORK, "kernel_fork", "bool", "fork notebook kernels from a server (off: fresh interpreters)"),
    Setting(ENV_WARM_WORKERS, "warm_workers", "bool",
            "fork a batch's local workers warm (off: each starts a fresh interpreter)"),
    Setting(ENV_REVEAL, "reveal", "bool",
            "notebooks show candidates' names and every reviewer's scores (commands take `--reveal`)"),
    Setting(ENV_REVIEWER, "reviewer", "str",
            "your name: in the scoring panel, whose `queue` (`--reviewer`), who records with `resolve`, `clarify`,"
            " `decide`", "--by"),
    Setting(ENV_DECISIONS, "decisions", "list", "the decisions a lead can record, in the team's own words"),
    Setting(ENV_LIVE_BASE_URL, "live_base_url", "str",
            "an OpenAI-compatible model endpoint a take-home re-records one fixture against, as a spot check"),
    Setting(ENV_LIVE_API_KEY, "live_api_key", "str", "the key for that endpoint (never enters the sandbox)",
            default_text="not set", secret=True),
    Setting(ENV_LIVE_MODEL, "live_model", "str", "the model asked at that endpoint",
            default_text="the candidate's own"),
    Setting(ENV_STARTER, "starter", "paths",
            "starter code, left out of the take-home's similarity comparisons (`similarity scan --template` adds more)",
            default_text="none"),
    Setting(ENV_HEADLESS, "headless", "bool", "no live widgets: set for the notebooks the kit runs itself",
            role=INTERNAL),
    Setting(ENV_UPDATE_GOLDEN, "update_golden", "bool", "rewrite the golden files the tests compare",
            role=DEVELOPMENT),
    Setting(ENV_DOCS_SCREENSHOTS, "docs_screenshots", "bool",
            "the browser tests write the README's screenshots into docs/", role=DEVELOPMENT),
    Setting(ENV_BENCH_REEXEC, "bench_reexec", "bool",
            "set by a benchmark that re-ran itself with the repository's venv", role=DEVELOPMENT),
)  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """The kit's settings, typed; `sources` says where each set variable's value came from."""

    cache_dir: Path
    index_url: str | None = None
    npm_registry: str | None = None
    offline: bool = False
    build_source: bool = False
    install_seconds: float = DEFAULT_INSTALL_SECONDS
    python: Path = Path(SYSTEM_PYTHON)
    disk_mib: int = DEFAULT_DISK_MIB
    no_namespaces: bool = False
    sandbox_launcher: bool = True
    kernel_fork: bool = True
    warm_workers: bool = True
    reveal: bool = False
    reviewer: str = ""
    decisions: tuple[str, ...] = DEFAULT_DECISIONS
    live_base_url: str | None = None
    live_api_key: str = field(default="", repr=False)
    live_model: str | None = None
    starter: Mapping[str, tuple[Path, ...]] = field(default_factory=dict)  # TAKEHOME -> paths
    headless: bool = False
    update_golden: bool = False
    docs_screenshots: bool = False
    bench_reexec: bool = False
    sources: Mapping[str, str] = field(default_factory=dict)  # variable -> ENVIRONMENT | FLAG (absent: DEFAULT)

    def source(self, name: str) -> str:
        """Where the variable `name`'s value came from: "default", "environment" or "flag"."""
        return self.sources.get(name, DEFAULT)

    def given(self, field_name: str) -> bool:
        """Whether the setting held in `field_name` was given (environment or flag), not left at its default."""
        return self.source(setting_for(field_name).name) != DEFAULT

    def starter_paths(self, takehome: str) -> tuple[Path, ...]:
        """The starter code set for `takehome` (`GRADELIB_STARTER_REPLAY`), or ()."""
        return self.starter.get(takehome.upper(), ())

    def with_flags(self, **values: object) -> Settings:
        """A copy with command-line flags applied: each named field takes its value, its source "flag"."""
        sources = dict(self.sources)
        for name in values:
            sources[setting_for(name).name] = FLAG
        return replace(self, **values, sources=sources)  # type: ignore[arg-type]


def setting_for(field_name: str) -> Setting:
    """The table's row for a `Settings` field (KeyError names a field no row fills)."""
    for setting in SETTINGS:
        if setting.field == field_name:
            return setting
    raise KeyError(f"no setting fills the field {field_name!r}")


def default_cache_dir(environ: Mapping[str, str]) -> Path:
    """`$XDG_CACHE_HOME/gradelib`, else `~/.cache/gradelib` (HOME from `environ` when it names one)."""
    home = Path(environ["HOME"]) if environ.get("HOME") else Path.home()
    return Path(environ.get("XDG_CACHE_HOME") or home / ".cache") / "gradelib"


def parse_value(setting: Setting, name: str, text: str) -> object:
    """The typed value of `text` for `setting`; SettingsError names `name` and what it accepts."""
    value = text.strip()
    if setting.kind == "path":
        return Path(value).expanduser()
    if setting.kind == "paths":
        return tuple(Path(part.strip()).expanduser() for part in value.split(os.pathsep) if part.strip())
    if setting.kind == "list":
        return tuple(dict.fromkeys(word.strip() for word in value.split(",") if word.strip()))
    if setting.kind == "str":
        return value
    if setting.kind == "bool" and value.lower() in TRUE_WORDS + FALSE_WORDS:
        return value.lower() in TRUE_WORDS
    with contextlib.suppress(ValueError):
        if setting.kind == "int" and int(value) >= 1:
            return int(value)
        if setting.kind == "float" and math.isfinite(number := float(value)) and number > 0:
            return number
    raise SettingsError(name, f"{text!r} is not a valid {setting.kind}: it accepts {ACCEPTS[setting.kind]}")


def known(name: str) -> Setting | None:
    """The table's row for the variable `name` (a family's row for one of its variables), or None."""
    for setting in SETTINGS:
        family = setting.family
        if setting.name == name or (
            family and name.startswith(family) and FAMILY_SUFFIX.fullmatch(name[len(family) :])
        ):
            return setting
    return None


def unknown_reason(name: str) -> str:
    """Why `name` is refused, with the closest known name when one is close."""
    head, _, tail = name.rpartition("_")
    names = [setting.name for setting in SETTINGS if not setting.family] + [
        setting.family + tail  # a misspelled family's member: the same take-home under the family's name
        for setting in SETTINGS
        if setting.family and difflib.SequenceMatcher(None, head + "_", setting.family).ratio() >= FAMILY_LIKENESS
    ]
    # compared without the prefix every name shares, which would make any two look alike
    close = difflib.get_close_matches(name.removeprefix(PREFIX), [n.removeprefix(PREFIX) for n in names], n=1)
    hint = f" (did you mean {PREFIX}{close[0]}?)" if close else ""
    return f"not a gradelib setting{hint}; `gradelib settings` lists every one"


def load(environ: Mapping[str, str]) -> Settings:
    """The settings `environ` holds; SettingsError for an unknown GRADELIB_* variable or a value it cannot mean.

    An empty value is the same as none (the default).
    """
    values: dict[str, object] = {"cache_dir": default_cache_dir(environ)}
    starter: dict[str, tuple[Path, ...]] = {}
    sources: dict[str, str] = {}
    problems: list[tuple[str, str]] = []
    for name in sorted(key for key in environ if key.startswith(PREFIX)):
        setting = known(name)
        if setting is None:
            problems.append((name, unknown_reason(name)))
            continue
        if not environ[name].strip():
            continue  # empty: the default
        try:
            value = parse_value(setting, name, environ[name])
        except SettingsError as exc:
            problems.append((name, exc.reason))
            continue
        if value == ():
            continue  # a list of nothing: the default
        if setting.family:
            starter[name[len(setting.family) :].upper()] = value  # type: ignore[assignment]
        else:
            values[setting.field] = value
        sources[name] = ENVIRONMENT
    if problems:
        raise SettingsError(problems[0][0], problems[0][1], more=tuple(problems[1:]))
    return Settings(**values, starter=starter, sources=sources)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=16)
def _load_items(items: tuple[tuple[str, str], ...]) -> Settings:
    return load(dict(items))


def current_settings() -> Settings:
    """This process's settings, from its environment as it is now (parsed once per distinct set of values)."""
    read = sorted((k, v) for k, v in os.environ.items() if k.startswith(PREFIX) or k in CACHE_HOME_VARIABLES)
    return _load_items(tuple(read))


def shown(value: object) -> str:
    """A setting's value as the table and `gradelib settings` write it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None or value == "" or value == ():
        return "not set"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return (os.pathsep if value and isinstance(value[0], Path) else ", ").join(str(part) for part in value)
    return str(value)


def _defaults() -> dict[str, object]:
    return {item.name: item.default for item in fields(Settings)}


@dataclass(frozen=True)
class Effective:
    """One variable's effective value, for `gradelib settings`."""

    variable: str
    value: str
    source: str
    role: str
    flag: str


def effective(settings: Settings) -> list[Effective]:
    """Every variable of the table with its value (a secret's hidden) and where it came from, in table order."""
    rows = []
    for setting in SETTINGS:
        if setting.family:
            chosen = {setting.family + suffix: paths for suffix, paths in sorted(settings.starter.items())}
        else:
            chosen = {setting.name: getattr(settings, setting.field)}
        for name, value in (chosen or {setting.name: ()}).items():
            text = HIDDEN if setting.secret and value else shown(value)
            rows.append(Effective(name, text, settings.source(name), setting.role, setting.flag))
    return rows


def effective_text(settings: Settings) -> str:
    """`gradelib settings`: one aligned line per variable (variable, value, source), internal ones marked;
    values as a terminal may show them."""
    rows = [("VARIABLE", "VALUE", "SOURCE")] + [
        (row.variable, terminal_text(row.value), row.source + ("" if row.role == USER else f" ({row.role})"))
        for row in effective(settings)
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(2)]
    return "\n".join(f"{a.ljust(widths[0])}  {b.ljust(widths[1])}  {c}".rstrip() for a, b, c in rows)


def effective_json(settings: Settings) -> str:
    """`gradelib settings --json`: the rows of `effective` as a JSON list of objects."""
    return json.dumps([asdict(row) for row in effective(settings)], indent=2)


def default_text(setting: Setting) -> str:
    """A setting's default as the table says it (and the help of the flag that overrides it)."""
    return setting.default_text or shown(_defaults().get(setting.field))


def markdown_table() -> str:
    """The README's table of settings: every row of `SETTINGS` (`tests/unit/test_settings.py` compares them)."""
    lines = ["| variable | type | default | flag | meaning |", "|---|---|---|---|---|"]
    for setting in SETTINGS:
        default = default_text(setting)
        flag = f"`{setting.flag}`" if setting.flag else ""
        who = {INTERNAL: "*internal, set by the kit:* ", DEVELOPMENT: "*the kit's own tests:* "}.get(setting.role, "")
        kind = TYPE_NAMES.get(setting.kind, setting.kind)
        lines.append(f"| `{setting.name}` | {kind} | {default} | {flag} | {who}{setting.meaning} |")
    return "\n".join(lines)
