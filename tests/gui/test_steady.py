"""A figure that keeps its lines repaints only itself; one that takes another line re-lays out.

vramdesk/gui/steady.py: a label in a :class:`SteadyHolder` passes its ``LayoutRequest`` up
only when it no longer fits the holder at its width or its longest word changed, and the
holder checks again each time it is laid out (issue 24: each ``setText`` of a plain QLabel
re-laid out every level up to the window).
"""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import (
    QApplication,
    QBoxLayout,
    QFormLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from tests.gui.keyboard import type_text
from vramdesk.core.model.runtime import Engine
from vramdesk.core.units import Unit
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
    window = make_main_window(show=True, size=(1366, 768))
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


def _stale_holders(window) -> list[str]:
    """Holders whose geometry a fresh layout changes: laid out from a stale cached answer.

    Each holder asks its layout again (``updateGeometry``, as a plain label's ``setText``
    does) and the window settles; a holder that then moves or resizes was laid out from an
    answer the layouts cached for an older text. A pane too small for its labels squeezes
    them the same way both times (as it squeezes plain labels), so that is not counted.
    """
    holders = [h for h in window.findChildren(SteadyHolder) if h.isVisible()]
    before = [h.geometry() for h in holders]
    for holder in holders:
        holder.updateGeometry()
    _settle()
    return [
        f"{h.label.objectName()!r}: {old} -> {h.geometry()}"
        for h, old in zip(holders, before, strict=True)
        if h.geometry() != old
    ]


@pytest.mark.parametrize("seed", range(6))
def test_every_holder_fits_its_label_through_a_random_session(
    make_main_window, qtbot, solved, seed
):
    # a fresh user's review found a label laid out from a height a scroll area had cached for
    # the text before, at the width with its scroll bar (the solver pane's speed lines, after
    # an engine switch): after each step of a seeded session of edits, engine and unit
    # switches, tab changes, splitter moves and window sizes, a fresh layout of every holder
    # changes nothing
    rng = random.Random(seed)
    window = make_main_window(show=True, size=(1366, 768))
    c = window.controller
    runtime = window.forms[3]
    engines = [Engine.VLLM, Engine.SGLANG, Engine.LLAMA_CPP, Engine.FORMULA]
    for _tab in ("speed", "kv", "compare"):
        window._tab(_tab)  # noqa: SLF001 - built, so that their holders are checked when shown
    for step in range(40):
        action = rng.choice(["edit", "edit", "edit", "engine", "unit", "tab", "split", "size"])
        if action == "edit":
            c.set_field("context_tokens", rng.choice([1, 7, 4096, 131072, 1048576]))
            c.set_field("batch", rng.choice([1, 8, 64]))
        elif action == "engine":
            box = runtime.fields["engine"]
            box.setCurrentIndex(runtime.choices("engine").index(rng.choice(engines)))
        elif action == "unit":
            c.set_unit(rng.choice([Unit.GIB, Unit.GB, Unit.MIB]))
        elif action == "tab":
            window.tabs.setCurrentIndex(rng.randrange(window.tabs.count()))
        elif action == "split":
            total = sum(window.splitter.sizes())
            left = rng.randrange(total // 4, 3 * total // 4)
            window.splitter.setSizes([left, total - left])
        else:
            window.resize(*rng.choice([(1366, 768), (1280, 720), (1600, 900)]))
        solved(window)
        _settle()
        assert _stale_holders(window) == [], (step, action)


def test_a_height_cached_for_another_width_is_asked_again_when_that_width_comes(qtbot):
    # the review's minimal case: a parent asks the pane's height at a second width (as a
    # QScrollArea does with and without its scroll bar); a text that keeps its lines at the
    # holder's width but not at that one passes nothing up; when the pane gets that width,
    # the cached answer is the old text's, and the holder asks again
    pane = QWidget()
    qtbot.addWidget(pane)
    column = QVBoxLayout(pane)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    label = QLabel("aaaa bbbb cccc dddd eeee")
    label.setWordWrap(True)
    column.addWidget(SteadyHolder(label))
    below = QLabel("the row below")
    column.addWidget(below)
    column.addStretch(1)
    pane.resize(300, 200)
    pane.show()
    qtbot.waitExposed(pane)
    _settle()
    label.setText("aaaa bbbb cccc dddd eeff")
    _settle()
    pane.heightForWidth(120)  # the probe at another width
    label.setText("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii")  # one line at 300, more at 120
    _settle()
    pane.resize(120, 200)
    _settle()
    need = label.heightForWidth(label.width())
    assert label.height() == need > 28
    assert below.y() == need


def test_a_longer_word_keeps_a_splitter_from_cutting_it(qtbot):
    # a wrapped label's minimum width is its longest word; a text with a longer word and the
    # same lines passes nothing up, and a splitter dragged past the new word is stopped at it
    split = QSplitter()
    qtbot.addWidget(split)
    split.setChildrenCollapsible(False)
    split.addWidget(QLabel("left"))
    pane = QWidget()
    column = QVBoxLayout(pane)
    column.setContentsMargins(0, 0, 0, 0)
    label = QLabel("23.99 GiB (25,757,220,864 B)")
    label.setWordWrap(True)
    column.addWidget(SteadyHolder(label))
    column.addStretch(1)
    split.addWidget(pane)
    split.resize(600, 80)
    split.show()
    qtbot.waitExposed(split)
    _settle()
    label.setText("23.99 GiB (25,757,221 B)")
    _settle()
    label.setText("1,024.00 GiB (1,099,511,627,776,000,000_B)")  # one line, a longer word
    _settle()
    split.setSizes([590, 10])
    _settle()
    assert label.width() >= label.minimumSizeHint().width()


def test_the_minimum_width_follows_the_longest_word_either_way(qtbot):
    # the second review: a text with the same lines but a shorter (or longer) longest word
    # left the window's minimum width at the old word's: it could not shrink (or cut the word)
    window = QWidget()
    qtbot.addWidget(window)
    column = QVBoxLayout(window)
    label = QLabel("aaaa " + "1" * 40)
    label.setWordWrap(True)
    column.addWidget(SteadyHolder(label))
    column.addStretch(1)
    window.resize(400, 100)
    window.show()
    qtbot.waitExposed(window)
    _settle()
    wide = window.minimumSizeHint().width()
    label.setText("aaaa " + "1" * 20 + " " + "1" * 19)  # the same two lines, half the word
    _settle()
    assert window.minimumSizeHint().width() < wide
    assert window.minimumWidth() == 0 or window.minimumWidth() < wide
    window.resize(100, 100)
    _settle()
    assert window.width() < wide
    label.setText("aaaa " + "1" * 40)  # and back: the minimum grows with the word again
    _settle()
    assert window.minimumSizeHint().width() == wide


def test_a_label_with_size_limits_of_its_own_is_refused():
    for limit in ("setFixedWidth", "setMaximumHeight", "setMinimumWidth"):
        label = QLabel("figure")
        label.setObjectName("figure")
        label.setWordWrap(True)
        getattr(label, limit)(60)
        with pytest.raises(ValueError, match="'figure' has size limits of its own"):
            SteadyHolder(label)


def test_every_holder_of_the_window_sits_where_its_width_comes_from_above(make_main_window):
    # SteadyHolder's contract: a vertical box or a form's field column (its preferred size is
    # not watched, so a row that shares out its width by preferred sizes would go stale)
    window = make_main_window(show=True)
    for tab in ("fits", "kv", "speed", "compare"):  # every lazy tab built, its body too
        window.tabs.setCurrentWidget(window._tab(tab))  # noqa: SLF001
        _settle()
    holders = window.findChildren(SteadyHolder)
    assert len(holders) == 15  # verdict 2, solver 8, speed line, Speed 2, KV 1, compare 1
    for holder in holders:
        layout = holder.parentWidget().layout()
        if isinstance(layout, QFormLayout):
            row, role = layout.getWidgetPosition(holder)
            assert role == QFormLayout.ItemRole.FieldRole, holder.label.objectName()
        else:
            assert isinstance(layout, QBoxLayout), holder.label.objectName()
            assert layout.direction() in (
                QBoxLayout.Direction.TopToBottom,
                QBoxLayout.Direction.BottomToTop,
            ), holder.label.objectName()
