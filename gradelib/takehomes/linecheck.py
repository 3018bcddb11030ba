"""Which method of a grading checks which rubric line: `@line("id")` binds it, the class is read for the bindings.

A grading class binds each check to its rubric line with the decorator, whatever the method is called;
`bound_lines` reads the bindings of a class and its bases (a subclass's binding of a line wins), and
`unbound_ids` names the bound ids a rubric does not have, so a take-home whose check names a line its rubric
lacks is refused when its package loads (`contract.TakeHome`), never silently left without a check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

LINE_ATTRIBUTE = "__gradelib_line__"  # where the decorator leaves the line id on the function
Check = TypeVar("Check", bound=Callable[..., Any])


def line(line_id: str) -> Callable[[Check], Check]:
    """Bind a grading's method to the rubric line `line_id`: the method returns that line's `LineResult`.

    The kit judges every bound check the same way (`BaseGrading._judged`: `error` without running it when
    the submission could not be set up, then the kit's-shortfall rule on the runs it made or read).
    """
    if not isinstance(line_id, str) or not line_id:
        raise TypeError(f"@line takes a rubric line id, not {line_id!r}")

    def bind(check: Check) -> Check:
        setattr(check, LINE_ATTRIBUTE, line_id)
        return check

    return bind


def bound_lines(cls: type) -> dict[str, str]:
    """Each line id bound in `cls` or its bases, to the name of the method that checks it.

    A subclass that binds a line again, or binds the method to another line, wins (a method overridden without
    the decorator keeps its binding: the override checks the line); two methods of one class binding one line
    is a mistake, refused with a TypeError.
    """
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        own: dict[str, str] = {}
        for name, value in vars(klass).items():
            line_id = getattr(value, LINE_ATTRIBUTE, None)
            if not isinstance(line_id, str):
                continue
            if line_id in own:
                raise TypeError(f"{klass.__qualname__}: {own[line_id]}() and {name}() both check the line {line_id!r}")
            own[line_id] = name
        names = set(own.values())
        found = {line_id: name for line_id, name in found.items() if line_id not in own and name not in names}
        found |= own
    return found


def unbound_ids(bound: Mapping[str, str], line_ids: Iterable[str]) -> list[str]:
    """The bound line ids that are not among the rubric's `line_ids`, each with its method, in binding order."""
    known = set(line_ids)
    return [f"{line_id!r} ({method}())" for line_id, method in bound.items() if line_id not in known]
