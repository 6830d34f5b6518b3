"""Exports: the chart to PNG/SVG, the breakdown and the comparison to CSV/Markdown/JSON, the clipboard.

Text comes from :mod:`vramdesk.core.views` (the same tables the CLI could print);
this module only picks the format, writes files and fills the clipboard.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QGuiApplication

import pyqtgraph as pg  # noqa: I001 - after PySide6
import pyqtgraph.exporters  # noqa: F401 - registers ImageExporter / SVGExporter

from vramdesk.core import views
from vramdesk.core.errors import InputError
from vramdesk.gui.controller import ScenarioController

TEXT_FORMATS = ("csv", "md", "json")


def _render(header: list[str], rows: list[list[str]], fmt: str, as_json: str) -> str:
    if fmt == "csv":
        return views.to_csv(header, rows)
    if fmt == "md":
        return views.to_markdown(header, rows)
    if fmt == "json":
        return as_json
    raise InputError("format", f"unknown export format {fmt!r}; known: {', '.join(TEXT_FORMATS)}",
                     "unknown_choice")


def breakdown_text(controller: ScenarioController, fmt: str) -> str:
    """The current breakdown as CSV, Markdown (``md``) or JSON (exact integer bytes)."""
    b = controller.breakdown
    header, rows = views.breakdown_table(b, controller.unit)
    return _render(header, rows, fmt, views.breakdown_json(b))


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


def export_plot(plot_item: pg.PlotItem, path: Path) -> Path:
    """Write a plot to PNG or SVG (by suffix) with pyqtgraph's exporters.

    Raises
    ------
    InputError
        ``path``: the suffix is neither ``.png`` nor ``.svg``.
    """
    suffix = path.suffix.lower()
    if suffix == ".svg":
        exporter = pg.exporters.SVGExporter(plot_item)
    elif suffix == ".png":
        exporter = pg.exporters.ImageExporter(plot_item)
        exporter.parameters()["width"] = max(800, int(plot_item.sceneBoundingRect().width()))
    else:
        raise InputError("path", f"export the chart as .png or .svg, not {suffix or 'no suffix'}", "unknown_choice")
    exporter.export(str(path))
    return path


def copy_to_clipboard(text: str) -> None:
    """Put ``text`` on the system clipboard."""
    QGuiApplication.clipboard().setText(text)
