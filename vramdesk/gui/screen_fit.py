"""Window geometry from the screen's available area: a first size, and clamping a restored one.

Pure functions of rectangles (Qt value types only), so that tests can hand in the available
geometry of any screen (1280x720, 1366x768, 1920x1080) without owning one. Geometries here are
the window's client rectangle (``QWidget.geometry()``); ``frame`` is the window manager's frame
around it (title bar, borders), which must also lie inside the available area.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize

#: Client size on a screen with room for it: large enough for the three panes side by side.
PREFERRED_SIZE = QSize(1600, 1000)

#: Frame assumed before the window manager has said (the window is not shown yet): a title bar.
FRAME_GUESS = QMargins(0, 32, 0, 0)


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(value, high))


def room(available: QRect, frame: QMargins) -> QSize:
    """The largest client size whose frame fits ``available``."""
    return QSize(
        max(1, available.width() - frame.left() - frame.right()),
        max(1, available.height() - frame.top() - frame.bottom()),
    )


def first_geometry(available: QRect, frame: QMargins = FRAME_GUESS) -> QRect:
    """Client rectangle for a first start: :data:`PREFERRED_SIZE` or the room there is, centred.

    Parameters
    ----------
    available : QRect
        The screen's available geometry (without panels and docks), logical pixels.
    frame : QMargins
        The window frame's width on each side.
    """
    space = room(available, frame)
    size = QSize(
        min(PREFERRED_SIZE.width(), space.width()), min(PREFERRED_SIZE.height(), space.height())
    )
    outer = QSize(
        size.width() + frame.left() + frame.right(), size.height() + frame.top() + frame.bottom()
    )
    x = available.x() + (available.width() - outer.width()) // 2 + frame.left()
    y = available.y() + (available.height() - outer.height()) // 2 + frame.top()
    return QRect(x, y, size.width(), size.height())


def fit_geometry(client: QRect, available: QRect, frame: QMargins = FRAME_GUESS) -> QRect:
    """``client`` made to fit: shrunk to the room there is, then moved so the frame is inside.

    A geometry restored from a larger screen, or one left off-screen (a monitor unplugged),
    comes back inside ``available``; one that already fits is returned unchanged.
    """
    space = room(available, frame)
    width, height = min(client.width(), space.width()), min(client.height(), space.height())
    x = _clamp(
        client.x(),
        available.x() + frame.left(),
        available.x() + available.width() - frame.right() - width,
    )
    y = _clamp(
        client.y(),
        available.y() + frame.top(),
        available.y() + available.height() - frame.bottom() - height,
    )
    return QRect(x, y, width, height)


def frame_margins(frame: QRect, client: QRect) -> QMargins:
    """The frame's width on each side, from the frame and client rectangles of a shown window."""
    return QMargins(
        client.left() - frame.left(),
        client.top() - frame.top(),
        frame.right() - client.right(),
        frame.bottom() - client.bottom(),
    )
