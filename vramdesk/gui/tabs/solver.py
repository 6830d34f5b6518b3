"""The reverse-solver tab: KV budget, max concurrency and context, GPU count, advisor (SPEC §4)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.model.runtime import Engine
from vramdesk.core.solve.advisor import advice_sentence, advice_value
from vramdesk.core.solve.result import SolveResult
from vramdesk.core.solve.sentence import LEVER_TITLES, LIMIT_TITLES
from vramdesk.core.solve.solver import min_gpus_text
from vramdesk.core.solve.verdict import usable_sentence
from vramdesk.core.units import format_bytes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import sentence_text, tr_core, tr_note
from vramdesk.gui.steady import SteadyHolder
from vramdesk.gui.theme import tint

#: Solved values: bold, in the theme's "solved" colour (vramdesk.gui.theme.TEXT_COLOURS).
SOLVED_CSS = "font-weight: 600;"


class SolverTab(QWidget):
    """Read-only solved values (styled as solved) and the advisor's levers."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.values: dict[str, QLabel] = {}
        self.advice = self._build_advice()
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(self._build_values())
        advisor_title = QLabel(
            self.tr("Fit advisor (when it does not fit): levers, most effective first")
        )
        advisor_title.setWordWrap(True)  # one line in a larger font is wider than the pane
        layout.addWidget(advisor_title)
        layout.addWidget(self.advice, 1)
        layout.addWidget(SteadyHolder(self.notes))
        controller.solveChanged.connect(self.refresh)
        controller.unitChanged.connect(self.refresh)
        self.refresh()

    def _build_values(self) -> QFormLayout:
        form = QFormLayout()
        rows = [
            ("capacity", self.tr("GPU capacity")),
            ("usable", self.tr("Usable for KV + activations")),
            ("kv_budget", self.tr("KV cache budget")),
            ("kv_tokens", self.tr("vLLM would print")),  # shown for the vLLM profile only
            ("max_concurrency", self.tr("Max concurrency at the context")),
            ("max_context", self.tr("Max context at the concurrency")),
            ("min_gpus", self.tr("Smallest GPU count (TP)")),
        ]
        self.row_labels: dict[str, QLabel] = {}
        for key, label in rows:
            value = QLabel("—")
            value.setObjectName(f"solve_{key}")
            tint(value, "solved", SOLVED_CSS)
            value.setWordWrap(True)
            self.values[key] = value
            self.row_labels[key] = QLabel(label)
            # a new figure re-lays out the pane only when it takes another line (steady.py)
            form.addRow(self.row_labels[key], SteadyHolder(value))
        return form

    def _build_advice(self) -> QTableWidget:
        table = QTableWidget(0, 4)
        table.setObjectName("advice_table")
        table.setHorizontalHeaderLabels(
            [self.tr("Lever"), self.tr("Value"), self.tr("Saves"), self.tr("Advice")]
        )
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        table.setWordWrap(True)
        table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self._rows_timer = QTimer(self, singleShot=True, interval=0)
        self._rows_timer.timeout.connect(table.resizeRowsToContents)
        table.horizontalHeader().sectionResized.connect(lambda *_a: self._rows_timer.start())
        return table

    def resizeEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        """Re-fit the advice columns and re-wrap their rows to the new width."""
        super().resizeEvent(event)
        self._fit_columns()

    #: The widest share of the table each of Lever, Value and Saves may take: the rest is the
    #: advice's (at 1280 x 720 a long value left the advice 60 px, a word a line).
    COLUMN_SHARES = (0.22, 0.26, 0.16)

    def _fit_columns(self) -> None:
        """Fit Lever, Value and Saves to their texts (within their shares), re-wrap the rows.

        The rows are re-wrapped here, not on the next turn of the event loop: the table was
        painted once with the new texts in the old row heights and again in the new ones
        (issue 24). The re-wrap each column resize asked for is done by then.
        """
        view = self.advice.viewport().width()
        for col, share in enumerate(self.COLUMN_SHARES):
            self.advice.resizeColumnToContents(col)
            self.advice.setColumnWidth(col, min(self.advice.columnWidth(col), int(view * share)))
        self.advice.resizeRowsToContents()
        self._rows_timer.stop()

    def refresh(self, *_args: object) -> None:
        """Show the controller's last solve (or say why there is none)."""
        r = self.controller.solve_result
        if r is None:
            for label in self.values.values():
                label.setText("—")
            self.notes.setText(self.tr("No capacity: pick a GPU or a custom size."))
            return
        self._show(r)

    def _sequences(self, n: int) -> str:
        """The max-concurrency template for ``n`` sequences, as the CLI writes them.

        ``{0}`` is the count: ``10,541 sequences``, ``1 sequence`` (thousands separators,
        singular). tr()'s plural form (numerus, ``n``) picks each language's form from the .ts; the
        English source has no catalog, so the singular is its own source. The count is a
        ``{0}`` hole, not ``%n``, because Qt writes ``%n`` without separators (``%Ln``
        follows the system locale: none under C, ``.`` under German) and every other figure
        of the window is written with ``,``.
        """
        if n == 1:
            return self.tr("{0} sequence of {1:,} tokens (exact {2:.4f})", "", n)
        return self.tr("{0} sequences of {1:,} tokens (exact {2:.4f})", "", n)

    def _show(self, r: SolveResult) -> None:
        unit = self.controller.unit
        v = self.values
        v["capacity"].setText(f"{format_bytes(r.capacity_bytes, unit)} ({r.capacity_bytes:,} B)")
        v["usable"].setText(sentence_text(usable_sentence(r, unit)))
        v["kv_budget"].setText(
            f"{format_bytes(max(0, r.kv_budget_bytes), unit)} ({max(0, r.kv_budget_bytes):,} B)"
        )
        vllm = self.controller.runtime.engine is Engine.VLLM  # lines only the engine prints
        v["kv_tokens"].setText("\n".join(r.vllm_lines()) if vllm else "")
        v["kv_tokens"].setVisible(vllm)
        self.row_labels["kv_tokens"].setVisible(vllm)
        v["max_concurrency"].setText(
            self._sequences(r.max_concurrency).format(
                f"{r.max_concurrency:,}", r.context_tokens, float(r.max_concurrency_exact)
            )
        )
        v["max_context"].setText(
            self.tr("{0:,} tokens (limited by {1})").format(
                r.max_context, tr_core(LIMIT_TITLES.get(r.max_context_limited_by, "memory"))
            )
        )
        v["min_gpus"].setText(min_gpus_text(r, self.controller.runtime.engine))
        self.advice.setRowCount(len(r.advice))
        for row, a in enumerate(r.advice):
            sentence = sentence_text(advice_sentence(a, unit))
            value = advice_value(a)
            lever = tr_core(LEVER_TITLES.get(a.lever, a.lever))
            cells = [lever, value, format_bytes(a.saves_bytes, unit), sentence]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(sentence)
                self.advice.setItem(row, col, item)
        self._fit_columns()
        self.notes.setText("\n".join(tr_note(n) for n in r.notes))
