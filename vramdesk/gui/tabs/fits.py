"""The fits tab: the headline's answer for the current estimate on every catalog GPU (SPEC §4)."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.units import format_bytes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.panels.verdict import STATE_COLOURS
from vramdesk.gui.tabs.deferred import WhenShown

#: The headline's colours per answer (text, background), so a row reads like the verdict: the
#: text is set with the background, as the palette's text is light in a dark scheme.
ROW_COLOURS = {state: (QColor(fg), QColor(bg)) for state, (fg, bg) in STATE_COLOURS.items()}


class FitsTab(QWidget):
    """GPU, capacity, total, headroom and a fits / does-not-fit mark per catalog GPU."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.table = QTableWidget(0, 5)
        self.table.setObjectName("fits_table")
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("GPU"),
                self.tr("Capacity"),
                self.tr("Needs"),
                self.tr("Headroom"),
                self.tr("Verdict"),
            ]
        )
        tips = {
            3: self.tr("The card less the estimated total (per GPU)"),
            4: self.tr(
                "The headline's answer: whether the engine's usable memory holds the KV cache "
                "and activations"
            ),
        }
        for column, tip in tips.items():
            self.table.horizontalHeaderItem(column).setToolTip(tip)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        self._verdicts: dict[str, str] = {}
        # hidden behind another tab it does no work: it refreshes when shown or read
        self.updates = WhenShown(self, self._fill)
        controller.breakdownChanged.connect(self.updates.request)
        controller.unitChanged.connect(self.updates.request)

    def refresh(self, *_args: object) -> None:
        """One row per catalog GPU from :func:`views.fits_table` (through the controller), now."""
        self.updates.mark_fresh()
        self._fill()

    def _fill(self) -> None:
        unit = self.controller.unit
        rows = self.controller.fits_rows()
        self._verdicts = {row.name: row.verdict for row in rows}
        marks = {
            "fits": self.tr("✔ fits"),
            "tight": self.tr("! tight"),
            "no": self.tr("✘ does not fit"),
        }
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            mark = marks[row.verdict]
            fg, bg = ROW_COLOURS[row.verdict]
            cells = [
                row.name,
                format_bytes(row.capacity_bytes, unit),
                format_bytes(row.total_bytes, unit),
                format_bytes(row.headroom_bytes, unit),
                mark,
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setBackground(QBrush(bg))
                item.setForeground(QBrush(fg))
                self.table.setItem(r, c, item)

    def verdicts(self) -> dict[str, str]:
        """GPU name -> the headline's answer ("fits", "tight", "no") as shown, up to date."""
        self.updates.ensure()
        return dict(self._verdicts)
