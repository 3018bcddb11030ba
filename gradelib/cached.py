"""A per-instance cached property, without the class-wide lock of Python 3.11's, that keeps the runs it made."""

from __future__ import annotations

import functools
from typing import Any, TypeVar, cast, overload

from gradelib import runlog

T = TypeVar("T")
# Where an instance keeps a cached value and the sandboxed runs it was made from: not under the property's own
# name, which would shadow this (non-data) descriptor, so every read comes here and hands the runs on.
VALUE = "__cached_{name}"
RUNS = "__runs_of_{name}"


class cached(functools.cached_property[T]):  # noqa: N801 - used like the decorator it replaces
    """`functools.cached_property` minus the lock Python 3.11 shares across all instances.

    That lock makes gradings in parallel threads wait for each other's sandbox runs; one
    grading is used from one thread at a time, so it needs no lock of its own. The sandboxed
    runs made while computing a value are kept beside it and handed on each time it is read
    (`runlog`), so whatever reads a cached run judges that run.
    """

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> cached[T]: ...
    @overload
    def __get__(self, instance: object, owner: type[Any] | None = None) -> T: ...
    def __get__(self, instance: object | None, owner: type[Any] | None = None) -> T | cached[T]:
        if instance is None:
            return self
        cache = instance.__dict__
        name = self.attrname or self.func.__name__
        key = VALUE.format(name=name)
        if key not in cache:
            with runlog.collecting() as made:
                value = self.func(instance)
            cache[RUNS.format(name=name)] = tuple(made)
            cache[key] = value
        else:
            runlog.adopt(cache.get(RUNS.format(name=name), ()))
        return cast(T, cache[key])


def computed(instance: object, name: str, default: Any = None) -> Any:
    """A cached value of `instance` if it was computed already (or set in its place), else `default`;
    never computes it."""
    found = instance.__dict__
    return found.get(name, found.get(VALUE.format(name=name), default))
