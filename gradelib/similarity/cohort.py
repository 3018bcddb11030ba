"""Similarity across a gradebook: every graded submission's code kept once, then compared with every other
one of its take-home and every earlier cohort added, blind labels as everywhere else."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gradelib.gradebook import Gradebook, SubmissionRow, utc_now
from gradelib.gradebook.codeprints import CodeSource, StoredFile
from gradelib.gradebook.identity import label_for, shown
from gradelib.similarity.fingerprint import SCHEME, Base, CodeFile, Prints, fingerprint, own_marks
from gradelib.similarity.pairs import THRESHOLD, Match, common, match, neighbours
from gradelib.similarity.winnow import Mark

GRADED_HERE = "graded here"
EARLIER_LABEL = "Earlier cohort #{number}"


@dataclass(frozen=True)
class Side:
    """One side of a pair: what reviewers see of it."""

    label: str  # blind label ("Submission #3", "Earlier cohort #12"), or the name when revealed
    name: str  # the candidate's folder name: shown only with --reveal
    earlier: bool  # from an earlier cohort (`gradelib similarity add`), not graded here
    files: tuple[CodeFile, ...]


@dataclass(frozen=True)
class SimilarPair:
    """Two submissions of one take-home that share code, and how much."""

    takehome: str
    a: Side  # graded here
    b: Side  # graded here too, or from an earlier cohort
    match: Match


def stored_files(prints: Prints) -> list[StoredFile]:
    """A submission's fingerprints as the gradebook keeps them."""
    return [
        StoredFile(file.path, file.text, tuple((mark.hash, mark.first, mark.last) for mark in file.marks))
        for file in prints.files
    ]


def keep(
    book: Gradebook, takehome: str, digest: str, name: str, folder: Path, base: Base, *, cohort: str = GRADED_HERE
) -> bool:
    """Fingerprint the submission in `folder` (its handout's `base` left out) and keep its code in the
    gradebook, once per digest; `cohort` other than GRADED_HERE marks it as from an earlier cohort. False
    when it was kept already."""
    if book.has_code(takehome, digest):
        return False
    prints = fingerprint(folder, base)
    skipped = tuple((item.path, item.reason) for item in prints.skipped)
    source = CodeSource(0, takehome, digest, name, cohort != GRADED_HERE, cohort, skipped, utc_now(), SCHEME)
    return book.add_code(source, stored_files(prints))


def refresh(book: Gradebook, takehome: str, base: Base) -> int:
    """Make again, from their kept text, the fingerprints of the take-home's sources kept under another
    scheme (an earlier kit's), so that every source is compared the same way; how many were made again."""
    stale = [source for source in book.code_sources(takehome) if source.scheme != SCHEME]
    if not stale:
        return 0
    kept = book.code_files([source.id for source in stale])
    for source in stale:
        marks = [
            tuple((m.hash, m.first, m.last) for m in own_marks(file.path, file.text, base)) for file in kept[source.id]
        ]
        book.replace_code_marks(source.id, SCHEME, marks)
    return len(stale)


def _code_files(files: Sequence[StoredFile]) -> tuple[CodeFile, ...]:
    return tuple(CodeFile(file.path, file.text, tuple(Mark(*mark) for mark in file.marks)) for file in files)


def _labels(book: Gradebook, takehome: str, sources: Sequence[CodeSource], reveal: bool) -> dict[int, tuple[str, str]]:
    """(label, name) of each source that is current: graded here at its latest digest, or earlier."""
    rows: dict[str, SubmissionRow] = {row.digest: row for row in book.submissions(takehome)}
    found: dict[int, tuple[str, str]] = {}
    for source in sources:
        if source.earlier:
            found[source.id] = (shown(source.name, EARLIER_LABEL.format(number=source.id), reveal), source.name)
        elif source.digest in rows:
            row = rows[source.digest]
            found[source.id] = (label_for(row, reveal=reveal), row.name)
    return found


def cohort_pairs(
    book: Gradebook, takehome: str, *, threshold: float = THRESHOLD, reveal: bool = False
) -> list[SimilarPair]:
    """Every pair of a take-home's graded submissions, or of one of them and an earlier cohort's, that shares
    at least `threshold` of either side; the largest share first. Sources of another fingerprint scheme (not
    yet `refresh`ed) are left out."""
    sources = [source for source in book.code_sources(takehome) if source.scheme == SCHEME]
    labels = _labels(book, takehome, sources, reveal)
    by_id = {source.id: source for source in sources if source.id in labels}
    hashes = {key: value for key, value in book.code_hashes(takehome).items() if key in by_id}
    ignore = common(hashes)
    graded = [source.id for source in sources if source.id in by_id and not source.earlier]
    candidates = neighbours(hashes, ignore, graded)
    involved = sorted({key for pair in candidates for key in pair})
    files = {key: _code_files(value) for key, value in book.code_files(involved).items()}
    found: list[SimilarPair] = []
    for a, b in candidates:
        measured = match(files[a], files[b], ignore)
        if measured.share >= threshold:
            sides = [Side(*labels[key], by_id[key].earlier, files[key]) for key in (a, b)]
            found.append(SimilarPair(takehome, sides[0], sides[1], measured))
    return sorted(found, key=lambda pair: (-pair.match.share, pair.a.label, pair.b.label))


def takehomes_kept(book: Gradebook) -> list[str]:
    """The take-homes whose code the gradebook keeps."""
    return sorted({source.takehome for source in book.code_sources()})
