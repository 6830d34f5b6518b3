"""Exports: chart to PNG/SVG, breakdown and comparison to CSV/Markdown/JSON, clipboard.

Text comes from :mod:`vramdesk.core.present.views` (the same tables the CLI could print);
this module only picks the format, writes files and fills the clipboard.
"""

from __future__ import annotations

from pathlib import Path

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QImage,
    QPaintDevice,
    QPainter,
)
from PySide6.QtSvg import QSvgGenerator
import pyqtgraph as pg
# isort: on

from vramdesk.core.errors import InputError
from vramdesk.core.present import output, views
from vramdesk.gui.controller import ScenarioController

TEXT_FORMATS = ("csv", "md", "json")


def _check_format(fmt: str) -> None:
    """Refuse an export format other than :data:`TEXT_FORMATS`, naming the known ones."""
    if fmt in TEXT_FORMATS:
        return
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
    _check_format(fmt)
    c = controller
    return output.breakdown_export(c.session, c.breakdown, fmt, c.unit, target=c.export_target())


def comparison_text(controller: ScenarioController, rows: list[views.CompareRow], fmt: str) -> str:
    """The compare tab's comparison as CSV, Markdown (``md``) or JSON: every column it shows.

    The command line's ``compare --format`` text
    (:func:`vramdesk.core.present.output.comparison_output`) for the same rows and target:
    the model, each part in exact bytes, the total in the window's unit, the error and the
    headline's verdict on the target (``fits`` / ``tight`` / ``does not fit``; in JSON
    ``verdict`` ``fits`` / ``tight`` / ``does_not_fit`` with ``budget`` and
    ``capacity_bytes``). Without a capacity (a local GPU gone) the verdict column is left
    out, as the tab leaves its cells empty.

    Raises
    ------
    InputError
        ``format``: not ``csv``, ``md`` or ``json``.
    """
    _check_format(fmt)
    name, capacity = controller.export_target()
    comparison = output.Comparison(
        list(rows), controller.compare_fits(rows), name if capacity else None, capacity
    )
    return output.comparison_output(comparison, "markdown" if fmt == "md" else fmt, controller.unit)


def format_of(path: Path) -> str:
    """Export format from a file suffix (``.csv``, ``.md``/``.markdown``, ``.json``)."""
    suffix = path.suffix.lower().lstrip(".")
    return "md" if suffix == "markdown" else suffix


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 (newlines kept as given)."""
    path.write_text(text, encoding="utf-8", newline="")
    return path


def export_plot(plot: pg.PlotWidget, path: Path, title: str | None = None) -> Path:
    """Write a plot to PNG or SVG (by suffix) exactly as the window draws it, ``title`` above.

    Both formats are painted by Qt from the widget itself (``QWidget.render`` into a
    ``QImage`` or a ``QSvgGenerator``), at the widget's logical DPI: what the file shows is
    what the screen shows, pixel for pixel in widget coordinates (an SVG's viewBox is the
    widget's pixels plus the title's band). Neither pyqtgraph exporter is used (issue 23,
    item 6):

    - pyqtgraph 0.14's ``SVGExporter`` fails on the closed paths ("... Z") that Qt 6 writes
      (pyqtgraph issue #3495);
    - a ``QSvgGenerator`` left at its default 72 dpi replays the axes' and bars' cached
      ``QPicture`` s scaled by 96 / 72 (``QPainter::drawPicture`` scales a picture recorded on
      a 96-dpi screen to the device's resolution) while lines and text are not: the capacity
      line came out at about 21 GiB on a 23.99 GiB axis;
    - a title set on the ``PlotItem`` for the export (the former way) widened its layout to
      the title's unwrapped length, past the widget: the legend's cell fell outside the SVG's
      viewBox and was cut from the PNG, and stayed pushed out in the window afterwards.

    Here the title is drawn by the painter in a band above the widget, word-wrapped to its
    width, in the theme's text colour on the theme's background; the plot is not touched.
    A PNG is at least 800 px wide: the widget's painting scaled up (``QPainter.scale``),
    never laid out again.

    Parameters
    ----------
    plot : pg.PlotWidget
        The plot as shown (its current size is the export's, in pixels).
    path : Path
        ``.png`` or ``.svg``.
    title : str, optional
        One line (wrapped when wider than the plot) above the plot, for the file only.

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
    layout = ExportLayout(plot, title)
    if suffix == ".svg":
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setResolution(plot.logicalDpiX())  # the screen's: pictures replay 1:1
        generator.setSize(layout.size)
        generator.setViewBox(QRect(QPoint(0, 0), layout.size))
        generator.setTitle(title or "vramdesk")
        _paint(generator, layout)
    else:
        scale = max(1.0, PNG_MIN_WIDTH / max(layout.size.width(), 1))
        image = QImage(
            round(layout.size.width() * scale),
            round(layout.size.height() * scale),
            QImage.Format.Format_ARGB32,
        )
        dots_per_metre = round(plot.logicalDpiX() / 0.0254)  # as the screen: pictures replay 1:1
        image.setDotsPerMeterX(dots_per_metre)
        image.setDotsPerMeterY(dots_per_metre)
        image.setDevicePixelRatio(scale)  # painted in the widget's pixels, stored finer
        _paint(image, layout)
        if not image.save(str(path)):
            raise OSError(f"could not write {path}")
    return path


#: The narrowest PNG written, pixels (a narrow plot is scaled up to it).
PNG_MIN_WIDTH = 800
#: Space around the title of an export, pixels.
TITLE_PAD = 6


class ExportLayout:
    """Where an export puts its title and its plot, in the plot widget's pixels.

    Attributes
    ----------
    plot : pg.PlotWidget
        The plot drawn.
    title : str or None
        The title text (None: no band).
    font : QFont
        The title's font: the plot's axes font, one point larger, bold.
    title_rect : QRect
        The title's band (empty without a title).
    plot_origin : QPoint
        Where the widget's top-left corner lands in the export.
    size : QSize
        The whole export: the widget's width, the band's plus the widget's height.
    """

    def __init__(self, plot: pg.PlotWidget, title: str | None) -> None:
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.gui.theme import axes_font_pt

        self.plot, self.title = plot, title or None
        width, height = plot.viewport().width(), plot.viewport().height()
        self.font = QFont(plot.font())
        self.font.setPointSizeF(axes_font_pt(plot) + 1)
        self.font.setBold(True)
        band = 0
        if self.title:
            inner = QRect(0, 0, max(width - 2 * TITLE_PAD, 1), 100_000)
            text = QFontMetrics(self.font).boundingRect(inner, TITLE_FLAGS, self.title)
            band = text.height() + 2 * TITLE_PAD
        self.title_rect = QRect(
            TITLE_PAD, TITLE_PAD, max(width - 2 * TITLE_PAD, 0), band and band - 2 * TITLE_PAD
        )
        self.plot_origin = QPoint(0, band)
        self.size = QSize(width, band + height)


TITLE_FLAGS = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop) | int(
    Qt.TextFlag.TextWordWrap
)


def _paint(device: QPaintDevice, layout: ExportLayout) -> None:
    """Paint ``layout`` on ``device``: the background, the title band, then the widget."""
    # on first use: not on the window's start-up path (built or run after the first paint)
    from vramdesk.gui.theme import watcher

    theme = watcher().theme
    painter = QPainter(device)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.fillRect(QRect(QPoint(0, 0), layout.size), QColor(theme.background))
        if layout.title:
            painter.setFont(layout.font)
            painter.setPen(QColor(theme.foreground))
            painter.drawText(layout.title_rect, TITLE_FLAGS, layout.title)
        # the view's own render: its viewport's pixels (the scene as shown) into the same
        # rectangle of the export, 1:1 (QGraphicsView.render, not QWidget.render)
        view = layout.plot.viewport().rect()
        layout.plot.render(painter, QRectF(view.translated(layout.plot_origin)), view)
    finally:
        painter.end()


def copy_to_clipboard(text: str) -> None:
    """Put ``text`` on the system clipboard."""
    QGuiApplication.clipboard().setText(text)
