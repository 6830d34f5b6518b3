"""A form's rows side by side while it is wide enough, every label above its field when not.

QFormLayout's ``WrapLongRows`` gives every field the width left of the form's widest label,
and keeps a row side by side even when its field's minimum is wider than that: a field of a
large number was cut (169 px for 174). :class:`RowWrap` switches the form to ``WrapAllRows``
while it is narrower than :func:`side_by_side_width`.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QFormLayout, QWidget


def side_by_side_width(form: QWidget) -> int:
    """The width ``form`` needs to show each label beside its field, no field below its minimum.

    QFormLayout's ``WrapLongRows`` gives every field the width left of its widest label and
    keeps a row side by side even when its field's minimum is wider than that (a field of
    a large number was cut); what this needs, a row the layout has not wrapped, gets.
    """
    layout = form.layout()
    labels, fields = [0], [0]
    for row in range(layout.rowCount()):
        label = layout.itemAt(row, QFormLayout.ItemRole.LabelRole)
        field = layout.itemAt(row, QFormLayout.ItemRole.FieldRole)
        if label is None or field is None:
            continue
        labels.append(label.sizeHint().width())
        fields.append(field.minimumSize().width())
    outer = layout.contentsMargins()
    inner = form.contentsMargins()
    margins = outer.left() + outer.right() + inner.left() + inner.right()
    return max(labels) + max(layout.horizontalSpacing(), 0) + max(fields) + margins


class RowWrap(QObject):
    """Puts every label of a form above its field while the form is too narrow for both.

    ``WrapLongRows`` otherwise (the form's :func:`side_by_side_width` is there).
    """

    def __init__(self, form: QWidget) -> None:
        super().__init__(form)
        form.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """On a resize, wrap the form's rows when its width cannot hold them side by side."""
        if event.type() == QEvent.Type.Resize:
            fit_rows(obj)
        return False


def fit_rows(form: QWidget) -> None:
    """Every row of ``form`` wrapped while it is narrower than :func:`side_by_side_width`."""
    wrap = (
        QFormLayout.RowWrapPolicy.WrapAllRows
        if form.width() < side_by_side_width(form)
        else QFormLayout.RowWrapPolicy.WrapLongRows
    )
    layout = form.layout()
    if layout.rowWrapPolicy() != wrap:
        layout.setRowWrapPolicy(wrap)
