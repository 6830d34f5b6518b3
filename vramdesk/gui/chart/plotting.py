"""Plot legends placed by our code: pinned to a corner of the plot area, or beside it.

``PlotItem.addLegend(offset=...)`` anchors the legend with ``GraphicsWidgetAnchor``, which
repositions it from the ViewBox's ``geometryChanged`` signal. Qt also emits that signal while it
tears a window down; the callback then touches a ViewBox whose C++ object is already gone and
raises "Internal C++ object (ViewBox) already deleted" inside the event loop (an intermittent
teardown error of our GUI tests). Here the legend is placed when the ViewBox resizes or the
legend's own size changes, and only while both C++ objects are alive.

Every legend here is fixed: :class:`FixedLegend` ignores a mouse drag. pyqtgraph's
``LegendItem.mouseDragEvent`` anchors the legend where it is dropped (``autoAnchor``), and that
anchor then moves it on every geometry change; a legend placed by our code (or by the plot's
layout) would be moved back and forth by both without end (a ``RecursionError`` per drag, then
a segmentation fault in a long session; issue 22). A dragged legend lets the drag through to
the plot under it, which pans as anywhere else.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import QGraphicsItem, QSizePolicy


class FixedLegend(pg.LegendItem):
    """A ``pg.LegendItem`` that is never moved by the mouse (see the module's note).

    Its position is ours to set (:class:`CornerLegend`) or its layout's (:func:`side_legend`);
    a drag on it is ignored, so pyqtgraph never anchors it and the plot under it pans instead.
    """

    def mouseDragEvent(self, ev: object) -> None:  # noqa: N802 - pyqtgraph override
        """Ignore the drag: the ViewBox under the legend receives it."""
        ev.ignore()


class CornerLegend:
    """A ``pg.LegendItem`` kept at a corner of a plot's ViewBox.

    Parameters
    ----------
    plot : pg.PlotWidget
        The plot; the legend becomes its ``PlotItem.legend`` so named items join it.
    corner : str
        ``"top-left"``, ``"top-right"``, ``"bottom-left"`` or ``"bottom-right"``.
    margin : tuple of int
        Pixels from the corner's two edges (x, y).
    **kwargs
        Passed to ``pg.LegendItem`` (brush, labelTextColor, colCount, ...).
    """

    def __init__(
        self,
        plot: pg.PlotWidget,
        corner: str = "top-left",
        margin: tuple[int, int] = (10, 10),
        **kwargs: object,
    ) -> None:
        item = plot.getPlotItem()
        self.vb = item.vb
        self.right, self.bottom = corner.endswith("right"), corner.startswith("bottom")
        self.margin = margin
        self.legend = FixedLegend(offset=None, **kwargs)  # no anchor: placed by place()
        self.legend.setParentItem(self.vb)
        item.legend = self.legend
        self.vb.sigResized.connect(self.place)
        self.legend.geometryChanged.connect(self.place)
        self.place()

    def place(self, *_: object) -> None:
        """Move the legend to its corner (a no-op once either C++ object is deleted)."""
        if not (shiboken6.isValid(self.vb) and shiboken6.isValid(self.legend)):
            return
        box, own = self.vb.boundingRect(), self.legend.boundingRect()
        x = box.width() - own.width() - self.margin[0] if self.right else self.margin[0]
        y = box.height() - own.height() - self.margin[1] if self.bottom else self.margin[1]
        self.legend.setPos(x, y)


class SteadyBars(pg.BarGraphItem):
    """A ``pg.BarGraphItem`` that works out its bounding rectangle once per change.

    pyqtgraph's ``boundingRect`` computes the data bounds and the pixel padding (two pixel
    vectors of the view's transform) in Python each time it is asked, and the scene asks
    several times an item and a paint: 16 times an edit for the breakdown chart's four bars,
    about 0.6 ms of a keystroke under a profiler in session 6 (issue 24;
    ``bench_keystroke.py --profile solver``, which counts 16 asks an edit and 4 computations
    with this class). Here the rectangle is kept until the bars' options (``setOpts``) or
    the view's transform change, the two things it depends on.
    """

    _rect: QRectF | None = None

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        """The rectangle pyqtgraph computes, at most once per change of the bars or the view."""
        if self._rect is None:
            self._rect = super().boundingRect()
        return QRectF(self._rect)

    def setOpts(self, **opts: object) -> None:  # noqa: N802 - pyqtgraph's name
        """As pyqtgraph's; the rectangle is worked out again."""
        self._rect = None
        super().setOpts(**opts)

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        """The pixel padding follows the view's transform: the rectangle is worked out again."""
        self._rect = None
        super().viewTransformChanged()


def escape_html(text: str) -> str:
    """``text`` for a pyqtgraph label (Qt rich text): ``&``, ``<`` and ``>`` escaped.

    What ``html.escape(text, quote=False)`` returns; importing :mod:`html` loads its
    2,231-entry entity table, about 2 ms of the window's start-up for three replacements
    (issue 11).
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def side_legend(plot: pg.PlotWidget, **kwargs: object) -> FixedLegend:
    """A ``pg.LegendItem`` in its own cell to the right of the plot area, never over the data.

    The legend becomes a cell of the ``PlotItem``'s grid layout (row of the ViewBox, after the
    right axis), so the layout gives it the width its entries need and the ViewBox the rest:
    no bar, line or label of the plot can lie under it, whatever the data. Nothing anchors it
    to the ViewBox, so nothing touches a deleted ViewBox at teardown (see :class:`CornerLegend`).

    Parameters
    ----------
    plot : pg.PlotWidget
        The plot; the legend becomes its ``PlotItem.legend`` so named items join it.
    **kwargs
        Passed to ``pg.LegendItem`` (brush, labelTextColor, ...).
    """
    item = plot.getPlotItem()
    legend = FixedLegend(offset=None, **kwargs)
    # its own height, centred: the entries stay together instead of spreading over the row
    legend.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    item.layout.addItem(legend, 2, 3)
    item.layout.setAlignment(legend, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
    item.legend = legend
    return legend


def quiet_range_changes(axis: pg.AxisItem) -> None:
    """Re-lay out ``axis``'s label on a range change only when its SI prefix changes.

    pyqtgraph's ``AxisItem.setRange`` calls ``updateAutoSIPrefix``, which rebuilds the label
    (``setHtml``, a size change, a layout pass) on every range change even when the prefix
    and scale stay as they were; a live chart changes its range on nearly every edit (issue
    11). Here the ticks are redrawn as always, the label only when the prefix moves.
    """
    cls = type(axis)

    def update_auto_si_prefix() -> None:
        before = (axis.autoSIPrefixScale, axis.labelUnitPrefix)
        axis._updateLabel = _redraw_ticks(axis)  # type: ignore[method-assign]
        try:
            cls.updateAutoSIPrefix(axis)
        finally:
            del axis._updateLabel
        if (axis.autoSIPrefixScale, axis.labelUnitPrefix) != before:
            axis._updateLabel()
        else:
            _redraw_ticks(axis)()

    axis.updateAutoSIPrefix = update_auto_si_prefix  # type: ignore[method-assign]


def _redraw_ticks(axis: pg.AxisItem):  # noqa: ANN202 - a bound no-argument callable
    def redraw() -> None:
        axis.picture = None
        axis.update()

    return redraw


def still_axes(plot: pg.PlotWidget) -> None:
    """Paint ``plot``'s axes only when what they draw changes (issue 24).

    An axis with a grid covers the whole plot area (its lines are the axis's own drawing),
    so every repaint of anything in the plot (a bar, a curve, a line's label) replayed each
    such axis's recorded picture, every tick text and grid line again: about 2 ms an axis
    and a paint at 1366 x 768, four to twelve times an edit. Here each axis keeps what it
    drew as a pixmap (Qt's device-coordinate cache, redrawn when the axis calls ``update``:
    its range, ticks, label, pen or size changed) and a range set again as it was (the view
    box re-announces its range on many changes that keep it) does not make it draw again.
    """
    item = plot.getPlotItem()
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        _same_range_kept(axis)
        _grid_as_fills(axis)


def _grid_as_fills(axis: pg.AxisItem) -> None:
    """Draw ``axis``'s translucent tick and grid lines as filled rectangles, not lines.

    pyqtgraph draws them with ``drawLine``, antialiasing off, in a pen of reduced alpha;
    Qt's raster engine takes a per-pixel path for exactly that case: 45 grid lines across a
    900 x 480 log plot took 12 ms, the same as 1-pixel ``fillRect`` 0.06 ms (measured here,
    Qt 6 offscreen raster; an opaque pen 0.27 ms). A grid axis repaints whenever its range
    moves, so this was most of an edit's time on the log-log tabs (issue 24). A horizontal
    or vertical line of a solid, translucent pen becomes the rectangle it covers, in the
    same colour (the same pixels: non-antialiased, as pyqtgraph draws them; a line that falls
    on a pixel edge may land one pixel over); any other line, the axis line and the texts are
    drawn by pyqtgraph as before, and so is every line a scaled painter paints (an export at
    another size, a screen of more than one device pixel a pixel): a cosmetic pen stays one
    device pixel there, a fill would scale.
    """
    cls = type(axis)
    lines_only = [False]  # set while a scaled painter paints (an export, a scaled screen)

    def paint(p, opt, widget) -> None:  # noqa: ANN001 - QGraphicsItem.paint's
        t = p.deviceTransform()
        if abs(t.m11()) == 1 and abs(t.m22()) == 1 and t.m12() == 0 and t.m21() == 0:
            cls.paint(axis, p, opt, widget)
            return
        # scaled: a fill would scale with it (a PNG export at 1.8x blurred each grid line over
        # 2-3 pixels), a cosmetic pen stays one device pixel; drawn with pyqtgraph's lines,
        # and the unscaled picture kept for the screen
        kept, axis.picture, lines_only[0] = axis.picture, None, True
        try:
            cls.paint(axis, p, opt, widget)
        finally:
            axis.picture, lines_only[0] = kept, False

    def draw_picture(p, axis_spec, tick_specs, text_specs) -> None:  # noqa: ANN001 - pyqtgraph's
        if lines_only[0]:
            cls.drawPicture(axis, p, axis_spec, tick_specs, text_specs)
            return
        rest = []
        for pen, p1, p2 in tick_specs:
            colour = pen.color()
            solid = pen.brush().style() == Qt.BrushStyle.SolidPattern
            if not solid or colour.alpha() == 255 or (p1.x() != p2.x() and p1.y() != p2.y()):
                rest.append((pen, p1, p2))
                continue
            thick = max(pen.widthF(), 1.0)  # a width of 0 is a 1-pixel cosmetic line
            # Qt's default square cap reaches half the width past each end
            cap = thick / 2 if pen.capStyle() == Qt.PenCapStyle.SquareCap else 0.0
            if p1.y() == p2.y():  # horizontal
                x0, x1 = sorted((p1.x(), p2.x()))
                rect = QRectF(x0 - cap, p1.y() - thick / 2, x1 - x0 + 2 * cap, thick)
            else:
                y0, y1 = sorted((p1.y(), p2.y()))
                rect = QRectF(p1.x() - thick / 2, y0 - cap, thick, y1 - y0 + 2 * cap)
            p.fillRect(rect, colour)
        cls.drawPicture(axis, p, axis_spec, rest, text_specs)

    axis.drawPicture = draw_picture  # type: ignore[method-assign]
    axis.paint = paint  # type: ignore[method-assign]


def _same_range_kept(axis: pg.AxisItem) -> None:
    """``axis.setRange`` does nothing when the range and the axis's extent are unchanged.

    pyqtgraph's ``setRange`` throws the drawn picture away and asks for a paint on every
    call. The extent is part of the key: a grid reaches over the linked view, which can
    resize while the axis itself does not (the view box's ``sigResized`` calls this too).
    """
    cls, last = type(axis), {}

    def set_range(mn: float, mx: float) -> None:
        key = (mn, mx, axis.boundingRect().getRect())
        if axis.picture is not None and last.get("key") == key:
            return
        last["key"] = key
        cls.setRange(axis, mn, mx)

    axis.setRange = set_range  # type: ignore[method-assign]


def settle_view(plot: pg.PlotWidget) -> None:
    """Bring ``plot``'s auto range and view transform up to date now, not at its paint.

    pyqtgraph defers both to the start of the next paint (``prepareForPaint``); the items
    they move (lines, labels, texts) then ask for a paint of their own, and the plot is
    painted twice for one change (issue 24). Called after a redraw has set its items, the
    paint that follows is the only one.
    """
    plot.getPlotItem().vb.prepareForPaint()


#: Mantissas an axis top is rounded up to (each at most a third above the one before), so
#: the range and its tick labels stay put while an edit moves the top item a little.
NICE_MANTISSAS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_top(value: float) -> float:
    """The smallest ``m * 10**k`` of :data:`NICE_MANTISSAS` at or above ``value`` (> 0).

    A plot whose top follows its highest item exactly moves its axis, and repaints it with
    every tick text and grid line, at every keystroke (issue 24: about 3 ms of a 15 ms edit
    at 1366 x 768); rounded up to one of these steps it moves only when the item crosses
    one. ``value <= 0`` gives 1.0.
    """
    if not value > 0:
        return 1.0
    scale = 10.0 ** math.floor(math.log10(value))
    for mantissa in NICE_MANTISSAS:
        # the relative tolerance keeps 3.0 at 3.0 where 10**k * 3 rounds a hair above it
        if mantissa * scale >= value * (1 - 1e-12):
            return mantissa * scale
    return 10.0 * scale
