"""Masking what varies between gradings (kit temp paths, random keys) in text shown to a reviewer."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any


def mask(text: str, replacements: Mapping[str, str]) -> str:
    """The text with every occurrence of each key replaced by its placeholder, longest key first.

    Longest first, so a path inside another one (`/tmp/x` and `/tmp/x/sub`) is replaced as the
    longer match; empty keys are ignored. Replacements happen in one pass: a placeholder is
    never masked again.
    """
    keys = sorted((key for key in replacements if key), key=len, reverse=True)
    if not keys or not text:
        return text
    pattern = re.compile("|".join(re.escape(key) for key in keys))
    return pattern.sub(lambda found: replacements[found.group(0)], text)


def mask_data(value: Any, replacements: Mapping[str, str]) -> Any:
    """`mask` applied to every string in JSON-like data (dict keys too); other values unchanged."""
    if not replacements:
        return value
    if isinstance(value, str):
        return mask(value, replacements)
    if isinstance(value, Mapping):
        return {mask_data(k, replacements): mask_data(v, replacements) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_data(item, replacements) for item in value]
    return value
