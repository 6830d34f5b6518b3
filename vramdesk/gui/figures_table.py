"""The figures under the chart: each part's exact bytes, with its formula as an expandable row.

Each part is a top-level row (part, exact bytes, size in the display unit); its children
show the formula in symbols and with the user's values substituted, and any assumption
the figure rests on (``Part.formula``, ``Part.substituted``, ``Part.assumptions``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.units import Unit, format_bytes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import tr_core, tr_note
from vramdesk.gui.theme import tint


class FiguresTable(QWidget):
    """Part, exact bytes and size per row; formula, substituted values, assumptions as children."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.tree = QTreeWidget()
        self.tree.setObjectName("figures_table")
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels([self.tr("Part"), self.tr("Bytes"), self.tr("Size")])
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        self.warnings = QLabel()
        self.warnings.setObjectName("warnings_label")
        self.warnings.setWordWrap(True)
        tint(self.warnings, "warning")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.notes = QLabel()
        self.notes.setObjectName("model_notes")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        tint(self.notes, "note")
        self.notes.hide()
        layout.addWidget(self.tree)
        layout.addWidget(self.warnings)
        layout.addWidget(self.notes)
        controller.notesChanged.connect(self.show_notes)
        controller.breakdownChanged.connect(self.refresh)
        controller.unitChanged.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args: object) -> None:
        """Show the controller's last valid breakdown; keep which parts are collapsed."""
        b = self.controller.breakdown
        if b is None:
            return
        unit: Unit = self.controller.unit
        self.tree.headerItem().setText(2, self.tr("Size ({0})").format(unit.label))
        collapsed = {
            self.tree.topLevelItem(i).text(0)
            for i in range(self.tree.topLevelItemCount())
            if not self.tree.topLevelItem(i).isExpanded()
        }
        self.tree.clear()
        for part in b.parts:
            item = QTreeWidgetItem(
                [tr_core(part.label), f"{part.bytes:,}", format_bytes(part.bytes, unit)]
            )
            item.setToolTip(0, part.explain(unit))
            lines = [tr_note(part.formula), f"= {tr_note(part.substituted)}"] + [
                f"({tr_note(note)})" for note in part.assumptions
            ]
            for line in lines:
                child = QTreeWidgetItem([line])
                child.setToolTip(0, line)
                item.addChild(child)
            self.tree.addTopLevelItem(item)
            for i in range(item.childCount()):
                item.child(i).setFirstColumnSpanned(True)
            item.setExpanded(tr_core(part.label) not in collapsed)
        total = QTreeWidgetItem(
            [self.tr("Total"), f"{b.total_bytes:,}", format_bytes(b.total_bytes, unit)]
        )
        self.tree.addTopLevelItem(total)
        self.warnings.setText("\n".join(tr_note(w) for w in b.warnings))
        self.warnings.setVisible(bool(b.warnings))

    def show_notes(self) -> None:
        """What the import of the shown model assumed, kept while that model is loaded."""
        notes = self.controller.model_notes
        self.notes.setText(
            self.tr("Import notes:") + "\n" + "\n".join(f"• {n}" for n in notes) if notes else ""
        )
        self.notes.setVisible(bool(notes))

    def row_texts(self) -> list[list[str]]:
        """The top-level rows as shown: part, bytes, size (tests and copying)."""
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [[it.text(c) for c in range(3)] for it in items]
