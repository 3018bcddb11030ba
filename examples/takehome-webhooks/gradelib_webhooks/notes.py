"""Hints for the reviewer in a candidate's NOTE.md and source: never scored, only shown."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from gradelib.takehome import clipped_text

MAX_HINTS = 200
# (kind, label, pattern): where the note talks about what the rubric's judgment lines look for.
HINT_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("restart", "restarts / crashes", re.compile(
        r"\b(restart\w*|crash\w*|killed|sigkill|reboot\w*|in[- ]memory|process (dies|died|exits))\b", re.I)),
    ("duplicates", "duplicates / redelivery", re.compile(
        r"idempoten\w*|\bde-?dup\w*|\bduplicat\w*|redeliver\w*|exactly[- ]once|at[- ]least[- ]once|twice", re.I)),
    ("ordering", "ordering", re.compile(r"\b(out[- ]of[- ]order|ordering|before its charge|park\w*)\b", re.I)),
    ("signature", "signatures", re.compile(
        r"\b(signature\w*|hmac|timing[- ]safe|constant[- ]time|compare_digest|timingsafeequal)\b", re.I)),
    ("assistant", "the assistant used", re.compile(
        r"\b(copilot|chatgpt|gpt-?\d\w*|claude|cursor|gemini|codeium|tabnine|cody|assistant|llm)\b", re.I)),
)  # fmt: skip
# Calls that compare secrets in constant time, in the two languages the handout allows.
CONSTANT_TIME = re.compile(r"timingSafeEqual|compare_digest")


def find_hints(text: str) -> list[dict[str, Any]]:
    """Lines of the note worth a reviewer's look: 1-based line, kind, label, the line as plain text."""
    hints: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for kind, label, pattern in HINT_PATTERNS:
            if pattern.search(line):
                hints.append({"line": number, "kind": kind, "label": label, "text": clipped_text(line.strip())})
        if len(hints) >= MAX_HINTS:
            break
    return hints[:MAX_HINTS]


def hint_lines(hints: Sequence[Mapping[str, Any]], kind: str) -> list[int]:
    """Line numbers of the hints of one kind."""
    return [int(h["line"]) for h in hints if h.get("kind") == kind]


def constant_time_compare(source: str) -> bool:
    """Whether the consumer's source calls a constant-time comparison (a hint: the reviewer reads it)."""
    return CONSTANT_TIME.search(source) is not None
