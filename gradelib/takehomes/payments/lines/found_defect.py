"""Line 1, found the defect: the candidate's tests on their code, on the draft and on the kit's fixes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gradelib.takehome import LineResult
from gradelib.takehomes.payments.clientruns import CHECKOUT, MAX_ROWS
from gradelib.takehomes.payments.runs import FIX_NAMES, MAX_ATTEMPTS, PaymentsRuns
from gradelib.takehomes.payments.suites import FIXES


def judge(grading: PaymentsRuns) -> LineResult:
    """Strong only when the suite is green on their code and a test is red on the draft, green on a fix."""
    tests = grading.tests
    evidence: dict[str, Any] = {
        "tests": tests.evidence(),
        "draft": grading.draft,
        "backoff_survived": grading.backoff,
        "outage": {
            "attempts": grading.outage.counts.requests,
            "gaps_ms": [round(gap * 1000) for gap in grading.outage_gaps[:MAX_ROWS]],
            "gaps_ms_per_run": [
                [round(gap * 1000) for gap in run.gaps()[:MAX_ROWS]]
                for run in (grading.outage, *grading.outage_repeats)
            ],
            **grading.outage.evidence(),
        },
    }
    extra = client_remarks(grading)
    if tests.own is not None and tests.own.flaky:
        flaky = _listed(tests.own.flaky)
        extra = f"; {flaky} failed on one of two runs on their code and passed on the other (timing?)" + extra
    if tests.problem:
        return grading._line("found_defect", "unverified", tests.problem, evidence)
    if tests.kind is None:
        message = "no tests in the submission: the reviewer decides from the note" + extra
        return grading._line("found_defect", "needs_review", message, evidence)
    own = tests.own
    if own is None:  # tests found but no run on their code: said by never_ran below
        return grading._line("found_defect", "needs_review", "the tests were found but not run", evidence)
    if why := own.never_ran:
        message = f"the tests never ran on the candidate's code ({why}): neither green nor red"
        return grading._line("found_defect", "needs_review", message + extra, evidence)
    if why := own.unread:
        message = f"the tests say nothing on the candidate's code ({why}): neither green nor red"
        return grading._line("found_defect", "needs_review", message + extra, evidence)
    catching = tests.catching()
    red = tests.red_on_draft_tests()
    if tests.draft is not None and (why := tests.draft.unread) and own.green:
        message = f"tests green on the candidate's code; on the draft {why}: neither red nor green"
        return grading._line("found_defect", "needs_review", message + extra, evidence)
    if not own.green:
        message = f"the tests are red on the candidate's own code ({own.summary()})"
        if catching:
            message += f"; {_catching_text(catching)}"
    elif catching:
        message = f"tests green on the candidate's code; {_catching_text(catching)}: a test catches the defect"
        return grading._line("found_defect", "pass", message + extra, evidence, "strong")
    elif red:
        message = (
            f"tests green on the candidate's code; {_listed(red)} red on the draft but red on the kit's"
            " minimal fixes too: they fail for another reason than the key (an API or files of their own)"
        )
    else:
        message = "tests green on the candidate's code and green on the draft too: they never touch the defect"
    return grading._line("found_defect", "needs_review", message + extra, evidence)


def client_remarks(grading: PaymentsRuns) -> str:
    """What else a reviewer of the defect should see: a rewrite, the outage behaviour."""
    remarks = []
    draft = grading.draft
    if draft.get("rewrite"):
        remarks.append(
            f"{CHECKOUT} is a rewrite of the draft that also removed the backoff (it keeps"
            f" {draft['draft_lines_kept']:.0%} of the draft's lines, and the outage gaps do not grow)"
        )
    outage = grading.outage
    if why := outage.unmeasured:
        remarks.append(why)
    else:
        last = outage.last
        if last is not None and last.outcome == "resolved":
            remarks.append("it resolves during an outage: a silently dropped payment")
        if outage.counts.requests > MAX_ATTEMPTS:
            remarks.append(f"{outage.counts.requests} attempts in the outage (at most {MAX_ATTEMPTS} allowed)")
        if not grading.backoff:
            remarks.append("no growing backoff in the outage run")
        if outage.problem:
            remarks.append(f"outage run: {outage.problem}")
    return "; " + "; ".join(remarks) if remarks else ""


def _listed(names: Sequence[str], limit: int = 3) -> str:
    """`"a", "b" and 2 more test(s)`."""
    shown = ", ".join(json.dumps(name, ensure_ascii=False) for name in names[:limit])
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"{len(names)} test(s) ({shown}{more})"


def _catching_text(catching: Mapping[str, Sequence[str]]) -> str:
    """Which tests went red on the draft and green on the kit's minimal fixes (each under the first fix)."""
    by_fix = []
    for number, fix in enumerate(FIXES):
        tests = [name for name, fixes in catching.items() if fixes[0] == fix]
        if tests:
            only = "only " if number else ""
            by_fix.append(f"{_listed(tests)} red on the draft and green {only}with {FIX_NAMES[fix]}")
    return "; ".join(by_fix)
