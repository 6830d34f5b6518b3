"""The compare tab: several model presets side by side under the current workload (SPEC §7).

The model the window shows is always the first row, so the tab is never empty; ticked presets
follow. The view is laid out for reading (issue 23, item 5): shown, the tab takes the window's
full width beside the inputs (:meth:`MainWindow._widen_for`); the picker and the chart share
the top, the table the whole width below. The chart has one horizontal bar per model, its
parts stacked (the bar ends at the model's total, the figure the capacity line is read
against), and the model names are the y axis's labels, each on its own line and never cut
(a name wider than a third of the plot is wrapped at a separator). The capacity is a vertical
line named, with its figure, in the legend line above the plot, so no label lies over a bar.
The table ends with the headline's verdict on the target (fits / tight / does not fit).

Hidden, the tab does no work on an edit: it refreshes when shown or when its rows are read
(:mod:`vramdesk.gui.tabs.deferred`); shown, on the next turn of the event loop. The table keeps
its items and sizes its columns once per refresh, not once per cell.
"""

from __future__ import annotations

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent, QShowEvent
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
from vramdesk.gui.chart.plotting import escape_html, quiet_range_changes, settle_view, still_axes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import tr_core
from vramdesk.gui.panels.library import PresetLibrary
from vramdesk.gui.steady import SteadyHolder
from vramdesk.gui.tabs.deferred import LazyBody, WhenShown
from vramdesk.gui.theme import ChartTheme, follow, style_plot

#: Thickness of a model's bar, in rows (the rest of its row is the gap to the next) ...
BAR_THICKNESS = 0.6
#: ... and at most this many pixels: a tall plot keeps bars of a bar's weight, not slabs.
BAR_MAX_PX = 24
#: The stacked parts, left to right (a hybrid's recurrent state is drawn with its KV cache).
SERIES = tuple(PART_COLOURS)
SERIES_COLOURS = dict(PART_COLOURS)
#: The widest a model name may be before it is wrapped, as a share of the plot's width.
NAME_SHARE = 1 / 3


class CompareTab(LazyBody, QWidget):
    """Checkable list of bundled and user model presets, grouped bars and a table.

    The widgets are built when the tab is first shown or used (:class:`LazyBody`).
    """

    LAZY = frozenset("picker plot legend capacity_line bars theme table split".split())

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
        self.picker.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # past 240 px: fill_picker
        self.picker.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.picker.itemChanged.connect(self.updates.request)
        self.plot = pg.PlotWidget(enableMenu=False)
        self.plot.setObjectName("compare_plot")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.getPlotItem().invertY(True)  # the first model on top, as in the table
        quiet_range_changes(self.plot.getAxis("bottom"))
        still_axes(self.plot)
        self.legend = QLabel()  # filled by apply_theme and _draw_bars
        self.legend.setObjectName("compare_legend")
        self.legend.setWordWrap(True)
        self.capacity_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#c0392b"))
        self.capacity_line.setZValue(10)
        self.plot.addItem(self.capacity_line)
        self.plot.showGrid(x=True, alpha=0.25)
        # the major grid lines only: the minor ones striped the long bars every 10 GiB
        self.plot.getAxis("bottom").setStyle(maxTickLevel=0)
        self.bars = {key: self._make_bar(key) for key in SERIES}
        self.theme = follow(self.apply_theme)
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("compare_table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setWordWrap(False)  # one line a row: seven models fit under the chart
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        chart = QWidget()
        chart_layout = QVBoxLayout(chart)
        chart_layout.setContentsMargins(0, 0, 0, 0)
        chart_layout.addWidget(SteadyHolder(self.legend))  # rewritten at edits (steady.py)
        chart_layout.addWidget(self.plot, 1)
        top = QSplitter()
        top.setChildrenCollapsible(False)
        top.addWidget(self.picker)
        top.addWidget(chart)
        top.setStretchFactor(1, 1)
        self.split = QSplitter(Qt.Orientation.Vertical)  # the chart over the full-width table
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(top)
        self.split.addWidget(self.table)
        self.split.setStretchFactor(0, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.split)
        self.plot.getPlotItem().vb.sigResized.connect(self._fit_names)
        self.fill_picker()

    def apply_theme(self, theme: ChartTheme) -> None:
        """Restyle the plot, the capacity line and the legend line for ``theme``."""
        self.theme = theme
        style_plot(self.plot, theme)
        self.capacity_line.setPen(pg.mkPen(theme.capacity, width=2))
        self.legend.setText(self._legend_html())

    def _make_bar(self, key: str) -> pg.BarGraphItem:
        thick, brush = self._shown.get("thickness", BAR_THICKNESS), SERIES_COLOURS[key]
        bar = pg.BarGraphItem(x0=[], y=[], width=[], height=thick, brush=brush, pen=None)
        self.plot.addItem(bar)
        return bar

    def _legend_html(self) -> str:
        """The parts in their bar colours and the capacity with its figure, one line of text.

        Above the plot, not in it: the capacity's name and figure can cover no bar.
        """
        square = '<span style="color:{0}">&#9632;</span>&nbsp;{1}'
        entries = [square.format(SERIES_COLOURS[k], tr_core(views.PART_TITLES[k])) for k in SERIES]
        capacity = self.controller.shown_capacity_bytes()
        if capacity is None:
            return "&nbsp;&nbsp; ".join(entries)
        name = escape_html(
            self.tr("capacity {0}").format(format_bytes(capacity, self.controller.unit))
        )
        line = f'<span style="color:{self.theme.capacity}">&#9474;</span>&nbsp;{name}'
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
        self.picker.setMinimumWidth(min(self.picker.sizeHintForColumn(0) + 28, 240))
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
        rows = list(range(len(shown)))
        ends = [0.0] * len(shown)  # where each model's bar has got to, in unit
        for key in SERIES:
            lengths = [to_unit(self._bytes(r, key), unit) for r in shown]
            self.bars[key].setOpts(x0=list(ends), y=rows, width=lengths)
            ends = [e + n for e, n in zip(ends, lengths, strict=True)]
        self._names = [r.name for r in shown]
        self._fit_names()
        axis = self.tr("memory per GPU ({0})").format(unit.label)
        if self._changed("axis", axis):  # the axis re-lays out on every setLabel
            self.plot.setLabel("bottom", axis)
        longest = max((to_unit(r.breakdown.total_bytes, unit) for r in shown), default=1.0)
        capacity = self.controller.shown_capacity_bytes()
        self.capacity_line.setVisible(capacity is not None)
        if capacity is not None:
            cap = to_unit(capacity, unit)
            self.capacity_line.setPos(cap)
            longest = max(longest, cap)
        legend = self._legend_html()
        if self._changed("legend", legend):
            self.legend.setText(legend)
        if self._changed("x_range", longest):
            self.plot.setXRange(0, longest * 1.05, padding=0)
        # half a row of room above the first bar and below the last
        if self._changed("y_range", len(shown)):
            self.plot.setYRange(-0.5, max(len(shown), 1) - 0.5, padding=0)
        settle_view(self.plot)

    def _fit_names(self, *_: object) -> None:
        """The y axis's labels: every model's full name, wrapped when wider than its share.

        The axis is made as wide as the widest line (pyqtgraph widens an axis only after a
        paint that dropped the labels it had no room for: a first frame without names).
        """
        if not hasattr(self, "_names"):
            return
        axis = self.plot.getAxis("left")
        room = self.plot.width() * NAME_SHARE
        metrics = QFontMetrics(axis.style.get("tickFont") or self.plot.font())
        labels = [wrap_name(name, metrics, room) for name in self._names]
        widest = max(
            (metrics.horizontalAdvance(line) for label in labels for line in label.split("\n")),
            default=0,
        )
        # the text, the gap pyqtgraph leaves to the axis line, ticks pointing out, a margin
        width = widest + axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"]) + 4
        if self._changed("axis_width", width):
            axis.setWidth(width)
        ticks = [list(enumerate(labels))]
        if self._changed("ticks", ticks):
            axis.setTicks(ticks)
        pitch = self.plot.getPlotItem().vb.height() / max(len(labels), 1)  # pixels a row
        thickness = min(BAR_THICKNESS, BAR_MAX_PX / pitch) if pitch > 0 else BAR_THICKNESS
        if self._changed("thickness", thickness):
            for bar in self.bars.values():
                bar.setOpts(height=thickness)

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
            self.tr("Model"),
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
        # fixed sizes (a ResizeToContents header re-measures every column per cell set): below
        head.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = table.item(r, c)
                if item.text() != text:
                    item.setText(text)
                    item.setToolTip(text)
        # the names take what the figures leave (eliding only past that), the figures and the
        # verdict their widths: no horizontal scroll while the figures fit the view
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for c in range(1, len(header)):
            head.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        if self._changed("table_rows", len(rows)):
            self._share_height(len(rows))

    def _share_height(self, rows: int) -> None:
        """Give the table the height of its rows (up to half the tab), the chart the rest."""
        table = self.table
        head, row = table.horizontalHeader(), table.verticalHeader().defaultSectionSize()
        wanted = head.sizeHint().height() + rows * row + 2 * table.frameWidth() + 2
        total = sum(self.split.sizes()) or self.height()
        below = min(wanted, total // 2)
        self.split.setSizes([total - below, below])

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """Share the new height again: the table its rows' height, the chart the rest."""
        super().resizeEvent(event)
        if self._body_built and self.table.rowCount():
            self._share_height(self.table.rowCount())


def wrap_name(name: str, metrics: QFontMetrics, room: float) -> str:
    """``name`` whole, or on two lines when wider than ``room`` pixels; never cut.

    The line breaks at the separator nearest the name's middle (a name without one stays on
    one line). Separators: a space, ``-``, ``_``, ``/`` or ``:`` (kept ending the first line).
    """
    if metrics.horizontalAdvance(name) <= room:
        return name
    cuts = [i + 1 for i, ch in enumerate(name[:-1]) if ch in " -_/:"]
    if not cuts:
        return name
    at = min(cuts, key=lambda i: abs(2 * i - len(name)))
    return name[:at].rstrip() + "\n" + name[at:].lstrip()
