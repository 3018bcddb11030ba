"""Run a benchmark with a Python that has the kit: re-execute once with the repository's venv if needed.

Standard library only, imported before anything of gradelib.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV_PYTHON = REPO / ".venv" / "bin" / "python"
REEXEC = "GRADELIB_BENCH_REEXEC"


def ensure_kit() -> None:
    """Return when gradelib can be imported; else re-execute this script with `.venv/bin/python` (once)."""
    if importlib.util.find_spec("gradelib") is not None:
        return
    if VENV_PYTHON.exists() and not os.environ.get(REEXEC):
        os.environ[REEXEC] = "1"
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), *sys.argv])
    raise SystemExit(f"gradelib is not importable here and {VENV_PYTHON} is missing: run ./dev setup first")


NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"
BYTECODE_PREFIX = "PYTHONPYCACHEPREFIX"


def with_bytecode(env: dict[str, str], folder: Path) -> dict[str, str]:
    """`env` with compiled bytecode cached, as an installed kit has it, in `folder` (never the virtualenv).

    This machine's environment sets PYTHONDONTWRITEBYTECODE and its virtualenv holds almost no
    `.pyc`: every process would compile pandas, nbconvert, IPython... from source, which a user's
    machine does once.
    """
    env = dict(env)
    env.pop(NO_BYTECODE, None)
    env[BYTECODE_PREFIX] = str(folder)
    return env
