"""Replace known paths in text with placeholders, so output reads the same wherever it ran."""

from __future__ import annotations

import re
from collections.abc import Mapping


def mask(text: str, placeholders: Mapping[str, str]) -> str:
    """`text` with every occurrence of each path replaced by its placeholder, longest path first.

    One pass: a placeholder is never masked again, and a path inside a longer one (a folder
    and a file in it) does not split the longer match.
    """
    paths = sorted((p for p in placeholders if p), key=len, reverse=True)
    if not paths:
        return text
    pattern = re.compile("|".join(re.escape(p) for p in paths))
    return pattern.sub(lambda match: placeholders[match.group(0)], text)
