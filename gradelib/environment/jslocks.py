"""yarn and pnpm lockfiles, read as data: the version each package was locked at, and where it came from.

npm installs them (the kit's one Node installer): every package locked at exactly one version
is installed at that version (package.json's own packages pinned, the others through npm
`overrides`); a package locked at several versions is left to npm's resolution, and the
evidence says how many. A lockfile entry from outside the registry (git, a tarball URL, a local
folder) makes the whole lockfile unused, as for package-lock.json.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from gradelib.environment.declared import MAX_LOCK_BYTES, LockUse, Reader, line_of

YARN_LOCK = "yarn.lock"
PNPM_LOCK = "pnpm-lock.yaml"
DEFAULT_REGISTRY = "https://registry.npmjs.org/"
YARN_MIRROR = "https://registry.yarnpkg.com/"  # yarn's name for the npm registry
YARN_BERRY_REGISTRY = "npm:"
VERSION = re.compile(r"^\d+\.\d+\.\d+[\w.+-]*$")
PEER_SUFFIX = re.compile(r"\(.*$")
NOT_REGISTRY_RANGES = ("npm:", "file:", "link:", "portal:", "git", "http", "github:", "workspace:")


@dataclass(frozen=True)
class LockedVersions:
    """What a yarn or pnpm lockfile locked: every version of every package, and package.json's own."""

    file: str
    versions: Mapping[str, frozenset[str]]
    direct: Mapping[str, str] = field(default_factory=dict)  # package.json name -> its locked version (pnpm)
    specs: Mapping[str, str] = field(default_factory=dict)  # `name@range` -> the version it was locked at (yarn)

    def pins(self, declared: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        """(package.json's packages at their locked versions, npm overrides for the other single-version ones)."""
        direct = {}
        for name, spec in declared.items():
            locked = (
                self.direct.get(name) or self.specs.get(f"{name}@{spec}") or _only(self.versions.get(name, frozenset()))
            )
            direct[name] = locked or spec
        overrides = {
            name: next(iter(versions))
            for name, versions in sorted(self.versions.items())
            if len(versions) == 1 and name not in declared
        }
        return direct, overrides

    def describe(self, declared: Mapping[str, str]) -> str:
        """`41 locked versions installed (3 packages locked at several versions resolved by npm)`."""
        single = sum(1 for versions in self.versions.values() if len(versions) == 1)
        several = len(self.versions) - single
        text = f"{single} locked versions installed with npm"
        return text + (f" ({several} packages locked at several versions: resolved by npm)" if several else "")


def _only(versions: frozenset[str]) -> str | None:
    return next(iter(versions)) if len(versions) == 1 else None


def _split(spec: str) -> tuple[str, str]:
    """`@scope/name@^1.2` -> (`@scope/name`, `^1.2`)."""
    head, at, tail = spec.rpartition("@")
    return (head, tail) if at and head else (spec, "")


def read(reader: Reader, registry: str, declared: Mapping[str, str]) -> LockedVersions | None:
    """The yarn or pnpm lockfile's versions (pnpm's first), or None with a LockUse saying why not."""
    for name, parse in ((PNPM_LOCK, _pnpm), (YARN_LOCK, _yarn)):
        if not reader.exists(name):
            continue
        text = reader.text(name, MAX_LOCK_BYTES)
        if text is None:
            reader.locks.append(LockUse(name, False, "could not be read: resolved from package.json"))
            return None
        try:
            locked, problems = parse(text, registry)
        except (yaml.YAMLError, ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            why = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
            reader.refuse(name, None, name, f"not a lockfile the kit can read: {why}")
            reader.locks.append(LockUse(name, False, "could not be read: resolved from package.json"))
            return None
        if problems:
            for where, what, why in problems[:20]:
                reader.refuse(name, line_of(text, where), what, why)
            why = f"names sources outside the registry {registry}: resolved from package.json"
            reader.locks.append(LockUse(name, False, why))
            return None
        reader.locks.append(LockUse(name, True, locked.describe(declared)))
        return locked
    return None


# -- yarn --------------------------------------------------------------------------------------


def _yarn(text: str, registry: str) -> tuple[LockedVersions, list[tuple[str, str, str]]]:
    if "__metadata:" in text:
        return _yarn_berry(text)
    versions: dict[str, set[str]] = {}
    by_spec: dict[str, str] = {}
    problems = []
    registries = (registry, YARN_MIRROR) if registry == DEFAULT_REGISTRY else (registry,)
    for specs, fields in _yarn_entries(text):
        version, resolved = fields.get("version", ""), fields.get("resolved", "")
        ranges = [_split(spec)[1] for spec in specs]
        if all(r.startswith("npm:") for r in ranges):
            continue  # an alias installs another package under this name: left to npm
        if any(r.startswith(NOT_REGISTRY_RANGES) for r in ranges) or not VERSION.match(version):
            problems.append((specs[0], f"{specs[0]}: {resolved or version}"[:160], "not a registry package"))
            continue
        if resolved and not resolved.startswith(registries):
            problems.append((specs[0], f"{specs[0]}: {resolved}"[:160], f"resolved outside the registry {registry}"))
            continue
        for spec in specs:
            versions.setdefault(_split(spec)[0], set()).add(version)
            by_spec[spec] = version
    return LockedVersions(YARN_LOCK, {n: frozenset(v) for n, v in versions.items()}, specs=by_spec), problems


def _yarn_entries(text: str) -> Iterator[tuple[list[str], dict[str, str]]]:
    """(specs, fields) of each yarn v1 entry: `"a@^1", a@~1.1:` followed by indented `key "value"` lines."""
    specs: list[str] | None = None
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            if specs:
                yield specs, fields
            specs = [part.strip().strip('"') for part in line.rstrip().rstrip(":").split(",")]
            fields = {}
        elif line.startswith("  ") and not line.startswith("    ") and specs is not None:
            key, _, value = line.strip().partition(" ")
            fields[key.strip('"')] = value.strip().strip('"')
    if specs:
        yield specs, fields


def _yarn_berry(text: str) -> tuple[LockedVersions, list[tuple[str, str, str]]]:
    doc = yaml.safe_load(text)
    versions: dict[str, set[str]] = {}
    problems = []
    for key, entry in doc.items() if isinstance(doc, dict) else ():
        if key == "__metadata" or not isinstance(entry, dict):
            continue
        resolution = str(entry.get("resolution", ""))
        name, source = _split(resolution)
        if source.startswith("workspace:") or "@patch:" in resolution or source.startswith("patch:"):
            continue
        if not source.startswith(YARN_BERRY_REGISTRY):
            problems.append((str(key).split(",")[0], f"{key}: {resolution}"[:160], "not a registry package"))
            continue
        version = source[len(YARN_BERRY_REGISTRY) :]
        if VERSION.match(version):
            versions.setdefault(name, set()).add(version)
    return LockedVersions(YARN_LOCK, {n: frozenset(v) for n, v in versions.items()}), problems


# -- pnpm --------------------------------------------------------------------------------------


def _pnpm(text: str, registry: str) -> tuple[LockedVersions, list[tuple[str, str, str]]]:
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict):
        raise ValueError("not a YAML mapping")
    versions: dict[str, set[str]] = {}
    problems = []
    packages = doc.get("packages") or {}
    for key, entry in packages.items() if isinstance(packages, dict) else ():
        name, version = _pnpm_key(str(key))
        resolution = entry.get("resolution") if isinstance(entry, dict) else None
        if isinstance(resolution, dict) and ("type" in resolution or "directory" in resolution):
            problems.append((str(key), f"{key}: {resolution.get('type') or 'directory'}", "not a registry package"))
            continue
        tarball = resolution.get("tarball") if isinstance(resolution, dict) else None
        if isinstance(tarball, str) and not tarball.startswith(registry):
            problems.append((str(key), f"{key}: {tarball}"[:160], f"resolved outside the registry {registry}"))
            continue
        if name and VERSION.match(version):
            versions.setdefault(name, set()).add(version)
    direct: dict[str, str] = {}
    for name, info in _pnpm_direct(doc):
        version = PEER_SUFFIX.sub("", str(info.get("version", "")) if isinstance(info, dict) else str(info))
        if version.startswith(("link:", "file:")):
            problems.append((name, f"{name}: {version}", "a local folder, not a registry package"))
        elif VERSION.match(version):
            direct[name] = version
    return LockedVersions(PNPM_LOCK, {n: frozenset(v) for n, v in versions.items()}, direct), problems


def _pnpm_key(key: str) -> tuple[str, str]:
    """`/@scope/a@1.2.3(peer@1)` (v6), `@scope/a@1.2.3` (v9) or `/a/1.2.3` (v5) -> (name, version)."""
    key = PEER_SUFFIX.sub("", key).lstrip("/")
    name, version = _split(key)
    if version:
        return name, version
    head, _, tail = key.rpartition("/")
    return head, tail


def _pnpm_direct(doc: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """The root project's dependencies as locked: `importers["."]` (v6+) or the top level (v5)."""
    importers = doc.get("importers")
    root = importers.get(".") if isinstance(importers, dict) else doc
    for section in ("dependencies", "devDependencies", "optionalDependencies"):
        table = root.get(section) if isinstance(root, dict) else None
        yield from (table.items() if isinstance(table, dict) else ())
