"""The speed tab: decode tokens/s against concurrency, with the memory limit (issue 25).

One log-log plot: the expected and ceiling decode tokens/s in all (rising) and per sequence
(falling) against the number of live sequences, the memory limit (the solver's max
concurrency on the target) as a vertical line with the region past it shaded, and the
concurrency from which the ceiling is compute bound as a dotted vertical line: where memory,
bandwidth and compute each stop the workload. The current workload is marked on both
expected curves. Below the plot, the assumptions every figure makes.

Every figure is :func:`vramdesk.core.speed_chart.speed_chart`'s (through the controller);
the tab draws them (log10 of a position is pyqtgraph's log-axis coordinate, not a figure).
Hidden, the tab does no work on an edit: it refreshes when shown (:mod:`.deferred`).
"""

from __future__ import annotations

import math

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
import pyqtgraph as pg
# isort: on

from vramdesk.gui.chart.plotting import FixedLegend, settle_view, still_axes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import tr_note
from vramdesk.gui.steady import SteadyHolder
from vramdesk.gui.tabs.deferred import LazyBody, WhenShown
from vramdesk.gui.theme import (
    TEXT_COLOURS,
    ChartTheme,
    follow,
    legend_font_to_axes,
    style_legend,
    style_plot,
)

#: Okabe-Ito: all sequences together, one sequence.
AGGREGATE_COLOUR = "#0072B2"
PER_SEQUENCE_COLOUR = "#E69F00"
COMPUTE_COLOUR = "#009E73"
#: How long a shown chart waits for the solve of a new breakdown before drawing without it.
SOLVE_WAIT_MS = 150
#: Padding of both log ranges, a fraction of the span on each side: the ranges end on a tick
#: (a power of 4, a half-decade) and pyqtgraph drops a tick label that would cross the axis's
#: end, so the end labels (``1K``, ``10,000``) need this room even on a short plot
EDGE_PADDING = 0.08


class SpeedChartTab(LazyBody, QWidget):
    """Decode tokens/s (log) against concurrency (log), the memory and compute limits.

    Attributes (once built)
    -----------------------
    curves : dict
        ``"aggregate_expected"``, ``"aggregate_ceiling"``, ``"per_sequence_expected"``,
        ``"per_sequence_ceiling"`` -> the ``PlotDataItem`` drawing that series.
    memory_line, compute_line : pg.InfiniteLine
        The memory limit and the first compute-bound concurrency (hidden when there is none).
    chart : SpeedChart or None
        The figures last drawn.
    """

    LAZY = frozenset(
        {"plot", "legend", "curves", "memory_line", "compute_line", "past_memory", "current"}
        | {"note", "assumptions", "theme"}
    )

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        self._body_built = False
        super().__init__(parent)
        self.controller = controller
        self.chart = None
        self._drawn: dict[str, object] = {}  # what the axes and lines show (set on change)
        self.updates = WhenShown(self, self.refresh)
        # the chart's concurrencies and its memory line are the solve's, which arrives after
        # the breakdown (off-thread): a new breakdown makes the chart stale and the solve that
        # follows every one (solveChanged) draws it, once an edit. A solve still running after
        # SOLVE_WAIT_MS (a huge model's) lets the chart draw with the last limit meanwhile.
        self._solve_wait = QTimer(self, singleShot=True, interval=SOLVE_WAIT_MS)
        self._solve_wait.timeout.connect(self.updates.request)
        controller.breakdownChanged.connect(self._on_breakdown_changed)
        controller.solveChanged.connect(self._on_solve_changed)

    def _on_breakdown_changed(self, *_args: object) -> None:
        self.updates.mark_stale()
        if self.isVisible():
            self._solve_wait.start()

    def _on_solve_changed(self, *_args: object) -> None:
        self._solve_wait.stop()
        self.updates.request()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """Build the widgets before the first paint (hidden, the tab has none)."""
        self._ensure_body()
        super().showEvent(event)

    def _build_body(self) -> None:
        self.plot = pg.PlotWidget(enableMenu=False)
        self.plot.setObjectName("speed_plot")
        still_axes(self.plot)
        self.plot.setLogMode(x=True, y=True)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("bottom", self.tr("concurrency (live sequences)"))
        self.plot.setLabel("left", self.tr("decode tokens/s"))
        # the tokens/s labels change width with nearly every edit: a y axis that narrowed for
        # them re-laid out the plot and drew both axes and the plot again, three paints an
        # edit; it widens as a label needs, and keeps that width
        self.plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.past_memory = pg.LinearRegionItem(
            movable=False, brush=pg.mkBrush(192, 57, 43, 28), pen=pg.mkPen(None)
        )
        self.plot.addItem(self.past_memory)
        specs = {
            "aggregate_expected": (
                AGGREGATE_COLOUR,
                Qt.PenStyle.SolidLine,
                self.tr("total, expected"),
            ),
            "aggregate_ceiling": (
                AGGREGATE_COLOUR,
                Qt.PenStyle.DashLine,
                self.tr("total, ceiling"),
            ),
            "per_sequence_expected": (
                PER_SEQUENCE_COLOUR,
                Qt.PenStyle.SolidLine,
                self.tr("per seq., expected"),
            ),
            "per_sequence_ceiling": (
                PER_SEQUENCE_COLOUR,
                Qt.PenStyle.DashLine,
                self.tr("per seq., ceiling"),
            ),
        }
        # below the plot, in two columns: never over a curve, whatever the figures
        self.legend = FixedLegend(offset=None, colCount=2, labelTextColor="#222")
        item = self.plot.getPlotItem()
        item.layout.addItem(self.legend, 4, 1)
        item.legend = self.legend
        self.curves = {}
        for key, (colour, style, name) in specs.items():
            curve = self.plot.plot([], [], pen=pg.mkPen(colour, width=2, style=style))
            self.legend.addItem(curve, name)
            self.curves[key] = curve
        self.current = self.plot.plot(
            [],
            [],
            pen=None,
            symbol="o",
            symbolSize=10,
            symbolPen=pg.mkPen("#222", width=2),
            symbolBrush=pg.mkBrush("#ffffff"),
        )
        self.legend.addItem(self.current, self.tr("this workload"))
        self.memory_line = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen("#c0392b", width=2),
            label="",
            # left of the line in the plot's right half, right of it in the left half (a
            # limit of 1 sequence is the plot's left edge: a label left of it was cut off)
            labelOpts={"position": 0.6, "color": "#c0392b", "anchors": [(0, 0.5), (1, 0.5)]},
        )
        self.compute_line = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen(COMPUTE_COLOUR, width=2, style=Qt.PenStyle.DotLine),
            label="",
            labelOpts={"position": 0.04, "color": COMPUTE_COLOUR, "anchors": [(0, 1), (1, 1)]},
        )
        for line in (self.memory_line, self.compute_line):
            self.plot.addItem(line)
            line.hide()
        legend_font_to_axes(self.plot, self.legend)
        self.theme = follow(self.apply_theme)
        self.note = QLabel()
        self.note.setObjectName("speed_chart_note")
        self.note.setWordWrap(True)
        self.assumptions = QLabel()
        self.assumptions.setObjectName("speed_chart_assumptions")
        self.assumptions.setWordWrap(True)
        small = self.assumptions.font()
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        self.assumptions.setFont(small)
        layout = QVBoxLayout(self)
        # both are rewritten at each edit: the pane re-lays out only for another line (steady.py)
        layout.addWidget(SteadyHolder(self.note))
        layout.addWidget(self.plot, 1)
        layout.addWidget(SteadyHolder(self.assumptions))

    def apply_theme(self, theme: ChartTheme) -> None:
        """Restyle the plot, legend, memory line and marker for ``theme``."""
        self.theme = theme
        style_plot(self.plot, theme)
        style_legend(self.legend, theme)
        self.memory_line.setPen(pg.mkPen(theme.capacity, width=2))
        self.memory_line.label.setColor(theme.capacity)
        # the knee's label in the scheme's green text (the line's #009E73 read 3.4:1 on white)
        light, dark = TEXT_COLOURS["ok"]
        self.compute_line.label.setColor(dark if theme.scheme == "dark" else light)
        self.current.setSymbolPen(pg.mkPen(theme.marker, width=2))
        self.current.setSymbolBrush(pg.mkBrush(theme.background))

    def refresh(self) -> None:
        """Ask the core for the chart's figures and draw them, now."""
        self._ensure_body()
        self._solve_wait.stop()
        self.updates.mark_fresh()
        chart = self.controller.speed_chart()
        if chart is None or not hasattr(chart, "points"):  # no catalog GPU, or a missing fact
            self.chart = None
            self.note.setText(
                self.tr("Speed: pick a catalog GPU (its bandwidth and peak).")
                if chart is None
                else chart.lines()[0]
            )
            self.note.show()
            self.assumptions.setText("")
            for curve in (*self.curves.values(), self.current):
                curve.setData([], [])
            for line in (self.memory_line, self.compute_line, self.past_memory):
                line.hide()
            return
        self.chart = chart
        self._draw(chart)

    def _draw(self, chart) -> None:  # noqa: ANN001 - a SpeedChart
        xs = [p.batch for p in chart.points]
        series = {
            "aggregate_expected": [p.aggregate_decode_tokens_per_s for p in chart.points],
            "aggregate_ceiling": [p.aggregate_ceiling_tokens_per_s for p in chart.points],
            "per_sequence_expected": [p.decode_tokens_per_s for p in chart.points],
            "per_sequence_ceiling": [p.decode_ceiling_tokens_per_s for p in chart.points],
        }
        for key, ys in series.items():
            self.curves[key].setData(xs, ys)
        at = next(p for p in chart.points if p.batch == chart.current)
        self.current.setData(
            [chart.current] * 2, [at.aggregate_decode_tokens_per_s, at.decode_tokens_per_s]
        )
        limit = chart.memory_limit
        x_top = power_of_4_at_least(xs[-1])  # where the x axis ends (below)
        # a limit past the chart's reach (MAX_REACH concurrencies) is in the note above the
        # plot only: its line and the shading past it were drawn at the plot's right edge
        if limit and limit <= xs[-1]:
            # shown first: pyqtgraph's label renders a new format only while it is visible
            self.memory_line.show()
            if self._changed("memory_pos", limit):
                self.memory_line.setPos(math.log10(limit))
            label = (
                self.tr("memory limit\n1 sequence")
                if limit == 1
                else self.tr("memory limit\n{0} sequences").format(f"{limit:,}")
            )
            if self._changed("memory_label", label):
                self.memory_line.label.setFormat(label)
            # shaded to the axis's end (a power of 4 at or above the last point)
            region = (math.log10(limit), math.log10(x_top))
            if self._changed("past_memory", region):
                self.past_memory.setRegion(region)
            self.past_memory.show()
        else:
            self.memory_line.hide()
            self.past_memory.hide()
        if chart.compute_bound_from is not None:
            self.compute_line.show()
            if self._changed("compute_pos", chart.compute_bound_from):
                self.compute_line.setPos(math.log10(chart.compute_bound_from))
            label = self.tr("compute bound\nfrom {0}").format(f"{chart.compute_bound_from:,}")
            if self._changed("compute_label", label):
                self.compute_line.label.setFormat(label)
        else:
            self.compute_line.hide()
        if limit == 0:
            self.note.setText(self.tr("Not even one sequence fits on {0}.").format(chart.gpu))
        elif limit is None:
            self.note.setText(self.tr("The memory limit follows when the solve is done."))
        elif limit == 1:
            self.note.setText(
                self.tr(
                    "Decode on {0} at {1} tokens per sequence; memory holds 1 sequence."
                ).format(chart.gpu, f"{chart.context:,}")
            )
        else:
            self.note.setText(
                self.tr(
                    "Decode on {0} at {1} tokens per sequence; memory holds {2} sequences."
                ).format(chart.gpu, f"{chart.context:,}", f"{limit:,}")
            )
        self.note.show()
        self.assumptions.setText(
            "\n".join(self.tr("Assumes: {0}").format(tr_note(a)) for a in chart.assumptions)
        )
        # the axis is drawn again on every setTicks and range change: only when they change,
        # and the range ends on the power of 4 at or above the last point (a tick), so it
        # moves only when the reach crosses one, not with every memory limit (issue 24)
        ranges = {}
        if self._changed("ticks", x_top):
            self.plot.getAxis("bottom").setTicks([concurrency_ticks(x_top), []])
            ranges["xRange"] = (0, math.log10(x_top))
        # the tokens/s range in whole half-decades, not pyqtgraph's auto range: an auto range
        # follows every curve's ends, and moved and drew the y axis (labels and grid) at
        # nearly every keystroke (issue 24)
        y_range = half_decades([y for ys in series.values() for y in ys])
        if y_range is not None and self._changed("y_range", y_range):
            self.plot.getAxis("left").setTicks(tokens_ticks(*y_range))
            ranges["yRange"] = y_range
        if ranges:  # both in one change: each setXRange / setYRange re-maps every item
            self.plot.setRange(**ranges, padding=EDGE_PADDING)
        settle_view(self.plot)

    def _changed(self, key: str, value: object) -> bool:
        """Remember ``value`` for ``key``; True when it differs from the last one."""
        if self._drawn.get(key, self) == value:
            return False
        self._drawn[key] = value
        return True


def power_of_4_at_least(n: int) -> int:
    """The smallest power of 4 at or above ``n`` (>= 1), in integers: 5 -> 16, 4,096 -> 4,096."""
    return 4 ** (((n - 1).bit_length() + 1) // 2)


def half_decades(values: list[float]) -> tuple[float, float] | None:
    """log10 bounds of the positive ``values``, widened to whole half-decades.

    ``(floor(2 log10 lo) / 2, ceil(2 log10 hi) / 2)``, as the log-mode axis expects; None when
    no value is positive. Equal bounds are widened by half a decade above.
    """
    positive = [v for v in values if v > 0]
    if not positive:
        return None
    lo = math.floor(2 * math.log10(min(positive))) / 2
    hi = math.ceil(2 * math.log10(max(positive))) / 2
    return (lo, hi if hi > lo else lo + 0.5)


def tokens_ticks(lo: float, hi: float) -> list[list[tuple[float, str]]]:
    """Ticks of the log tokens/s axis from ``10**lo`` to ``10**hi``, in plain digits.

    Three levels, as ``AxisItem.setTicks`` takes them: each power of ten, labelled
    (``100``, ``5,000`` style: ``1,000``; ``0.1``); 2 and 5 times each, labelled where
    pyqtgraph finds room for the level's texts (it always draws the first); 3, 4, 6, 7, 8,
    9 times, unlabelled (grid lines). pyqtgraph's own log ticks labelled those too, and
    wrote ``5·10¹``, ``6``, ``7``, ``8``, ``9``, ``10²`` over each other in the top decade of
    a short plot.
    """
    levels: list[list[tuple[float, str]]] = [[], [], []]
    for k in range(math.floor(lo) - 1, math.ceil(hi) + 1):
        for m in range(1, 10):
            pos = k + math.log10(m)
            if lo - 1e-9 <= pos <= hi + 1e-9:
                value = m * 10.0**k
                text = f"{value:,.0f}" if value >= 1 else f"{value:g}"
                level = 0 if m == 1 else 1 if m in (2, 5) else 2
                levels[level].append((pos, text if level < 2 else ""))
    return levels


def concurrency_ticks(hi: int) -> list[tuple[float, str]]:
    """Labelled ticks for the log concurrency axis: 1, 4, 16, 64, 256, 1K, 4K up to ``hi``.

    Positions are log10 of the concurrency, as the log-mode axis expects.
    """
    out = []
    value = 1
    while value <= hi:
        out.append((math.log10(value), f"{value // 1024}K" if value >= 1024 else str(value)))
        value *= 4
    return out
