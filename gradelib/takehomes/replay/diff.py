"""Compare two runs' outputs: bytes, a unified diff, a JSON-path diff and the likely cause."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gradelib.takehomes.replay.volatile import (
    ROOT_PATH,
    Kind,
    classify_key,
    classify_value,
    join_path,
    short_text,
    split_path,
)

Cause = Literal["none", "timestamp", "random_id", "ordering", "float_noise", "other"]
ChangeKind = Literal["changed", "added", "removed", "reordered"]

DEFAULT_NAMES = ("run A", "run B")
MAX_DIFF_LINES = 400
MAX_CHANGE_CHARS = 200
MAX_DETAIL_VALUE_CHARS = 40
MAX_NAMED = 3
FLOAT_TOLERANCE = 1e-6
ROW_ID_KEY = "id"
# A carriage return would be invisible in the diff; this glyph makes CRLF vs LF readable.
CR_MARK = "\u240d"
BOM_MARK = "<BOM>"
NO_NEWLINE_MARK = "\\ No newline at end of file"
UNDECODABLE_NOTE = "(the outputs differ only in bytes that are not valid UTF-8)"

TIMESTAMP_KINDS: frozenset[Kind] = frozenset({"timestamp", "date"})
RANDOM_ID_KINDS: frozenset[Kind] = frozenset({"uuid", "random_id"})


@dataclass(frozen=True)
class PathChange:
    """One difference between two JSON documents, at a JSON path."""

    path: str
    kind: ChangeKind
    before: str | None
    after: str | None


@dataclass(frozen=True)
class Comparison:
    """Everything the kit shows about two outputs that should be identical."""

    identical: bool
    unified: str
    changes: tuple[PathChange, ...]
    json_valid: tuple[bool, bool]
    cause: Cause
    cause_detail: str


# --- text diff ------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    # Split on "\n" only, so a "\r" stays part of its line and CRLF differs from LF.
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _visible(body: str) -> str:
    return body.replace("\r", CR_MARK).replace("\ufeff", BOM_MARK)


def unified_diff(
    a: bytes,
    b: bytes,
    *,
    names: tuple[str, str] = DEFAULT_NAMES,
    max_lines: int = MAX_DIFF_LINES,
) -> str:
    """A unified diff of two outputs as text, capped at `max_lines`; "" when identical."""
    if a == b:
        return ""
    before = _lines(a.decode("utf-8", errors="replace"))
    after = _lines(b.decode("utf-8", errors="replace"))
    raw = list(difflib.unified_diff(before, after, names[0], names[1], lineterm=""))
    if not raw:
        raw = [f"--- {names[0]}", f"+++ {names[1]}", UNDECODABLE_NOTE]
    out: list[str] = []
    for index, line in enumerate(raw):
        # The two file headers and the hunk headers carry no line content.
        if index < 2 or line.startswith("@@") or line == UNDECODABLE_NOTE:
            out.append(line.rstrip("\n"))
            continue
        prefix, body = line[:1], line[1:]
        if body.endswith("\n"):
            out.append(prefix + _visible(body[:-1]))
        else:
            out.append(prefix + _visible(body))
            out.append(NO_NEWLINE_MARK)
    if len(out) > max_lines:
        hidden = len(out) - max_lines
        out = [*out[:max_lines], f"... {hidden} more line{'s' if hidden != 1 else ''}"]
    return "\n".join(out) + "\n"


# --- JSON diff ------------------------------------------------------------------------------


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return short_text(text, MAX_CHANGE_CHARS)


def _row_ids(rows: list[object]) -> list[str] | None:
    """Canonical `id` of each row when every row is an object with a distinct id, else None."""
    ids: list[str] = []
    for row in rows:
        if not isinstance(row, dict) or ROW_ID_KEY not in row:
            return None
        row_id = row[ROW_ID_KEY]
        if isinstance(row_id, dict | list):
            return None
        ids.append(_canon(row_id))
    return ids if len(set(ids)) == len(ids) else None


def _diff_rows(a: list[object], b: list[object], ids_a: list[str], ids_b: list[str], path: str) -> list[PathChange]:
    position_b = {row_id: index for index, row_id in enumerate(ids_b)}
    in_a = set(ids_a)
    changes: list[PathChange] = []
    if [i for i in ids_a if i in position_b] != [i for i in ids_b if i in in_a]:
        ids_before = [json.loads(i) for i in ids_a]
        ids_after = [json.loads(i) for i in ids_b]
        changes.append(PathChange(path, "reordered", _short(ids_before), _short(ids_after)))
    # Matched and removed rows are named by their index in the first run, added ones by
    # their index in the second.
    for index, row_id in enumerate(ids_a):
        child = join_path(path, index)
        if row_id in position_b:
            changes.extend(_diff(a[index], b[position_b[row_id]], child))
        else:
            changes.append(PathChange(child, "removed", _short(a[index]), None))
    for index, row_id in enumerate(ids_b):
        if row_id not in in_a:
            changes.append(PathChange(join_path(path, index), "added", None, _short(b[index])))
    return changes


def _diff_lists(a: list[object], b: list[object], path: str) -> list[PathChange]:
    ids_a, ids_b = _row_ids(a), _row_ids(b)
    if ids_a is not None and ids_b is not None:
        return _diff_rows(a, b, ids_a, ids_b, path)
    if len(a) == len(b) and sorted(map(_canon, a)) == sorted(map(_canon, b)):
        return [PathChange(path, "reordered", _short(a), _short(b))]
    changes: list[PathChange] = []
    for index in range(max(len(a), len(b))):
        child = join_path(path, index)
        if index >= len(b):
            changes.append(PathChange(child, "removed", _short(a[index]), None))
        elif index >= len(a):
            changes.append(PathChange(child, "added", None, _short(b[index])))
        else:
            changes.extend(_diff(a[index], b[index], child))
    return changes


def _diff(a: object, b: object, path: str) -> list[PathChange]:
    # Canonical text tells 1 from 1.0 and true from 1, which == does not.
    if _canon(a) == _canon(b):
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        changes: list[PathChange] = []
        for key, value in a.items():
            child = join_path(path, str(key))
            if key in b:
                changes.extend(_diff(value, b[key], child))
            else:
                changes.append(PathChange(child, "removed", _short(value), None))
        for key, value in b.items():
            if key not in a:
                changes.append(PathChange(join_path(path, str(key)), "added", None, _short(value)))
        return changes
    if isinstance(a, list) and isinstance(b, list):
        return _diff_lists(a, b, path)
    return [PathChange(path, "changed", _short(a), _short(b))]


def json_changes(a: object, b: object) -> list[PathChange]:
    """Differences between two parsed JSON documents; rows with an `id` are matched by id."""
    return _diff(a, b, ROOT_PATH)


def _key_order_differs(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return True
        return any(_key_order_differs(value, b[key]) for key, value in a.items() if key in b)
    if isinstance(a, list) and isinstance(b, list):
        return any(_key_order_differs(x, y) for x, y in zip(a, b, strict=False))
    return False


# --- likely cause ---------------------------------------------------------------------------


def _decode(text: str | None) -> object:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text  # truncated: classify the text as it is


def _changed_region(before: str, after: str) -> tuple[str, str]:
    """The differing middle of two strings, widened to whole whitespace-separated words."""
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    tail = 0
    while tail < limit - start and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    while start > 0 and not before[start - 1].isspace():
        start -= 1
    end_before, end_after = len(before) - tail, len(after) - tail
    while end_before < len(before) and not before[end_before].isspace():
        end_before += 1
        end_after += 1
    return before[start:end_before], after[start:end_after]


def _nearest_key(path: str) -> str | None:
    keys = [step for step in split_path(path) if isinstance(step, str)]
    return keys[-1] if keys else None


def _volatile_kinds(change: PathChange) -> set[Kind]:
    kinds: set[Kind] = set()
    key = _nearest_key(change.path)
    if key is not None and (key_kind := classify_key(key)) is not None:
        kinds.add(key_kind)
    before, after = _decode(change.before), _decode(change.after)
    if isinstance(before, str) and isinstance(after, str):
        before, after = _changed_region(before, after)
    for value in (before, after):
        if (value_kind := classify_value(value)) is not None:
            kinds.add(value_kind)
    return kinds


def _float_gap(change: PathChange) -> float | None:
    """The relative difference of two numbers, or None when the change is not two numbers."""
    if change.kind != "changed":
        return None
    before, after = _decode(change.before), _decode(change.after)
    numbers = [v for v in (before, after) if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) != 2:
        return None
    x, y = float(numbers[0]), float(numbers[1])
    scale = max(abs(x), abs(y))
    return 0.0 if scale == 0 else abs(x - y) / scale


def _name_all(items: Sequence[str]) -> str:
    shown = list(items[:MAX_NAMED])
    rest = len(items) - len(shown)
    if rest > 0:
        return f"{', '.join(shown)} and {rest} more"
    if len(shown) > 1:
        return f"{', '.join(shown[:-1])} and {shown[-1]}"
    return "".join(shown)


def _describe(change: PathChange) -> str:
    if change.kind == "changed":
        before = short_text(change.before, MAX_DETAIL_VALUE_CHARS)
        after = short_text(change.after, MAX_DETAIL_VALUE_CHARS)
        return f"{change.path} {before} -> {after}"
    return f"{change.path} {change.kind}"


def _also(others: Sequence[PathChange]) -> str:
    if not others:
        return ""
    described = _name_all([_describe(c) for c in others])
    return f"; also {len(others)} other change{_s(others)}: {described}"


def _s(items: Sequence[object]) -> str:
    return "" if len(items) == 1 else "s"


def _volatile_detail(winners: Sequence[PathChange], what: str) -> str:
    keys = list(dict.fromkeys(k for c in winners if (k := _nearest_key(c.path)) is not None))
    paths = _name_all([c.path for c in winners])
    count = f"{len(winners)} value{_s(winners)}"
    if not keys:
        return f"{count} holding {what} differ: {paths}"
    verb = "differs" if len(winners) == 1 else "differ"
    holds = "holds" if len(keys) == 1 else "hold"
    key_names = _name_all([repr(k) for k in keys])
    return f"{count} {verb} in {key_names}, which {holds} {what}: {paths}"


def likely_cause(changes: Sequence[PathChange]) -> tuple[Cause, str]:
    """The most likely reason two runs differ, and one readable line naming where."""
    if not changes:
        return "none", "no differences"
    values = [c for c in changes if c.kind != "reordered"]
    reorders = [c for c in changes if c.kind == "reordered"]
    kinds = [_volatile_kinds(c) for c in values]
    stamped = [c for c, k in zip(values, kinds, strict=True) if k & TIMESTAMP_KINDS]
    random = [c for c, k in zip(values, kinds, strict=True) if k & RANDOM_ID_KINDS]
    # Volatile values explain the runs' difference when they make up most of the changes;
    # the bigger group names the cause, a tie goes to timestamps.
    volatile = sum(1 for k in kinds if k & (TIMESTAMP_KINDS | RANDOM_ID_KINDS))
    if volatile * 2 > len(values) and len(stamped) >= len(random):
        others = [c for c in changes if c not in stamped]
        return "timestamp", _volatile_detail(stamped, "timestamps") + _also(others)
    if volatile * 2 > len(values):
        uuids = all("uuid" in k for c, k in zip(values, kinds, strict=True) if c in random)
        what = "UUIDs" if uuids else "random ids"
        others = [c for c in changes if c not in random]
        return "random_id", _volatile_detail(random, what) + _also(others)
    if reorders:
        where = _name_all([c.path for c in reorders])
        detail = f"the elements of {where} come in a different order"
        return "ordering", detail + _also(values)
    gaps = [_float_gap(c) for c in values]
    if all(gap is not None and gap <= FLOAT_TOLERANCE for gap in gaps):
        largest = max(gap for gap in gaps if gap is not None)
        paths = _name_all([c.path for c in values])
        return "float_noise", (f"{len(values)} number{_s(values)} differ by a relative {largest:.1e} at most: {paths}")
    described = _name_all([_describe(c) for c in values])
    return "other", (
        f"{len(values)} change{_s(values)} not explained by timestamps, random ids, ordering "
        f"or float noise: {described}"
    )


# --- the comparison -------------------------------------------------------------------------


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _parse(data: bytes) -> tuple[bool, object, str]:
    """(valid, document, why not) for one output; NaN and Infinity count as invalid."""
    if not data.strip():
        return False, None, "empty"
    try:
        return True, json.loads(data.decode("utf-8"), parse_constant=_reject_constant), ""
    except UnicodeDecodeError as exc:
        return False, None, f"not UTF-8 at byte {exc.start}"
    except json.JSONDecodeError as exc:
        return False, None, f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    except (ValueError, RecursionError) as exc:
        return False, None, str(exc) or type(exc).__name__


def compare(a: bytes, b: bytes, *, names: tuple[str, str] = DEFAULT_NAMES) -> Comparison:
    """Compare two outputs byte for byte and, when they differ, say where and likely why."""
    valid_a, doc_a, why_a = _parse(a)
    valid_b, doc_b, why_b = _parse(b)
    valid = (valid_a, valid_b)
    if a == b:
        return Comparison(True, "", (), valid, "none", "the outputs are byte-for-byte identical")
    unified = unified_diff(a, b, names=names)
    if not valid_a and not valid_b:
        detail = f"neither {names[0]} ({why_a}) nor {names[1]} ({why_b}) is valid JSON"
        return Comparison(False, unified, (), valid, "other", detail)
    if not valid_a or not valid_b:
        name, why = (names[0], why_a) if not valid_a else (names[1], why_b)
        return Comparison(False, unified, (), valid, "other", f"{name} is not valid JSON ({why})")
    changes = tuple(json_changes(doc_a, doc_b))
    cause: Cause
    if changes:
        cause, detail = likely_cause(changes)
    elif _key_order_differs(doc_a, doc_b):
        cause, detail = "ordering", "same data, different key order or formatting"
    else:
        cause, detail = "other", "same JSON, different formatting/whitespace"
        if a.replace(b"\r\n", b"\n") == b.replace(b"\r\n", b"\n"):
            detail += " (line endings: CRLF vs LF)"
    return Comparison(False, unified, changes, valid, cause, detail)
