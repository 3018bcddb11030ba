"""Candidate text is shown, never run: hostile submissions graded, their reports opened in a real browser.

Two submissions carry script and event-handler payloads in every channel a candidate
controls: a `payments` one (NOTE.md with script, onerror, `javascript:` links and raw HTML;
a test file, a test name, stderr, an idempotency key, an error message and the folder name
itself) and a `replay` one (a copy of a sample whose answers carry them in a label and a
justification, whose stderr and stdout carry them, and with a cassette named like a tag).
Each report is opened in headless Chromium twice: the HTML file (file://), and the notebook
in JupyterLab, trusted (as after a run: a control output proves scripts in trusted output
do run there); the payments notebook is then run again from the top in JupyterLab (its
stored results shown again: the candidate text passes through the stored path too).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import nbformat
import pytest
from conftest import SAMPLES, write_tree
from nbformat.sign import NotebookNotary
from test_browser import (
    Evidence,
    chromium,
    chromium_or_skip,
    jupyterlab,
    open_notebook,
    run_all_cells,
)

from gradelib import batch

pytestmark = pytest.mark.e2e

EVIL_HOST = "evil.invalid"
NOTE = f"""\
# Notes <script>window.__pwned=1</script>

<img src=x onerror="window.__pwned=2">

[click me](javascript:window.__pwned=3) and <a href="javascript:alert(4)">a raw link</a>
and <a href="JaVaScRiPt&#58;alert(4)">an encoded one</a>

<div onclick="window.__pwned=5" style="position:fixed;inset:0">raw html block</div>
<iframe src="http://{EVIL_HOST}/frame"></iframe>
<img src="http://{EVIL_HOST}/pixel.png">
<svg onload="window.__pwned=6"><circle r="5"/></svg>
<meta http-equiv="refresh" content="0;url=http://{EVIL_HOST}/">
<base href="http://{EVIL_HOST}/">
<link rel="stylesheet" href="http://{EVIL_HOST}/x.css">
<style>body {{ background: url(http://{EVIL_HOST}/bg.png) }}</style>
<form action="http://{EVIL_HOST}/"><input type="image" src="http://{EVIL_HOST}/in.png"></form>
<details><summary>kept</summary>the idempotency key must survive a restart</details>

```
{{"requests":2,"distinct_keys":1,"charges":1}} <script>alert(1)</script>
```
"""
CHECKOUT = """\
const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
console.error('<script>window.__pwned=7</script>" onerror="alert(2)');

export async function chargeWithRetry(amount, attempts = 4) {
  const idempotencyKey = '<img src=x onerror="window.__pwned=8">' + crypto.randomUUID();
  for (let i = 0; i < attempts; i++) {
    try {
      const res = await fetch(`${GATEWAY}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(300),
      });
      if (res.ok) return { ok: true, note: "<script>window.__pwned=9</script>" };
    } catch {}
    await new Promise((r) => setTimeout(r, 10 * 2 ** i));
  }
  throw new Error('<script>window.__pwned=10</script><img src=x onerror="alert(3)">');
}
"""
TEST_FILE = """\
import { test } from "node:test";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

console.log("file: " + basename(fileURLToPath(import.meta.url)));
test("<script>window.__pwned=12</script>", () => {});
"""
HOSTILE_TEST_NAME = '<img src=x onerror="window.__pwned=11">.test.mjs'
HOSTILE_FOLDER = "pay-<svg onload=alert(9)>"
HOSTILE_CASSETTE = '<img src=x onerror="alert(5)">.json'
HOSTILE_LABEL = '" onerror="alert(2)'
# Spliced into the sample's triage.py: replay answers, stderr and stdout carry the payloads.
# The uuid makes the two replays differ, so the report shows their diff too.
REPLAY_PATCH = """\
    if mode == "replay":
        import uuid
        rows[0]["label"] = '" onerror="alert(2)'
        rows[0]["justification"] = "<script>alert(1)</script> " + str(uuid.uuid4())
        rows[1]["justification"] = '<img src=x onerror="window.__pwned=13"> " onerror="alert(2)'
        print('<script>alert(1)</script> " onerror="alert(2)', file=sys.stderr)
        print("cassettes: " + ", ".join(sorted(p.name for p in CASSETTES.iterdir())))
"""
REPLAY_ANCHOR = "    # Write to a temp file and rename"
CONTROL_ID = "gradelib-test-control"
# A kit-side output appended to the notebook copies opened in JupyterLab: it shows that script
# and event handlers in trusted output do run there, so their absence elsewhere means something.
CONTROL_HTML = (
    f'<div id="{CONTROL_ID}"><script>window.__control_script = (window.__control_script || 0) + 1</script>'
    '<img src="data:," onerror="window.__control_onerror = (window.__control_onerror || 0) + 1"></div>'
)
CONTROL_SOURCE = f"from IPython.display import HTML\n\nHTML({CONTROL_HTML!r})"
CONTROL_RUNS_JS = "() => [window.__control_script || 0, window.__control_onerror || 0]"
SETTLE_MS = 750  # time for a late image error or timer after the page shows everything
# Run again from the top in JupyterLab, beside being shown as saved: the note, file names, stderr.
# (The replay report's outputs go through the same rendering; its saved copy is checked.)
RUN_IN_LAB = ("payments",)
# Run in the page with a CSS selector for the output areas: what candidate markup could have become.
FINDINGS_JS = """(outputsSelector) => {
    const outputs = [...document.querySelectorAll(outputsSelector)];
    const inOutputs = (selector) => outputs
        .flatMap((area) => [...area.querySelectorAll(selector)])
        .filter((el) => !el.closest('#CONTROL_ID'));
    const short = (el) => el.outerHTML.slice(0, 200);
    return {
        pwned: typeof window.__pwned === 'undefined' ? null : String(window.__pwned),
        handlers: inOutputs('*')
            .filter((el) => [...el.attributes].some((a) => a.name.toLowerCase().startsWith('on')))
            .map(short),
        images: inOutputs('img')
            .filter((el) => !(el.getAttribute('src') || '').startsWith('data:image/'))
            .map(short),
        imgSrcX: document.querySelectorAll('img[src="x"]').length,
        embedded: inOutputs('iframe, frame, object, embed, base, meta, link, form, input[type=image]').map(short),
        jsLinks: [...document.querySelectorAll('a[href]')]
            .filter((a) => /^\\s*javascript:/i.test(a.getAttribute('href')))
            .map(short),
        scripts: [...document.querySelectorAll('script')]
            .filter((el) => /__pwned|alert\\(|EVIL_HOST/.test(el.textContent + ' ' + el.src))
            .map(short),
        styles: [...document.querySelectorAll('style')]
            .filter((el) => el.textContent.includes('EVIL_HOST'))
            .map(short),
        text: outputs.map((area) => area.textContent).join('\\n'),
    };
}""".replace("CONTROL_ID", CONTROL_ID).replace("EVIL_HOST", EVIL_HOST)
# Unescaped candidate markup that must never appear in a report file.
RAW_MARKUP = re.compile(
    r"<script[^>]*>\s*(?:window\.__pwned|alert\()|<img\s+src=[\"']?x\b|<svg\s+onload|<iframe\b|<base\b"
    r"|<[a-z][^<>]*\son[a-z]+\s*=",  # an event handler attribute in any tag
    re.IGNORECASE,
)
DANGEROUS_TAGS = frozenset({"iframe", "frame", "object", "embed", "base", "form"})


@dataclass(frozen=True)
class HostileReport:
    """One graded hostile submission: its reports, and candidate text each must show as text."""

    takehome: str
    html: Path
    notebook: Path
    shown: tuple[str, ...]


@dataclass(frozen=True)
class Graded:
    chromium: str
    reports_dir: Path
    reports: dict[str, HostileReport] = field(default_factory=dict)


def _allowed_name(folder: Path, hostile: str, fallback: str) -> str:
    """`hostile` when the filesystem takes it as a name (most Linux ones do), else `fallback`."""
    probe = folder / hostile
    try:
        probe.mkdir(parents=True)
        probe.rmdir()
    except OSError:
        return fallback
    return hostile


def _payments(cohort: Path) -> tuple[Path, tuple[str, ...]]:
    folder = _allowed_name(cohort, HOSTILE_FOLDER, "pay-hostile")
    test_name = _allowed_name(cohort, HOSTILE_TEST_NAME, "hostile.test.mjs")
    root = write_tree(cohort / folder, {"NOTE.md": NOTE, "checkout.mjs": CHECKOUT, f"test/{test_name}": TEST_FILE})
    shown = [
        '<script>window.__pwned=7</script>" onerror="alert(2)',  # stderr of every client run
        '<img src=x onerror="window.__pwned=8">',  # the idempotency key, in the gateway's request tables
        "<script>window.__pwned=9</script>",  # what chargeWithRetry resolved with
        "<script>window.__pwned=10</script>",  # the error it rejected with in the outage
        "<script>window.__pwned=12</script>",  # a test name, in the test output
        '{"requests":2,"distinct_keys":1,"charges":1} <script>alert(1)</script>',  # the note's code block
        "raw html block",  # the note's raw HTML, its text kept
    ]
    if test_name == HOSTILE_TEST_NAME:
        shown.append(f"file: {HOSTILE_TEST_NAME}")
    if folder == HOSTILE_FOLDER:
        shown.append(f"payments: {HOSTILE_FOLDER}")
    return root, tuple(shown)


def _replay(cohort: Path) -> tuple[Path, tuple[str, ...]]:
    root = cohort / "replay-hostile"
    shutil.copytree(SAMPLES / "replay" / "amara-okafor", root)
    triage = root / "triage.py"
    source = triage.read_text(encoding="utf-8")
    assert REPLAY_ANCHOR in source, "the sample changed: update REPLAY_ANCHOR"
    triage.write_text(source.replace(REPLAY_ANCHOR, REPLAY_PATCH + REPLAY_ANCHOR), encoding="utf-8")
    shown = [
        f"row 0 has label '{HOSTILE_LABEL}'",  # the answers' label, named by the kit
        '"justification": "<script>alert(1)</script> ',  # the answers, in the diff of the two replays
        '<script>alert(1)</script> " onerror="alert(2)',  # stderr
    ]
    if _allowed_name(root / "cassettes", HOSTILE_CASSETTE, "") == HOSTILE_CASSETTE:
        cassette = {"request": {}, "response": {"note": "<script>alert(1)</script>"}}
        (root / "cassettes" / HOSTILE_CASSETTE).write_text(json.dumps(cassette) + "\n", encoding="utf-8")
        shown.append(f"cassettes: {HOSTILE_CASSETTE}")  # replay's stdout lists the cassettes
    return root, tuple(shown)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    """Both hostile submissions graded once, in parallel, names revealed (the folder name is a payload too)."""
    binary = chromium_or_skip()
    base = tmp_path_factory.mktemp("injection")
    cohort = base / "cohort"
    cohort.mkdir()
    built = {"payments": _payments(cohort), "replay": _replay(cohort)}
    reports = base / "reports"
    outcomes = batch.grade([cohort], reports=reports, reveal=True, jobs=2)
    by_takehome = {o.takehome: o for o in outcomes}
    assert sorted(by_takehome) == ["payments", "replay"], outcomes
    graded = Graded(binary, reports)
    for takehome, (_, shown) in built.items():
        outcome = by_takehome[takehome]
        assert outcome.status == "graded" and outcome.html and outcome.notebook, outcome
        graded.reports[takehome] = HostileReport(takehome, Path(outcome.html), Path(outcome.notebook), shown)
    return graded


class _Markup(HTMLParser):
    """Every start tag with its attributes, and the text of every script element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def assert_raw_html_inert(raw: str) -> None:
    """The report file holds no candidate markup: no such tag, attribute, link or script."""
    found = RAW_MARKUP.findall(raw)
    assert not found, f"unescaped candidate markup in the HTML report: {found[:5]}"
    markup = _Markup()
    markup.feed(raw)
    handlers = [(tag, name) for tag, attrs in markup.tags for name, _ in attrs if name.lower().startswith("on")]
    assert not handlers, f"event handler attributes: {handlers[:5]}"
    dangerous = [(tag, attrs) for tag, attrs in markup.tags if tag in DANGEROUS_TAGS]
    assert not dangerous, f"tags a note must not add: {dangerous[:5]}"
    refresh = [attrs for tag, attrs in markup.tags if tag == "meta" and any(n == "http-equiv" for n, _ in attrs)]
    assert not refresh, f"meta http-equiv: {refresh}"
    images = [
        attrs for tag, attrs in markup.tags if tag == "img" and not (dict(attrs).get("src") or "").startswith("data:")
    ]
    assert not images, f"images that load from somewhere: {images[:5]}"
    links = [
        (tag, name, value)
        for tag, attrs in markup.tags
        for name, value in attrs
        if value and (value.strip().lower().startswith("javascript:") or EVIL_HOST in value)
    ]
    assert not links, f"javascript: or candidate URLs in attributes: {links[:5]}"
    scripts = [text[:200] for text in markup.scripts if re.search(r"__pwned|alert\(|" + re.escape(EVIL_HOST), text)]
    assert not scripts, f"script elements with candidate code: {scripts}"


def assert_inert(findings: dict[str, Any], dialogs: list[str], where: str) -> None:
    """What the page did and holds: no dialog, no payload ran, no candidate element."""
    assert not dialogs, f"{where}: a dialog opened: {dialogs}"
    assert findings["pwned"] is None, f"{where}: a payload ran: window.__pwned = {findings['pwned']}"
    for key in ("handlers", "images", "embedded", "jsLinks", "scripts", "styles"):
        assert not findings[key], f"{where}: candidate markup became elements ({key}): {findings[key][:3]}"
    assert findings["imgSrcX"] == 0, f"{where}: an <img src=x> from candidate text is in the page"


def assert_shown(findings: dict[str, Any], shown: tuple[str, ...], where: str) -> None:
    """The payloads did reach the report, as text (else the checks above prove nothing)."""
    missing = [text for text in shown if text not in findings["text"]]
    assert not missing, f"{where}: candidate text not shown as text: {missing}"


def template_urls() -> set[str]:
    """The URLs the kit's own HTML template names (its CDN scripts), from an empty notebook's export."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_notebook_node(nbformat.v4.new_notebook())
    return set(re.findall(r"https?://[^\s\"'<>]+", body))


@pytest.mark.parametrize("takehome", ["payments", "replay"])
def test_html_report_shows_candidate_text_and_runs_none_of_it(graded: Graded, takehome: str, tmp_path: Path) -> None:
    report = graded.reports[takehome]
    assert_raw_html_inert(report.html.read_text(encoding="utf-8"))

    dialogs: list[str] = []
    requests: list[str] = []
    url = report.html.as_uri()
    evidence = Evidence(tmp_path)
    with chromium(graded.chromium, tmp_path / "chromium") as browser, evidence.collected():
        page = evidence.page = browser.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.on("request", lambda request: requests.append(request.url))
        page.route(re.compile(r"^https?://"), lambda route: route.abort())  # nothing leaves the machine
        evidence.step = f"open {url}"
        page.goto(url, wait_until="load")
        page.wait_for_timeout(SETTLE_MS)
        findings = page.evaluate(FINDINGS_JS, ".jp-OutputArea-output")
    assert_inert(findings, dialogs, report.html.name)
    assert_shown(findings, report.shown, report.html.name)
    allowed = template_urls()
    stray = [u for u in requests if u != url and not u.startswith(("data:", "blob:")) and u not in allowed]
    assert not stray, f"requests the kit's template does not make (from candidate text?): {stray}"
    assert not [u for u in requests if EVIL_HOST in u]


def _lab_copy(notebook: Path, data_dir: Path) -> Path:
    """A copy of the report with the control output appended, signed: trusted, as after a run in JupyterLab."""
    nb = nbformat.read(notebook, as_version=4)
    control = nbformat.v4.new_code_cell(CONTROL_SOURCE)
    control.outputs = [nbformat.v4.new_output("execute_result", data={"text/html": CONTROL_HTML}, execution_count=None)]
    nb.cells.append(control)
    data_dir.mkdir(parents=True, exist_ok=True)
    NotebookNotary(data_dir=str(data_dir)).sign(nb)
    target = notebook.with_name(f"{notebook.stem}-in-lab.ipynb")
    nbformat.write(nb, target)
    return target


def test_jupyterlab_shows_candidate_text_and_runs_none_of_it(graded: Graded, tmp_path: Path) -> None:
    home = tmp_path / "jupyter"
    copies = {takehome: _lab_copy(r.notebook, home / "data") for takehome, r in graded.reports.items()}
    requests: list[str] = []
    with jupyterlab(graded.reports_dir, home) as lab:
        evidence = Evidence(tmp_path, lab)
        with chromium(graded.chromium, tmp_path / "chromium") as browser, evidence.collected():
            for takehome, notebook in copies.items():  # one tab (and JupyterLab workspace) per notebook
                name, shown, dialogs = notebook.name, graded.reports[takehome].shown, []
                page = evidence.page = browser.new_page()
                page.on("dialog", lambda dialog, seen=dialogs: (seen.append(dialog.message), dialog.dismiss()))
                page.on("request", lambda request: requests.append(request.url))
                evidence.step = f"open {name} (trusted) in JupyterLab"
                open_notebook(page, lab.url(notebook, workspace=takehome))
                evidence.step = f"{name}: the control output's script and onerror run (else this proves nothing)"
                page.wait_for_function(f"() => ({CONTROL_RUNS_JS})().every((n) => n >= 1)")
                page.wait_for_timeout(SETTLE_MS)
                evidence.step = f"{name}: the saved outputs, rendered trusted"
                findings = page.evaluate(FINDINGS_JS, ".jp-OutputArea-output")
                assert_inert(findings, dialogs, f"{name} as saved")
                assert_shown(findings, shown, f"{name} as saved")
                if takehome not in RUN_IN_LAB:
                    continue
                evidence.step = f"{name}: Run > Run All Cells (the stored results shown again, in JupyterLab)"
                run_all_cells(page, lambda page=page: min(page.evaluate(CONTROL_RUNS_JS)) >= 2, "the control output")
                page.wait_for_timeout(SETTLE_MS)
                evidence.step = f"{name}: the outputs of the run"
                findings = page.evaluate(FINDINGS_JS, ".jp-OutputArea-output")
                assert_inert(findings, dialogs, f"{name} after Run All")
                assert_shown(findings, shown, f"{name} after Run All")
        loopback = urlsplit(lab.base).netloc
    stray = [u for u in requests if urlsplit(u).netloc != loopback and not u.startswith(("data:", "blob:"))]
    assert not stray, f"JupyterLab made requests off the loopback server: {stray}"
