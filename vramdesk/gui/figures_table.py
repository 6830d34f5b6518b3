"""The figures table under the chart: each part's bytes and its formula with the values substituted."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from vramdesk.core.units import Unit, format_bytes
from vramdesk.gui.controller import ScenarioController


class FiguresTable(QWidget):
    """Part, exact bytes, display value, formula = substituted (the full work as a tooltip)."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("figures_table")
        self.table.setHorizontalHeaderLabels([self.tr("Part"), self.tr("Bytes"), self.tr("Size"),
                                              self.tr("Formula (your values)")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for col in range(3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.warnings = QLabel()
        self.warnings.setObjectName("warnings_label")
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #8a5a00;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addWidget(self.warnings)
        controller.breakdownChanged.connect(self.refresh)
        controller.unitChanged.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args: object) -> None:
        """Show the controller's last valid breakdown."""
        b = self.controller.breakdown
        if b is None:
            return
        unit: Unit = self.controller.unit
        rows = [(p.label, p.bytes, f"{p.formula}\n= {p.substituted}", p.explain(unit)) for p in b.parts]
        rows.append((self.tr("Total"), b.total_bytes, self.tr("sum of the parts"), ""))
        self.table.setRowCount(len(rows))
        for r, (label, n_bytes, formula, tip) in enumerate(rows):
            cells = [label, f"{n_bytes:,}", format_bytes(n_bytes, unit, 2), formula]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                self.table.setItem(r, c, item)
        self.table.resizeRowsToContents()
        self.warnings.setText("\n".join(b.warnings))
        self.warnings.setVisible(bool(b.warnings))
