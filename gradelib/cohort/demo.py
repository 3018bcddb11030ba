"""Demo reviewer scores: two or three fictional reviewers score every graded submission, through the panel's own path.

    gradelib demo --gradebook reports/gradebook.sqlite

Each graded submission gets two or three of the reviewers (ana is lenient, ben sticks
close to the evidence, chloe is strict). They start from the kit's suggestion, or for a
line the kit leaves to a human from a hidden quality of the submission (mostly its
automated results), then nudge it their way now and then. Every score carries a
comment, as an override must. Scores go through `review.save_scores`, the function the
widgets' Save button calls, so the same validation applies. The same seed gives the
same scores; a reviewer who already scored a submission is left alone, so running it
twice adds nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gradelib.errors import GradelibError, RubricError, UnknownTakehome
from gradelib.gradebook import DEFAULT_PATH
from gradelib.gradebook.health import open_checked
from gradelib.review.scoring import ReviewLine, review_lines, save_scores
from gradelib.takehomes.rubric import default_rubric

DEMO_REVIEWERS = ("ana", "ben", "chloe")
DEFAULT_SEED = 7
# Probability of moving one step up, one step down from the starting value; reviewers not named here are neutral.
TEMPERAMENTS = {"ana": (0.35, 0.05), "ben": (0.12, 0.12), "chloe": (0.05, 0.4)}
NEUTRAL = (0.12, 0.12)
AUTOMATED_NUDGE = 0.2  # how much of a temperament shows on lines the kit measured
AGREE = (
    "Checked the evidence; agree with the kit.",
    "Re-read the output myself: the kit has this right.",
    "Agree: the evidence supports it.",
)
UP = (
    "Generous here: the intent is right and the fix would be small.",
    "Partial credit: the approach is sound even if this check trips.",
    "Giving more than the kit: the note shows they understood the problem.",
)
DOWN = (
    "Stricter than the kit: the evidence does not convince me.",
    "Docking this: it works here by luck more than by design.",
    "Not enough: I would want to see this proven, not asserted.",
)
JUDGED = "{description}. {remark}"
REMARKS = (
    "Read the note twice.",
    "Based on the note and the diff.",
    "Judgment call.",
    "Compared with the rest of the cohort.",
)


@dataclass(frozen=True)
class SeedResult:
    """What a demo run added."""

    submissions: int  # submissions that got new scores
    scores: int  # score entries added
    skipped: int  # (submission, reviewer) pairs that already had scores
    messages: tuple[str, ...] = ()  # scores the panel's validation refused (none expected)


def _start(line: ReviewLine, quality: float, rng: random.Random) -> int:
    """Index into line.choices to start from: the kit's value, else one drawn from the submission's quality."""
    if line.kit_value is not None:
        return line.choices.index(line.kit_value)
    top = len(line.choices) - 1
    if line.kind == "points":  # a points line awaiting a human: whole, half or no marks
        return round(top * min(1.0, max(0.0, round(2 * quality + rng.gauss(0, 0.3)) / 2)))
    return min(top, max(0, round(top * quality + rng.gauss(0, 0.4))))


def _step(line: ReviewLine) -> int:
    """How far one nudge moves: a tier, or half the points."""
    return 1 if line.kind == "tiers" else max(1, (len(line.choices) - 1) // 2)


def _score(line: ReviewLine, reviewer: str, start: int, rng: random.Random) -> tuple[str, str]:
    """A reviewer's (value, comment) on a line: the shared starting value, nudged by their temperament."""
    up, down = TEMPERAMENTS.get(reviewer, NEUTRAL)
    if not line.needs_human:  # a line the kit measured: reviewers mostly take its word
        up, down = up * AUTOMATED_NUDGE, down * AUTOMATED_NUDGE
    draw = rng.random()
    move = _step(line) if draw < up else -_step(line) if draw > 1 - down else 0
    index = min(len(line.choices) - 1, max(0, start + move))
    value = line.choices[index]
    if line.kit_value is None:
        description = line.descriptions.get(value) or f"{value} of {line.choices[-1]}"
        return value, JUDGED.format(description=description, remark=rng.choice(REMARKS))
    if value == line.kit_value:
        return value, rng.choice(AGREE)
    return value, rng.choice(UP if index > line.choices.index(line.kit_value) else DOWN)


def _quality(review: Sequence[ReviewLine], rng: random.Random) -> float:
    """A hidden 0..1 quality: mostly the share of automated points earned, partly chance."""
    shares = [
        line.choices.index(line.kit_value) / (len(line.choices) - 1)
        for line in review
        if line.kit_value is not None and len(line.choices) > 1
    ]
    earned = sum(shares) / len(shares) if shares else 0.5
    return 0.6 * earned + 0.4 * rng.random()


def _panel(reviewers: Sequence[str], rng: random.Random) -> list[str]:
    if len(reviewers) <= 2 or rng.random() < 0.5:
        return list(reviewers)
    chosen = set(rng.sample(list(reviewers), 2))
    return [reviewer for reviewer in reviewers if reviewer in chosen]


def seed_demo_scores(
    gradebook_path: str | Path = DEFAULT_PATH,
    reviewers: Sequence[str] = DEMO_REVIEWERS,
    seed: int = DEFAULT_SEED,
) -> SeedResult:
    """Enter reproducible scores from two or three demo reviewers on every graded submission.

    Idempotent: a reviewer who already has a score on a submission is skipped there.
    Raises GradelibError when the gradebook file does not exist (grade the cohort first).
    """
    path = Path(gradebook_path)
    names = [reviewer.strip() for reviewer in reviewers if reviewer.strip()]
    touched = skipped = 0
    messages: list[str] = []
    with open_checked(path, write=True) as book:
        before = len(book.scores())
        for row in book.submissions():
            run = book.latest_run(row.takehome, row.name, graded_only=True)
            if run is None:
                continue
            try:
                rubric = default_rubric(row.takehome)
            except (UnknownTakehome, RubricError):
                continue
            review = review_lines(rubric, book.lines(run.id))
            rng = random.Random(f"{seed}/{row.takehome}/{row.name}")  # noqa: S311 - demo scores, reproducible
            quality = _quality(review, rng)
            starts = {line.line_id: _start(line, quality, rng) for line in review}  # what the work deserves
            scored = {reviewer for _, reviewer in book.current_scores(row.takehome, row.name)}
            added = False
            for reviewer in _panel(names, rng):
                values = {line.line_id: _score(line, reviewer, starts[line.line_id], rng) for line in review}
                if reviewer in scored:
                    skipped += 1
                    continue  # the draws above still ran, so later reviewers get the same scores as before
                refused = save_scores(book, row.takehome, row.name, reviewer, values, review)
                messages += [f"{row.blind_label} {reviewer}: {message}" for message in refused]
                added = True
            touched += added
        return SeedResult(touched, len(book.scores()) - before, skipped, tuple(messages))


def main(argv: Sequence[str] | None = None) -> int:
    """`gradelib demo`: seed demo scores and say what was added."""
    parser = argparse.ArgumentParser(prog="gradelib demo", description=__doc__.splitlines()[0])
    parser.add_argument("--gradebook", type=Path, default=DEFAULT_PATH, help=f"default: {DEFAULT_PATH}")
    parser.add_argument("--reviewers", default=",".join(DEMO_REVIEWERS), help="comma-separated demo reviewer names")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    try:
        result = seed_demo_scores(args.gradebook, args.reviewers.split(","), args.seed)
    except GradelibError as exc:
        print(f"gradelib: {exc}", file=sys.stderr)
        return 2
    for message in result.messages:
        print(f"not saved: {message}", file=sys.stderr)
    print(
        f"added {result.scores} demo score(s) on {result.submissions} submission(s)"
        f" ({result.skipped} reviewer/submission pair(s) already scored) to {args.gradebook}"
    )
    return 1 if result.messages else 0


if __name__ == "__main__":
    raise SystemExit(main())
