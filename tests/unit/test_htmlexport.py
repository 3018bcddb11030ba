"""The report exporter makes the page nbconvert's HTMLExporter makes, without its second parse."""

from __future__ import annotations

import copy

import nbformat
from bs4 import BeautifulSoup
from nbconvert import HTMLExporter
from traitlets.config import Config

from gradelib.review.htmlexport import NO_ALT, accessible, report_exporter

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def _notebook() -> nbformat.NotebookNode:
    v4 = nbformat.v4
    plot = v4.new_output("display_data", data={"image/png": PIXEL, "text/plain": "<Figure>"})
    table = v4.new_output("execute_result", data={"text/html": "<b>evidence</b> &amp; more"}, execution_count=1)
    text = v4.new_output("stream", name="stdout", text="plain & <tag>\n")
    cells = [
        v4.new_markdown_cell("# Title\n\nProse with `code` & an entity: &copy;"),
        v4.new_code_cell("show()", outputs=[plot, table, text], execution_count=1),
    ]
    return v4.new_notebook(cells=cells)


def _tags(html: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """Every tag with its attributes, order-free, as a browser would build them."""
    tags = []
    for tag in BeautifulSoup(html, "html.parser").find_all(True):
        attributes = ((key, " ".join(value) if isinstance(value, list) else value) for key, value in tag.attrs.items())
        tags.append((tag.name, tuple(sorted(attributes))))
    return tags


def test_the_report_exporter_builds_the_page_nbconverts_exporter_builds() -> None:
    notebook = _notebook()  # one notebook: its cells' ids are random
    for exclude_input in (False, True):
        config = Config()
        config.TemplateExporter.exclude_input = exclude_input
        theirs, _ = HTMLExporter(config=config).from_notebook_node(copy.deepcopy(notebook))
        config = Config()
        config.TemplateExporter.exclude_input = exclude_input
        ours, _ = report_exporter(config).from_notebook_node(copy.deepcopy(notebook))
        assert _tags(ours) == _tags(theirs)
        assert BeautifulSoup(ours, "html.parser").get_text() == BeautifulSoup(theirs, "html.parser").get_text()
        assert f'alt="{NO_ALT}"' in ours and 'tabindex="0"' in ours


def test_accessible_adds_alt_and_tabindex_once_and_leaves_other_tags() -> None:
    html = (
        '<img src="a.png"><img alt="kept" src="b.png">'
        '<div class="jp-OutputArea-output x">o</div><div class="jp-Cell-inputWrapper">i</div>'
        '<div class="jp-OutputArea-output" tabindex="1">t</div><div class="other">n</div>'
    )
    done = accessible(html)
    assert done.count(f'alt="{NO_ALT}"') == 1 and 'alt="kept"' in done
    assert done.count('tabindex="0"') == 2 and 'tabindex="1"' in done
    assert '<div class="other">n</div>' in done
    assert accessible(done) == done
