"""Dragging with the mouse the way a person does: press, several moves, release.

The events are QTest's on the view's viewport, so pyqtgraph's scene turns them into its own
drag events (``mouseDragEvent``) exactly as for a real mouse.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QGraphicsItem

#: QTest says this when a press or release is not accepted by the viewport: pyqtgraph's
#: scene handles a drag without accepting the press. It is the harness talking, not the window.
NOT_ACCEPTED = r'Mouse event "Mouse(Press|Release)" not accepted by receiving widget'


def drag_item(view: pg.GraphicsView, item: QGraphicsItem, by: tuple[int, int], steps: int = 10):
    """Press the left button on ``item``'s centre in ``view``, move by ``by`` in ``steps``, release.

    Parameters
    ----------
    view : pg.GraphicsView
        The view showing ``item`` (a ``PlotWidget``).
    item : QGraphicsItem
        The item to drag.
    by : tuple of int
        The drag in view pixels (x, y).
    steps : int
        How many mouse moves between the press and the release.
    """
    viewport = view.viewport()
    start = view.mapFromScene(item.mapToScene(item.boundingRect().center()))
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for step in range(1, steps + 1):
        QTest.mouseMove(viewport, start + QPoint(by[0] * step // steps, by[1] * step // steps))
    end = start + QPoint(*by)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
