"""Masking what varies between gradings (kit temp paths, random keys) in text shown to a reviewer."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any


def mask(text: str, replacements: Mapping[str, str]) -> str:
    """The text with every occurrence of each key replaced by its placeholder, longest key first.

    Longest first, so a path inside another one (`/tmp/x` and `/tmp/x/sub`) is replaced as the
    longer match; empty keys are ignored. Replacements happen in one pass: a placeholder is
    never masked again.
    """
    return _masker(replacements)(text) if text else text


def mask_data(value: Any, replacements: Mapping[str, str]) -> Any:
    """`mask` applied to every string in JSON-like data (dict keys too); other values unchanged."""
    if not replacements:
        return value
    return _masked(value, _masker(replacements))


def _masker(replacements: Mapping[str, str]) -> Callable[[str], str]:
    """One compiled pattern for all the keys, used for every string of a value."""
    keys = sorted((key for key in replacements if key), key=len, reverse=True)
    if not keys:
        return lambda text: text
    pattern = re.compile("|".join(re.escape(key) for key in keys))
    return lambda text: pattern.sub(lambda found: replacements[found.group(0)], text)


def _masked(value: Any, masker: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return masker(value)
    if isinstance(value, Mapping):
        return {_masked(k, masker): _masked(v, masker) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(item, masker) for item in value]
    return value
