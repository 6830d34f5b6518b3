"""The fits tab: the current estimate on every catalog GPU (SPEC §4, ``fits_on``)."""

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
from vramdesk.gui.tabs.deferred import WhenShown

FITS_COLOUR, NO_FIT_COLOUR = QColor("#e3f4e1"), QColor("#fbe3e1")
#: Text on those backgrounds, set with them: the palette's text is light in a dark scheme.
FITS_TEXT, NO_FIT_TEXT = QColor("#14532d"), QColor("#7f1d1d")


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
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        self._verdicts: dict[str, bool] = {}
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
        self._verdicts = {row.name: row.fits for row in rows}
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            mark = self.tr("✔ fits") if row.fits else self.tr("✘ does not fit")
            cells = [
                row.name,
                format_bytes(row.capacity_bytes, unit),
                format_bytes(row.total_bytes, unit),
                format_bytes(row.headroom_bytes, unit),
                mark,
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setBackground(QBrush(FITS_COLOUR if row.fits else NO_FIT_COLOUR))
                item.setForeground(QBrush(FITS_TEXT if row.fits else NO_FIT_TEXT))
                self.table.setItem(r, c, item)

    def verdicts(self) -> dict[str, bool]:
        """GPU name -> fits, as the table shows it (for tests and exports), up to date."""
        self.updates.ensure()
        return dict(self._verdicts)
