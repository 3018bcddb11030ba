"""Which sandboxed runs a piece of work made: every run is recorded into the collectors open in its context.

A rubric line is judged from the runs its check made, directly or through the cached runs it read
(`gradelib.cached.cached` keeps each cached value's runs and hands them on each time it is read), so the
one rule that tells the kit's shortfall from the candidate's fault (`takehomes/shortfall.py`) sees them
without a check having to pass them on. Work started in another thread carries the context along
through `in_context`.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
RunResult = Any  # a sandbox RunResult: this module sits below the sandbox, which records into it
T = TypeVar("T")

_COLLECTORS: contextvars.ContextVar[tuple[list[RunResult], ...]] = contextvars.ContextVar(
    "gradelib_run_collectors", default=()
)


@contextlib.contextmanager
def collecting() -> Iterator[list[RunResult]]:
    """Collect every run made (or handed on with `adopt`) in this context until the block ends; the
    collectors already open collect them too."""
    found: list[RunResult] = []
    token = _COLLECTORS.set((*_COLLECTORS.get(), found))
    try:
        yield found
    finally:
        _COLLECTORS.reset(token)


def record(result: RunResult) -> None:
    """A run was made: every open collector gets it (the sandbox calls this for each run)."""
    for found in _COLLECTORS.get():
        found.append(result)


def adopt(results: Iterable[RunResult]) -> None:
    """Runs made earlier (a cached value's) are read now: every open collector gets those it lacks."""
    results = tuple(results)
    for found in _COLLECTORS.get():
        known = {id(run) for run in found}
        found.extend(run for run in results if id(run) not in known)


def in_context(function: Callable[P, T]) -> Callable[P, T]:
    """`function`, to be called once in another thread, in a copy of this context: its runs are collected
    here too (a copy is entered by one thread at a time: wrap each task on its own)."""
    context = contextvars.copy_context()

    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        return context.run(function, *args, **kwargs)

    return call
