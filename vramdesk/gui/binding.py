"""The binder base class: a table from field name to widget (napari ``QtWidgetControlsBase``).

A :class:`BoundForm` creates one widget per input field with its range from
:mod:`vramdesk.core.limits`, forwards every edit to
:meth:`ScenarioController.set_field`, sets widgets from the controller's draft inside
``signals_blocked`` (nothing echoes back) and marks the field the core names in an
:class:`InputError` with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)
from superqt.utils import signals_blocked

from vramdesk.core.limits import FLOAT_LIMITS, INT_LIMITS
from vramdesk.core.views import shorten
from vramdesk.gui.controller import ScenarioController

#: Largest value a QSpinBox holds (a C int).
QT_INT_MAX = 2**31 - 1

#: Background of a field the core refused (a palette colour keeps the native spin arrows).
INVALID_BACKGROUND = QColor("#f8c9c4")

#: Longest error text shown in a form (the full text is in the tooltip).
ERROR_TEXT_LIMIT = 200

#: Longest unbroken run in a shown error before a zero-width space lets it wrap.
UNBROKEN_RUN = 32

#: InputError field names that are shown by a widget of another name.
FIELD_ALIASES = {
    "layer_types": "sliding_pattern",
    "fixed_overhead_bytes": "fixed_overhead_gib",
    "budget_bytes": "custom_capacity",
    "vram_gib": "custom_capacity",
    "gpu": "target",
}


def int_range(name: str, optional: bool) -> tuple[int, int]:
    """Spin-box range of integer field ``name``; one below the minimum means "not set"."""
    lo, hi = INT_LIMITS[name]
    return (lo - 1 if optional else lo), min(hi, QT_INT_MAX)


class BoundForm(QGroupBox):
    """A group of widgets bound to controller fields by name."""

    def __init__(
        self, title: str, controller: ScenarioController, parent: QWidget | None = None
    ) -> None:
        super().__init__(title, parent)
        self.controller = controller
        self.fields: dict[str, QWidget] = {}
        self._getters: dict[str, Callable[[], Any]] = {}
        self._setters: dict[str, Callable[[Any], None]] = {}
        self._choices: dict[str, list[Any]] = {}
        self.layout_ = QFormLayout(self)
        self.layout_.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.error_label = QLabel()
        self.error_label.setObjectName("error_label")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c0392b;")
        self.error_label.hide()
        self.layout_.addRow(self.error_label)
        controller.inputsChanged.connect(self.sync)
        controller.fieldInvalid.connect(self._on_controller_invalid)
        controller.fieldsValid.connect(self.clear_marks)

    # ------------------------------------------------------------ builders
    def _register(
        self,
        name: str,
        label: str,
        widget: QWidget,
        getter: Callable[[], Any],
        setter: Callable[[Any], None],
    ) -> QWidget:
        widget.setObjectName(name)
        self.fields[name] = widget
        self._getters[name] = getter
        self._setters[name] = setter
        self.layout_.addRow(label, widget)
        return widget

    def _edited(self, name: str) -> None:
        self.controller.set_field(name, self._getters[name]())

    def add_int(self, name: str, label: str, special: str | None = None) -> QSpinBox:
        """A spin box for integer field ``name``; ``special`` names the "not set" value (None)."""
        box = QSpinBox()
        box.setRange(*int_range(name, special is not None))
        box.setGroupSeparatorShown(True)
        box.setAccelerated(True)
        if special is not None:
            box.setSpecialValueText(special)
        none_at = box.minimum() if special is not None else None
        lo, hi = INT_LIMITS[name]
        _hint(box, self.tr("a whole number from {0} to {1}").format(f"{lo:,}", f"{min(hi, box.maximum()):,}"))

        def get() -> int | None:
            return None if box.value() == none_at else box.value()

        def put(value: int | None) -> None:
            box.setValue(box.minimum() if value is None else min(int(value), box.maximum()))

        box.valueChanged.connect(lambda _v: self._edited(name))
        return self._register(name, label, box, get, put)  # type: ignore[return-value]

    def add_real(
        self,
        name: str,
        label: str,
        decimals: int = 2,
        step: float = 0.01,
        limits: str | None = None,
    ) -> QDoubleSpinBox:
        """A spin box for real field ``name`` (range from ``FLOAT_LIMITS[limits or name]``)."""
        box = QDoubleSpinBox()
        box.setDecimals(decimals)
        box.setSingleStep(step)
        lo, hi = FLOAT_LIMITS[limits or name]
        box.setRange(lo, hi)
        _hint(box, self.tr("a number from {0:g} to {1:g}").format(lo, hi))
        box.valueChanged.connect(lambda _v: self._edited(name))
        return self._register(
            name, label, box, box.value, lambda v: box.setValue(float(Fraction(v)))
        )  # type: ignore[return-value]

    def add_choice(self, name: str, label: str, items: list[tuple[str, Any]]) -> QComboBox:
        """A combo box offering ``items`` (text, value); values stay on the Python side.

        (Values are never stored as QVariant item data: PySide6 6.12.0 lost references to
        ``None``/``True`` in that round trip; see tests/gui/test_qt_refcounts.py.)
        """
        box = QComboBox()
        self._choices[name] = []
        box.currentIndexChanged.connect(lambda _i: self._edited(name))
        self._register(
            name, label, box, lambda: self._choice_value(name), lambda v: self._choose(name, v)
        )
        self.set_choices(name, items)
        return box

    def set_choices(self, name: str, items: list[tuple[str, Any]]) -> None:
        """Replace the items of choice field ``name`` (signals blocked)."""
        box = self.fields[name]
        texts = [box.itemText(i) for i in range(box.count())]
        if texts == [t for t, _v in items] and self._choices[name] == [v for _t, v in items]:
            return  # unchanged: keep an open popup open
        with signals_blocked(box):
            box.clear()
            self._choices[name] = [value for _text, value in items]
            box.addItems([text for text, _value in items])

    def choices(self, name: str) -> list[Any]:
        """The values of choice field ``name``, in item order."""
        return list(self._choices[name])

    def _choice_value(self, name: str) -> Any:
        index = self.fields[name].currentIndex()
        return self._choices[name][index] if index >= 0 else None

    def _choose(self, name: str, value: Any) -> None:
        values = self._choices[name]
        if value in values:
            self.fields[name].setCurrentIndex(values.index(value))

    def add_check(self, name: str, label: str) -> QCheckBox:
        """A check box for a boolean field."""
        box = QCheckBox()
        box.toggled.connect(lambda _b: self._edited(name))
        return self._register(name, label, box, box.isChecked, lambda v: box.setChecked(bool(v)))  # type: ignore[return-value]

    def add_text(
        self,
        name: str,
        label: str,
        placeholder: str = "",
        show: Callable[[Any], str] = lambda v: "" if v is None else str(v),
    ) -> QLineEdit:
        """A line edit whose raw text the controller parses (every keystroke is an edit)."""
        edit = QLineEdit()
        edit.setPlaceholderText(placeholder)
        edit.setClearButtonEnabled(True)
        edit.textEdited.connect(lambda _t: self._edited(name))
        edit.editingFinished.connect(self.sync)  # show the value the controller settled on
        return self._register(name, label, edit, edit.text, lambda v: edit.setText(show(v)))  # type: ignore[return-value]

    def add_readonly(self, key: str, label: str) -> QLabel:
        """A read-only value computed by the core (styled as derived)."""
        value = QLabel("—")
        value.setObjectName(key)
        value.setProperty("derived", True)
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fields[key] = value
        self.layout_.addRow(label, value)
        return value

    # ------------------------------------------------------------- syncing
    def current(self, name: str) -> Any:
        """The draft value the widget of ``name`` should show (override for pseudo fields)."""
        return self.controller.value(name)

    def sync(self) -> None:
        """Set every bound widget from the controller's draft, signals blocked."""
        for name, setter in self._setters.items():
            widget = self.fields[name]
            if widget.hasFocus() and isinstance(widget, QLineEdit):
                continue
            with signals_blocked(widget):
                setter(self.current(name))
        self.sync_derived()

    def sync_derived(self) -> None:
        """Refresh read-only derived values (override)."""

    # ------------------------------------------------------------- marking
    def widget_for(self, field: str) -> QWidget | None:
        """The widget bound to core field ``field`` (aliases resolved), or None."""
        return self.fields.get(FIELD_ALIASES.get(field, field)) or self.fields.get(field)

    def _on_controller_invalid(self, field: str, reason: str) -> None:
        self.clear_marks()
        widget = self.widget_for(field)
        if widget is not None:
            text = f"{field}: {reason}"
            mark_widget(widget, shorten(text, 2000))
            self.error_label.setText(wrappable(shorten(text, ERROR_TEXT_LIMIT)))
            self.error_label.setToolTip(shorten(text, 2000))
            self.error_label.show()

    def clear_marks(self) -> None:
        """Remove every invalid mark of this form."""
        for widget in self.fields.values():
            if widget.property("invalid"):
                mark_widget(widget, None)
        self.error_label.hide()


def wrappable(text: str) -> str:
    """``text`` with a zero-width space in every long unbroken run, so a label can wrap it."""
    words = []
    for word in text.split(" "):
        runs = [word[i : i + UNBROKEN_RUN] for i in range(0, len(word), UNBROKEN_RUN)]
        words.append("\u200b".join(runs))
    return " ".join(words)


def _hint(widget: QWidget, text: str) -> None:
    """Show the accepted range as the widget's tooltip (the box refuses values outside it)."""
    widget.setProperty("hint", text)
    widget.setToolTip(text)


def mark_widget(widget: QWidget, reason: str | None) -> None:
    """Mark ``widget`` invalid with ``reason`` as its tooltip, or clear the mark (None)."""
    widget.setProperty("invalid", reason is not None)
    widget.setToolTip(reason or widget.property("hint") or "")
    palette = QPalette()  # the application's palette: clears the mark
    if reason:
        for role in (QPalette.ColorRole.Base, QPalette.ColorRole.Button, QPalette.ColorRole.Window):
            palette.setColor(role, INVALID_BACKGROUND)
    widget.setPalette(palette)
    widget.setAutoFillBackground(reason is not None)
