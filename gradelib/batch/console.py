"""A batch in the terminal: a line per submission, the submissions that need a look, the last line that counts
them; each in its own colour where the terminal has colours."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from gradelib.batch.driver import GradeOutcome
from gradelib.safetext import terminal_text

NO_COLOR = "NO_COLOR"  # no-color.org: set to anything but the empty string, no colour
TERM = "TERM"
DUMB_TERMINAL = "dumb"  # a terminal that shows escape codes as text
RED, YELLOW, RESET = "\033[31m", "\033[33m", "\033[0m"
FAILED_COLOUR = RED  # the grading itself failed: no result
UNCHECKED_COLOUR = YELLOW  # graded, but some lines the kit could not check
ALL_UP_TO_DATE = "all {count} submissions are up to date (use --force to grade them again)"


def use_colour(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour what goes to `stream`: a terminal that has colours, and no NO_COLOR."""
    env = os.environ if environ is None else environ
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty()) and not env.get(NO_COLOR) and env.get(TERM) != DUMB_TERMINAL


def _painted(text: str, colour: str | None) -> str:
    return f"{colour}{text}{RESET}" if colour else text


def why_unchecked(messages: Sequence[str]) -> str:
    """`could not check 5 lines: <why>`: the lines' shared reason, or the first one and how many others."""
    count = len(messages)
    distinct = list(dict.fromkeys(message.strip() or "no reason given" for message in messages))
    why = distinct[0] + (f" (and {len(distinct) - 1} other reason{'s' * (len(distinct) > 2)})" if distinct[1:] else "")
    return f"could not check {count} line{'s' * (count != 1)}: {why}"


def _report_of(outcome: GradeOutcome) -> str:
    return outcome.html or outcome.notebook or "no report"


def _state(outcome: GradeOutcome) -> tuple[str, str | None]:
    """What the line says after the label, and its colour (None: the terminal's own)."""
    if outcome.status == "error":
        return f"ERROR ({outcome.seconds:.0f} s): {outcome.error}", FAILED_COLOUR
    if outcome.status == "up_to_date":
        if outcome.unchecked:
            return f"up to date; {why_unchecked(outcome.unchecked)}: {_report_of(outcome)}", UNCHECKED_COLOUR
        return "up to date", None
    if outcome.unchecked:
        return f"{why_unchecked(outcome.unchecked)} ({outcome.seconds:.0f} s): {_report_of(outcome)}", UNCHECKED_COLOUR
    total = "awaiting review" if outcome.total is None else f"total {outcome.total:g}"
    return f"ok ({outcome.seconds:.0f} s), {total}: {_report_of(outcome)}", None


def _name(outcome: GradeOutcome) -> str:
    return f"{outcome.takehome or '?'}/{terminal_text(outcome.label)}"


def outcome_line(outcome: GradeOutcome, *, colour: bool = False) -> str:
    """One finished submission: `TAKEHOME/Submission #2: could not check 5 lines: WHY (2 s): REPORT`."""
    text, shade = _state(outcome)
    return _painted(f"{_name(outcome)}: {terminal_text(text)}", shade if colour else None)


def _natural(outcome: GradeOutcome) -> tuple[object, ...]:
    """Take-home, then label with its numbers as numbers: Submission #2 before Submission #10."""
    parts = re.split(r"(\d+)", outcome.label)
    return (outcome.takehome or "", *((int(p) if p.isdigit() else 0, p) for p in parts))


def needs_a_look(outcomes: Sequence[GradeOutcome], *, colour: bool = False) -> list[str]:
    """The submissions that ended in error, one line each (label, why, report), under a heading; none: []."""
    chosen = sorted((o for o in outcomes if o.ended_in_error), key=_natural)
    if not chosen:
        return []
    lines = [f"needs a look: {len(chosen)} submission{'s' * (len(chosen) != 1)}"]
    for outcome in chosen:
        if outcome.status == "error":
            why, shade = f"grading failed: {outcome.error}: {_report_of(outcome)}", FAILED_COLOUR
        else:
            why, shade = f"{why_unchecked(outcome.unchecked)}: {_report_of(outcome)}", UNCHECKED_COLOUR
        lines.append(_painted(f"  {_name(outcome)}: {terminal_text(why)}", shade if colour else None))
    return lines


def last_line(outcomes: Sequence[GradeOutcome], reports: Path) -> str:
    """The batch's last line: what was graded, up to date, and ended in error (how many of those only could not
    check some lines). Each submission is counted once."""
    errors = [o for o in outcomes if o.ended_in_error]
    graded = sum(o.status == "graded" and not o.ended_in_error for o in outcomes)
    up_to_date = sum(o.status == "up_to_date" and not o.ended_in_error for o in outcomes)
    if outcomes and up_to_date == len(outcomes):
        return ALL_UP_TO_DATE.format(count=len(outcomes))
    unchecked = sum(o.status != "error" for o in errors)
    detail = f" ({unchecked} of them with lines the kit could not check)" if unchecked else ""
    return f"graded {graded}, up to date {up_to_date}, errors {len(errors)}{detail}; reports in {reports}/"
