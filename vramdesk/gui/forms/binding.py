"""The binder base class: a table from field name to widget (napari ``QtWidgetControlsBase``).

A :class:`BoundForm` creates one widget per input field with its range from
:mod:`vramdesk.core.limits`, forwards every edit to
:meth:`ScenarioController.set_field`, sets widgets from the controller's draft inside
``QSignalBlocker`` (nothing echoes back) and marks the field the core names in an
:class:`InputError` with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QWidget,
)

from vramdesk.core.errors import InputError
from vramdesk.core.limits import FLOAT_LIMITS, INT_LIMITS
from vramdesk.core.present.views import shorten
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.forms.fields import FIELD_PART, convert_field
from vramdesk.gui.forms.number_edit import NumberEdit
from vramdesk.gui.messages import reason_text
from vramdesk.gui.theme import tint

#: Background of a field the core refused (a palette colour keeps the native spin arrows).
INVALID_BACKGROUND = QColor("#f8c9c4")
INVALID_TEXT = QColor("#1f1f1f")

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


class BoundForm(QGroupBox):
    """A group of widgets bound to controller fields by name."""

    #: Whether the form shows its refusals on its own error line (a form on its own); the
    #: window's form column says them all below its fields instead (form_column.py).
    inline_errors = True

    def __init__(
        self, title: str, controller: ScenarioController, parent: QWidget | None = None
    ) -> None:
        super().__init__(title, parent)
        self.controller = controller
        self.fields: dict[str, QWidget] = {}
        #: Each field's row label as the window shows it (``Context (tokens per sequence)``).
        self.labels: dict[str, str] = {}
        self._getters: dict[str, Callable[[], Any]] = {}
        self._setters: dict[str, Callable[[Any], None]] = {}
        self._choices: dict[str, list[Any]] = {}
        self.layout_ = QFormLayout(self)
        self.layout_.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.error_label = QLabel()
        self.error_label.setObjectName("error_label")
        self.error_label.setWordWrap(True)
        tint(self.error_label, "error")
        self.error_label.hide()
        self.layout_.addRow(self.error_label)
        controller.inputsChanged.connect(self.sync)
        controller.marksChanged.connect(self.show_marks)

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
        self.labels[name] = label
        self._getters[name] = getter
        self._setters[name] = setter
        self.layout_.addRow(label, widget)
        return widget

    def _edited(self, name: str) -> None:
        self.controller.set_field(name, self._getters[name]())

    def add_int(
        self,
        name: str,
        label: str,
        special: str | None = None,
        limits: tuple[int, int] | None = None,
    ) -> NumberEdit:
        """A number field for integer field ``name``; ``special`` names "not set" (None).

        The range (``INT_LIMITS[name]`` unless ``limits``) is stated in the tooltip; the
        core checks what is typed and the field says why a value is refused.
        """
        lo, hi = limits or INT_LIMITS[name]
        edit = NumberEdit(int, special, 1, (lo, hi))
        hint = self.tr("a whole number from {0} to {1}").format(f"{lo:,}", f"{hi:,}")
        if special:
            hint += self.tr("; empty: {0}").format(special)
        return self._add_number(name, label, edit, hint)

    def add_real(
        self,
        name: str,
        label: str,
        decimals: int = 2,
        step: float = 0.01,
        limits: str | None = None,
    ) -> NumberEdit:
        """A number field for real field ``name`` (range from ``FLOAT_LIMITS[limits or name]``).

        Values are exact decimals (``1.15`` is 115/100); ``decimals`` only shortens display.
        """
        lo, hi = FLOAT_LIMITS[limits or name]
        edit = NumberEdit(Fraction, None, Fraction(repr(step)), (lo, hi), decimals)
        hint = self.tr("a number from {0:g} to {1:g}").format(lo, hi)
        return self._add_number(name, label, edit, hint)

    def _add_number(self, name: str, label: str, edit: NumberEdit, hint: str) -> NumberEdit:
        _hint(edit, hint)
        edit.textEdited.connect(lambda _t: self._typed_in(name))
        edit.stepped.connect(lambda: self._typed_in(name))
        edit.editingFinished.connect(lambda: self._finished(name))
        self._register(name, label, edit, edit.typed, edit.show_value)
        return edit

    def _typed_in(self, name: str) -> None:
        """A keystroke in a number field: compute live, but commit only when editing ends."""
        self.controller.set_field(name, self._getters[name](), commit=False)

    def _finished(self, name: str) -> None:
        """Editing ended (Tab, Enter, focus left): commit, then show the value in force."""
        self.controller.commit(name)
        self.sync()

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
        with QSignalBlocker(box):
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
            if isinstance(widget, QLineEdit) and (
                widget.hasFocus() or self.controller.typed_text(name) is not None
            ):
                continue  # never write into a field being typed in, nor over a refused text
            if (
                isinstance(widget, NumberEdit)
                and widget.kind is not int  # whole numbers are reformatted exactly (131,072)
                and self.text_holds(name, widget.typed())
            ):
                continue  # "23.7" stays "23.7", not the float its exact bytes come back as
            with QSignalBlocker(widget):
                setter(self.current(name))
        self.sync_derived()

    def text_holds(self, name: str, text: str) -> bool:
        """Whether ``text`` already reads as the value the controller holds for ``name``.

        Override for fields shown in another unit than the core stores (bytes as GiB).
        """
        if name not in FIELD_PART or not text:
            return False
        try:
            return convert_field(name, text) == self.controller.value(name)
        except InputError:
            return False

    def sync_derived(self) -> None:
        """Refresh read-only derived values (override)."""

    # ------------------------------------------------------------- marking
    def widget_for(self, field: str) -> QWidget | None:
        """The widget bound to core field ``field`` (aliases resolved), or None."""
        return self.fields.get(FIELD_ALIASES.get(field, field)) or self.fields.get(field)

    def label_for(self, field: str) -> str | None:
        """The row label of the widget bound to ``field`` (aliases resolved), or None."""
        return self.labels.get(FIELD_ALIASES.get(field, field)) or self.labels.get(field)

    def show_marks(self) -> None:
        """Mark every field of this form whose typed text is refused, or that the core names.

        A refused text's reason goes to the field's tooltip and the form's error line;
        marks clear as soon as the controller accepts the value.
        """
        self.clear_marks()
        lines = []
        for names, text in refusals(self.controller):
            shown = False
            for name in names:
                widget = self.widget_for(name)
                if widget is not None:
                    mark_widget(widget, text)
                    shown = True
            if shown:
                lines.append(text)
        if lines:
            show_error_lines(self.error_label, lines)
            self.error_label.setVisible(self.inline_errors)

    def clear_marks(self) -> None:
        """Remove every invalid mark of this form."""
        for widget in self.fields.values():
            if widget.property("invalid"):
                mark_widget(widget, None)
        self.error_label.hide()


def refusals(controller: ScenarioController) -> list[tuple[tuple[str, ...], str]]:
    """Each refusal in force: (the field names it marks, its line), in the order typed.

    Every refused typed value, or, when none, the committed inputs' own problem.
    """
    errors = list(controller.refused.items())
    if controller.problem is not None and not errors:  # the committed inputs themselves
        errors = [(controller.problem.field, controller.problem)]
    return [
        (
            tuple(dict.fromkeys((typed_name, error.field))),
            shorten(f"{error.field}: {reason_text(error)}", 2000),
        )
        for typed_name, error in errors
    ]


def show_error_lines(label: QLabel, lines: list[str]) -> None:
    """Put ``lines`` on ``label``, one a line, each cut to :data:`ERROR_TEXT_LIMIT`.

    The tooltip has every line whole.
    """
    lines = list(dict.fromkeys(lines))
    label.setText("\n".join(wrappable(shorten(line, ERROR_TEXT_LIMIT)) for line in lines))
    label.setToolTip("\n".join(lines))


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
        # dark text on the light mark, whatever the scheme's text colour
        palette.setColor(QPalette.ColorRole.Text, INVALID_TEXT)
        palette.setColor(QPalette.ColorRole.ButtonText, INVALID_TEXT)
    widget.setPalette(palette)
    widget.setAutoFillBackground(reason is not None)
