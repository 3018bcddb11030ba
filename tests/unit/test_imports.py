"""gradelib.jsonschemapatch: jsonschema without its IRI grammars, nbformat still validating, nothing else lost."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from gradelib.jsonschemapatch import without_iri_grammars
without_iri_grammars()
without_iri_grammars()
assert "jsonschema" in sys.modules and "rfc3987_syntax" not in sys.modules
import nbformat
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
nbformat.validate(nbformat.reads(nbformat.writes(nb), as_version=4))
bad = nbformat.v4.new_notebook()
bad.cells.append({"cell_type": "code"})
try:
    nbformat.validate(bad)
except nbformat.ValidationError:
    pass
else:
    raise AssertionError("an invalid notebook validated")
import importlib.util
if importlib.util.find_spec("rfc3987_syntax") is not None:
    import rfc3987_syntax  # still importable by whoever wants it
print("ok")
"""


def test_jsonschema_without_iri_grammars_still_validates_notebooks() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_nothing_changes_once_jsonschema_is_imported() -> None:
    import jsonschema  # noqa: F401

    from gradelib.jsonschemapatch import without_iri_grammars

    before = dict(sys.modules)
    without_iri_grammars()
    assert sys.modules == before
