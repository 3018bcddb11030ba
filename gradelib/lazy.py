"""A per-instance cached property, without the class-wide lock of Python 3.11's."""

from __future__ import annotations

import functools
from typing import Any, TypeVar, cast, overload

T = TypeVar("T")


class cached(functools.cached_property[T]):  # noqa: N801 - used like the decorator it replaces
    """`functools.cached_property` minus the lock Python 3.11 shares across all instances.

    That lock makes gradings in parallel threads wait for each other's sandbox runs; one
    grading is used from one thread at a time, so it needs no lock of its own.
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
        if name not in cache:
            cache[name] = self.func(instance)
        return cast(T, cache[name])
