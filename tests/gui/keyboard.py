"""Typing into the window the way a person does: focus, select all, type, Tab.

Tests drive number fields only through these real key events, never through
``setText``/``setValue``, so that what a person types is what the test checks.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget


def focus(qtbot, widget: QWidget) -> None:
    """Show and activate the widget's window and give ``widget`` keyboard focus.

    A field in a closed section of the inputs column is reached as a person reaches it:
    a click on the section's toggle first.
    """
    window = widget.window()
    if not window.isVisible():
        window.show()
        qtbot.waitExposed(window)
    window.activateWindow()
    column = getattr(window, "form_column", None)
    toggle = column.toggle_for(widget) if column is not None else None
    if toggle is not None and not toggle.is_open():  # a detail: open its section, by a click
        qtbot.mouseClick(toggle.button, Qt.MouseButton.LeftButton)
    if column is not None and column.isAncestorOf(widget):
        column.ensureWidgetVisible(widget)
    widget.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(widget.hasFocus, timeout=2000)


def type_text(qtbot, widget: QWidget, text: str, finish: bool = True) -> None:
    """Select all in ``widget``, type ``text`` key by key (empty: Delete), then Tab away."""
    focus(qtbot, widget)
    qtbot.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    if text:
        qtbot.keyClicks(widget, text)
    else:
        qtbot.keyClick(widget, Qt.Key.Key_Delete)
    if finish:
        qtbot.keyClick(widget, Qt.Key.Key_Tab)


def pick(qtbot, box, data, values=None) -> None:
    """Choose the entry of combo box ``box`` holding ``data`` with the arrow keys, as a person
    does on a focused, closed combo box (each step emits ``activated``, as a pick does).

    ``values()`` gives the value of each entry in order (a form's ``choices``, kept on the
    Python side); without it the entries' item data. The index is looked up again after
    every step: the model picker inserts and removes its "Custom (edited)" entry.
    """
    focus(qtbot, box)
    for _ in range(4 * box.count() + 4):
        held = values() if values else [box.itemData(i) for i in range(box.count())]
        index = next((i for i, v in enumerate(held) if v == data), -1)
        assert index >= 0, f"no entry holds {data!r}"
        if box.currentIndex() == index:
            return
        key = Qt.Key.Key_Down if index > box.currentIndex() else Qt.Key.Key_Up
        qtbot.keyClick(box, key)
    raise AssertionError(f"the arrow keys never reached {data!r}")
