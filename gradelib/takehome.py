"""The one module a take-home imports: the whole contract between the kit and a take-home, typed and documented.

A take-home (the kit's own, the example in `examples/takehome-webhooks`, a team's package made by
`gradelib new-takehome`) and its notebook import from here and from nowhere else in gradelib
(`tests/unit/test_takehome_imports.py` refuses any other import). What is here is what the kit keeps stable
for a take-home; the modules behind it may move. It holds, by section:

The record and the grading
    `TakeHome` (what a package registers under the `gradelib.takehomes` entry point: its id, title, grading,
    markers, handout, failure modes, servers, notebook, and `labels`, its evidence keys as a reader says
    them), `Grading` (what it makes per submission), `FailureMode`, `EntryView`, `fact_is`, `outcome_is`,
    `KIT_NOTEBOOKS` (the kit's own notebooks folder).
    `BaseGrading`, the grading a take-home subclasses, and `line`: `@line("id")` binds a method to the rubric
    line it checks; a line its rubric lacks is refused when the package loads (`TakeHomeBroken`). Every bound
    check is judged the same way: `error` without running it when the submission could not be set up
    (`install_failed` says why), then the one rule that tells the kit's shortfall from the candidate's fault,
    on the sandboxed runs the check made or read.

Results and the rubric
    `LineResult`, `Report`, `Outcome`, `Tier`, `OUTCOMES`, `TIERS`; `Rubric`, `RubricLine`, `default_rubric`,
    `load_rubric`, `takehome_data` (its package-data folder).

The sandboxed call and its result
    `Sandbox` (fresh copies, `run`), `RunResult`, `Limits`, `Service` (a loopback server a run may reach),
    `tool` and `libfaketime` (the grading machine's tools), `read_file`, `list_files`, `remove_file`
    (candidate files, never through a link), `mask_data` (kit paths shown as `<submission>/...`),
    `Environment` (what the submission declared and the kit set up); `cached` (a run made once per grading,
    its runs handed on to every line that reads it), `computed`, `in_context` (a task for another thread).

The keyed result line
    How a driver of the take-home's own, run beside the candidate's code, reports to the kit: `result_key`
    (a run's secret key, handed to the driver in a file), `ResultKey`, `parse_result`, `without_result`,
    `RESULT_MARKER`, `KEY_FILE`.

Views, servers, settings, errors
    `Html`, `STYLE`, `table_html`, `isolation_warning`, `clipped_text`, `html_text`, `html_visible`,
    `markdown_html`, `error_line`, `first_error_line`, `last_word`; `BoundServer`, `JsonHandler`,
    `BodyError`, `serving`, `stop_on_signals`, `client_gone`, `POLL_INTERVAL_SECONDS` (a loopback server);
    `Settings`, `current_settings`, `ENV_LIVE_BASE_URL`; `CodeFile`, `marks_of`, `match` (the similarity
    measure); `GradelibError`, `SubmissionError`, `UnsafeFile`, `ScenarioError`, `RubricError`,
    `TakeHomeBroken`, `SandboxUnavailable`.

What its notebook calls
    `open_grading` (the parameters cell's grading: stored results, or the checks run now), `panel_for` (the
    scoring panel), `similar_submissions` (the report's similar-submissions section). They are imported
    when first asked for: a take-home's package loads without the notebook's widgets.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from gradelib.cached import cached, computed
from gradelib.display.errorline import error_line, first_error_line, last_word
from gradelib.display.render import STYLE, Html, isolation_warning, table_html
from gradelib.environment import Environment
from gradelib.errors import (
    GradelibError,
    RubricError,
    SandboxUnavailable,
    ScenarioError,
    SubmissionError,
    TakeHomeBroken,
    UnsafeFile,
)
from gradelib.result import OUTCOMES, TIERS, LineResult, Outcome, Report, Tier
from gradelib.runlog import in_context
from gradelib.safetext import clipped_text, html_text, html_visible, markdown_html
from gradelib.sandbox import Limits, RunResult, Sandbox, Service, libfaketime, tool
from gradelib.sandbox.masking import mask_data
from gradelib.sandbox.safefs import list_files, read_file, remove_file
from gradelib.servers.httpserve import (
    POLL_INTERVAL_SECONDS,
    BodyError,
    BoundServer,
    JsonHandler,
    client_gone,
    serving,
    stop_on_signals,
)
from gradelib.settings import ENV_LIVE_BASE_URL, Settings, current_settings
from gradelib.similarity.fingerprint import CodeFile, marks_of
from gradelib.similarity.pairs import match
from gradelib.takehomes.basegrading import BaseGrading, install_failed
from gradelib.takehomes.contract import KIT_NOTEBOOKS, EntryView, FailureMode, Grading, TakeHome, fact_is, outcome_is
from gradelib.takehomes.keyedresult import KEY_FILE, RESULT_MARKER, ResultKey, parse_result, result_key, without_result
from gradelib.takehomes.linecheck import line
from gradelib.takehomes.rubric import Rubric, RubricLine, default_rubric, load_rubric, takehome_data

if TYPE_CHECKING:  # imported when a notebook first asks for them (`__getattr__`): ipywidgets and papermill's kin
    from gradelib.notebook import open_grading
    from gradelib.review.scoringpanel import panel_for
    from gradelib.similarity.report import similar_submissions

NOTEBOOK_CALLS = {
    "open_grading": "gradelib.notebook",
    "panel_for": "gradelib.review.scoringpanel",
    "similar_submissions": "gradelib.similarity.report",
}

__all__ = [
    "ENV_LIVE_BASE_URL",
    "KEY_FILE",
    "KIT_NOTEBOOKS",
    "OUTCOMES",
    "POLL_INTERVAL_SECONDS",
    "RESULT_MARKER",
    "STYLE",
    "TIERS",
    "BaseGrading",
    "BodyError",
    "BoundServer",
    "CodeFile",
    "EntryView",
    "Environment",
    "FailureMode",
    "GradelibError",
    "Grading",
    "Html",
    "JsonHandler",
    "Limits",
    "LineResult",
    "Outcome",
    "Report",
    "ResultKey",
    "Rubric",
    "RubricError",
    "RubricLine",
    "RunResult",
    "Sandbox",
    "SandboxUnavailable",
    "ScenarioError",
    "Service",
    "Settings",
    "SubmissionError",
    "TakeHome",
    "TakeHomeBroken",
    "Tier",
    "UnsafeFile",
    "cached",
    "client_gone",
    "clipped_text",
    "computed",
    "current_settings",
    "default_rubric",
    "error_line",
    "fact_is",
    "first_error_line",
    "html_text",
    "html_visible",
    "in_context",
    "install_failed",
    "isolation_warning",
    "last_word",
    "libfaketime",
    "line",
    "list_files",
    "load_rubric",
    "markdown_html",
    "marks_of",
    "mask_data",
    "match",
    "open_grading",
    "outcome_is",
    "panel_for",
    "parse_result",
    "read_file",
    "remove_file",
    "result_key",
    "serving",
    "similar_submissions",
    "stop_on_signals",
    "table_html",
    "takehome_data",
    "tool",
    "without_result",
]


def __getattr__(name: str) -> Any:
    """What a notebook calls, imported on first use (PEP 562)."""
    module = NOTEBOOK_CALLS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
