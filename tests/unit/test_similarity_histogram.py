"""The histogram of every pair's score: what it counts, what it names, and when there is nothing to draw."""

from __future__ import annotations

from matplotlib.figure import Figure

from gradelib.cohort.similar import pair_histogram, pair_scores
from gradelib.display.render import Html
from gradelib.similarity.cohort import Side, SimilarPair
from gradelib.similarity.pairs import Match


def _pair(a: str, b: str, share: float) -> SimilarPair:
    return SimilarPair("payments", Side(a, a, False, ()), Side(b, b, False, ()), Match(share, share / 2, 7, ()))


def test_every_pair_counts_those_too_far_apart_to_measure_at_zero_and_the_flagged_are_named() -> None:
    pairs = [_pair("Submission #1", "Submission #3", 0.91), _pair("Submission #2", "Submission #3", 0.2)]
    scores = pair_scores("payments", pairs, total=10, threshold=0.5)
    assert scores.shares == (0.91, 0.2) and scores.unmeasured == 8
    assert scores.flagged == (("Submission #1 ~ Submission #3", 0.91),)
    figure = pair_histogram([scores], threshold=0.5)
    assert isinstance(figure, Figure)
    (axes,) = figure.axes
    assert "10 pairs, 1 at or above 50%" in axes.get_title()
    assert [text.get_text() for text in axes.texts] == ["Submission #1 ~ Submission #3 (91%)"]
    assert sum(patch.get_height() for patch in axes.patches[:20]) == 10, "every pair in the grey histogram"


def test_no_pairs_is_a_note_not_an_empty_chart() -> None:
    shown = pair_histogram([pair_scores("replay", [], total=0)])
    assert isinstance(shown, Html) and "No pairs" in shown.text
