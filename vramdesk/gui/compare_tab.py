"""The compare tab: several model presets side by side under the current workload (SPEC §7)."""

from __future__ import annotations

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
import pyqtgraph as pg
# isort: on

from vramdesk.core import views
from vramdesk.core.units import to_unit
from vramdesk.gui.chart import PART_COLOURS
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.library import PresetLibrary
from vramdesk.gui.plotting import CornerLegend

#: Width of one bar of a group; the four parts plus the total sit side by side.
GROUP_BAR = 0.16
SERIES = (*PART_COLOURS, "total")
#: The y range is the tallest bar times this: the legend (2 columns, 3 rows) sits above the bars.
LEGEND_HEADROOM = 1.6
SERIES_COLOURS = {**PART_COLOURS, "total": "#555555"}


class CompareTab(QWidget):
    """Checkable list of bundled and user model presets, grouped bars and a table."""

    def __init__(
        self, controller: ScenarioController, library: PresetLibrary, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.controller, self.library = controller, library
        self.rows: list[views.CompareRow] = []
        self.picker = QListWidget()
        self.picker.setObjectName("compare_picker")
        self.picker.itemChanged.connect(lambda _i: self._timer.start())
        self.plot = pg.PlotWidget(background="w")
        self.legend_corner = CornerLegend(
            self.plot,
            "top-left",
            (10, 5),
            labelTextColor="#222",
            brush=pg.mkBrush(255, 255, 255, 220),
            colCount=2,
        )
        self.legend = self.legend_corner.legend
        self.plot.showGrid(y=True, alpha=0.25)
        self.bars = {key: self._make_bar(key) for key in SERIES}
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("compare_table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.plot)
        right.addWidget(self.table)
        split = QSplitter()
        split.addWidget(self.picker)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        split.setSizes([170, 400])
        QVBoxLayout(self).addWidget(split)
        self._timer = QTimer(self, singleShot=True, interval=20)
        self._timer.timeout.connect(self.refresh)
        controller.breakdownChanged.connect(self._timer.start)
        controller.unitChanged.connect(self._redraw)  # same figures, other unit: no re-estimate
        library.presetsChanged.connect(self.fill_picker)
        self.rows: list = []
        self._choices: dict = {}
        self.fill_picker()

    def _make_bar(self, key: str) -> pg.BarGraphItem:
        bar = pg.BarGraphItem(x=[], height=[], width=GROUP_BAR, brush=SERIES_COLOURS[key])
        self.plot.addItem(bar)
        self.legend.addItem(bar, views.PART_TITLES[key])
        return bar

    def fill_picker(self) -> None:
        """List every model preset; keep the checked ones checked."""
        checked = set(self.checked_keys())
        self.picker.blockSignals(True)
        self.picker.clear()
        # the one scan of the preset directory: edits reuse it until presetsChanged
        self._choices = dict(self.library.model_choices())
        for key, preset in self._choices.items():
            item = QListWidgetItem(preset.name)
            item.setToolTip(preset.name)
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if key in checked else Qt.CheckState.Unchecked)
            self.picker.addItem(item)
        self.picker.blockSignals(False)
        # wide enough for the longest name (and the check box), within reason
        self.picker.setMinimumWidth(min(self.picker.sizeHintForColumn(0) + 28, 280))
        self._timer.start()

    def checked_keys(self) -> list[str]:
        """Picker keys of the checked presets, in list order."""
        items = (self.picker.item(i) for i in range(self.picker.count()))
        return [
            it.data(Qt.ItemDataRole.UserRole)
            for it in items
            if it.checkState() == Qt.CheckState.Checked
        ]

    def set_checked(self, keys: list[str]) -> None:
        """Check exactly ``keys`` and refresh now."""
        self.picker.blockSignals(True)
        for i in range(self.picker.count()):
            item = self.picker.item(i)
            on = item.data(Qt.ItemDataRole.UserRole) in keys
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self.picker.blockSignals(False)
        self.refresh()

    def refresh(self) -> None:
        """Estimate the checked presets under the current workload and redraw."""
        presets = [self._choices[k] for k in self.checked_keys() if k in self._choices]
        self.rows = self.controller.compare([(p.name, p.model, p.weights) for p in presets])
        self._redraw()

    def _redraw(self) -> None:
        self._draw_bars()
        self._fill_table()

    def _draw_bars(self) -> None:
        unit = self.controller.unit
        shown = [r for r in self.rows if r.breakdown is not None]
        for s, key in enumerate(SERIES):
            xs = [g + (s - 2) * GROUP_BAR for g in range(len(shown))]
            heights = [to_unit(self._bytes(r, key), unit) for r in shown]
            self.bars[key].setOpts(x=xs, height=heights, width=GROUP_BAR)
        numbers = [self.rows.index(r) + 1 for r in shown]  # the table's row numbers
        self.plot.getAxis("bottom").setTicks([[(g, str(n)) for g, n in enumerate(numbers)]])
        self.plot.setLabel("left", self.tr("memory per GPU ({0})").format(unit.label))
        tallest = max((to_unit(r.breakdown.total_bytes, unit) for r in shown), default=1.0)
        self.plot.setXRange(-0.6, max(len(shown) - 0.4, 0.6), padding=0)
        # room above the bars for the legend's three rows
        self.plot.setYRange(0, tallest * LEGEND_HEADROOM, padding=0)

    @staticmethod
    def _bytes(row: views.CompareRow, key: str) -> int:
        b = row.breakdown
        return b.total_bytes if key == "total" else getattr(b, key).bytes

    def _fill_table(self) -> None:
        header, rows = views.comparison_table(self.rows, self.controller.unit, exact=False)
        self.table.setColumnCount(len(header))
        self.table.setHorizontalHeaderLabels(header)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
