"""Local workers forked warm: papermill and the exporter already loaded, the driver's environment as it is now."""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from plugin_site import TINY_ID, installed

from gradelib.batch import fanout
from gradelib.batch.worker import adopt

PROBE = (
    "(__import__('sys').modules.get('papermill') is not None,"
    " __import__('os').environ.get('GRADELIB_PROBE'),"
    " __import__('os').getcwd(),"
    " __import__('tempfile').gettempdir(),"
    " __import__('sys').path[0])"
)


def _probe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mark: str) -> tuple[bool, str, str, str, str]:
    monkeypatch.syspath_prepend(str(tmp_path))  # a take-home installed since the fork server started
    monkeypatch.setenv("GRADELIB_PROBE", mark)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with ProcessPoolExecutor(
        1, mp_context=fanout._warm_context(), initializer=adopt, initargs=(dict(os.environ), os.getcwd(), sys.path)
    ) as pool:
        return pool.submit(eval, PROBE).result(timeout=120)


def test_workers_start_warm_with_the_drivers_environment_as_it_is_now(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = tmp_path / "first"
    first.mkdir()
    assert _probe(monkeypatch, first, "one") == (True, "one", str(first), str(first), str(first))
    later = tmp_path / "later"  # the fork server started for the first pool; this one must not see its folders
    later.mkdir()
    assert _probe(monkeypatch, later, "two") == (True, "two", str(later), str(later), str(later))


def test_workers_start_as_new_interpreters_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fanout.ENV_WARM_WORKERS, "0")
    assert fanout._warm_context().get_start_method() == "spawn"


def test_a_take_home_installed_after_the_fork_server_started_is_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    names = "__import__('gradelib.takehomes', fromlist=['names']).names()"
    with ProcessPoolExecutor(
        1, mp_context=fanout._warm_context(), initializer=adopt, initargs=(dict(os.environ), os.getcwd(), sys.path)
    ) as pool:
        assert TINY_ID not in pool.submit(eval, names).result(timeout=120)  # the fork server runs from here on
    with (
        installed(tmp_path / "site") as takehome,
        ProcessPoolExecutor(
            1, mp_context=fanout._warm_context(), initializer=adopt, initargs=(dict(os.environ), os.getcwd(), sys.path)
        ) as pool,
    ):
        assert takehome in pool.submit(eval, names).result(timeout=120)
