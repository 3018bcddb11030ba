"""Where a candidate's note quotes raw output or names restarts, timeouts, partial writes."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from gradelib.takehome import clipped_text

MAX_HINTS = 200
# Hints shown to the reviewer beside the note; never scored. (kind, label, pattern)
HINT_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("raw_output", "quotes raw gateway output", re.compile(
        r"[\"'](requests|distinct_keys|distinctKeys|charges)[\"']\s*:|gateway: #\d", re.I)),
    ("restart", "restarts / crashes", re.compile(
        r"\b(restart\w*|crash\w*|killed|sigkill|reboot\w*|process (dies|died|exits))\b", re.I)),
    ("timeout", "timeouts", re.compile(
        r"\b(time ?outs?|timed out|timing out|abortcontroller|abortsignal)\b", re.I)),
    ("partial_write", "partial / atomic writes", re.compile(
        r"\b(partial(ly)? (writes?|written|responses?|failures?)|atomic\w*|fsync|half[- ]written"
        r"|torn writes?|truncated)\b", re.I)),
    ("idempotency", "idempotency / dedupe", re.compile(
        r"idempoten\w*|\bde-?dup\w*|\bduplicat\w*|double[- ]charg\w*|charged twice|two charges",
        re.I)),
    ("assistant", "the assistant used", re.compile(
        r"\b(copilot|chatgpt|gpt-?\d\w*|claude|cursor|gemini|codeium|tabnine|cody|monkeycode"
        r"|assistant|llm)\b", re.I)),
)  # fmt: skip
FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def find_hints(text: str) -> list[dict[str, Any]]:
    """Lines of a note worth a reviewer's look: raw output, code blocks, and topics.

    Each hint has the 1-based line number, its kind, a label and the line as plain text
    (control characters removed; every view escapes it).
    """
    hints: list[dict[str, Any]] = []
    in_fence = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            if not in_fence:
                hints.append(_hint(number, "code_block", "fenced code block", line))
            in_fence = not in_fence
        for kind, label, pattern in HINT_PATTERNS:
            if pattern.search(line):
                hints.append(_hint(number, kind, label, line))
        if len(hints) >= MAX_HINTS:
            break
    return hints[:MAX_HINTS]


def _hint(number: int, kind: str, label: str, line: str) -> dict[str, Any]:
    return {"line": number, "kind": kind, "label": label, "text": clipped_text(line.strip())}


def hint_lines(hints: Sequence[Mapping[str, Any]], kind: str) -> list[int]:
    """Line numbers of the hints of one kind."""
    return [int(h["line"]) for h in hints if h.get("kind") == kind]
