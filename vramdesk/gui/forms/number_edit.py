"""A number field that keeps exactly what the user typed (issue: typed numbers changed).

:class:`NumberEdit` is a ``QLineEdit``: the text the user types is handed, as text, to the
controller, which parses it with the core's rules and limits. Nothing is ever written
back into the field while it has focus, so group separators and reformatting cannot
move the cursor or change digits mid-typing. When focus leaves, the field shows the
value the controller holds (``131072`` becomes ``131,072``) — or, when the text was
refused, keeps the text so the mark and its reason stay beside what was typed.

Up/Down (and Page Up/Down, ten steps) step the value like a spin box.

A field is never narrower than the text of its largest value (:meth:`minimumSizeHint`), in
whatever font it has: a narrow field scrolled ``131,072`` to ``31,072`` (issue 23, item 8).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QStyle, QStyleOptionFrame, QWidget

from vramdesk.core.errors import InputError
from vramdesk.gui.forms.fields import parse_number_text


class NumberEdit(QLineEdit):
    """A line edit for one whole or real number, with an optional "not set" word.

    Parameters
    ----------
    kind : type
        ``int`` or ``Fraction`` (reals are exact decimals).
    special : str or None
        The word shown (as placeholder) when the value is None; typing it, or clearing
        the field, means "not set". None: the field is required.
    step : int or Fraction
        What Up/Down add or subtract.
    limits : (lo, hi)
        Inclusive range, used only to stop Up/Down at the ends (the core checks typed text).
    """

    #: Emitted for every step by Up/Down (the text was replaced by the stepped value).
    stepped = Signal()

    def __init__(
        self,
        kind: type,
        special: str | None = None,
        step: Any = 1,
        limits: tuple[Any, Any] | None = None,
        decimals: int | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self.special = special
        self.step = step
        self.limits = limits
        self.decimals = decimals
        if special:
            self.setPlaceholderText(special)
        if special is not None:  # "not set" is allowed: a clear button (off by default)
            self.setClearButtonEnabled(True)
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    # ----------------------------------------------------------------- text
    def format_value(self, value: Any) -> str:
        """The text shown for ``value`` (group separators; reals in their shortest form)."""
        if value is None:
            return ""
        if self.kind is int:
            return f"{int(value):,}"
        fraction = Fraction(value)
        if self.decimals is not None and fraction.denominator != 1:
            text = f"{float(fraction):,.{self.decimals}f}".rstrip("0").rstrip(".")
            if Fraction(text.replace(",", "")) == fraction:
                return text
        return f"{float(fraction):,.15g}" if fraction.denominator != 1 else f"{int(fraction):,}"

    def show_value(self, value: Any) -> None:
        """Show ``value`` unless the user is typing here (never write into a focused field)."""
        if self.hasFocus():
            return
        text = self.format_value(value)
        if text != self.text():
            self.setText(text)

    def typed(self) -> str:
        """The raw text, with the "not set" word read as empty."""
        text = self.text().strip()
        if self.special and text.lower() == self.special.lower():
            return ""
        return text

    def value(self) -> Any:
        """The number the text reads as (int or Fraction; None when empty).

        Raises
        ------
        InputError
            The text is not a number.
        """
        number = parse_number_text(self.objectName(), self.typed())
        if number is not None and self.kind is int and number.denominator == 1:
            return int(number)
        return number

    # ----------------------------------------------------------------- size
    def widest_text(self) -> str:
        """The longest text the field shows for a value in its range (its limits' texts)."""
        if self.limits is None:
            return ""
        texts = [self.format_value(v) for v in self.limits]
        return max(texts, key=self.fontMetrics().horizontalAdvance)

    def text_room(self, text: str) -> int:
        """The field width at which ``text`` is shown whole: frame, margins, clear button."""
        metrics = self.fontMetrics()
        margins = self.textMargins()
        # QLineEdit's own 2-px horizontal margin each side and a 1-px cursor (qlineedit.cpp)
        width = metrics.horizontalAdvance(text) + margins.left() + margins.right() + 2 * 2 + 1
        if self.isClearButtonEnabled():  # a side widget: icon + 6, and its margin (qlineedit_p)
            style = self.style()
            metric = QStyle.PixelMetric
            icon = style.pixelMetric(metric.PM_LineEditIconSize, None, self)
            width += icon + 6 + style.pixelMetric(metric.PM_LineEditIconMargin, None, self)
        option = QStyleOptionFrame()
        self.initStyleOption(option)
        contents = QSize(width, metrics.height())
        return (
            self.style()
            .sizeFromContents(QStyle.ContentsType.CT_LineEdit, option, contents, self)
            .width()
        )

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Qt's minimum, at least as wide as the largest value's text (:meth:`widest_text`)."""
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), self.text_room(self.widest_text())), hint.height())

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Qt's size, at least the minimum (:meth:`minimumSizeHint`)."""
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.minimumSizeHint().width()), hint.height())

    # ------------------------------------------------------------- stepping
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        """Up/Down step by one, Page Up/Down by ten; other keys edit the text."""
        steps = {
            Qt.Key.Key_Up: 1,
            Qt.Key.Key_Down: -1,
            Qt.Key.Key_PageUp: 10,
            Qt.Key.Key_PageDown: -10,
        }.get(Qt.Key(event.key()))
        if steps is None:
            super().keyPressEvent(event)
            return
        try:
            current = parse_number_text(self.objectName(), self.typed())
        except InputError:  # an unreadable text is not stepped
            return
        base = Fraction(0) if current is None else current
        value = base + Fraction(self.step) * steps
        if self.limits is not None:
            lo, hi = (
                Fraction(repr(x)) if isinstance(x, float) else Fraction(x) for x in self.limits
            )
            value = min(max(value, lo), hi)
        self.setText(self.format_value(int(value) if self.kind is int else value))
        self.stepped.emit()
