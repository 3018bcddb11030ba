"""Line 2, `replay` makes no network calls: every replay-mode run's attempted connections."""

from __future__ import annotations

from gradelib.takehome import LineResult
from gradelib.takehomes.replay.runs import DNS_PORT, ReplayRuns, why_no_answers


def judge(grading: ReplayRuns) -> LineResult:
    """Every replay-mode run was offline: any attempted connection fails the line."""
    if early := grading._unrunnable("offline"):
        return early
    runs = [("run A", grading.replays[0].run), ("run B", grading.replays[1].run)]
    if grading.missing_replay is not None:
        runs.append(("missing-fixture run", grading.missing_replay.run))
    attempts = [
        {
            "run": label,
            "syscall": c.syscall,
            "address": c.address,
            "port": c.port,
            "host": c.host,
            "result": c.result,
            "pid": c.pid,
        }
        for label, run in runs
        for c in run.network_attempts
    ]
    names = sorted({n for _, run in runs for n in run.dns_names})
    evidence = {
        "attempts": attempts,
        "dns_names": names,
        "isolation": runs[0][1].isolation.reason,
        "runs_checked": [label for label, _ in runs],
    }
    isolation = runs[0][1].isolation
    if not isolation.network_verified:
        return grading._line("offline", "unverified", f"network isolation unavailable: {isolation.reason}", evidence)
    if not runs[0][1].traced:
        return grading._line("offline", "unverified", "strace is not installed: attempts cannot be seen", evidence)
    if attempts:
        # The most telling attempt: one to a named host, else one that is not a DNS query.
        first = next((a for a in attempts if a["host"]), None) or next(
            (a for a in attempts if a["port"] != DNS_PORT), attempts[0]
        )
        where = f"{first['host'] or first['address']}:{first['port']}"
        looked_up = f"; looked up {', '.join(names[:3])}" if names else ""
        count = len(attempts)
        message = f"{count} network attempt(s) in replay mode, e.g. {where} in the {first['run']}{looked_up}"
        return grading._line("offline", "fail", message, evidence)
    if all(r.run.timed_out or r.run.output_limit_hit for r in grading.replays):
        return grading._line("offline", "error", f"replay {grading.replays[0].run.status()}", evidence)
    if not any(r.run.ok and r.wrote for r in grading.replays):
        # The kit saw no attempt, but a replay that crashes or writes nothing never did its work
        # offline: the line needs the program to work, so it fails (TAKEHOMES.md) and says why.
        message = (
            f"no connection attempted, but no replay did its work offline: run A {why_no_answers(grading.replays[0])}"
        )
        return grading._line("offline", "fail", message, evidence)
    return grading._line("offline", "pass", f"no connection attempted in {len(runs)} replay runs", evidence)
