"""The kit's PEP 517 build frontend: run inside the sandbox by the build virtualenv's python.

Standalone on purpose (standard library only, never imports gradelib): the kit copies it
into the sandbox and runs ``python -I buildfrontend.py OUTDIR BACKEND BACKEND_PATH_JSON``
in a copy of the unpacked source folder, with no network. It imports the backend named
in ``[build-system].build-backend``, asks it for any extra build requirements (a missing
one is refused by name: nothing is installed from in here) and builds one wheel into OUTDIR.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import re
import sys
from typing import Any

EXIT_MISSING = 3  # the backend needs a build requirement the build virtualenv lacks
MISSING_PREFIX = "gradelib-build: missing build requirements: "
NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def load_backend(spec: str, backend_path: list[str]) -> Any:
    """`module:object` (PEP 517), with `backend-path` folders first on sys.path."""
    for folder in reversed(backend_path):
        sys.path.insert(0, os.path.abspath(folder))
    module_name, _, attribute = spec.partition(":")
    backend: Any = importlib.import_module(module_name.strip())
    for part in attribute.strip().split(".") if attribute.strip() else []:
        backend = getattr(backend, part)
    return backend


def missing(requirements: list[str]) -> list[str]:
    """The requirements whose distribution is not installed here (markers are not evaluated)."""
    lacking = []
    for requirement in requirements:
        match = NAME.match(requirement)
        if match is None:
            lacking.append(requirement)
            continue
        try:
            importlib.metadata.distribution(match.group(1))
        except importlib.metadata.PackageNotFoundError:
            lacking.append(requirement)
    return lacking


def main(argv: list[str]) -> int:
    """Build one wheel; exit EXIT_MISSING naming what the backend needs and cannot have."""
    outdir, spec, backend_path = argv[1], argv[2], json.loads(argv[3])
    # As PEP 517 asks, the source folder is not on sys.path (setuptools' legacy backend adds it itself).
    backend = load_backend(spec, backend_path)
    hook = getattr(backend, "get_requires_for_build_wheel", None)
    extra = list(hook({})) if hook is not None else []
    lacking = missing([str(r) for r in extra])
    if lacking:
        print(MISSING_PREFIX + ", ".join(lacking), file=sys.stderr)
        return EXIT_MISSING
    name = backend.build_wheel(outdir, {})
    print(f"gradelib-build: built {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
