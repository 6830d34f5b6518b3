"""The KV-growth tab: KV cache over context for several concurrencies (SPEC §7).

A log-log plot (one curve per concurrency, the KV budget on the target drawn as a line —
the room left after weights and overhead, not the whole card — and the current workload
marked)
and the source documents' grid: contexts 2048 / 8192 / 32768 / 131072 x
concurrency 1 / 8 / 32, each cell the core's KV bytes for that workload.

Hidden, the tab does no work on an edit: it refreshes when shown, or when its grid is read
(:mod:`vramdesk.gui.tabs.deferred`); shown, on the next turn of the event loop.
"""

from __future__ import annotations

import math

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
import pyqtgraph as pg
# isort: on

from vramdesk.core.present import views
from vramdesk.core.solve.verdict import usable_sentence
from vramdesk.core.units import format_bytes, to_unit
from vramdesk.gui.chart.plotting import CornerLegend, settle_view, still_axes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import sentence_text
from vramdesk.gui.steady import SteadyHolder
from vramdesk.gui.tabs.deferred import LazyBody, WhenShown
from vramdesk.gui.theme import (
    ChartTheme,
    follow,
    legend_font_to_axes,
    style_legend,
    style_plot,
    tint,
)

#: One colour per curve slot (Okabe-Ito): the grid's concurrencies, then the current one.
CURVE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")


class KvGrowthTab(LazyBody, QWidget):
    """KV GiB over context (log axes) and the source grid as a table.

    The widgets are built when the tab is first shown or used (:class:`LazyBody`).
    """

    LAZY = frozenset(
        {"plot", "legend_corner", "legend", "slots", "capacity", "current", "theme"}
        | {"budget_note", "table"}
    )

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        self._body_built = False
        super().__init__(parent)
        self.controller = controller
        self.curves: dict[int, pg.PlotDataItem] = {}
        self._series: dict[int, list[int]] = {}
        self._contexts: list[int] = []
        self._axis_label = ""
        self._context_ticks: list = []
        self._drawn_unit = None  # the unit the curves and the grid were last drawn in
        self.updates = WhenShown(self, self._compute, self._draw)
        controller.breakdownChanged.connect(self.updates.request)
        # same figures, other unit: redrawn, not re-estimated
        controller.unitChanged.connect(self.updates.request_redraw)
        # the KV budget line is the solve's, which arrives after the breakdown (off-thread)
        controller.solveChanged.connect(self.updates.request_redraw)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """Build the widgets before the first paint (hidden, the tab has none)."""
        self._ensure_body()
        super().showEvent(event)

    def _build_body(self) -> None:
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("kv_plot")
        still_axes(self.plot)
        self.plot.setLogMode(x=True, y=True)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("bottom", self.tr("context (tokens per sequence)"))
        self.legend_corner = CornerLegend(
            self.plot,
            "top-left",
            (30, 30),
            labelTextColor="#222",
            brush=pg.mkBrush(255, 255, 255, 220),
        )
        self.legend = self.legend_corner.legend
        # a fixed set of curves, built once: one slot per grid concurrency, one for the current
        self.slots = [
            self.plot.plot([], [], pen=pg.mkPen(colour, width=2)) for colour in CURVE_COLOURS
        ]
        self.capacity = self.plot.plot(
            [], [], pen=pg.mkPen("#c0392b", width=2), name=self.tr("KV budget")
        )
        # a data item (not a bare scatter) so that it follows the log axes
        self.current = self.plot.plot(
            [],
            [],
            pen=None,
            symbol="o",
            symbolSize=11,
            symbolPen=pg.mkPen("#222", width=2),
            symbolBrush=pg.mkBrush("#ffffff"),
            name=self.tr("this workload"),
        )
        legend_font_to_axes(self.plot, self.legend)
        self.theme = follow(self.apply_theme)
        self.budget_note = QLabel()
        self.budget_note.setObjectName("kv_budget_note")
        self.budget_note.setWordWrap(True)
        tint(self.budget_note, "error")
        self.budget_note.hide()
        self.table = QTableWidget(0, len(views.SOURCE_GRID_BATCHES))
        self.table.setObjectName("kv_grid")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.addWidget(SteadyHolder(self.budget_note))  # rewritten at each edit (steady.py)
        layout.addWidget(self.plot, 2)
        layout.addWidget(self.table, 1)

    def apply_theme(self, theme: ChartTheme) -> None:
        """Restyle the plot, legend, KV budget line and marker for ``theme``."""
        self.theme = theme
        style_plot(self.plot, theme)
        style_legend(self.legend, theme)
        self.capacity.setPen(pg.mkPen(theme.capacity, width=2))
        self.current.setSymbolPen(pg.mkPen(theme.marker, width=2))
        self.current.setSymbolBrush(pg.mkBrush(theme.background))

    def batches(self) -> list[int]:
        """The source grid's concurrencies, then the current one when it is not among them."""
        batches = list(views.SOURCE_GRID_BATCHES)
        current = self.controller.workload.batch
        return batches if current in batches else [*batches, current]

    def refresh(self) -> None:
        """Recompute the curves and the grid from the core (through the controller), now."""
        self.updates.mark_fresh()
        self._compute()

    def _compute(self) -> None:
        if self.controller.breakdown is None:
            return
        limit = max(
            self.controller.model.max_position_embeddings or 0, views.SOURCE_GRID_CONTEXTS[-1]
        )
        # the grid's contexts are among the curves' points: one kv_growth call serves both
        contexts = sorted(set(views.growth_contexts(limit)) | set(views.SOURCE_GRID_CONTEXTS))
        series = self.controller.kv_growth(contexts, self.batches())
        drawn = (self._contexts, self._series, self._drawn_unit)
        if (contexts, series, self.controller.unit) == drawn:
            # the curves and the grid are as drawn (an edit of the context moves only this
            # workload's point): their items are not set again (issue 24)
            self._draw_budget(contexts)
            settle_view(self.plot)
            return
        self._contexts, self._series = contexts, series
        self._draw()

    def _draw(self) -> None:
        """Draw the last computed curves, capacity line and grid in the current unit."""
        if not self._series:
            return
        contexts, unit, batches = self._contexts, self.controller.unit, self.batches()
        self._drawn_unit = unit
        self.curves = dict(zip(batches, self.slots, strict=False))
        for i, curve in enumerate(self.slots):
            batch = batches[i] if i < len(batches) and batches[i] in self._series else None
            ys = [] if batch is None else [to_unit(v, unit) for v in self._series[batch]]
            curve.setData(contexts if ys else [], ys)
            self._label(curve, batch)
        axis = self.tr("KV cache ({0})").format(unit.label)
        if axis != self._axis_label:  # the axis re-lays out on every setLabel
            self._axis_label = axis
            self.plot.setLabel("left", axis)
        ticks = [context_ticks(contexts[0], contexts[-1]), []]
        if ticks != self._context_ticks:
            self._context_ticks = ticks
            self.plot.getAxis("bottom").setTicks(ticks)
        self._draw_budget(contexts)
        settle_view(self.plot)
        self._fill_grid()

    def budget_bytes(self) -> int | None:
        """The KV budget on the target (after weights, overhead and activations), or None."""
        result = self.controller.solve_result
        return None if result is None else result.kv_budget_bytes

    def _draw_budget(self, contexts: list[int]) -> None:
        """The KV budget line, the current workload's point, and a note when there is no room."""
        c, unit = self.controller, self.controller.unit
        budget = self.budget_bytes()
        ys = [to_unit(budget, unit)] * 2 if budget is not None and budget > 0 else []
        self.capacity.setData([contexts[0], contexts[-1]] if ys else [], ys)
        kv = c.breakdown.kv_cache.bytes if c.breakdown is not None else 0
        at = [c.workload.context_tokens] if kv > 0 else []
        self.current.setData(at, [to_unit(kv, unit)] if at else [])
        result = c.solve_result
        if result is not None and (budget is None or budget <= 0):
            self.budget_note.setText(
                self.tr("No KV budget on this GPU: {0}").format(
                    sentence_text(usable_sentence(result, unit))
                )
            )
            self.budget_note.show()
        else:
            self.budget_note.hide()

    def _label(self, curve: pg.PlotDataItem, batch: int | None) -> None:
        """Name the slot's legend entry in place; an unused slot has none (no stale entries)."""
        label = self.legend.getLabel(curve)
        if batch is None:
            if label is not None:
                self.legend.removeItem(curve)
            return
        name = self.tr("{0} concurrent").format(batch)
        if label is None:
            self.legend.addItem(curve, name)
        elif label.text != name:
            label.setText(name)
        curve.opts["name"] = name

    def _fill_grid(self) -> None:
        contexts, batches = views.SOURCE_GRID_CONTEXTS, views.SOURCE_GRID_BATCHES
        at = [self._contexts.index(c) for c in contexts]
        grid = {b: [self._series[b][i] for i in at] for b in batches}
        unit = self.controller.unit
        self.table.setRowCount(len(contexts))
        self.table.setHorizontalHeaderLabels([self.tr("{0} concurrent").format(b) for b in batches])
        self.table.setVerticalHeaderLabels([f"{c:,}" for c in contexts])
        for col, batch in enumerate(batches):
            for row, n_bytes in enumerate(grid[batch]):
                item = QTableWidgetItem(format_bytes(n_bytes, unit, 3))
                item.setData(Qt.ItemDataRole.UserRole, n_bytes)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)

    def grid_bytes(self) -> dict[int, list[int]]:
        """Batch -> KV bytes per context, as the table holds them (brought up to date first)."""
        self.updates.ensure()
        return {
            b: [
                self.table.item(r, c).data(Qt.ItemDataRole.UserRole)
                for r in range(self.table.rowCount())
            ]
            for c, b in enumerate(views.SOURCE_GRID_BATCHES)
        }


def context_ticks(lo: int, hi: int) -> list[tuple[float, str]]:
    """Labelled ticks for a log context axis: 128, 512, 2K, 8K, 32K, 128K ... (the grid's).

    pyqtgraph's own log ticks label minor steps too and run into each other on a narrow
    tab; positions are log10 of the context, as the log-mode axis expects.
    """
    out = []
    for power in range(1, 40, 2):
        value = 2**power
        if lo <= value <= hi:
            text = (
                f"{value // 2**20}M"
                if value >= 2**20
                else (f"{value // 2**10}K" if value >= 2**10 else str(value))
            )
            out.append((math.log10(value), text))
    return out
