"""Which submissions share their code: fingerprints (tokenised, normalised, winnowed) of each submission's
own files, kept in the gradebook and compared across the cohort, with earlier cohorts and with the handout."""

from __future__ import annotations

from gradelib.similarity.cohort import SimilarPair, cohort_pairs, keep, refresh, takehomes_kept
from gradelib.similarity.fingerprint import Base, CodeFile, Prints, base_of, fingerprint
from gradelib.similarity.pairs import THRESHOLD, Match, match
from gradelib.similarity.report import report_views, similar_submissions

__all__ = [
    "THRESHOLD",
    "Base",
    "CodeFile",
    "Match",
    "Prints",
    "SimilarPair",
    "base_of",
    "cohort_pairs",
    "fingerprint",
    "keep",
    "match",
    "refresh",
    "report_views",
    "similar_submissions",
    "takehomes_kept",
]
