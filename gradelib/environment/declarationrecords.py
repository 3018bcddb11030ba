"""The records every declaration reader shares: a declared package, a refusal, a lockfile's use, the reader."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from gradelib.errors import UnsafeFile
from gradelib.sandbox import safefs

Ecosystem = Literal["python", "node"]

MAX_DECLARATION_BYTES = 1024 * 1024
MAX_LOCK_BYTES = 16 * 1024 * 1024
# A requirement that is a path, a URL or a VCS reference rather than a package name.
NOT_A_NAME = re.compile(r"^(\.|/|~|file:|[a-z][a-z0-9+.-]*://)", re.I)
VCS_PREFIX = re.compile(r"^[a-z+]+\+", re.I)
PYPI_HOSTS = frozenset({"pypi.org", "pypi.python.org", "files.pythonhosted.org", "test.pypi.org"})
PYPI_NAMES = frozenset({"pypi", "pypi-simple"})
FOREIGN_INDEX = "a package index named by the submission: the kit installs from the configured index only"


@dataclass(frozen=True)
class Declared:
    """One declared package: where it was declared, and the requirement text."""

    ecosystem: Ecosystem
    file: str
    line: int | None
    name: str
    spec: str  # the requirement as the installer gets it: `openai>=1.40`, or the npm range
    hashes: tuple[str, ...] = ()  # `sha256:...` a requirements file pins it with (pip-compile --generate-hashes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"ecosystem": self.ecosystem, "file": self.file, "line": self.line, "name": self.name, "spec": self.spec}


@dataclass(frozen=True)
class Refusal:
    """A declaration the kit will not act on, and why."""

    file: str
    line: int | None
    text: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"file": self.file, "line": self.line, "text": self.text[:200], "reason": self.reason}

    def describe(self) -> str:
        """`requirements.txt:3: --index-url ... (reason)`."""
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.text[:80]} ({self.reason})"


@dataclass(frozen=True)
class LockUse:
    """What the kit did with one lockfile: installed its versions, or resolved without it, and why."""

    file: str
    honoured: bool
    detail: str  # `23 locked versions installed` / `not readable: ...; resolved from package.json`

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"file": self.file, "honoured": self.honoured, "detail": self.detail}


@dataclass
class Reader:
    """One reading of a submission folder: files read safely, refusals and notes collected."""

    root: Path
    refused: list[Refusal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    locks: list[LockUse] = field(default_factory=list)
    included: set[str] = field(default_factory=set)  # requirement files already read through -r / -c

    def read(self, rel: str, max_bytes: int = MAX_DECLARATION_BYTES) -> bytes | None:
        """The file's bytes (never through a link), None when missing; an unsafe file is refused."""
        try:
            return safefs.read_file(self.root, rel, max_bytes)
        except UnsafeFile as exc:
            self.refused.append(Refusal(rel, None, rel, exc.reason))
            return None

    def text(self, rel: str, max_bytes: int = MAX_DECLARATION_BYTES) -> str | None:
        """The file as text (undecodable bytes replaced), None when missing or unsafe."""
        data = self.read(rel, max_bytes)
        return data.decode("utf-8", errors="replace") if data is not None else None

    def refuse(self, file: str, line: int | None, text: str, reason: str) -> None:
        """Record a declaration the kit will not act on."""
        self.refused.append(Refusal(file, line, text.strip(), reason))

    def exists(self, rel: str) -> bool:
        """True when the submission has this entry (a link counts: it is refused when read)."""
        path = self.root / rel
        return path.exists() or path.is_symlink()


def pep508(reader: Reader, file: str, line: int | None, text: str) -> Declared | None:
    """A plain `name[extras] spec; marker` requirement, or a refusal."""
    # Imported here: the sandbox (which this package's readers use) must run on the standard library alone.
    from packaging.requirements import InvalidRequirement, Requirement

    if NOT_A_NAME.match(text) or VCS_PREFIX.match(text):
        reader.refuse(file, line, text, "a path, VCS or URL requirement: only packages from the package index")
        return None
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        reader.refuse(file, line, text, f"not a valid requirement: {str(exc).splitlines()[0][:120]}")
        return None
    if requirement.url:
        reader.refuse(file, line, text, "a direct URL requirement (name @ url): only packages from the package index")
        return None
    return Declared("python", file, line, requirement.name, str(requirement))


def normal_name(name: str) -> str:
    """A distribution name as PEP 503 compares it (`Typing_Extensions` and `typing-extensions` are one)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def some_of(texts: Sequence[str], shown: int = 8) -> str:
    """The first `shown` of `texts`, and how many more: `a, b, c and 4 more`."""
    more = f" and {len(texts) - shown} more" if len(texts) > shown else ""
    return ", ".join(texts[:shown]) + more


def line_of(data: bytes | str, text: str) -> int | None:
    """The first line of `data` that holds `text` (for evidence; None when not found)."""
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
    needle = text.encode("utf-8", errors="replace")
    for number, line in enumerate(raw.splitlines(), 1):
        if needle in line:
            return number
    return None


def is_pypi(url: str) -> bool:
    """True when a source URL is PyPI's own index (which the configured index stands in for)."""
    return (urlsplit(url).hostname or "").lower() in PYPI_HOSTS


def index_names(reader: Reader, sources: object, file: str, data: bytes | str, label: str) -> set[str]:
    """The names of a file's package sources that stand for PyPI; every other index is refused by name.

    `sources` is a list of `{name, url}` tables (`[[tool.poetry.source]]`, a Pipfile's `[[source]]`);
    a source without a URL counts as PyPI only under PyPI's own name.
    """
    allowed = set(PYPI_NAMES)
    for source in sources if isinstance(sources, list) else []:
        if not isinstance(source, dict):
            continue
        name, url = str(source.get("name", "?")), str(source.get("url", ""))
        if (url and is_pypi(url)) or (not url and name.lower() in PYPI_NAMES):
            allowed.add(name.lower())
            continue
        reader.refuse(file, line_of(data, url or name), f"{label} {name} {url}".strip(), FOREIGN_INDEX)
    return allowed
