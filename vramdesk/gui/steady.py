"""A holder for a word-wrapped label whose text changes on every edit (issue 24).

``QLabel.setText`` always calls ``updateGeometry``; in a layout that invalidates the layout
of the label's parent, whose activation calls ``updateGeometry`` on that parent in turn
(``QLayout::activate`` ends with ``mw->updateGeometry()`` whether or not a size changed), and
so on up to the window: one posted ``LayoutRequest`` a level, each level's layout measured
again with every wrapped label in it. For the verdict, the solved values and the speed lines
that was 1.1-2.2 ms of a 9-12 ms keystroke at 1366 x 768 (the code before the holders, with
the labels' sizes fixed, which stops the climb; three measurements on two cores in session
6), though a figure that changes a digit keeps its height.

:class:`SteadyHolder` takes the label out of the layout's reach: the label fills the holder,
the layout holds the holder, which answers the layout's questions (size hint, minimum size
hint, height for a width) with the label's own answers. The label's ``updateGeometry`` now
posts its ``LayoutRequest`` to the holder (a parent without a layout), and the holder passes
it up only when the label no longer fits the holder as laid out (its height at the holder's
width is not the holder's height) or its longest word, the narrowest the pane may get,
changed. A figure that takes another line still re-lays out the pane; one that keeps its
lines and its longest word repaints only itself.

The layouts above cache the holder's answers (``QWidgetItemV2`` the heights for three widths
and the hints), some for widths it is not at (a ``QScrollArea`` asks with and without its
scroll bar; a minimum size is worked out at the narrowest width), and a text that keeps its
lines here may not keep them there. Those answers are checked when they are used: each time
the holder is laid out (its resize), a height that is not the label's height at the new
width, or a width under the label's longest word, is passed up then, and the layouts lay it
out again before the window is painted (a posted ``LayoutRequest`` comes before the
low-priority paint request). Two reviews that tried to break it (a fresh user's, then a
reviewer's) found the cases this paragraph and the longest word cover; tests/gui/
test_steady.py holds them, and a seeded session of the window that checks every holder
against a fresh layout.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget

#: Qt's "no limit" for a widget's size (QWIDGETSIZE_MAX in qwidget.h).
QWIDGETSIZE_MAX = (1 << 24) - 1


class SteadyHolder(QWidget):
    """Holds ``label`` (filling it) and re-lays out its parent only when the label's size does.

    For a word-wrapped label in a vertical box or a form's field column, where its width
    comes from above and its height from ``heightForWidth``: its preferred size
    (``sizeHint``) is forwarded but not watched (a wrapped label's moves with nearly every
    text, its width a guess from the text's length), so in a row that shares out its width
    by preferred sizes the share would keep an older text's (tests/gui/test_steady.py checks
    where every holder of the window sits).

    Parameters
    ----------
    label : QLabel
        The label; it becomes the holder's only child. Showing or hiding the label shows or
        hides the holder (the layout then gives it no room), as for a label in a layout.
    parent : QWidget, optional

    Raises
    ------
    ValueError
        The label has a minimum, maximum or fixed size of its own: the layout sees the
        holder's, so give the limits to the holder.
    """

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        if label.minimumSize() != QSize(0, 0) or label.maximumSize() != QSize(
            QWIDGETSIZE_MAX, QWIDGETSIZE_MAX
        ):
            raise ValueError(
                f"SteadyHolder: label {label.objectName()!r} has size limits of its own "
                f"({label.minimumSize().toTuple()} to {label.maximumSize().toTuple()}): "
                "give them to the holder"
            )
        super().__init__(parent)
        self.label = label
        explicit = label.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide)
        hidden = label.isHidden() and explicit  # hide() called on it (not just not shown yet)
        label.setParent(self)  # a reparented widget is hidden: shown with the holder again
        label.setVisible(not hidden)
        if hidden:
            self.hide()
        # the label's policy once: it has its height-for-width flag when it wraps (set
        # word wrap before handing the label over)
        self.setSizePolicy(label.sizePolicy())
        #: The minimum size last given to the layouts (None: not asked since passed up).
        self._least: QSize | None = None
        label.installEventFilter(self)

    # ------------------------------------------------------- the layout's questions
    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """The label's."""
        return self.label.sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """The label's (a wrapped label's width: its longest word)."""
        self._least = self.label.minimumSizeHint()
        return QSize(self._least)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        """The label's (True for a word-wrapped one)."""
        return self.label.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        """The label's height for ``width`` (pixels)."""
        return self.label.heightForWidth(width)

    # ------------------------------------------------------------------ events
    def resizeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """The label fills the holder; laid out from a stale answer, the holder asks again."""
        self.label.setGeometry(self.rect())
        super().resizeEvent(event)
        if self.width() < self.label.minimumSizeHint().width():
            self.updateGeometry()  # narrower than the longest word: the minimum is stale
        else:
            self._pass_up_if_changed()

    def showEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A text set while hidden posted nothing (Qt posts to visible parents only)."""
        super().showEvent(event)
        self._pass_up_if_changed()

    def event(self, event: QEvent) -> bool:
        """The label's ``LayoutRequest``: passed up only when the label no longer fits.

        (The holder has no layout of its own, so no request is meant for one.)
        """
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
        """Pass the label's change up when it no longer fits, or its longest word changed.

        It no longer fits: its height at the holder's width is not the holder's height. Its
        longest word (the minimum size) is what a window or a splitter may shrink the pane
        to. A label that does not wrap: always, as a plain label would.
        """
        label = self.label
        if (
            not self.hasHeightForWidth()
            or label.heightForWidth(self.width()) != self.height()
            or (self._least is not None and label.minimumSizeHint() != self._least)
        ):
            self._least = None
            self.updateGeometry()
