"""A plot legend pinned to a corner of the plot area, placed by our code rather than pyqtgraph's anchor.

``PlotItem.addLegend(offset=...)`` anchors the legend with ``GraphicsWidgetAnchor``, which
repositions it from the ViewBox's ``geometryChanged`` signal. Qt also emits that signal while it
tears a window down; the callback then touches a ViewBox whose C++ object is already gone and
raises "Internal C++ object (ViewBox) already deleted" inside the event loop (an intermittent
teardown error of our GUI tests). Here the legend is placed when the ViewBox resizes or the
legend's own size changes, and only while both C++ objects are alive.
"""

from __future__ import annotations

import pyqtgraph as pg
import shiboken6


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
        self.legend = pg.LegendItem(offset=None, **kwargs)  # no anchor: placed by place()
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
