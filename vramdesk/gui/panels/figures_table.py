"""The figures under the chart: each part's exact bytes, with its formula as an expandable row.

Each part is a top-level row (part, exact bytes, size in the display unit); its children
show the formula in symbols and with the user's values substituted, and any assumption
the figure rests on (``Part.formula``, ``Part.substituted``, ``Part.assumptions``). Under
the tree, for llama.cpp and Ollama, the host RAM the estimate keeps off the GPU and whether
it fits this machine's RAM (:func:`vramdesk.core.present.host.host_ram`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
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


class _LinesArea(QScrollArea):
    """A scroll area as tall as its word-wrapped lines at its width (none taller)."""

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """The lines' height for the viewport's width (QScrollArea's own guesses a width)."""
        inner = self.widget()
        width = self.viewport().width()
        height = inner.heightForWidth(width) if inner.hasHeightForWidth() else -1
        if height < 0:
            height = inner.sizeHint().height()
        return QSize(super().sizeHint().width(), height + 2 * self.frameWidth())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """No taller than the lines (a scroll area's own minimum holds a whole scroll bar)."""
        least = super().minimumSizeHint()
        return QSize(least.width(), min(least.height(), self.sizeHint().height()))

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """The lines changed (a text, a line shown or hidden): their height is asked again."""
        if obj is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(obj, event)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """A new width wraps the lines anew: their height is asked again."""
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()


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
        layout.addWidget(self.tree, 1)
        layout.addWidget(self._build_extras())
        controller.notesChanged.connect(self.show_notes)
        controller.breakdownChanged.connect(self.refresh)
        controller.unitChanged.connect(self.refresh)
        self.refresh()

    def _build_extras(self) -> _LinesArea:
        """Host RAM, warnings and import notes under the tree, scrolling when the pane is short.

        As plain rows of the pane they were cut (four import notes at 1366 x 768, issue 23).
        """
        inner = QWidget()
        inner.setObjectName("figures_extras")
        column = QVBoxLayout(inner)
        column.setContentsMargins(0, 2, 0, 0)
        for label in (self.host, self.warnings, self.notes):
            column.addWidget(label)
        column.addStretch(1)
        self.extras = _LinesArea()
        self.extras.setObjectName("figures_extras_scroll")
        self.extras.setWidget(inner)
        inner.installEventFilter(self.extras)
        self.extras.setWidgetResizable(True)
        self.extras.setFrameShape(QFrame.Shape.NoFrame)
        self.extras.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # as tall as its lines when there is room, no taller; the tree keeps the rest
        self.extras.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.extras.hide()
        return self.extras

    def _show_extras(self) -> None:
        """Show the area under the tree while one of its lines is shown."""
        shown = any(not label.isHidden() for label in (self.host, self.warnings, self.notes))
        if shown != (not self.extras.isHidden()):
            self.extras.setVisible(shown)
        self.extras.updateGeometry()

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
        self._show_extras()

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
        self._show_extras()

    def row_texts(self) -> list[list[str]]:
        """The top-level rows as shown: part, bytes, size (tests and copying)."""
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [[it.text(c) for c in range(3)] for it in items]
