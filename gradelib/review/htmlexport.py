"""The HTML exporter of reports: nbconvert's lab template, without re-parsing the page it rendered.

nbconvert's `HTMLExporter` renders the page, then parses all of it again with BeautifulSoup to
add two accessibility attributes (an `alt` on images that have none, `tabindex` on cell inputs
and outputs) and serialises the tree back: most of an export's CPU for a report of evidence.
This exporter renders the same template and adds the same attributes to the template's own
tags in one pass over the text. The notebook is validated once, after every preprocessor.
"""

from __future__ import annotations

import re
from typing import Any

from nbconvert import HTMLExporter
from nbconvert.exporters.templateexporter import TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from traitlets.config import Config

NO_ALT = "No description has been provided for this image"  # nbconvert's own words
IMAGE_WITHOUT_ALT = re.compile(r"<img\b(?![^>]*\balt=)")
FOCUSABLE = re.compile(
    r'<div\b(?![^>]*\btabindex=)([^>]*\bclass="[^"]*\b(?:jp-Cell-inputWrapper|jp-OutputArea-output)\b)'
)


class ReportExporter(HTMLExporter):
    """`HTMLExporter` with the same page and attributes, made without a second parse."""

    def from_notebook_node(self, nb: Any, resources: dict[str, Any] | None = None, **kw: Any) -> Any:
        """The page for `nb` and the export's resources, as `HTMLExporter` returns them."""
        language = nb.metadata.get("language_info", {})
        lexer = language.get("pygments_lexer", language.get("name"))
        highlight = self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
        resources = self._init_resources(resources)
        data_types = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources)
        self.register_filter("highlight_code", highlight)
        self.register_filter("filter_data_type", data_types)
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        return accessible(html), resources


def accessible(html: str) -> str:
    """The page with an `alt` on every image that has none and cell inputs and outputs focusable."""
    html = IMAGE_WITHOUT_ALT.sub(f'<img alt="{NO_ALT}"', html)
    return FOCUSABLE.sub(r'<div tabindex="0"\1', html)


def report_exporter(config: Config) -> ReportExporter:
    """An exporter with `config`, validating the notebook once rather than after each preprocessor."""
    config.Exporter.optimistic_validation = True
    return ReportExporter(config=config)
