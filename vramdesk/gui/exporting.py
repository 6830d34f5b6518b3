"""Exports: chart to PNG/SVG, breakdown and comparison to CSV/Markdown/JSON, clipboard.

Text comes from :mod:`vramdesk.core.present.views` (the same tables the CLI could print);
this module only picks the format, writes files and fills the clipboard.
"""

from __future__ import annotations

from pathlib import Path

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtGui import QGuiApplication, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget
import pyqtgraph as pg
import pyqtgraph.exporters  # noqa: F401 - registers ImageExporter
# isort: on

from vramdesk.core.errors import InputError
from vramdesk.core.present import output, views
from vramdesk.gui.controller import ScenarioController

TEXT_FORMATS = ("csv", "md", "json")


def _render(header: list[str], rows: list[list[str]], fmt: str, as_json: str) -> str:
    if fmt == "csv":
        return views.to_csv(header, rows)
    if fmt == "md":
        return views.to_markdown(header, rows)
    if fmt == "json":
        return as_json
    raise InputError(
        "format",
        f"unknown export format {fmt!r}; known: {', '.join(TEXT_FORMATS)}",
        "unknown_choice",
    )


def breakdown_text(controller: ScenarioController, fmt: str) -> str:
    """The current breakdown as CSV, Markdown (``md``) or JSON (exact integer bytes).

    With the model, weights, workload, engine and target it is of: the command line's
    ``estimate --format`` text (:func:`vramdesk.core.present.output.breakdown_export`).
    """
    if fmt not in TEXT_FORMATS:
        _render([], [], fmt, "")  # refused, naming the formats
    c = controller
    return output.breakdown_export(c.session, c.breakdown, fmt, c.unit, target=c.export_target())


def comparison_text(controller: ScenarioController, rows: list[views.CompareRow], fmt: str) -> str:
    """A comparison as CSV, Markdown or JSON (exact integer bytes per part)."""
    header, table = views.comparison_table(rows, controller.unit, exact=True)
    return _render(header, table, fmt, views.comparison_json(rows))


def format_of(path: Path) -> str:
    """Export format from a file suffix (``.csv``, ``.md``/``.markdown``, ``.json``)."""
    suffix = path.suffix.lower().lstrip(".")
    return "md" if suffix == "markdown" else suffix


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 (newlines kept as given)."""
    path.write_text(text, encoding="utf-8", newline="")
    return path


def export_plot(plot: pg.PlotWidget, path: Path, title: str | None = None) -> Path:
    """Write a plot to PNG (pyqtgraph's ImageExporter) or SVG (Qt's QSvgGenerator), by suffix.

    SVG is rendered by Qt itself: pyqtgraph 0.14's SVGExporter fails on the closed paths
    ("... Z") that Qt 6 writes (pyqtgraph issue #3495). ``title`` is drawn above the plot
    for the export only (so that the file stands alone), in the theme's text colour.

    Raises
    ------
    InputError
        ``path``: the suffix is neither ``.png`` nor ``.svg``.
    """
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise InputError(
            "path",
            f"export the chart as .png or .svg, not {suffix or 'no suffix'}",
            "unknown_choice",
        )
    item = plot.getPlotItem()
    if title:
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.gui.theme import axes_font_pt, watcher

        size = f"{axes_font_pt(plot) + 1:g}pt"
        item.setTitle(title, color=watcher().theme.foreground, size=size, bold=True)
        QGuiApplication.processEvents()  # let the layout make room for the title
    try:
        if suffix == ".svg":
            _render_svg(plot, path)
        else:
            exporter = pg.exporters.ImageExporter(item)
            exporter.parameters()["width"] = max(800, plot.width())
            exporter.export(str(path))
    finally:
        if title:
            item.setTitle(None)
    return path


def _render_svg(widget: QWidget, path: Path) -> None:
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(widget.size())
    generator.setViewBox(widget.rect())
    generator.setTitle("vramdesk")
    painter = QPainter(generator)
    try:
        widget.render(painter)
    finally:
        painter.end()


def copy_to_clipboard(text: str) -> None:
    """Put ``text`` on the system clipboard."""
    QGuiApplication.clipboard().setText(text)
