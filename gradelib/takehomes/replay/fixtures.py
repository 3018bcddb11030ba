"""Forensics on recorded fixtures: cassettes that stand out from their siblings, and git history."""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.takehome import UnsafeFile, read_file

MAX_CASSETTE_BYTES = 4 * 1024 * 1024
MIN_SIBLINGS = 3  # below this there is no "majority" to stand out from
PROVIDER_KEYS = ("id", "created", "model", "usage", "object", "system_fingerprint")


@dataclass(frozen=True)
class Standout:
    """A cassette that differs from most of its siblings, and how."""

    path: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Shape:
    """What a cassette looks like, without its values."""

    keys: frozenset[str]
    indent: str
    sorted_keys: bool
    trailing_newline: bool
    is_json: bool


def shape_of(data: bytes) -> Shape:
    """The structure and formatting of one cassette file."""
    text = data.decode("utf-8", errors="replace")
    try:
        doc = json.loads(text)
    except ValueError:
        return Shape(frozenset(), "", False, text.endswith("\n"), False)
    return Shape(
        frozenset(_key_paths(doc)),
        _indent(text),
        _keys_sorted(doc),
        text.endswith("\n"),
        True,
    )


def _key_paths(doc: Any, prefix: str = "") -> set[str]:
    paths: set[str] = set()
    if isinstance(doc, dict):
        for key, value in doc.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            paths.add(path)
            paths |= _key_paths(value, path)
    elif isinstance(doc, list):
        for item in doc[:3]:
            paths |= _key_paths(item, prefix + "[]")
    elif isinstance(doc, str) and doc.lstrip().startswith("{"):
        # Provider responses often nest the model's JSON answer as a string.
        with contextlib.suppress(ValueError):
            paths |= {f"{prefix}<json>.{p}" for p in _key_paths(json.loads(doc))}
    return paths


def _indent(text: str) -> str:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "" if "\n" not in text.strip() else "none"


def _keys_sorted(doc: Any) -> bool:
    if isinstance(doc, dict):
        keys = list(doc)
        return keys == sorted(keys) and all(_keys_sorted(v) for v in doc.values())
    if isinstance(doc, list):
        return all(_keys_sorted(v) for v in doc)
    return True


def standouts(root: Path, cassettes: Sequence[str]) -> list[Standout]:
    """Cassettes whose structure or formatting differs from the majority of their siblings."""
    shapes: dict[str, Shape] = {}
    for rel in cassettes:
        try:
            data = read_file(root, rel, MAX_CASSETTE_BYTES)
        except UnsafeFile as exc:
            shapes[rel] = Shape(frozenset(), "", False, False, False)
            found = Standout(rel, (exc.reason,))
            return [found, *standouts(root, [c for c in cassettes if c != rel])]
        if data is not None:
            shapes[rel] = shape_of(data)
    if len(shapes) < MIN_SIBLINGS:
        return []
    common_keys = _majority([s.keys for s in shapes.values()])
    result: list[Standout] = []
    for rel, shape in shapes.items():
        reasons: list[str] = []
        if shape.is_json != _majority([s.is_json for s in shapes.values()]):
            reasons.append("is not JSON like its siblings" if not shape.is_json else "is JSON unlike its siblings")
        missing = sorted(common_keys - shape.keys)
        extra = sorted(shape.keys - common_keys)
        provider_missing = [k for k in missing if k.split(".")[-1] in PROVIDER_KEYS]
        if provider_missing:
            reasons.append(f"lacks provider metadata its siblings have: {', '.join(provider_missing[:6])}")
        elif missing:
            reasons.append(f"lacks keys its siblings have: {', '.join(missing[:6])}")
        if extra:
            reasons.append(f"has keys its siblings lack: {', '.join(extra[:6])}")
        for attribute, label in (
            ("indent", "indentation"),
            ("sorted_keys", "key order"),
            ("trailing_newline", "trailing newline"),
        ):
            usual = _majority([getattr(s, attribute) for s in shapes.values()])
            if getattr(shape, attribute) != usual:
                reasons.append(f"different {label} from its siblings")
        if reasons:
            result.append(Standout(rel, tuple(reasons)))
    # When most files "stand out", there is no majority style; that is not evidence.
    return result if len(result) <= len(shapes) // 3 else []


def _majority(values: Sequence[Any]) -> Any:
    return Counter(values).most_common(1)[0][0]


@dataclass(frozen=True)
class LateEdit:
    """A cassette last changed in a later commit than most of its siblings."""

    path: str
    commit: str
    subject: str
    siblings_commit: str


# `git log` for the history of cassettes/. Run it only in the sandbox: a repository's own
# config (gpg.program with log.showSignature, core.fsmonitor, ...) can run the candidate's code.
GIT_LOG_ARGV = (
    "git", "-c", "core.hooksPath=/dev/null", "-c", "log.showSignature=false", "-c", "core.fsmonitor=false",
    "log", "--no-show-signature", "--format=%x1e%H%x1f%s", "--name-only", "--no-renames", "--", "cassettes",
)  # fmt: skip


def late_edits(git_log: str, cassettes: Sequence[str]) -> list[LateEdit]:
    """Cassettes whose last commit is later than the one that last touched most of them.

    `git_log` is the output of GIT_LOG_ARGV run in the submission (newest commit first).
    """
    if len(cassettes) < MIN_SIBLINGS or "\x1e" not in git_log:
        return []
    last: dict[str, tuple[int, str, str]] = {}
    for order, block in enumerate(git_log.split("\x1e")[1:]):
        header, _, names = block.partition("\n")
        commit, _, subject = header.partition("\x1f")
        for name in names.split("\n"):
            if name.strip():
                last.setdefault(name.strip(), (order, commit, subject))
    touched = {c: last[c] for c in cassettes if c in last}
    if len(touched) < MIN_SIBLINGS:
        return []
    usual_order = _majority([order for order, _, _ in touched.values()])
    usual_commit = next(commit for order, commit, _ in touched.values() if order == usual_order)
    return [
        LateEdit(path, commit[:10], subject, usual_commit[:10])
        for path, (order, commit, subject) in sorted(touched.items())
        if order < usual_order
    ]
