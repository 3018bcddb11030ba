"""The folder of run wrappers (`uv`, `poetry`, `pipenv`, `npx`, `pnpm`, `yarn`) first on the sandbox PATH.

One script (`runwrap.py`, standard library only) under each name, run by the clean system
interpreter with `-I -S`. The folder is in the cache, named by the script's digest, read-only
to every run; what a run asked of the wrappers is read back from its kit log (`used`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from gradelib.environment import cache, runwrap

WRAPPERS = "wrappers"
BIN = "bin"
SCRIPT = "runwrap"
NAMES = tuple(runwrap.WRAPPERS)
SOURCE = Path(runwrap.__file__)
MAX_SHOWN = 20


def folder(cache_dir: Path, python: str) -> Path:
    """The wrappers' folder for this interpreter, made once (atomically) in the cache; its `bin` goes on PATH."""
    body = SOURCE.read_bytes()
    digest = hashlib.sha256(python.encode() + b"\0" + body).hexdigest()[:16]
    target = Path(cache_dir) / WRAPPERS / digest
    if (target / BIN / NAMES[-1]).is_symlink():
        return target
    partial = target.with_name(f".{digest}-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    (partial / BIN).mkdir(parents=True, mode=0o755)
    script = partial / SCRIPT
    script.write_bytes(f"#!{python} -IS\n".encode() + body)
    os.chmod(script, 0o755)  # noqa: S103 - every run's user executes it (the folder is mounted read-only)
    for name in NAMES:
        (partial / BIN / name).symlink_to(f"../{SCRIPT}")
    cache.readable(partial)
    try:
        partial.rename(target)
    except OSError:  # another grading made it meanwhile
        shutil.rmtree(partial, ignore_errors=True)
    return target


def used(lines: Iterable[str]) -> list[dict[str, object]]:
    """The wrapper uses runs' kit logs recorded, once each, sorted: `{"wrapper": "uv run", "argv": [...]}`."""
    found: list[dict[str, object]] = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("wrapper"), str):
            continue
        argv = entry.get("argv")
        words = [str(a)[:200] for a in argv[:20]] if isinstance(argv, list) else []
        use = {"wrapper": entry["wrapper"][:40], "argv": words}
        if use not in found:
            found.append(use)
    # runs end in any order when they go side by side: the evidence must read the same on every grading
    return sorted(found, key=lambda use: json.dumps(use))[:MAX_SHOWN]
