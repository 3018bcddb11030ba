"""A reviewer in a real browser: JupyterLab on loopback, headless Chromium, score, save, reopen, read back.

The harness here (JupyterLab on a free loopback port with its own Jupyter folders, and
Chromium launched through Playwright from Debian's binary with a fresh profile) is also
used by `test_injection.py`.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from conftest import ROOT, SAMPLES, processes_matching

from gradelib import batch, cli
from gradelib.cohort.summary import run_summary
from gradelib.display.card import CARD_CLASS, SCORES_ANCHOR
from gradelib.display.render import line_anchor
from gradelib.gradebook import Gradebook
from gradelib.review.scoringpanel import ENV_HEADLESS, ENV_REVIEWER, SAVE_LABEL
from gradelib.settings import current_settings
from gradelib.takehomes.rubric import default_rubric

pytestmark = pytest.mark.e2e

CHROMIUM_PATHS = ("/usr/bin/chromium",)
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
INSTALL_HINT = "`./dev test` installs them (Debian's chromium, and playwright from the test extras)"
LAB_START_TIMEOUT_S = 90  # JupyterLab's first start can take 10-20 s; a busy CI machine more
OPEN_TIMEOUT_MS = 90_000  # the notebook shown and its kernel idle
RUN_ALL_TIMEOUT_S = 300  # every cell of a payments notebook, sandbox runs included
WIDGET_TIMEOUT_MS = 30_000
# Run in the page: true once the kernel is idle and no cell is queued or running.
KERNEL_IDLE_JS = """() => {
    const idle = [...document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-TextItem')]
        .some((item) => /\\|\\s*Idle$/.test(item.textContent.trim()));
    const busy = [...document.querySelectorAll('.jp-Notebook .jp-InputPrompt')]
        .some((prompt) => prompt.textContent.includes('*'));
    return idle && !busy;
}"""
# Run in the page on a <table>: its rows as lists of cell texts.
TABLE_ROWS_JS = "t => [...t.rows].map(r => [...r.cells].map(c => c.innerText.trim()))"
NOTEBOOK_SETTINGS = {
    # Render every cell (no virtual scrolling), so a widget output far down exists in the DOM.
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    # No news or update check: nothing leaves the machine, no toast over the notebook.
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}


def ci() -> bool:
    """Whether this run is CI (`CI` set to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def chromium_or_skip() -> str:
    """Debian's chromium binary; in CI a missing browser or playwright fails, elsewhere it skips."""
    missing = []
    binary = shutil.which("chromium") or next((p for p in CHROMIUM_PATHS if os.access(p, os.X_OK)), None)
    if binary is None:
        missing.append("chromium")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright")
    if missing:
        message = f"the browser tests need {' and '.join(missing)}: {INSTALL_HINT}"
        if ci():
            pytest.fail(f"{message}; CI must run them, not skip them", pytrace=False)
        pytest.skip(message)
    assert binary is not None
    return binary


@contextmanager
def chromium(binary: str, profile: Path) -> Iterator[Any]:
    """A headless Chromium context with a fresh profile folder (its own --user-data-dir)."""
    from playwright.sync_api import sync_playwright

    profile.mkdir(parents=True, exist_ok=False)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=binary,
            headless=True,
            args=list(CHROMIUM_ARGS),
            viewport={"width": 1400, "height": 1000},
        )
        context.set_default_timeout(WIDGET_TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


@dataclass
class Lab:
    """A running JupyterLab: where it listens, its token, its log."""

    base: str
    token: str
    root: Path
    log: Path
    runtime: Path
    proc: subprocess.Popen[bytes]

    def url(self, notebook: Path, workspace: str | None = None) -> str:
        """The URL that opens `notebook` (a file under the root) in JupyterLab, token included.

        With `workspace`, in a fresh JupyterLab workspace of that name: a second tab then
        shows only its own notebook.
        """
        rel = quote(notebook.resolve().relative_to(self.root.resolve()).as_posix())
        if workspace is None:
            return f"{self.base}/lab/tree/{rel}?token={self.token}"
        return f"{self.base}/lab/workspaces/{quote(workspace)}/tree/{rel}?token={self.token}&reset"

    def api(self, path: str, method: str = "GET") -> int:
        request = urllib.request.Request(
            f"{self.base}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def jupyterlab(root: Path, home: Path, env: dict[str, str] | None = None) -> Iterator[Lab]:
    """JupyterLab from this venv on 127.0.0.1, serving `root`, with its own config, data and runtime folders.

    The reviewer's real Jupyter settings are never read or written. Stopped through its API,
    then its process group and any kernel it started are killed.
    """
    config, data, runtime = home / "config", home / "data", home / "runtime"
    for name, values in NOTEBOOK_SETTINGS.items():
        package, plugin = name.rsplit("/", 1)
        target = config / "lab" / "user-settings" / package / f"{plugin}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    data.mkdir(parents=True, exist_ok=True)
    runtime.mkdir(parents=True, exist_ok=True)
    venv_bin = str(Path(sys.executable).parent)
    full_env = {k: v for k, v in os.environ.items() if k != ENV_HEADLESS}
    full_env |= {
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_DATA_DIR": str(data),
        "JUPYTER_RUNTIME_DIR": str(runtime),
        "PATH": venv_bin + os.pathsep + full_env.get("PATH", ""),
        **(env or {}),
    }
    port, token = free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.extension_manager=readonly",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = home / "jupyterlab.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            command, cwd=root, env=full_env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    lab = Lab(f"http://127.0.0.1:{port}", token, root, log, runtime, proc)
    try:
        deadline = time.monotonic() + LAB_START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited with {proc.returncode}:\n{lab.log_tail()}", pytrace=False)
            try:
                if lab.api("/api/status") == 200:
                    break
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not answer within {LAB_START_TIMEOUT_S} s:\n{lab.log_tail()}")
            time.sleep(0.25)
        yield lab
    finally:
        _stop(lab)


def _stop(lab: Lab) -> None:
    """Ask the server to shut down (it stops its kernels), then kill what is left, by pid."""
    if lab.proc.poll() is None:
        try:
            lab.api("/api/shutdown", method="POST")
            lab.proc.wait(timeout=15)
        except (OSError, urllib.error.URLError, subprocess.TimeoutExpired):
            pass
    if lab.proc.poll() is None:
        with suppress(ProcessLookupError):
            os.killpg(lab.proc.pid, signal.SIGKILL)
        lab.proc.wait(timeout=10)
    # Kernels run in sessions of their own; their command line names a connection file in our runtime folder.
    for pid in processes_matching(str(lab.runtime)):
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@dataclass
class Evidence:
    """What a failing browser step leaves behind: the step, a screenshot, the server log."""

    folder: Path
    lab: Lab | None = None
    page: Any = None
    step: str = "starting"
    shots: list[Path] = field(default_factory=list)

    @contextmanager
    def collected(self) -> Iterator[Evidence]:
        """Turn any failure inside into one message: the step, the screenshot's path, the server log."""
        try:
            yield self
        except Exception as exc:
            shot = self._screenshot()
            log = f"\n--- JupyterLab log (tail) ---\n{self.lab.log_tail()}" if self.lab else ""
            raise AssertionError(
                f"browser step failed: {self.step}: {type(exc).__name__}: {exc}\nscreenshot: {shot}{log}"
            ) from exc

    def _screenshot(self) -> Path | None:
        if self.page is None:
            return None
        shot = self.folder / f"failure-{len(self.shots) + 1}.png"
        try:
            self.page.screenshot(path=str(shot), full_page=True)
        except Exception:  # the page may be gone; the message still says where it failed
            return None
        self.shots.append(shot)
        return shot


def lab_start_page(browser: Any, lab: Lab, evidence: Evidence) -> Any:
    """A new page on JupyterLab's start page, dialogs dismissed, recorded as the evidence's page."""
    page = evidence.page = browser.new_page()
    page.on("dialog", lambda dialog: dialog.dismiss())
    evidence.step = "JupyterLab's start page"
    page.goto(f"{lab.base}/lab?token={lab.token}")
    page.locator("#jp-main-statusbar").wait_for(timeout=OPEN_TIMEOUT_MS)
    return page


def open_notebook(page: Any, url: str) -> None:
    """Open a notebook and wait until its cells are shown and its kernel is idle."""
    page.goto(url)
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=OPEN_TIMEOUT_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=OPEN_TIMEOUT_MS)


def start_run_all(page: Any) -> None:
    """Run > Run All Cells, from the menu."""
    page.locator("#jp-MainMenu").get_by_text("Run", exact=True).click()
    page.locator(".lm-Menu").get_by_text("Run All Cells", exact=True).click()


def wait_run_all(page: Any, done: Callable[[], bool], what: str, timeout_s: float = RUN_ALL_TIMEOUT_S) -> None:
    """Wait until `done()` and the kernel is idle; fail on a traceback in any output."""
    errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]')
    deadline = time.monotonic() + timeout_s
    while not done():
        if errors.count():
            raise AssertionError(f"a cell raised: {errors.first.inner_text()[:2000]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not seen after {timeout_s} s of Run All Cells")
        page.wait_for_timeout(250)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=int(timeout_s * 1000))
    if errors.count():
        raise AssertionError(f"a cell raised: {errors.first.inner_text()[:2000]}")


def run_all_cells(page: Any, done: Callable[[], bool], what: str, timeout_s: float = RUN_ALL_TIMEOUT_S) -> None:
    """Run > Run All Cells; wait until `done()` and the kernel is idle; fail on a traceback in any output."""
    start_run_all(page)
    wait_run_all(page, done, what, timeout_s)


# -- the scoring panel, as ipywidgets renders it ---------------------------------------------------------------


def panel_line(page: Any, title: str) -> Any:
    """The box of one rubric line in the scoring panel: heading, Score dropdown, comment."""
    heading = f"xpath=./div[contains(@class, 'widget-html')]//b[normalize-space() = '{title}']"
    return page.locator(".widget-vbox").filter(has=page.locator(heading))


def saved_table(page: Any) -> list[list[str]]:
    """The panel's "Already saved" table, as rows of cell texts (the header row first)."""
    table = page.locator(".widget-vbox .widget-html table").filter(has=page.locator("th", has_text="kit suggests"))
    return list(table.first.evaluate(TABLE_ROWS_JS))


def saved_cell(rows: list[list[str]], title: str, reviewer: str) -> str:
    """What the saved table shows for one line and one reviewer ("" when that reviewer has no column)."""
    header = rows[0]
    if reviewer not in header:
        return ""
    column = header.index(reviewer)
    row = next(r for r in rows[1:] if r and r[0].startswith(title))
    return row[column] if column < len(row) else ""


def cell_with_source(page: Any, source: str) -> Any:
    return page.locator(".jp-Notebook .jp-CodeCell").filter(has=page.locator(".jp-InputArea-editor", has_text=source))


def prompt_number(cell: Any) -> str:
    return str(cell.locator(".jp-InputArea-prompt").inner_text()).strip()


# -- the test ----------------------------------------------------------------------------------------------------

CANDIDATE = "jonas-berg"  # no tests: "found the defect" needs a reviewer too
LINE = "evidence"
OTHER_LINE = "explanation"
TIER = "acceptable"
REVIEWER = "browser-test"
COLLEAGUE = "colleague"
COMMENT = "Pasted one stub run with raw output; no before/after (browser test)"
COLLEAGUE_EVIDENCE = "Colleague on the evidence: raw output quoted twice"
COLLEAGUE_EXPLANATION = "Colleague on the explanation: names the restart gap"
PANEL_SOURCE = 'panel_for(gradebook, "payments"'
PANEL_READY_S = 120  # a bound for a hang only: Run All reaches a usable panel from stored results in seconds
DOCS = ROOT / "docs"
WIDGET_ERROR = "Error displaying widget"
# Run in the page: true once the cell running `source` shows an execution count other than `before`.
RAN_AGAIN_JS = """([source, before]) => {
    const cell = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')]
        .find((c) => c.querySelector('.jp-InputArea-editor')?.textContent.includes(source));
    const prompt = cell?.querySelector('.jp-InputArea-prompt')?.textContent.trim() ?? '';
    return prompt !== before && /\\d/.test(prompt);
}"""
DIRTY_TAB = ".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-dirty"
# Run in the page: true once the element with this id is on screen (its top within the window). JupyterLab's
# sanitizer keeps an untrusted output's id as `data-jupyter-id`, where its link handler looks first.
IN_VIEW_JS = """(id) => {
    const found = document.querySelector(`[data-jupyter-id="${CSS.escape(id)}"]`) ?? document.getElementById(id);
    const box = found?.getBoundingClientRect();
    return !!box && box.height > 0 && box.top >= -1 && box.top < window.innerHeight;
}"""


def _panel_outputs(notebook: Path) -> list[dict[str, Any]]:
    cells = json.loads(notebook.read_text())["cells"]
    return [o for c in cells if "score-table" in c["metadata"].get("tags", []) for o in c.get("outputs", [])]


def _screenshot(browser: Any, html: Path, target: Path) -> Path:
    page = browser.new_page()
    page.set_viewport_size({"width": 1100, "height": 900})
    page.goto(html.resolve().as_uri())
    page.wait_for_timeout(300)
    page.screenshot(path=str(target), full_page=True)
    page.close()
    return target


def test_reviewer_scores_blind_without_rerunning_and_the_next_reviewer_opens_it_cleanly(tmp_path: Path) -> None:
    """As the README says: graded into reports/, JupyterLab started from the folder holding it, Run All, score.

    That folder is the test's own (a checkout's reports/ is the lead's, never the tests'); not a dot
    folder, which Jupyter does not serve.
    """
    binary = chromium_or_skip()
    checkout = tmp_path / "checkout"
    reports = checkout / "reports"
    reports.mkdir(parents=True)  # JupyterLab starts there while the batch grades into it
    book = reports / "gradebook.sqlite"
    title = default_rubric("payments").line(LINE).title
    save = f".widget-button:has-text('{SAVE_LABEL}')"
    evidence = Evidence(tmp_path)
    with ThreadPoolExecutor(max_workers=1) as pool:
        # The batch grades (papermill, headless) while JupyterLab and Chromium start.
        grading = pool.submit(batch.grade, [SAMPLES / "payments" / CANDIDATE], reports=reports)
        with jupyterlab(checkout, tmp_path / "jupyter", {ENV_REVIEWER: REVIEWER}) as lab:
            evidence.lab = lab
            with chromium(binary, tmp_path / "chromium-1") as browser, evidence.collected():
                page = lab_start_page(browser, lab, evidence)
                evidence.step = f"batch.grade of {CANDIDATE}"
                outcomes = grading.result()
                assert [o.status for o in outcomes] == ["graded"], outcomes
                notebook = Path(outcomes[0].notebook or "")
                result = notebook.with_suffix(".json")
                batch_result = result.read_bytes()
                assert CANDIDATE not in notebook.name, "blind: the report is named by its label"
                with Gradebook(book) as gradebook:  # a colleague scored two lines already
                    gradebook.add_score("payments", CANDIDATE, LINE, COLLEAGUE, "strong", COLLEAGUE_EVIDENCE)
                    gradebook.add_score("payments", CANDIDATE, OTHER_LINE, COLLEAGUE, "weak", COLLEAGUE_EXPLANATION)
                url = lab.url(notebook)
                evidence.step = f"open {url.split('?')[0]}"
                open_notebook(page, url)
                page.wait_for_timeout(1000)
                assert page.locator(DIRTY_TAB).count() == 0, "the report is unchanged on open"
                for anchor in (line_anchor(LINE), SCORES_ANCHOR):
                    evidence.step = f"the verdict card's link to #{anchor} scrolls there in JupyterLab"
                    page.locator(f'.{CARD_CLASS} a[href="#{anchor}"]').first.click()
                    page.wait_for_function(IN_VIEW_JS, arg=anchor)
                assert page.locator(DIRTY_TAB).count() == 0, "following a link changes nothing"
                evidence.step = "Run > Run All Cells until the scoring panel is usable"
                started = time.monotonic()
                start_run_all(page)
                page.locator(save).wait_for(timeout=PANEL_READY_S * 1000)
                ready = time.monotonic() - started
                wait_run_all(page, lambda: True, "every cell")
                assert ready < PANEL_READY_S, f"the panel took {ready:.1f} s"
                assert "stored results" in page.locator(".jp-Notebook").inner_text()
                assert result.read_bytes() == batch_result, "Run All never rewrites the batch's result"
                evidence.step = "blind: the colleague's comments are hidden before saving"
                reviewer = page.locator(".widget-text", has_text="Reviewer").locator("input")
                assert reviewer.input_value() == REVIEWER, f"the kernel should inherit {ENV_REVIEWER}"
                text = page.locator(".jp-Notebook").inner_text()
                assert COLLEAGUE_EVIDENCE not in text and COLLEAGUE_EXPLANATION not in text
                assert "hidden until you save yours" in saved_cell(saved_table(page), title, COLLEAGUE)
                evidence.step = f"choose {TIER!r} for {title!r}, comment, Save"
                line = panel_line(page, title)
                assert line.count() == 1, f"one panel box titled {title!r}, found {line.count()}"
                select = line.locator("select")
                labels = [str(text) for text in select.locator("option").all_text_contents()]
                choice = next((text for text in labels if text.split(":")[0].strip() == TIER), None)
                assert choice is not None, f"no {TIER!r} among the choices {labels}"
                select.select_option(label=choice)
                line.locator("textarea").fill(COMMENT)
                page.locator(save).click()
                evidence.step = "the save confirmed; the colleague's evidence score shown, explanation still hidden"
                page.get_by_text("saved 1 score(s)").wait_for()
                rows = saved_table(page)
                shown = saved_cell(rows, title, REVIEWER)
                assert TIER in shown and COMMENT in shown, f"the saved table shows {shown!r}"
                assert COLLEAGUE_EVIDENCE in saved_cell(rows, title, COLLEAGUE)
                assert COLLEAGUE_EXPLANATION not in page.locator(".jp-Notebook").inner_text()
                evidence.step = "save the notebook and close its tab"
                page.keyboard.press("Escape")
                page.keyboard.press("Control+s")
                page.locator(DIRTY_TAB).wait_for(state="detached")
                page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current .lm-TabBar-tabCloseIcon").click()
                page.locator(".jp-NotebookPanel").wait_for(state="detached")
                evidence.step = "what JupyterLab stored: the panel's static table, no live widget"
                stored = _panel_outputs(notebook)
                assert stored and all("application/vnd.jupyter.widget-view+json" not in o["data"] for o in stored)
                assert all(COLLEAGUE_EVIDENCE not in o["data"]["text/html"] for o in stored), "blind when stored"
                assert "widgets" not in json.loads(notebook.read_text())["metadata"]

            with chromium(binary, tmp_path / "chromium-2") as browser, evidence.collected():
                page = evidence.page = browser.new_page()
                page.on("dialog", lambda dialog: dialog.dismiss())
                evidence.step = "the next reviewer opens the saved notebook in a new browser"
                open_notebook(page, url)
                page.wait_for_timeout(1000)
                text = page.locator(".jp-Notebook").inner_text()
                assert WIDGET_ERROR not in text and "Score table taken" in text
                assert page.locator(DIRTY_TAB).count() == 0
                evidence.step = "run the parameters and the panel cell alone (no grading)"
                cell = cell_with_source(page, PANEL_SOURCE)
                assert cell.count() == 1, f"one cell runs {PANEL_SOURCE!r}, found {cell.count()}"
                before = prompt_number(cell)
                params = cell_with_source(page, "# Parameters")  # the panel needs only the parameters
                assert params.count() == 2, "the parameters cell and the one papermill injected"
                for index in range(params.count()):
                    params.nth(index).locator(".jp-InputArea-editor").click()
                    page.keyboard.press("Control+Enter")
                    page.wait_for_function(KERNEL_IDLE_JS)
                cell.locator(".jp-InputArea-editor").click()
                page.keyboard.press("Control+Enter")
                page.wait_for_function(RAN_AGAIN_JS, arg=[PANEL_SOURCE, before])
                page.wait_for_function(KERNEL_IDLE_JS)
                evidence.step = "see the saved score in the new panel"
                cell.locator(save).wait_for()
                line = panel_line(page, title)
                select = line.locator("select")
                selected = select.evaluate("s => s.selectedIndex < 0 ? '' : s.options[s.selectedIndex].textContent")
                assert str(selected).split(":")[0].strip() == TIER, f"the Score dropdown shows {selected!r}"
                assert line.locator("textarea").input_value() == COMMENT
                shown = saved_cell(saved_table(page), title, REVIEWER)
                assert TIER in shown and COMMENT in shown, f"the saved table shows {shown!r}"

    evidence.step = "gradelib tables and gradelib summary: fresh stored tables, HTML without code"
    assert cli.main(["tables", "--reports", str(reports)]) == 0
    html = notebook.with_suffix(".html").read_text()
    assert "Score table taken" in html and REVIEWER in html and COLLEAGUE in html
    assert COMMENT not in html and COLLEAGUE_EVIDENCE not in html, "the stored table is blind"
    assert "No reviewer scores saved yet" not in html
    for code in ("panel_for", "grading.", "In&nbsp;[", ".staging"):
        assert code not in html, code
    summary_html = run_summary(reports)
    assert COLLEAGUE_EVIDENCE in summary_html.read_text(), "the summary is where everything is shown"
    with chromium(binary, tmp_path / "chromium-3") as browser:
        shots = [
            _screenshot(browser, notebook.with_suffix(".html"), tmp_path / "report-scored.png"),
            _screenshot(browser, summary_html, tmp_path / "summary.png"),
        ]
    assert all(shot.stat().st_size > 20_000 for shot in shots)
    if current_settings().docs_screenshots:  # GRADELIB_DOCS_SCREENSHOTS: the screenshots go into docs/
        shutil.copyfile(shots[1], DOCS / shots[1].name)  # the reports' own: the first-screen test below

    with Gradebook(book) as gradebook:
        scores = gradebook.current_scores("payments", CANDIDATE)
    mine = {key: entry for key, entry in scores.items() if key[1] == REVIEWER}
    assert list(mine) == [(LINE, REVIEWER)], f"one score by {REVIEWER}: {mine}"
    entry = mine[(LINE, REVIEWER)]
    assert (entry.reviewer, entry.line_id, entry.value, entry.comment) == (REVIEWER, LINE, TIER, COMMENT)
    assert entry.submission == CANDIDATE and entry.takehome == "payments"


# -- the report a hiring manager reads: every verdict on its first screen ------------------------------------------

FIRST_SCREEN = {"width": 1280, "height": 800}
# (take-home, sample, its screenshot in docs/): a replay with failed lines; a payments client whose tests need
# vitest (its 44 installed packages folded) and whose note awaits a reviewer
FIRST_SCREEN_SAMPLES = (
    ("replay", "chen-wei", "report.png"),
    ("payments", "nadia-petrov", "report-payments.png"),
)
# Run in the page: each row of the verdict card as the reader sees it: its link, where its verdict is, its text.
VERDICT_ROWS_JS = """(card) => [...document.querySelectorAll(`.${card} tr`)]
    .filter((row) => row.querySelector('.gl-badge'))
    .map((row) => ({
        link: row.querySelector('a')?.getAttribute('href') ?? '',
        bottom: row.querySelector('.gl-badge').getBoundingClientRect().bottom + window.scrollY,
        text: row.innerText,
    }))"""
CARD_BOTTOM_JS = "(card) => document.querySelector(`.${card}`).getBoundingClientRect().bottom + window.scrollY"


def test_every_verdict_is_on_the_first_screen_of_the_html_report(tmp_path: Path) -> None:
    """As a hiring manager opens the HTML at 1280x800: the card (every line's verdict, the total, what awaits a
    reviewer) on the first screen, each line's link landing on its evidence, long lists folded."""
    binary = chromium_or_skip()
    outcomes = batch.grade([SAMPLES / takehome / sample for takehome, sample, _ in FIRST_SCREEN_SAMPLES],
                           reports=tmp_path / "reports")  # fmt: skip
    assert [o.status for o in outcomes] == ["graded", "graded"], outcomes
    reports = {o.takehome: Path(o.html or "") for o in outcomes}
    shots = []
    with chromium(binary, tmp_path / "chromium") as browser:
        for takehome, sample, shot in FIRST_SCREEN_SAMPLES:
            page = browser.new_page()
            page.set_viewport_size(FIRST_SCREEN)
            page.goto(reports[takehome].resolve().as_uri())
            rows = page.evaluate(VERDICT_ROWS_JS, CARD_CLASS)
            rubric = default_rubric(takehome)
            assert [row["link"] for row in rows] == [f"#{line_anchor(line.id)}" for line in rubric.lines], sample
            late = [row["text"] for row in rows if row["bottom"] > FIRST_SCREEN["height"]]
            assert late == [], f"{sample}: verdicts below the first screen: {late}"
            assert page.evaluate(CARD_BOTTOM_JS, CARD_CLASS) <= FIRST_SCREEN["height"], "the total and what awaits"
            page.screenshot(path=str(tmp_path / shot))
            shots.append(tmp_path / shot)
            for line, row in zip(rubric.lines, rows, strict=True):
                page.locator(f'.{CARD_CLASS} a[href="{row["link"]}"]').click()
                page.wait_for_function(IN_VIEW_JS, arg=line_anchor(line.id))
                assert line.title in page.locator(f"#{line_anchor(line.id)}").inner_text()
            if takehome == "payments":  # the installed packages: a count, the list a click away
                installed = page.locator("details", has=page.locator("summary", has_text="packages"))
                assert installed.count() == 1 and not installed.evaluate("d => d.open")
                assert not installed.locator("table").is_visible()
                installed.locator("summary").click()
                assert installed.locator("table").is_visible()
            page.close()
    assert all(shot.stat().st_size > 20_000 for shot in shots)
    if current_settings().docs_screenshots:  # GRADELIB_DOCS_SCREENSHOTS: the README's pictures
        for shot in shots:
            shutil.copyfile(shot, DOCS / shot.name)
