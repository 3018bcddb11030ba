"""A batch says once, up front, what would go wrong for every submission."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gradelib import takehomes
from gradelib.batch import preflight as preflight_module
from gradelib.batch.preflight import preflight
from gradelib.errors import GradelibError
from gradelib.sandbox import ENV_FORCE_NO_NAMESPACES


def test_a_healthy_machine_has_nothing_to_say() -> None:
    assert preflight(["replay", "payments"]) == []


def test_no_namespaces_is_one_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_FORCE_NO_NAMESPACES, "1")
    warnings = preflight(["replay"])
    assert len(warnings) == 1 and "'no network' is unverified" in warnings[0]


def test_a_missing_notebook_stops_the_batch_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = dataclasses.replace(takehomes.load("replay"), notebook_path=Path("/nowhere/gone.ipynb"))
    monkeypatch.setattr(preflight_module.takehomes, "load", lambda name: broken)
    with pytest.raises(GradelibError, match="gone.ipynb is missing"):
        preflight(["replay"])
