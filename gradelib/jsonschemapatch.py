"""Third-party imports that cost seconds for nothing the kit uses, made cheap before they happen."""

from __future__ import annotations

import sys

# jsonschema (imported by nbformat, so by papermill and nbconvert) imports the optional
# `rfc3987_syntax` when it is installed, which compiles about forty Lark grammars: 1.3 s of CPU
# per process, for its `iri` / `iri-reference` format checks. nbformat validates notebooks with
# no format checker, and nothing in the kit checks formats. (python-jsonschema/jsonschema#1428)
IRI_GRAMMARS = "rfc3987_syntax"


def without_iri_grammars() -> None:
    """Import jsonschema without `rfc3987_syntax`, unless either is imported already; idempotent.

    jsonschema then has no `iri` format check in this process; `rfc3987_syntax` itself can still
    be imported afterwards by whoever wants it.
    """
    if "jsonschema" in sys.modules or IRI_GRAMMARS in sys.modules:
        return
    sys.modules[IRI_GRAMMARS] = None  # type: ignore[assignment]  # makes its import fail: jsonschema skips it
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        pass  # not installed: nbformat will say so when it is imported
    finally:
        if sys.modules.get(IRI_GRAMMARS, "") is None:
            del sys.modules[IRI_GRAMMARS]
