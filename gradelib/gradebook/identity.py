"""Blind identity: the label a submission is shown by, the submission behind a label, and when a name may show.

Reviewers see "Submission #3", never the candidate's name, unless the lead reveals names
(`--reveal`, or `GRADELIB_REVEAL` where there is no flag). Every command, report, panel and
file that shows or looks up a submission goes through here. The number itself is the
gradebook's (`SubmissionRow.blind_number`, given at first sight, per take-home).
"""

from __future__ import annotations

import re

from gradelib import settings
from gradelib.errors import UnknownSubmission
from gradelib.gradebook.store import Gradebook, SubmissionRow

ENV_REVEAL = settings.ENV_REVEAL  # the lead's setting: show every reviewer's scores (and candidates' names)
NOT_IN_GRADEBOOK = "Submission (not in the gradebook)"
KNOWN_LISTED = 5  # labels an unknown-label error lists
_LABEL = re.compile(r"^\s*(?:submission\s*)?#?\s*(\d+)\s*$", re.IGNORECASE)


def revealed_by_environment() -> bool:
    """Whether `GRADELIB_REVEAL` is set to something true: the one place the kit reads it."""
    return settings.current_settings().reveal


def is_revealed(reveal: bool | None = None) -> bool:
    """The explicit choice (a `--reveal` flag, a parameter), else the lead's `GRADELIB_REVEAL`."""
    return revealed_by_environment() if reveal is None else reveal


def shown(name: str, label: str, reveal: bool) -> str:
    """What a reader sees for a submission: its `label`, or its name once names are revealed."""
    return name if reveal else label


def label_for(row: SubmissionRow, *, reveal: bool = False) -> str:
    """A gradebook submission as shown: "Submission #3", or the candidate's name when revealed."""
    return shown(row.name, row.blind_label, reveal)


def visible_name(name: str, reveal: bool) -> str | None:
    """The candidate's name where it may be shown beside a label (revealed), else None."""
    return name if reveal else None


def shown_name(book: Gradebook, takehome: str, name: str, reveal: bool) -> str:
    """How the submission called `name` is shown: its blind label, or the name when revealed."""
    if reveal:
        return name
    row = book.submission(takehome, name)
    return row.blind_label if row is not None else NOT_IN_GRADEBOOK


def hide_name(text: str, name: str, label: str) -> str:
    """`text` (an error message, say) with the candidate's name replaced by how the submission is shown."""
    return text.replace(name, label) if name and name != label else text


def parse_label(label: str) -> int | None:
    """The number in "Submission #3", "submission 3", "#3" or "3"; None for anything else."""
    match = _LABEL.match(label)
    return int(match.group(1)) if match else None


def lookup(book: Gradebook, takehome: str, label: str) -> SubmissionRow | None:
    """The submission a lead or reviewer means: by blind label ("Submission #3", "#3", "3"), else by name."""
    number = parse_label(label)
    row = book.submission_by_number(takehome, number) if number is not None else None
    return row or book.submission(takehome, label)


def find_submission(book: Gradebook, takehome: str, label: str) -> SubmissionRow:
    """As `lookup`, but UnknownSubmission (naming a few labels the take-home has) when there is none."""
    row = lookup(book, takehome, label)
    if row is None:
        every = book.submissions(takehome)
        known = tuple(row.blind_label for row in every[:KNOWN_LISTED])
        raise UnknownSubmission(takehome, label, str(book.path), known, max(0, len(every) - KNOWN_LISTED))
    return row
