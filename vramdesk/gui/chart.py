"""The live breakdown chart: a stacked bar against the target GPU's capacity (SPEC §7).

Items are built once (one ``BarGraphItem`` per part, stacked through ``y0``, and two
``InfiniteLine``s for the capacity and the local GPU's free memory) and updated with
``setOpts`` / ``setPos``. Redraws are coalesced with a single-shot timer.
"""

from __future__ import annotations

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QVBoxLayout, QWidget
import pyqtgraph as pg
# isort: on

from vramdesk.core import views
from vramdesk.core.units import format_bytes, to_unit
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import tr_core
from vramdesk.gui.plotting import CornerLegend

#: Colours of the parts (weights, KV cache, activations, overhead), colour-blind safe (Okabe-Ito).
PART_COLOURS = {
    "weights": "#0072B2",
    "kv_cache": "#E69F00",
    "activations": "#009E73",
    "overhead": "#CC79A7",
}
#: The recurrent state of hybrid models (Mamba, gated DeltaNet), drawn only when present.
STATE_COLOUR = "#56B4E9"
REDRAW_DELAY_MS = 15
BAR_WIDTH = 0.6


class BreakdownChart(QWidget):
    """Stacked bar of the current breakdown with the capacity and free-memory lines."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.redraw_count = 0
        self.plot = pg.PlotWidget(background="w")
        self.plot.setObjectName("breakdown_plot")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.showGrid(y=True, alpha=0.25)
        self.plot.setXRange(-0.6, 1.8, padding=0)
        self.plot.getAxis("bottom").setTicks([[(0, self.tr("estimate (per GPU)"))]])
        self.legend_corner = CornerLegend(
            self.plot,
            "bottom-right",
            (10, 30),
            labelTextColor="#222",
            brush=pg.mkBrush(255, 255, 255, 220),
        )
        self.legend = self.legend_corner.legend
        self.bars = {key: self._make_bar(key) for key in PART_COLOURS}
        self.capacity_line = self._make_line("#c0392b", Qt.PenStyle.SolidLine)
        self.free_line = self._make_line("#2c3e50", Qt.PenStyle.DashLine)
        # bottom-anchored a little above its y, which is the highest of bar top and lines
        self.total_text = pg.TextItem(anchor=(0.5, 1.2), color="#222")
        self.plot.addItem(self.total_text)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self._timer = QTimer(self, singleShot=True, interval=REDRAW_DELAY_MS)
        self._timer.timeout.connect(self.redraw)
        for signal in (
            controller.breakdownChanged,
            controller.unitChanged,
            controller.localChanged,
        ):
            signal.connect(self.schedule)
        self.redraw()

    def _make_bar(self, key: str) -> pg.BarGraphItem:
        bar = pg.BarGraphItem(
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
            labelOpts={"position": 0.98, "color": colour, "anchors": [(1, 1), (1, 1)]},
        )
        self.plot.addItem(line)
        line.hide()
        return line

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
        if "state" in self.bars and b.state is None:  # no recurrent layers any more
            bar = self.bars.pop("state")
            self.legend.removeItem(bar)
            self.plot.removeItem(bar)
        for seg in segments:
            if seg.key not in self.bars:
                self.bars[seg.key] = self._make_bar(seg.key)
            self.bars[seg.key].setOpts(x=[0], y0=[seg.y0], height=[seg.height], width=BAR_WIDTH)
            self.legend.getLabel(self.bars[seg.key]).setText(
                f"{tr_core(seg.label)}: {format_bytes(seg.bytes, unit)}"
            )
        top = to_unit(b.total_bytes, unit)
        self.total_text.setText(self.tr("total {0}").format(format_bytes(b.total_bytes, unit)))
        highest = [
            top,
            self._set_line(
                self.capacity_line, self.controller.capacity_bytes(), self._capacity_label()
            ),
        ]
        t = self.controller.target
        # when the target is the local GPU's free memory, the capacity line already is that line
        free = (
            None if t.kind == "local" and t.which == "free" else self.controller.local_free_bytes()
        )
        highest.append(self._set_line(self.free_line, free, self.tr("local free")))
        # above every line: a line spans the whole width, so text at its height would cross it
        self.total_text.setPos(0, max(highest))
        self.plot.getAxis("left").setLabel(self.tr("memory per GPU ({0})").format(unit.label))
        self.plot.setYRange(0, max(highest), padding=0.12)

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
        line.setPos(to_unit(n_bytes, unit))
        line.label.setFormat(f"{name}: {format_bytes(n_bytes, unit)}")
        line.show()
        return to_unit(n_bytes, unit)
