"""Grading a cohort: one papermill run per submission, in parallel (local processes or Dask), resumable."""

from __future__ import annotations

from gradelib.batch.driver import GradeOutcome, default_jobs, grade

__all__ = ["GradeOutcome", "default_jobs", "grade"]
