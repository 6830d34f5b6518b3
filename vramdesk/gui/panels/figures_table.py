"""The figures under the chart: each part's exact bytes, with its formula as an expandable row.

Each part is a top-level row (part, exact bytes, size in the display unit); its children
show the formula in symbols and with the user's values substituted, and any assumption
the figure rests on (``Part.formula``, ``Part.substituted``, ``Part.assumptions``). Under
the tree, for llama.cpp and Ollama, the host RAM the estimate keeps off the GPU and whether
it fits this machine's RAM (:func:`vramdesk.core.present.host.host_ram`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.estimate import Breakdown
from vramdesk.core.present.host import host_ram
from vramdesk.core.units import Unit, format_bytes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import tr_core, tr_note
from vramdesk.gui.theme import tint

#: The columns of exact bytes and of the size in the display unit.
NUMBER_COLUMNS = (1, 2)


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
        # the number columns are fitted by _fit_number_columns when their texts outgrow them
        # (or shrink a lot, or the font changes), not by ResizeToContents, which measured
        # every row again after each edit: about 7 % of an edit's instructions (issue 11)
        for col in NUMBER_COLUMNS:
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
        header.setStretchLastSection(False)
        self._widest: dict[int, int] = {}  # column -> widest text (pixels) when last fitted
        self.warnings = QLabel()
        self.warnings.setObjectName("warnings_label")
        self.warnings.setWordWrap(True)
        tint(self.warnings, "warning")
        self.host = QLabel()
        self.host.setObjectName("host_ram_label")
        self.host.setWordWrap(True)
        self.host.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.notes = QLabel()
        self.notes.setObjectName("model_notes")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        tint(self.notes, "note")
        self.notes.hide()
        layout.addWidget(self.tree)
        layout.addWidget(self.host)
        layout.addWidget(self.warnings)
        layout.addWidget(self.notes)
        controller.notesChanged.connect(self.show_notes)
        controller.breakdownChanged.connect(self.refresh)
        controller.unitChanged.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args: object) -> None:
        """Show the controller's last valid breakdown; keep which parts are collapsed.

        When the parts and their lines are the same as shown (an edit of a number), the
        items are updated in place, each text only where it changed: rebuilding the tree
        re-lays out and repaints the whole pane on every keystroke (issue 11).
        """
        b = self.controller.breakdown
        if b is None:
            return
        unit: Unit = self.controller.unit
        header = self.tr("Size ({0})").format(unit.label)
        if self.tree.headerItem().text(2) != header:
            self.tree.headerItem().setText(2, header)
        rows = []
        for part in b.parts:
            lines = [tr_note(part.formula), f"= {tr_note(part.substituted)}"] + [
                f"({tr_note(note)})" for note in part.assumptions
            ]
            texts = [tr_core(part.label), f"{part.bytes:,}", format_bytes(part.bytes, unit)]
            rows.append((texts, part.explain(unit), lines))
        total = [self.tr("Total"), f"{b.total_bytes:,}", format_bytes(b.total_bytes, unit)]
        shape = [(texts[0], len(lines)) for texts, _tip, lines in rows]
        if shape == self._shape():
            self._update_in_place(rows, total)
        else:
            self._rebuild(rows, total)
        self._fit_number_columns()
        self._show_host(b, unit)
        warnings = "\n".join(tr_note(w) for w in b.warnings)
        if self.warnings.text() != warnings:
            self.warnings.setText(warnings)
        self.warnings.setVisible(bool(b.warnings))

    def _show_host(self, b: Breakdown, unit: Unit) -> None:
        """The host-RAM line (llama.cpp, Ollama), tinted as a warning when it does not fit."""
        host = host_ram(b)
        if host is None:
            self.host.hide()
            return
        text = self.tr("Host RAM (not in the total): {0} = weights {1} + KV cache {2}").format(
            format_bytes(host.total_bytes, unit),
            format_bytes(host.weights_bytes, unit),
            format_bytes(host.kv_bytes, unit),
        )
        if host.experts_bytes:
            text += self.tr(" (routed experts {0})").format(format_bytes(host.experts_bytes, unit))
        if host.machine_bytes is not None:
            ram = format_bytes(host.machine_bytes, unit)
            text += " " + (
                self.tr("fits this machine's RAM ({0})").format(ram)
                if host.fits
                else self.tr("does not fit this machine's RAM ({0})").format(ram)
            )
        if self.host.text() != text:
            self.host.setText(text)
            tint(self.host, "note" if host.fits is not False else "warning")
        self.host.show()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A new font or style measures the texts afresh: fit the number columns again."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._widest.clear()
            self._fit_number_columns()

    def _fit_number_columns(self) -> None:
        """Fit the bytes and size columns to their texts when those outgrow them.

        Also when the widest text takes under three quarters of the width fitted last; in
        between the columns keep still while the figures change a digit or two.
        """
        metrics = self.tree.fontMetrics()
        rows = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        for col in NUMBER_COLUMNS:
            texts = [self.tree.headerItem().text(col), *(item.text(col) for item in rows)]
            widest = max(metrics.horizontalAdvance(text) for text in texts)
            fitted = self._widest.get(col)
            if fitted is None or widest > fitted or 4 * widest < 3 * fitted:
                self._widest[col] = widest
                self.tree.resizeColumnToContents(col)

    def _shape(self) -> list[tuple[str, int]]:
        """(label, child lines) of the parts shown (the total row excluded)."""
        count = self.tree.topLevelItemCount()
        items = (self.tree.topLevelItem(i) for i in range(max(0, count - 1)))
        return [(it.text(0), it.childCount()) for it in items]

    @staticmethod
    def _set(item: QTreeWidgetItem, col: int, text: str, tip: str | None = None) -> None:
        if item.text(col) != text:
            item.setText(col, text)
        if tip is not None and item.toolTip(col) != tip:
            item.setToolTip(col, tip)

    def _update_in_place(self, rows: list, total: list[str]) -> None:
        for i, (texts, tip, lines) in enumerate(rows):
            item = self.tree.topLevelItem(i)
            for col, text in enumerate(texts):
                self._set(item, col, text, tip if col == 0 else None)
            for j, line in enumerate(lines):
                self._set(item.child(j), 0, line, line)
        last = self.tree.topLevelItem(len(rows))
        for col, text in enumerate(total):
            self._set(last, col, text)

    def _rebuild(self, rows: list, total: list[str]) -> None:
        collapsed = {
            self.tree.topLevelItem(i).text(0)
            for i in range(self.tree.topLevelItemCount())
            if not self.tree.topLevelItem(i).isExpanded()
        }
        self.tree.clear()
        for texts, tip, lines in rows:
            item = QTreeWidgetItem(texts)
            item.setToolTip(0, tip)
            for line in lines:
                child = QTreeWidgetItem([line])
                child.setToolTip(0, line)
                item.addChild(child)
            self.tree.addTopLevelItem(item)
            for i in range(item.childCount()):
                item.child(i).setFirstColumnSpanned(True)
            item.setExpanded(texts[0] not in collapsed)
        self.tree.addTopLevelItem(QTreeWidgetItem(total))

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
