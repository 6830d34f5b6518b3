"""Layout checks shared by the in-process tests and the real-screen subprocess (test_layout.py).

Each check returns a list of problems (strings); an empty list means the check passed.
"""

from __future__ import annotations

from fractions import Fraction

from PySide6.QtCore import QPoint, QRect, QRectF
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QDockWidget,
    QLabel,
    QLineEdit,
    QScrollArea,
    QStyle,
    QTabBar,
    QToolButton,
    QWidget,
)

CHECKED = (QLabel, QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit)


def _inside_scroll_area(widget: QWidget) -> QScrollArea | None:
    node = widget.parentWidget()
    while node is not None:
        if isinstance(node, QScrollArea):
            return node
        node = node.parentWidget()
    return None


def _in_a_hidden_dock_tab(widget: QWidget, window) -> bool:
    """Qt parks the docks of a tab group that are not the current tab outside the window."""
    node = widget
    while node is not None and not isinstance(node, QDockWidget):
        node = node.parentWidget()
    return (
        node is not None
        and bool(window.tabifiedDockWidgets(node))
        and node.visibleRegion().isEmpty()
    )


def clipped_widgets(window: QWidget) -> list[str]:
    """Visible labels, buttons and inputs smaller than they need, or cut by the window's edge.

    A word-wrapping label needs ``heightForWidth(width)``; others their ``minimumSizeHint``.
    A widget in a scroll area may be scrolled out of view vertically, but not cut sideways.
    """
    problems = []
    bounds = window.rect()
    for widget in window.findChildren(QWidget):
        if not isinstance(widget, CHECKED) or not widget.isVisible():
            continue
        if widget.objectName().startswith("qt_") or isinstance(
            widget.parentWidget(), (QAbstractSpinBox, QComboBox, QTabBar)
        ):
            continue  # a spin box's, combo box's or tab bar's own parts (Qt sizes its arrows)
        if _in_a_hidden_dock_tab(widget, window):
            continue
        if isinstance(widget, QLabel) and not widget.text().strip():
            continue
        need = widget.minimumSizeHint()
        name = widget.objectName() or type(widget).__name__
        text = widget.text() if hasattr(widget, "text") else ""
        what = f"{name} {text[:40]!r}"
        if isinstance(widget, QLabel) and widget.wordWrap():
            # width of the widest word; height for the width it has
            if widget.height() < widget.heightForWidth(widget.width()):
                problems.append(
                    f"{what}: height {widget.height()} < {widget.heightForWidth(widget.width())}"
                )
        else:
            if widget.width() < need.width():
                problems.append(f"{what}: width {widget.width()} < {need.width()}")
            if widget.height() < need.height():
                problems.append(f"{what}: height {widget.height()} < {need.height()}")
        area = _inside_scroll_area(widget)
        rect = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
        if area is None:
            if not bounds.contains(rect):
                problems.append(f"{what}: {rect} outside the window {bounds}")
        else:
            port = area.viewport()
            left = widget.mapTo(port, widget.rect().topLeft()).x()
            if left < 0 or left + widget.width() > port.width():
                problems.append(f"{what}: cut sideways by its scroll area ({port.width()} wide)")
    return problems


def chart_overlaps(chart) -> list[str]:
    """Chart items that cover one another: legend, bars, line labels, total text.

    Rectangles are scene rectangles; a bar counts where it lies inside the plot area.
    """
    vb = chart.plot.getPlotItem().vb
    area = vb.sceneBoundingRect()
    legend = chart.legend.sceneBoundingRect()
    items = {"legend": legend}
    for key, bar in chart.bars.items():
        rect = bar.sceneBoundingRect().intersected(area)
        if rect.height() > 0.5 and rect.width() > 0.5:
            items[f"bar {key}"] = rect
    for name, line in (("capacity label", chart.capacity_line), ("free label", chart.free_line)):
        if line.isVisible() and line.label.isVisible():
            items[name] = line.label.sceneBoundingRect()
    items["total text"] = chart.total_text.sceneBoundingRect()
    problems = []
    names = list(items)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if first.startswith("bar") and second.startswith("bar"):
                continue  # stacked segments touch by design
            if first == "total text" and second.startswith("bar"):
                continue
            overlap = items[first].intersected(items[second])
            if overlap.width() > 0.5 and overlap.height() > 0.5:
                problems.append(f"{first} {items[first]} covers {second} {items[second]}")
    view = QRectF(chart.plot.viewport().rect())
    scene_view = chart.plot.mapToScene(view.toRect()).boundingRect()
    for name in ("legend", "capacity label", "free label", "total text"):
        if name in items and not scene_view.contains(items[name]):
            problems.append(f"{name} {items[name]} is cut by the plot's edge {scene_view}")
    for name in ("capacity label", "free label", "total text"):
        if name in items and not area.contains(items[name]):
            problems.append(f"{name} {items[name]} is outside the plot area {area}")
    return problems


def cut_numbers(window: QWidget) -> list[str]:
    """Visible number fields whose largest value's text would not show whole.

    The largest value is the field's upper limit, written with group separators as the
    field writes a whole number (``2147483648`` as ``2,147,483,648``). It must fit the
    field's contents rectangle less the frame and a shown clear button (QFontMetrics), and,
    typed in with the cursor at its end, its first digit must be in view (a field that
    scrolls its text shows ``31,072`` for ``131,072``).
    """
    from vramdesk.gui.forms.number_edit import NumberEdit  # a window's widget type

    problems = []
    for edit in window.findChildren(NumberEdit):
        if not edit.isVisible() or edit.limits is None:
            continue
        high = Fraction(edit.limits[1])
        text = f"{int(high):,}" if high.denominator == 1 else f"{float(high):,}"
        shown = edit.text()
        edit.setText(text)  # setText: no textEdited, the controller is not told
        edit.setCursorPosition(len(text))
        frame = edit.style().pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth, None, edit)
        room = edit.contentsRect().width() - 2 * frame
        for button in edit.findChildren(QToolButton):
            if button.isVisible():
                room -= button.width()
        need = edit.fontMetrics().horizontalAdvance(text)
        middle = edit.contentsRect().center().y()
        first = edit.cursorPositionAt(QPoint(edit.contentsRect().left() + frame + 1, middle))
        edit.setText(shown)
        if need > room or first != 0:
            problems.append(
                f"{edit.objectName()}: {text!r} needs {need} px, has {room}; first in view {first}"
            )
    return problems
