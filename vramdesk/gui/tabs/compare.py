"""The compare tab: several model presets side by side under the current workload (SPEC §7).

The model the window shows is always the first group, so the tab is never empty; ticked
presets follow. Bars are named by model on the x axis, the target's capacity is drawn as a
line, the legend sits above the plot (never over a bar), and the table ends with whether
each fits the target's KV budget for the chosen engine (the headline question).

Hidden, the tab does no work on an edit: it refreshes when shown or when its rows are read
(:mod:`vramdesk.gui.tabs.deferred`); shown, on the next turn of the event loop. The table keeps
its items and sizes its columns once per refresh, not once per cell.
"""

from __future__ import annotations

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
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

from vramdesk.core.present import views
from vramdesk.core.units import format_bytes, to_unit
from vramdesk.gui.chart.breakdown import PART_COLOURS
from vramdesk.gui.chart.plotting import quiet_range_changes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import tr_core
from vramdesk.gui.panels.library import PresetLibrary
from vramdesk.gui.tabs.deferred import LazyBody, WhenShown
from vramdesk.gui.theme import ChartTheme, follow, style_plot

#: Width of one bar of a group; the four parts plus the total sit side by side.
GROUP_BAR = 0.16
SERIES = (*PART_COLOURS, "total")
SERIES_COLOURS = {**PART_COLOURS, "total": "#555555"}


class CompareTab(LazyBody, QWidget):
    """Checkable list of bundled and user model presets, grouped bars and a table.

    The widgets are built when the tab is first shown or used (:class:`LazyBody`).
    """

    LAZY = frozenset({"picker", "plot", "legend", "capacity_line", "bars", "theme", "table"})

    def __init__(
        self, controller: ScenarioController, library: PresetLibrary, parent: QWidget | None = None
    ) -> None:
        self._body_built = False
        super().__init__(parent)
        self.controller, self.library = controller, library
        self._rows: list[views.CompareRow] = []
        self.updates = WhenShown(self, self._compute, self._redraw)
        controller.breakdownChanged.connect(self.updates.request)
        # same figures, other unit: redrawn, not re-estimated
        controller.unitChanged.connect(self.updates.request_redraw)
        library.presetsChanged.connect(self._presets_changed)
        self._choices: dict = {}
        self._table_shape: tuple = ()
        self._shown: dict[str, object] = {}  # what the axes show (set only on change)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """Build the widgets before the first paint (hidden, the tab has none)."""
        self._ensure_body()
        super().showEvent(event)

    def _presets_changed(self) -> None:
        if self._body_built:  # an unbuilt picker is filled when it is built
            self.fill_picker()

    def _build_body(self) -> None:
        self.picker = QListWidget()
        self.picker.setObjectName("compare_picker")
        self.picker.itemChanged.connect(self.updates.request)
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("compare_plot")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        quiet_range_changes(self.plot.getAxis("left"))
        self.legend = QLabel()  # filled by apply_theme, in the theme's capacity colour
        self.legend.setObjectName("compare_legend")
        self.legend.setWordWrap(True)
        self.capacity_line = pg.InfiniteLine(
            angle=0,
            movable=False,
            pen=pg.mkPen("#c0392b", width=2),
            label="",
            labelOpts={"position": 0.98, "color": "#c0392b", "anchors": [(1, 1), (1, 1)]},
        )
        self.capacity_line.setZValue(10)
        self.plot.addItem(self.capacity_line)
        self.plot.showGrid(y=True, alpha=0.25)
        self.bars = {key: self._make_bar(key) for key in SERIES}
        self.theme = follow(self.apply_theme)
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("compare_table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().hide()
        right = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.legend)
        top_layout.addWidget(self.plot, 1)
        right.addWidget(top)
        right.addWidget(self.table)
        split = QSplitter()
        split.addWidget(self.picker)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        split.setSizes([170, 400])
        QVBoxLayout(self).addWidget(split)
        self.fill_picker()

    def apply_theme(self, theme: ChartTheme) -> None:
        """Restyle the plot, the capacity line and the legend line for ``theme``."""
        self.theme = theme
        style_plot(self.plot, theme)
        self.capacity_line.setPen(pg.mkPen(theme.capacity, width=2))
        self.capacity_line.label.setColor(theme.capacity)
        self.legend.setText(self._legend_html())

    def _make_bar(self, key: str) -> pg.BarGraphItem:
        bar = pg.BarGraphItem(x=[], height=[], width=GROUP_BAR, brush=SERIES_COLOURS[key])
        self.plot.addItem(bar)
        return bar

    def _legend_html(self) -> str:
        """The series names in their bar colours, as one line of text above the plot."""
        square = '<span style="color:{0}">&#9632;</span>&nbsp;{1}'
        entries = [square.format(SERIES_COLOURS[k], tr_core(views.PART_TITLES[k])) for k in SERIES]
        capacity = self.tr("capacity")
        line = f'<span style="color:{self.theme.capacity}">&#9472;&#9472;</span>&nbsp;{capacity}'
        return "&nbsp;&nbsp; ".join([*entries, line])

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
        self.updates.request()

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

    @property
    def rows(self) -> list[views.CompareRow]:
        """The compared rows: the shown model first, then the ticked presets (up to date)."""
        self.updates.ensure()
        return self._rows

    def refresh(self) -> None:
        """Estimate the shown model and the checked presets under the current workload, now."""
        self.updates.mark_fresh()
        self._compute()

    def _compute(self) -> None:
        c = self.controller
        presets = [self._choices[k] for k in self.checked_keys() if k in self._choices]
        shown = (
            self.tr("This model: {0}").format(c.preset_name or c.model.name),
            c.model,
            c.weights,
        )
        self._rows = c.compare([shown] + [(p.name, p.model, p.weights) for p in presets])
        self._redraw()

    def fits(self) -> list[str | None]:
        """Per row: the headline's answer on the target ("fits", "tight", "no"; None: none)."""
        return self.controller.compare_fits(self._rows)

    def _redraw(self) -> None:
        self._draw_bars()
        self._fill_table()

    def _draw_bars(self) -> None:
        unit = self.controller.unit
        shown = [r for r in self._rows if r.breakdown is not None]
        for s, key in enumerate(SERIES):
            xs = [g + (s - 2) * GROUP_BAR for g in range(len(shown))]
            heights = [to_unit(self._bytes(r, key), unit) for r in shown]
            self.bars[key].setOpts(x=xs, height=heights, width=GROUP_BAR)
        ticks = [[(g, _tick_name(r.name, len(shown))) for g, r in enumerate(shown)]]
        if self._changed("ticks", ticks):
            self.plot.getAxis("bottom").setTicks(ticks)
        axis = self.tr("memory per GPU ({0})").format(unit.label)
        if self._changed("axis", axis):  # the axis re-lays out on every setLabel
            self.plot.setLabel("left", axis)
        tallest = max((to_unit(r.breakdown.total_bytes, unit) for r in shown), default=1.0)
        capacity = self.controller.shown_capacity_bytes()
        # visible before its format is set: pyqtgraph renders a label's format only when shown
        self.capacity_line.setVisible(capacity is not None)
        if capacity is not None:
            cap = to_unit(capacity, unit)
            self.capacity_line.setPos(cap)
            self.capacity_line.label.setFormat(
                self.tr("capacity {0}").format(format_bytes(capacity, unit))
            )
            tallest = max(tallest, cap)
        # room right of the last group for the capacity label, clear of every bar
        x_max = max(len(shown) - 0.4, 0.6) + 0.9
        if self._changed("x_range", x_max):
            self.plot.setXRange(-0.6, x_max, padding=0)
        if self._changed("y_range", tallest):
            self.plot.setYRange(0, tallest * 1.08, padding=0)

    def _changed(self, key: str, value: object) -> bool:
        """Remember ``value`` for ``key``; True when it differs from the last one."""
        if self._shown.get(key, self) == value:
            return False
        self._shown[key] = value
        return True

    @staticmethod
    def _bytes(row: views.CompareRow, key: str) -> int:
        b = row.breakdown
        if key == "total":
            return b.total_bytes
        if key == "kv_cache":  # a hybrid's recurrent state is drawn with its KV cache
            return b.kv_cache.bytes + b.state_bytes
        return getattr(b, key).bytes

    def _fill_table(self) -> None:
        header, rows = views.comparison_table(
            self._rows, self.controller.unit, exact=False, fits=self.fits()
        )
        unit = self.controller.unit.label
        header = [  # the same columns, as a reader names them in the UI language
            self.tr("Preset"),
            *(f"{tr_core(views.PART_TITLES[k])} ({unit})" for k in views.part_columns(self._rows)),
            self.tr("Error"),
            self.tr("Verdict"),
        ]
        # the headline's three answers (views.comparison_table names them as the CLI does)
        words = {
            "fits": self.tr("fits"),
            "tight": self.tr("tight"),
            "does not fit": self.tr("does not fit"),
            "": "",
        }
        rows = [[*row[:-1], words[row[-1]]] for row in rows]
        errors = len(header) - 2
        if not any(row[errors] for row in rows):  # no column of blanks
            header.pop(errors)
            rows = [row[:errors] + row[errors + 1 :] for row in rows]
        table, head = self.table, self.table.horizontalHeader()
        shape = (tuple(header), len(rows))
        if shape != self._table_shape:  # columns or row count changed: rebuild the frame
            self._table_shape = shape
            table.setColumnCount(len(header))
            table.setHorizontalHeaderLabels(header)
            table.setRowCount(len(rows))
            for r in range(len(rows)):
                for c in range(len(header)):
                    item = QTableWidgetItem()
                    if c:
                        item.setTextAlignment(
                            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                        )
                    table.setItem(r, c, item)
        # fixed sizes while the cells change: a ResizeToContents header measures every column
        # again for every cell set; the columns are sized once below
        head.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = table.item(r, c)
                if item.text() != text:
                    item.setText(text)
                    item.setToolTip(text)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # names elide, totals stay
        for c in range(1, len(header)):
            head.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)


def _tick_name(name: str, groups: int) -> str:
    """A model name short enough for one bar group (the full name is in the table)."""
    room = max(8, 48 // max(groups, 1))
    return name if len(name) <= room else name[: room - 1] + "…"
