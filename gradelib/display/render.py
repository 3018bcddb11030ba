"""Safe HTML and terminal views of reports and their evidence.

Everything a candidate wrote (output, file names, labels, diffs) is escaped
here; nothing from a submission ever reaches a notebook or HTML report as
markup or script.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from gradelib.result import LineResult, Report
from gradelib.safetext import demote_headings, html_text, html_visible, sanitize_html, terminal_text

OUTCOME_COLOURS = {
    "pass": "#1a7f37",
    "fail": "#cf222e",
    "error": "#9a6700",
    "unverified": "#6e7781",
    "needs_review": "#8250df",
}
OUTCOME_SYMBOLS = {
    "pass": "PASS",
    "fail": "FAIL",
    "error": "ERROR",
    "unverified": "UNVERIFIED",
    "needs_review": "REVIEW",
}
# The kit's own evidence keys (a run's, a diff's) as a reader says them. A take-home names its own in
# `TakeHome.labels`, handed to each view that shows its evidence; any other key reads with its underscores
# as spaces.
LABELS = {
    "duration_s": "duration (s)",
    "exit_code": "exit code",
    "stderr_tail": "stderr (last lines)",
    "stdout_tail": "stdout (last lines)",
    "dns_names": "DNS names looked up",
    "json_changes": "JSON changes",
    "unified_diff": "diff",
    "stopped_by_kit": "stopped by the kit",
    "note_file": "note file",
}
NO_LABELS: Mapping[str, str] = MappingProxyType({})
MAX_TABLE_ROWS = 60
NOTE_TITLE = "NOTE.md"
MAX_TEXT_CHARS = 20_000
LINE_ANCHOR = "gl-line-{id}"  # the id of a line's evidence card: the verdict card (card.py) links there
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_-]")
STYLE = """<style>
.gl-card{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;margin:6px 0;font-family:sans-serif}
.gl-badge{color:#fff;border-radius:4px;padding:1px 6px;font-weight:600;font-size:90%}
.gl-card table{border-collapse:collapse;font-size:90%;margin:4px 0}
.gl-card td,.gl-card th{border:1px solid #d0d7de;padding:2px 6px;text-align:left !important;vertical-align:top}
.gl-card pre{background:#f6f8fa;padding:6px;overflow:auto;max-height:28em;font-size:85%;white-space:pre-wrap}
.gl-line{display:block}.gl-add{background:#dafbe1}.gl-del{background:#ffebe9}.gl-hunk{color:#8250df}
.gl-key{font-weight:600;margin-top:6px}
summary.gl-key{cursor:pointer}
</style>"""


@dataclass(frozen=True)
class Html:
    """A block of HTML the notebook displays as such (built only from escaped parts)."""

    body: str
    text: str = ""  # what a terminal or the notebook's plain-text output shows

    def _repr_html_(self) -> str:
        return self.body

    def __repr__(self) -> str:
        return self.text or "(HTML view)"

    def __str__(self) -> str:
        return self.body


def line_anchor(line_id: str) -> str:
    """The id of a line's evidence card (its line id, anything but letters, digits, _ and - as _)."""
    return LINE_ANCHOR.format(id=_UNSAFE_ID.sub("_", str(line_id)))


def _truncate(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[:MAX_TEXT_CHARS] + f"\n[... {len(text) - MAX_TEXT_CHARS} more characters]"


def diff_html(unified: str) -> str:
    """A unified diff with added / removed lines highlighted."""
    rows = []
    for line in _truncate(unified).splitlines():
        cls = "gl-add" if line.startswith("+") and not line.startswith("+++") else ""
        cls = "gl-del" if line.startswith("-") and not line.startswith("---") else cls
        cls = "gl-hunk" if line.startswith("@@") else cls
        rows.append(f'<span class="gl-line {cls}">{html_visible(line) or "&nbsp;"}</span>')
    return "<pre>" + "".join(rows) + "</pre>"


def label(key: object, labels: Mapping[str, str] = NO_LABELS) -> str:
    """An evidence key as a readable label: "exit_code" -> "exit code", "chargeId" -> "charge id" (with a take-home's
    `labels`; the kit's own keys keep theirs)."""
    text = str(key)
    return LABELS.get(text) or labels.get(text) or text.replace("_", " ")


def table_html(rows: Sequence[Mapping[str, Any]], labels: Mapping[str, str] = NO_LABELS) -> str:
    """Rows of dicts as an HTML table (columns from all rows, values escaped; keys read with `labels`)."""
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    head = "".join(f"<th>{html_visible(label(c, labels))}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(row.get(c), labels)}</td>" for c in columns) + "</tr>"
        for row in rows[:MAX_TABLE_ROWS]
    )
    more = f"<p>... and {len(rows) - MAX_TABLE_ROWS} more rows</p>" if len(rows) > MAX_TABLE_ROWS else ""
    return f"<table><tr>{head}</tr>{body}</table>{more}"


def _cell(value: Any, labels: Mapping[str, str]) -> str:
    if value is None:
        return ""
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return html_visible(", ".join(str(v) for v in value)[:300])
    if isinstance(value, Mapping) and all(not isinstance(v, (dict, list)) for v in value.values()):
        return "<br>".join(
            f"{html_visible(label(k, labels))}: {html_visible(_scalar(v))}" for k, v in list(value.items())[:12]
        )
    if isinstance(value, (dict, list)):
        return f"<code>{html_visible(json.dumps(value, default=str)[:300])}</code>"
    return html_visible(_scalar(value)[:300])


def _scalar(value: Any) -> str:
    """A scalar as a reader says it: yes / no for booleans, "-" for nothing."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "-" if value is None else str(value)


def evidence_html(evidence: Any, key: str = "", labels: Mapping[str, str] = NO_LABELS) -> str:
    """Any evidence value, readably: diffs highlighted, lists of records as tables, text as <pre> (keys read
    with a take-home's `labels`)."""
    if key == "unified_diff" and isinstance(evidence, str):
        return diff_html(evidence) if evidence else "<p>(no difference)</p>"
    if isinstance(evidence, Mapping):
        if evidence and all(_short_scalar(v) for v in evidence.values()):
            rows = "".join(
                f"<tr><th>{html_visible(label(k, labels))}</th><td>{_cell(v, labels)}</td></tr>"
                for k, v in evidence.items()
            )
            return f"<table>{rows}</table>"
        parts = []
        for sub_key, value in evidence.items():
            if value in (None, "", [], {}):
                continue
            shown = evidence_html(value, sub_key, labels)
            parts.append(f'<div class="gl-key">{html_visible(label(sub_key, labels))}</div>{shown}')
        return "".join(parts)
    if isinstance(evidence, list):
        if evidence and all(isinstance(item, Mapping) for item in evidence):
            if all(
                not isinstance(v, (dict, list)) or k in ("connections", "dns_names")
                for item in evidence
                for k, v in item.items()
            ):
                return table_html(evidence, labels)
            return "".join(f"<div>{evidence_html(item, labels=labels)}</div>" for item in evidence)
        return "<ul>" + "".join(f"<li>{html_visible(item)}</li>" for item in evidence[:MAX_TABLE_ROWS]) + "</ul>"
    if isinstance(evidence, str) and ("\n" in evidence or len(evidence) > 120):
        return f"<pre>{html_visible(_truncate(evidence))}</pre>"
    return f"<span>{html_visible(evidence)}</span>"


def _short_scalar(value: Any) -> bool:
    """A value that reads well in one table cell."""
    if isinstance(value, str):
        return "\n" not in value and len(value) <= 120
    if isinstance(value, list):
        return len(value) <= 8 and all(not isinstance(v, (dict, list)) and len(str(v)) < 60 for v in value)
    return value is None or isinstance(value, (bool, int, float))


def badge(outcome: str) -> str:
    """A coloured outcome label."""
    colour = OUTCOME_COLOURS.get(outcome, "#6e7781")
    return (
        f'<span class="gl-badge" style="background:{colour}">'
        f"{html_visible(OUTCOME_SYMBOLS.get(outcome, outcome))}</span>"
    )


def points_text(line: LineResult) -> str:
    """A line's points as a reader says them: "30 / 30", "? / 20" while undecided, else its tier (or "")."""
    if line.max_points is None:
        return line.tier or ""
    shown = "?" if line.points is None else f"{line.points:g}"
    return f"{shown} / {line.max_points:g}"


def line_html(line: LineResult, title: str = "", labels: Mapping[str, str] = NO_LABELS) -> Html:
    """One rubric line as a card: verdict, message, then the evidence (its keys read with the take-home's
    `labels`)."""
    heading = f"{badge(line.outcome)} <b>{html_visible(title or line.id)}</b> &nbsp; {html_visible(points_text(line))}"
    tier = f" &nbsp; suggested tier: <b>{html_visible(line.tier)}</b>" if line.tier else ""
    body = evidence_html(line.evidence, labels=labels)
    details = f"<details open><summary>evidence</summary>{body}</details>" if body else ""
    text = terminal_text(
        f"{OUTCOME_SYMBOLS.get(line.outcome, line.outcome)} {title or line.id} {points_text(line)}: {line.message}"
    )
    return Html(
        f'{STYLE}<div class="gl-card" id="{line_anchor(line.id)}">{heading}{tier}'
        f"<p>{html_visible(line.message)}</p>{details}</div>",
        text,
    )


def report_html(report: Report, titles: Mapping[str, str] | None = None) -> Html:
    """The score table of a report."""
    titles = titles or {}
    rows = "".join(
        f"<tr><td>{html_visible(titles.get(line.id, line.id))}</td><td>{badge(line.outcome)}</td>"
        f"<td>{html_visible(points_text(line))}</td><td>{html_visible(line.message)}</td></tr>"
        for line in report.lines
    )
    total = "awaiting review" if report.total is None else f"{report.total:g}"
    maximum = "" if report.max_total is None else f" / {report.max_total:g}"
    warning = isolation_warning(report)
    banner = f'<p style="color:#cf222e"><b>{html_visible(warning)}</b></p>' if warning else ""
    return Html(
        f'{STYLE}<div class="gl-card"><b>{html_visible(report.takehome)}: {html_visible(report.submission)}</b>{banner}'
        f"<table><tr><th>line</th><th>outcome</th><th>points</th><th>message</th></tr>{rows}"
        f"<tr><th>total</th><th></th><th>{html_visible(total + maximum)}</th><th></th></tr></table></div>",
        report_text(report),
    )


def folded(summary: str, body: str) -> str:
    """Long evidence folded: `summary` (plain text, escaped here) shown, `body` (HTML) opened on a click."""
    return f'<details><summary class="gl-key">{html_visible(summary)}</summary>{body}</details>'


def environment_html(environment: Mapping[str, Any]) -> Html:
    """The environment section: declared, installed (name, version), refused and why, cache, errors."""
    parts = []
    if environment.get("error"):
        parts.append(f'<p style="color:#9a6700"><b>Install failed:</b> {html_visible(environment["error"])}</p>')
    for flag in environment.get("flags") or []:
        parts.append(f'<p style="color:#cf222e"><b>{html_visible(flag)}</b></p>')
    declared = environment.get("declared") or []
    if declared:
        parts.append('<div class="gl-key">declared</div>' + table_html(declared))
    for installed in environment.get("installed") or []:
        seconds = installed.get("install_seconds")
        how = "from the cache" if installed.get("cache") == "hit" else f"installed in {seconds} s"
        packages = installed.get("packages") or []
        rows = [{"name": p["name"], "version": p["version"], "dev": "yes" if p.get("dev") else ""} for p in packages]
        summary = f"installed ({installed.get('ecosystem')}, {len(packages)} packages, {how})"
        # a long list folded (a test runner brings dozens of packages), its count in the summary
        parts.append(
            folded(summary, table_html(rows)) if rows else f'<div class="gl-key">{html_visible(summary)}</div>'
        )
    parts += _project_html(environment.get("project"))
    parts += _setup_html(environment)
    lockfiles = environment.get("lockfiles") or []
    if lockfiles:
        rows = [{"file": lock.get("file"), "honoured": "yes" if lock.get("honoured") else "no",
                 "detail": lock.get("detail")} for lock in lockfiles]  # fmt: skip
        parts.append('<div class="gl-key">lockfiles</div>' + table_html(rows))
    refused = environment.get("refused") or []
    if refused:
        parts.append('<div class="gl-key">refused</div>' + table_html(refused))
    notes = environment.get("notes") or []
    if notes:
        parts.append('<div class="gl-key">notes</div>' + evidence_html(list(notes)))
    versions = ", ".join(f"{k} {environment[k]}" for k in ("python", "node") if environment.get(k))
    if not parts:
        parts.append("<p>No dependencies declared: the code ran with the standard library and Node built-ins.</p>")
    if versions:
        parts.append(f"<p>Runtimes: {html_visible(versions)}</p>")
    text = environment_text(environment)
    return Html(f'{STYLE}<div class="gl-card"><b>Environment</b>{"".join(parts)}</div>', text)


def _setup_html(environment: Mapping[str, Any]) -> list[str]:
    """How the submission was set up: which evidence chose which tool, the commands, the versions; its own
    setup step and what it made; the tools its files run."""
    parts = []
    rows = [
        {"tool": f"{setup.get('tool')} {setup.get('version')}", "why": setup.get("why") or "",
         "version from": setup.get("version_from") or "", "command": setup.get("command") or ""}
        for installed in environment.get("installed") or []
        if (setup := installed.get("setup"))
    ]  # fmt: skip
    if rows:
        parts.append('<div class="gl-key">set up by</div>' + table_html(rows))
    own = environment.get("setup_steps") or {}
    if own.get("steps"):
        steps = [{"command": step.get("command"), "why": step.get("why"), "seconds": step.get("seconds")}
                 for step in own["steps"]]  # fmt: skip
        made = ", ".join(str(item.get("path")) for item in own.get("made") or []) or "nothing kept"
        parts.append(
            '<div class="gl-key">its own setup step (run in the sandbox, registries only)</div>'
            + table_html(steps)
            + f"<p>made, for every run: {html_visible(made)}</p>"
        )
    tools = environment.get("tools") or []
    if tools:
        parts.append('<div class="gl-key">tools its files run, on every run\'s PATH</div>' + table_html(list(tools)))
    return parts


def _project_html(project: Mapping[str, Any] | None) -> list[str]:
    """The submission's own project: why it was installed, how it was built, what it installed."""
    if not project:
        return []
    why = "; ".join(str(reason) for reason in project.get("why") or [])
    if project.get("build_error"):
        return [f'<div class="gl-key">project (not installed)</div><p>{html_visible(project["build_error"])}</p>'
                f"<p>Why it was to be installed: {html_visible(why)}</p>"]  # fmt: skip
    row = {
        "project": project.get("installed"),
        "backend": project.get("backend"),
        "installed with": project.get("command"),
        "entry points": ", ".join(project.get("entry_points") or []) or "-",
        "editable": "yes (the copy's own code runs)" if project.get("editable") else "no",
    }
    title = f'<div class="gl-key">project, installed in the sandbox because {html_visible(why)}</div>'
    return [title + table_html([row])]


def environment_text(environment: Mapping[str, Any]) -> str:
    """One line about the environment, for terminals."""
    if not environment:
        return "environment: nothing declared"
    bits = []
    project = environment.get("project")
    if project and project.get("installed"):
        bits.append(f"project {project['installed']} built with {project.get('backend')}")
    elif project:
        bits.append("project not installed (it runs from its folder)")
    for installed in environment.get("installed") or []:
        how = "cache hit" if installed.get("cache") == "hit" else f"installed in {installed.get('install_seconds')} s"
        bits.append(f"{installed.get('ecosystem')} {len(installed.get('packages') or [])} packages ({how})")
    if environment.get("refused"):
        bits.append(f"{len(environment['refused'])} refused: {environment['refused'][0].get('reason')}")
    locks = [f"{lock.get('file')} {'honoured' if lock.get('honoured') else 'not used'}" for lock in
             environment.get("lockfiles") or []]  # fmt: skip
    bits += locks
    bits += list(environment.get("flags") or [])
    if environment.get("error"):
        bits.append(f"install failed: {environment['error']}")
    return "environment: " + ("; ".join(bits) or "nothing declared")


def isolation_warning(report: Report) -> str | None:
    """A loud line when the runs were not network-isolated, else None."""
    if report.facts.get("isolation") != "none":
        return None
    return f"WARNING: no network isolation, so 'no network' is unverified: {report.facts.get('isolation_reason')}"


def report_text(report: Report) -> str:
    """The report as terminal lines (plain text; control characters removed)."""
    lines = [f"{report.takehome}: {terminal_text(report.submission)}"]
    warning = isolation_warning(report)
    if warning:
        lines.append(f"  {terminal_text(warning)}")
    shown = ("declared", "refused", "notes", "project", "lockfiles")
    if any(report.environment.get(key) for key in shown):
        lines.append(f"  {terminal_text(environment_text(report.environment))}")
    for line in report.lines:
        lines.append(
            f"  {OUTCOME_SYMBOLS[line.outcome]:<10} {line.id:<16} {points_text(line):<10} {terminal_text(line.message)}"
        )
    total = "awaiting review" if report.total is None else f"{report.total:g}"
    maximum = "" if report.max_total is None else f" / {report.max_total:g}"
    lines.append(f"  total: {total}{maximum}")
    return "\n".join(lines)


def hints_html(hints: Sequence[Mapping[str, Any]]) -> str:
    """Hints about a note (line, kind, text) as a table; every cell escaped."""
    if not hints:
        return "<p>(no hints)</p>"
    rows = "".join(
        f"<tr><td>{html_text(h.get('line', ''))}</td><td>{html_text(h.get('label', h.get('kind', '')))}"
        f"</td><td><code>{html_text(h.get('text', ''))}</code></td></tr>"
        for h in hints
    )
    return f"<table><tr><th>line</th><th>hint</th><th>text</th></tr>{rows}</table>"


def note_card(line: LineResult, title: str = "", labels: Mapping[str, str] = NO_LABELS) -> Html:
    """A judgment line's card: verdict, the kit's hints, other evidence, then the note itself.

    The note (evidence `note_html`) is sanitized again here, so a report read back from
    disk cannot smuggle markup in either.
    """
    evidence = dict(line.evidence)
    note, hints = evidence.pop("note_html", None), evidence.pop("hints", None) or []
    evidence.pop("note_file", None)
    heading = f"{badge(line.outcome)} <b>{html_text(title or line.id)}</b>"
    tier = f" &nbsp; suggested tier: <b>{html_text(line.tier)}</b>" if line.tier else ""
    hints_block = f"<details open><summary>hints for the reviewer (never scored)</summary>{hints_html(hints)}</details>"
    other = evidence_html(evidence, labels=labels)
    other_block = f"<details><summary>evidence</summary>{other}</details>" if other else ""
    note_block = (
        f'<div class="gl-key">{html_text(NOTE_TITLE)} (rendered safely)</div>'
        f'<div style="border:1px solid #d0d7de;padding:4px 10px">{sanitize_html(demote_headings(str(note)))}</div>'
        if note
        else ""
    )
    return Html(
        f'{STYLE}<div class="gl-card" id="{line_anchor(line.id)}">{heading}{tier}<p>{html_text(line.message)}</p>'
        f"{hints_block}{other_block}{note_block}</div>"
    )
