"""`gradelib similarity scan PATH...`: which submissions share code, straight from folders and archives, with no
grading. The same fingerprints (the handout's and a team's own starter code left out) and the same measure as
the pairs kept after a grade, so the scores are the same; `every` lists every pair of a take-home, the ones
that share nothing at 0.

A submission has one label everywhere: one the gradebook holds is shown by the gradebook's blind label;
any other gets the scan's own ("Scan A", "Scan B", ... in the order read), which no gradebook label reads as.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gradelib import takehomes
from gradelib.errors import GradelibError, SubmissionError
from gradelib.gradebook import Gradebook
from gradelib.gradebook.identity import label_for, shown
from gradelib.intake import ingest
from gradelib.similarity.cohort import Side, SimilarPair
from gradelib.similarity.fingerprint import Base, Prints, fingerprint
from gradelib.similarity.handoutbase import base_with, starter_files
from gradelib.similarity.pairs import THRESHOLD, common, match, neighbours

SCAN_LABEL = "Scan {letters}"  # never a gradebook's "Submission #N": a lead cannot take one for the other
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Scanned:
    """One submission as the scan read it: its take-home, its folder name, its blind label, its fingerprints."""

    takehome: str
    name: str
    label: str
    prints: Prints


@dataclass
class Scan:
    """What a scan found: the pairs (largest share first), how many submissions it read, what it could not."""

    pairs: list[SimilarPair] = field(default_factory=list)
    submissions: dict[str, int] = field(default_factory=dict)  # per take-home
    problems: list[str] = field(default_factory=list)
    gradebook: str | None = None  # whose labels the submissions it holds are shown by
    scan_labels: int = 0  # submissions shown by the scan's own label (not in the gradebook)


def scan_label(index: int) -> str:
    """The scan's own label of the index-th submission it read that no gradebook holds: A, B, ..., Z, AA, AB..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, len(LETTERS))
        letters = LETTERS[rest] + letters
    return SCAN_LABEL.format(letters=letters)


def scan(
    paths: Iterable[Path],
    *,
    takehome: str | None = None,
    templates: Sequence[Path] = (),
    threshold: float = THRESHOLD,
    every: bool = False,
    reveal: bool = False,
    gradebook: Gradebook | None = None,
) -> Scan:
    """Read every submission under `paths` and compare each take-home's submissions pairwise; a submission the
    `gradebook` holds is shown by its label there."""
    done = Scan(gradebook=str(gradebook.path) if gradebook is not None else None)
    scanned = _read(paths, takehome, starter_files(templates, named_by="--template"), done, reveal, gradebook)
    for name in sorted({item.takehome for item in scanned}):
        group = [item for item in scanned if item.takehome == name]
        done.submissions[name] = len(group)
        done.pairs += _pairs(name, group, threshold, every)
    done.pairs.sort(key=lambda pair: (-pair.match.share, pair.takehome, pair.a.label, pair.b.label))
    return done


def _read(
    paths: Iterable[Path],
    takehome: str | None,
    template: list[tuple[str, bytes]],
    done: Scan,
    reveal: bool,
    gradebook: Gradebook | None,
) -> list[Scanned]:
    bases: dict[str, Base] = {}
    found: list[Scanned] = []
    for path in paths:
        submissions = (
            ingest.find_submissions(Path(path), recognises=takehomes.recognises) if Path(path).exists() else []
        )
        if not submissions:
            done.problems.append(f"{path}: no submission found there")
        for submission in submissions:
            try:
                with ingest.open_submission(submission) as sub:
                    chosen = takehome or takehomes.detect(sub.path)
                    if chosen is None:
                        raise GradelibError(f"cannot tell which take-home this answers (no {takehomes.markers_text()})")
                    if chosen not in bases:
                        bases[chosen] = base_with(chosen, template)
                    row = gradebook.submission(chosen, sub.name) if gradebook is not None else None
                    if row is not None:
                        label = label_for(row, reveal=reveal)
                    else:
                        label = shown(sub.name, scan_label(done.scan_labels), reveal)
                        done.scan_labels += 1
                    found.append(Scanned(chosen, sub.name, label, fingerprint(sub.path, bases[chosen])))
            except (SubmissionError, GradelibError, OSError, ValueError, RecursionError) as exc:
                done.problems.append(f"{submission}: {exc}")
    return found


def _pairs(takehome: str, group: Sequence[Scanned], threshold: float, every: bool) -> list[SimilarPair]:
    """The take-home's pairs at `threshold` (every pair with `every`), measured as after a grade."""
    hashes = {index: item.prints.hashes for index, item in enumerate(group)}
    ignore = common(hashes)
    candidates = neighbours(hashes, ignore)
    found: list[SimilarPair] = []
    for a, b in itertools.combinations(range(len(group)), 2):
        if (a, b) not in candidates and not every:
            continue  # shares too few fingerprints to reach any threshold: not measured unless every pair is asked
        measured = match(group[a].prints.files, group[b].prints.files, ignore)
        if every or measured.share >= threshold:
            sides = [Side(group[key].label, group[key].name, False, group[key].prints.files) for key in (a, b)]
            found.append(SimilarPair(takehome, sides[0], sides[1], measured))
    return found
