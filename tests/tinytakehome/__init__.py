"""A tiny take-home for the kit's own tests: one sandboxed `cat`, so batch, resume and Dask tests run fast.

It registers through the plugin API exactly as a team's take-home does (an entry point in the
`gradelib.takehomes` group); `tests/tinytakehome/registry.py` installs that entry point for a test.
"""

from __future__ import annotations

from gradelib.takehome import TakeHome
from tinytakehome.grading import ANSWER_FILE, TAKEHOME, TinyGrading

PLUGIN = TakeHome(
    id=TAKEHOME,
    title="The answer, read back from a sandboxed run",
    package=__name__,
    grading=TinyGrading,
    markers=(ANSWER_FILE,),
    handout_files=(),
    failure_modes=(),
)

__all__ = ["ANSWER_FILE", "PLUGIN", "TAKEHOME", "TinyGrading"]
