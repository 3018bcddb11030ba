"""Workers forked from one warm process: what every local grading worker needs, paid for once per batch.

A worker started as a new interpreter spends seconds before its first submission: importing
papermill and nbclient, loading the take-homes (the reports' HTML is the driver's: `review/reportwriter.py`).
With several workers on two cores those seconds add up. The batch's local workers are instead
forked from multiprocessing's fork server, which imports this module once: `preload()` does the
work at import, every worker forked afterwards starts with it done (`worker.adopt`, the pool's
initializer, then gives each the driver's environment and folders as they are now). That includes
what a notebook kernel imports: each worker's kernel fork server is a fork of the worker itself,
ready at once, instead of a new interpreter importing ipykernel, IPython and debugpy per worker.
Only the fork server imports this module: its import is the work.
"""

from __future__ import annotations

import contextlib
import sys

PRELOAD_PATH: list[str] = []  # sys.path when this process preloaded (a worker forgets modules of folders since gone)


def preload() -> None:
    """Import what a grading imports."""
    from gradelib.jsonschemapatch import without_iri_grammars

    PRELOAD_PATH[:] = sys.path
    without_iri_grammars()
    import nbclient  # noqa: F401
    import papermill  # noqa: F401

    from gradelib import takehomes
    from gradelib.batch import worker  # noqa: F401
    from gradelib.execution import engine, kernelfork

    engine.register()
    for plugin in takehomes.available():
        plugin.notebook()
    kernelfork.preload()  # so that each worker forks its kernel fork server ready (`worker.adopt`)


if __name__ != "__main__":
    with contextlib.suppress(Exception):  # a worker that starts cold imports what it needs itself
        preload()
