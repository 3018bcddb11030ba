"""Shared helpers for the webhooks plugin's tests: the sample cohort and throwaway submissions."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions"


@pytest.fixture
def make_submission(tmp_path: Path) -> Callable[[str, dict[str, str]], Path]:
    """Build a submission folder from {relative path: text}."""

    def make(name: str, files: dict[str, str]) -> Path:
        for rel, text in files.items():
            path = tmp_path / name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"))
        return tmp_path / name

    return make


@pytest.fixture(autouse=True)
def _reviewer_secret(monkeypatch: pytest.MonkeyPatch) -> str:
    """A reviewer credential is set during every test: it must never reach candidate code."""
    secret = "sk-reviewer-secret-do-not-leak"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    return secret
