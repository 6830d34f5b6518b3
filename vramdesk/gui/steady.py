"""A holder for a word-wrapped label whose text changes on every edit (issue 24).

``QLabel.setText`` always calls ``updateGeometry``; in a layout that invalidates the layout
of the label's parent, whose activation calls ``updateGeometry`` on that parent in turn
(``QLayout::activate`` ends with ``mw->updateGeometry()`` whether or not a size changed), and
so on up to the window: one posted ``LayoutRequest`` a level, each level's layout measured
again with every wrapped label in it. For the verdict, the solved values and the speed lines
that was about 1.1 ms of a 9 ms keystroke at 1366 x 768 (measured with the labels' sizes
fixed, which stops the climb), though a figure that changes a digit keeps its height.

:class:`SteadyHolder` takes the label out of the layout's reach: the label fills the holder,
the layout holds the holder, which answers the layout's questions (size hints, height for a
width) with the label's own answers. The label's ``updateGeometry`` now posts its
``LayoutRequest`` to the holder (a parent without a layout), and the holder passes it up only
when the label's height at the holder's width changed: a figure that takes another line
still re-lays out the pane, one that keeps its lines repaints only itself.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget


class SteadyHolder(QWidget):
    """Holds ``label`` (filling it) and re-lays out its parent only when the label's height does.

    Parameters
    ----------
    label : QLabel
        The label; it becomes the holder's only child. Showing or hiding the label shows or
        hides the holder (the layout then gives it no room), as for a label in a layout.
    parent : QWidget, optional
    """

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        explicit = label.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide)
        hidden = label.isHidden() and explicit  # hide() called on it (not just not shown yet)
        label.setParent(self)  # a reparented widget is hidden: shown with the holder again
        label.setVisible(not hidden)
        if hidden:
            self.hide()
        self.setSizePolicy(label.sizePolicy())
        self._height: int | None = None  # the label's height for the holder's width, last told
        label.installEventFilter(self)

    # ------------------------------------------------------- the layout's questions
    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """The label's."""
        return self.label.sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """The label's."""
        return self.label.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        """The label's (True for a word-wrapped one)."""
        return self.label.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        """The label's height for ``width`` (pixels)."""
        return self.label.heightForWidth(width)

    # ------------------------------------------------------------------ events
    def resizeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """The label fills the holder."""
        self.label.setGeometry(self.rect())
        self._height = None
        super().resizeEvent(event)

    def showEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A text set while hidden posted nothing (Qt posts to visible parents only)."""
        super().showEvent(event)
        self._pass_up_if_changed()

    def event(self, event: QEvent) -> bool:
        """The label's ``LayoutRequest``: passed up only when its height for this width moved."""
        if event.type() == QEvent.Type.LayoutRequest:
            self._pass_up_if_changed()
            return True
        return super().event(event)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """The label shown or hidden: so is the holder."""
        if obj is self.label:
            kind = event.type()
            if kind == QEvent.Type.ShowToParent:
                self.show()
            elif kind == QEvent.Type.HideToParent:
                self.hide()
        return False

    def _pass_up_if_changed(self) -> None:
        height = self.label.heightForWidth(self.width()) if self.hasHeightForWidth() else None
        if height is None or height != self._height:
            self._height = height
            self.updateGeometry()
