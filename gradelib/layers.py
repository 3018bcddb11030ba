"""The kit's layers, bottom to top: a module imports only its own layer and those below it (data only).

Read by `tests/unit/test_layers.py`, which checks every import of every module (those inside functions too)
and every package against it, and shown in the README's "Layers" table (the same test compares the two).
A name is one of gradelib's top-level modules or packages (`gradelib` itself is the package's API);
`takehomes.*` is every package under `takehomes/`, each a package of its own: the kit's own take-homes are
plugins, as a team's is, above the public module they import.
"""

from __future__ import annotations

from typing import Final

# (names, what the layer holds), bottom first.
LAYERS: Final[tuple[tuple[tuple[str, ...], str], ...]] = (
    (
        (
            "errors",
            "result",
            "safetext",
            "jsonschemapatch",
            "cached",
            "lazy",
            "runlog",
            "atomicfile",
            "servers",
            "settings",
            "layers",
        ),
        "the vocabulary every layer shares (`settings` here because the sandbox reads it too), and this table",
    ),
    (("sandbox",), "the only code that starts candidate processes"),
    (("gradelib",), "the package's API"),
    (("intake",), "folders and archives in, safely"),
    (("environment",), "what a submission declares, set up by the real tools"),
    (("gradebook",), "the store: results, scores and the team's own data (resolutions, decisions, clarifications)"),
    (("display",), "HTML and terminal views, all escaped"),
    (("takehomes",), "the take-home contract and registry, the grading base, the rubric"),
    (("similarity",), "which submissions share their code, and its commands (`similarity scan`, `similarity add`)"),
    (("review",), "scoring, the scoring panel, reports as a reviewer opens them"),
    (("notebook",), "what a take-home's notebook cells call"),
    (("takehome",), "the one public module a take-home and its notebook import: the whole contract"),
    (("takehomes.*",), "the kit's own take-homes: plugins, as a team's own is"),
    (("execution",), "one notebook run: the batch's and the summary's"),
    (("cohort",), "the cohort table, agreement, calibration, charts, the summary run"),
    (("meeting",), "the calibration meeting, above the cohort it reads"),
    (("batch", "scaffold"), "the batch driver and its workers; `new-takehome`"),
    (("commands",), "the command line's commands, each next to its options"),
    (("cli", "__main__"), "the command line: parse, run one command, say an error"),
)
