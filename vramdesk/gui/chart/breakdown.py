"""The live breakdown chart: a stacked bar against the target GPU's capacity (SPEC §7).

Items are built once (one ``BarGraphItem`` per part, stacked through ``y0``, and two
``InfiniteLine``s for the capacity and the local GPU's free memory) and updated with
``setOpts`` / ``setPos``; a label, a text or the axis is touched only when what it shows
changes (pyqtgraph re-lays out the whole left axis on ``setLabel`` / ``setYRange``). Redraws
for new figures are done at once (the paint follows on the next turn of the event loop,
together with the rest of the window's); a unit, local-GPU or size change is coalesced to
the next turn (a zero-interval single-shot timer).
"""

from __future__ import annotations

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QVBoxLayout, QWidget
import pyqtgraph as pg
# isort: on

from vramdesk.core.present import views
from vramdesk.core.units import format_bytes, to_unit
from vramdesk.gui.chart.plotting import (
    SteadyBars,
    escape_html,
    nice_top,
    quiet_range_changes,
    settle_view,
    side_legend,
    still_axes,
)
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import tr_core
from vramdesk.gui.theme import ChartTheme, follow, style_legend, style_plot

#: Colours of the parts (weights, KV cache, activations, overhead), colour-blind safe (Okabe-Ito).
PART_COLOURS = {
    "weights": "#0072B2",
    "kv_cache": "#E69F00",
    "activations": "#009E73",
    "overhead": "#CC79A7",
}
#: The recurrent state of hybrid models (Mamba, gated DeltaNet), drawn only when present.
STATE_COLOUR = "#56B4E9"
#: 0: the next turn of the event loop (coalesces a burst without waiting).
REDRAW_DELAY_MS = 0
#: Pixels between the capacity label's anchor and the plot area's right edge.
LABEL_INSET_PX = 16
BAR_WIDTH = 0.6
#: x range of the plot: the bar (centred on 0) in the left part, room on its right for the
#: capacity and free-memory labels, which sit at the right end of their lines.
X_RANGE = (-0.4, 2.0)


class BreakdownChart(QWidget):
    """Stacked bar of the current breakdown with the capacity and free-memory lines."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.redraw_count = 0
        # colours: apply_theme (light or dark, as the system). No context menu: the view is
        # fixed (no mouse panning or zooming) and File exports the chart; pyqtgraph builds the
        # ViewBox's axis-range menu only when one is enabled (issue 11: about 2 ms at start-up)
        self.plot = pg.PlotWidget(enableMenu=False)
        self.plot.setObjectName("breakdown_plot")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.showGrid(y=True, alpha=0.25)
        # two tick levels (every 10 and every 5 GiB, say), not pyqtgraph's three: its third
        # (every 1 GiB under a 40 GiB top) is 12 to 80 unlabelled grid lines at 1-8 % opacity
        # (pyqtgraph's alpha for a third level: 255 / 3 x the grid's 0.25 x a spacing factor
        # up to 1), faint lines a tall plot shows as a finer grid; measuring and drawing them
        # was more than half of each redraw of the axis, which an edit that moves the top a
        # step costs (issue 24; tests/benchmarks/bench_paint.py)
        self.plot.getAxis("left").setStyle(maxTickLevel=1, maxTextLevel=1)
        self.plot.setXRange(*X_RANGE, padding=0)
        self.plot.getAxis("bottom").setTicks([[(0, self.tr("estimate (per GPU)"))]])
        quiet_range_changes(self.plot.getAxis("left"))
        still_axes(self.plot)
        # beside the plot area, not in it: it can cover no bar and no line label (issue 8)
        self.legend = side_legend(self.plot, labelTextColor="#222")
        self.bars = {key: self._make_bar(key) for key in PART_COLOURS}
        self.capacity_line = self._make_line("#c0392b", Qt.PenStyle.SolidLine)
        self.free_line = self._make_line("#2c3e50", Qt.PenStyle.DashLine)
        # the free-memory line is named in the legend (its label could only crowd the capacity's
        # on a low, narrow plot); this stand-in draws its sample there
        self.free_line.label.hide()
        self._free_sample = pg.PlotDataItem(pen=self.free_line.pen)
        # bottom-left-anchored a little above its y (the highest of bar top and lines), from the
        # bar's left edge rightwards: it stays inside the plot however narrow the plot is
        self.total_text = pg.TextItem(anchor=(0, 1.2), color="#222")
        self.plot.addItem(self.total_text)
        self.theme = follow(self.apply_theme)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self._timer = QTimer(self, singleShot=True, interval=REDRAW_DELAY_MS)
        self._timer.timeout.connect(self.redraw)
        self._shown: dict[object, object] = {}  # item -> what it shows (set only on change)
        # the room kept above the top item is in pixels: a new plot height re-plans it
        self.plot.getPlotItem().vb.sigResized.connect(self.schedule)
        # new figures: the items take them at once (the paint follows on the next turn of
        # the event loop, with the rest of the window's); other changes are coalesced
        controller.breakdownChanged.connect(self._on_breakdown_changed)
        for signal in (controller.unitChanged, controller.localChanged):
            signal.connect(self.schedule)
        self.redraw()

    def apply_theme(self, theme: ChartTheme) -> None:
        """Restyle the plot, legend, total and lines for ``theme`` (light or dark)."""
        self.theme = theme
        style_plot(self.plot, theme)
        style_legend(self.legend, theme)
        self.total_text.setColor(theme.foreground)
        for line, colour, style in (
            (self.capacity_line, theme.capacity, Qt.PenStyle.SolidLine),
            (self.free_line, theme.free, Qt.PenStyle.DashLine),
        ):
            line.setPen(pg.mkPen(colour, width=2, style=style))
            line.label.setColor(colour)
        self._free_sample.setPen(self.free_line.pen)
        self._shown = {}  # the texts are set again in the new colours at the next redraw
        if hasattr(self, "_timer"):  # not while building: __init__ redraws at its end
            self.schedule()

    def _make_bar(self, key: str) -> pg.BarGraphItem:
        bar = SteadyBars(
            x=[0],
            height=[0],
            y0=[0],
            width=BAR_WIDTH,
            brush=PART_COLOURS.get(key, STATE_COLOUR),
            pen=pg.mkPen("w", width=1),
        )
        self.plot.addItem(bar)
        self.legend.addItem(bar, key)
        return bar

    def _make_line(self, colour: str, style: object) -> pg.InfiniteLine:
        line = pg.InfiniteLine(
            angle=0,
            movable=False,
            pen=pg.mkPen(colour, width=2, style=style),
            label="",
            # at the right end, above the line (the bar is on the left)
            labelOpts={"position": 0.98, "color": colour, "anchors": [(1, 1), (1, 1)]},
        )
        self.plot.addItem(line)
        line.hide()
        return line

    def _on_breakdown_changed(self, *_args: object) -> None:
        self._timer.stop()
        self.redraw()

    def schedule(self, *_args: object) -> None:
        """Coalesce redraw requests: the chart redraws once after a burst of edits."""
        self._timer.start()

    def redraw(self) -> None:
        """Update the bars and lines from the controller's last valid results."""
        b = self.controller.breakdown
        if b is None:
            return
        unit = self.controller.unit
        self.redraw_count += 1
        segments = views.stacked_segments(b, unit)
        shown = {seg.key for seg in segments}
        for key in [k for k in self.bars if k not in shown and k not in PART_COLOURS]:
            bar = self.bars.pop(key)  # no recurrent layers or projector any more
            self.legend.removeItem(bar)
            self.plot.removeItem(bar)
        free = self._free_bytes()
        style = self._legend_style(len(segments) + (free is not None))
        for seg in segments:
            if seg.key not in self.bars:
                self.bars[seg.key] = self._make_bar(seg.key)
            self.bars[seg.key].setOpts(x=[0], y0=[seg.y0], height=[seg.height], width=BAR_WIDTH)
            # two lines (name, then size): a narrow legend leaves the plot its width
            label = self.legend.getLabel(self.bars[seg.key])
            text = f"{escape_html(tr_core(seg.label))}<br>{format_bytes(seg.bytes, unit)}"
            if self._changed(label, (text, tuple(sorted(style.items())))):
                label.setText(text, **style)
        top = to_unit(b.total_bytes, unit)
        total = self.tr("total {0}").format(format_bytes(b.total_bytes, unit))
        if self._changed(self.total_text, total):
            self.total_text.setText(total)
        capacity = self._set_line(
            self.capacity_line, self.controller.shown_capacity_bytes(), self._capacity_label()
        )
        free_height = self._set_line(self.free_line, free, "")
        self._show_free_in_legend(free, style)
        highest = max(top, capacity, free_height)
        axis_label = self.tr("memory per GPU ({0})").format(unit.label)
        if self._changed("left_axis", axis_label):
            self.plot.getAxis("left").setLabel(axis_label)
        self._place_texts(highest, capacity if self.capacity_line.isVisible() else None)
        settle_view(self.plot)

    def _place_texts(self, highest: float, capacity: float | None) -> None:
        """Keep pixel room above the top item for the capacity label and the total text.

        The capacity label sits above its line at the right end, the total text above every
        line (a line spans the whole width) from the bar's left edge. When the capacity line is
        near the top, the total text is raised over the label's height so the two never meet.
        """
        label_px = self.capacity_line.label.boundingRect().height()
        text_px = max(1.0, self.total_text.boundingRect().height())
        room_px = label_px + 1.3 * text_px + 4  # the label, then the raised total text
        plot_px = self.plot.getPlotItem().vb.height()
        if plot_px > 2 * room_px:
            y_max = highest * plot_px / (plot_px - room_px)
        else:  # not laid out yet, or tiny: a proportional margin
            y_max = highest * 1.5
        # rounded up to a step: the axis and its labels stay put while the top moves a little
        y_max = nice_top(y_max)
        raise_text = False
        if capacity is not None and plot_px > 0:
            gap_px = (highest - capacity) * plot_px / y_max
            raise_text = gap_px < label_px + 2
        lift = label_px / text_px if raise_text else 0.0
        if self._changed("total_anchor", lift):
            self.total_text.setAnchor((0, 1.2 + lift))
        # the label's right edge some pixels inside the plot's (the label draws a little right
        # of its anchor point, and the plot area clips what passes its edge)
        plot_width = self.plot.getPlotItem().vb.width()
        if plot_width > 0:
            position = max(0.5, 1 - LABEL_INSET_PX / plot_width)
            if self._changed("label_position", position):
                self.capacity_line.label.setPosition(position)
        if self._changed("total_pos", highest):
            self.total_text.setPos(-BAR_WIDTH / 2, highest)
        if self._changed("y_range", y_max):  # the axis re-lays out only when its range moves
            self.plot.setYRange(0, y_max, padding=0)

    def _changed(self, key: object, value: object) -> bool:
        """Remember ``value`` for ``key``; True when it differs from the last one."""
        if self._shown.get(key, self) == value:
            return False
        self._shown[key] = value
        return True

    def _free_bytes(self) -> int | None:
        """The local GPU's free memory to draw, None when there is none or it is the target."""
        t = self.controller.target
        # when the target is the local GPU's free memory, the capacity line already is that line
        if t.kind == "local" and t.which == "free":
            return None
        return self.controller.local_free_bytes()

    def _legend_style(self, entries: int) -> dict[str, str]:
        """Legend label options: a smaller type when the plot is too low for the entries.

        Each entry is two lines (name, then size), which keeps the legend narrow and leaves the
        plot its width; the type shrinks, rather than the legend being cut at the bottom.
        """
        font = QFont(self.font())
        points = font.pointSizeF() if font.pointSizeF() > 0 else 9.0
        room = self.plot.getPlotItem().vb.height()
        for size in (points, points * 0.85, points * 0.72):
            font.setPointSizeF(size)
            line_px = QFontMetrics(font).lineSpacing()
            if room <= 0 or entries * (2 * line_px + 3) + 10 <= room:
                break
        return {"size": f"{size:.1f}pt"}

    def _show_free_in_legend(self, free: int | None, style: dict[str, str]) -> None:
        """Name the local GPU's free memory in the legend while its line is shown."""
        listed = self.legend.getLabel(self._free_sample) is not None
        if free is None:
            if listed:
                self.legend.removeItem(self._free_sample)
            return
        if not listed:
            self.legend.addItem(self._free_sample, "")
        name = self.tr("local free")
        text = f"{name}<br>{format_bytes(free, self.controller.unit)}"
        label = self.legend.getLabel(self._free_sample)
        if not listed or self._changed(label, (text, tuple(sorted(style.items())))):
            self._shown[label] = (text, tuple(sorted(style.items())))
            label.setText(text, **style)

    def title_text(self) -> str:
        """What an exported chart is of: model, weights, workload, engine and GPU, one line."""
        c = self.controller
        wl = c.workload
        return self.tr("{0} · {1} weights · {2} tokens x {3} · {4} · {5}").format(
            c.preset_name or c.model.name or self.tr("custom model"),
            c.weights.label(),
            f"{wl.context_tokens:,}",
            wl.batch,
            c.runtime.engine.value,
            self._capacity_label(),
        )

    def _capacity_label(self) -> str:
        t = self.controller.target
        if t.kind == "gpu":
            return t.name
        if t.kind == "local":
            return self.tr("local GPU {0} ({1})").format(t.local_index, t.which)
        return self.tr("custom")

    def _set_line(self, line: pg.InfiniteLine, n_bytes: int | None, name: str) -> float:
        """Place ``line`` at ``n_bytes`` (hide it for None); return its height in display units."""
        if n_bytes is None:
            line.hide()
            return 0.0
        unit = self.controller.unit
        # shown first: pyqtgraph's label renders a new format only while it is visible, and the
        # format is set once per change, so a label set while hidden would stay empty
        line.show()
        if self._changed((line, "pos"), to_unit(n_bytes, unit)):
            line.setPos(to_unit(n_bytes, unit))
        # two short lines rather than one long one: the label stays clear of the bar
        text = f"{name}\n{format_bytes(n_bytes, unit)}" if name else ""
        if self._changed(line.label, text):
            line.label.setFormat(text)
        return to_unit(n_bytes, unit)
