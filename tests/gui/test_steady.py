"""A figure that keeps its lines repaints only itself; one that takes another line re-lays out.

vramdesk/gui/steady.py: a label in a :class:`SteadyHolder` passes its ``LayoutRequest`` up
only when its height for the holder's width changed (issue 24: each ``setText`` of a plain
QLabel re-laid out every level up to the window).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QFormLayout, QLabel, QVBoxLayout, QWidget

from tests.gui.keyboard import type_text
from vramdesk.gui.steady import SteadyHolder


class LayoutRequests(QObject):
    """Counts the ``LayoutRequest`` events ``widget`` receives."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def _settle() -> None:
    for _ in range(4):  # a climb is one posted event a level
        QApplication.processEvents()


def _pane(qtbot, text: str = "1,234 tokens") -> tuple[QWidget, QLabel, SteadyHolder, QLabel]:
    pane = QWidget()
    qtbot.addWidget(pane)
    form = QFormLayout(pane)
    label = QLabel(text)
    label.setWordWrap(True)
    holder = SteadyHolder(label)
    form.addRow("Max context", holder)
    below = QLabel("below")  # moves when the figure above takes another line
    form.addRow("Next", below)
    pane.resize(300, 200)
    pane.show()
    qtbot.waitExposed(pane)
    _settle()
    return pane, label, holder, below


def test_a_text_of_the_same_lines_does_not_re_lay_out_the_pane(qtbot):
    pane, label, holder, below = _pane(qtbot)
    requests = LayoutRequests(pane)
    top = below.y()
    label.setText("5,678 tokens")
    _settle()
    assert requests.count == 0
    assert label.text() == "5,678 tokens" and below.y() == top
    # the control: the same edit on a label straight in the layout re-lays the pane out
    plain = QLabel("1,234 tokens")
    plain.setWordWrap(True)
    pane.layout().addRow("Plain", plain)
    _settle()
    requests.count = 0
    plain.setText("5,678 tokens")
    _settle()
    assert requests.count >= 1


def test_a_text_that_takes_more_lines_re_lays_out_the_pane(qtbot):
    pane, label, holder, below = _pane(qtbot)
    one_line = label.height()
    label.setText("a figure long enough to wrap onto several lines in a column this wide " * 2)
    _settle()
    lines = label.heightForWidth(holder.width())
    assert lines > one_line
    assert holder.height() == label.height() == lines
    assert below.y() >= holder.y() + lines  # the row beneath moved down
    label.setText("short")
    _settle()
    assert holder.height() == label.height() == one_line


def test_the_holder_follows_the_label_shown_and_hidden(qtbot):
    pane, label, holder, below = _pane(qtbot)
    label.hide()
    _settle()
    assert holder.isHidden() and not holder.isVisible()
    label.show()
    _settle()
    assert holder.isVisible() and label.isVisible()
    hidden = QLabel("not yet")
    hidden.hide()
    other = SteadyHolder(hidden)
    pane.layout().addRow("Other", other)
    _settle()
    assert other.isHidden()


def test_a_text_set_while_hidden_is_laid_out_when_shown(qtbot):
    # Qt posts a label's LayoutRequest only to a visible parent: the holder asks at its show
    outer = QWidget()
    qtbot.addWidget(outer)
    column = QVBoxLayout(outer)
    box = QWidget()
    form = QFormLayout(box)
    label = QLabel("one line")
    label.setWordWrap(True)
    holder = SteadyHolder(label)
    form.addRow("Figure", holder)
    column.addWidget(box)
    outer.resize(300, 300)
    outer.show()
    qtbot.waitExposed(outer)
    _settle()
    box.hide()
    label.setText("a figure long enough to wrap onto several lines in a column this wide " * 2)
    _settle()
    box.show()
    _settle()
    assert holder.height() == label.heightForWidth(holder.width()) > 20


def test_an_edit_that_keeps_the_verdicts_lines_re_lays_out_nothing_above_the_chart(
    make_main_window, qtbot, solved
):
    # the window as a user types: the headline, the solved values and the speed lines change
    # their figures; no LayoutRequest reaches the verdict's pane, nor the solver's
    window = make_main_window()
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    context = window.forms[2].fields["context_tokens"]
    type_text(qtbot, context, "8192", finish=False)
    solved(window)
    type_text(qtbot, context, "819", finish=False)  # 819 tokens: the lines before the key
    solved(window)
    _settle()
    verdict = LayoutRequests(window.headline)
    solver = LayoutRequests(window.solver_tab)
    lines = [window.headline.headline.height(), window.headline.detail.height()]
    before = window.headline.headline.text()
    qtbot.keyClick(context, "3")  # 8,193 tokens: the same lines, other figures
    solved(window)
    _settle()
    assert window.controller.workload.context_tokens == 8193
    assert window.headline.headline.text() != before
    assert [window.headline.headline.height(), window.headline.detail.height()] == lines
    assert verdict.count == 0
    assert solver.count == 0
