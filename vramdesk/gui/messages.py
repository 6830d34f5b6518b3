"""Translated reasons for :class:`InputError` (STYLE: "Error reasons carry a code and parameters").

The core writes English reasons; each error also carries a stable ``code`` and the
values it mentions (``params``). When a translation of the code's template is
installed, the window shows the translated sentence filled with those values; otherwise
(English, or a code or parameter this table does not know) the core's own reason.
"""

from __future__ import annotations

from fractions import Fraction

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from vramdesk.core.errors import InputError

CONTEXT = "InputError"

#: (code, parameters the template needs) -> English template, marked for lupdate.
TEMPLATES: dict[tuple[str, tuple[str, ...]], str] = {
    ("divisor", ("heads",)): QT_TRANSLATE_NOOP(
        "InputError", "must be a divisor of num_attention_heads ({heads})"
    ),
    ("too_small", ("min", "value")): QT_TRANSLATE_NOOP(
        "InputError", "must be at least {min}, got {value}"
    ),
    ("too_large", ("max", "value")): QT_TRANSLATE_NOOP(
        "InputError", "must be at most {max}, got {value}"
    ),
    ("out_of_range", ("min", "max", "value")): QT_TRANSLATE_NOOP(
        "InputError", "must be between {min} and {max}, got {value}"
    ),
    ("not_int", ("value",)): QT_TRANSLATE_NOOP("InputError", "must be a whole number, got {value}"),
    ("not_number", ("value",)): QT_TRANSLATE_NOOP("InputError", "must be a number, got {value}"),
    ("far_too_large", ("value",)): QT_TRANSLATE_NOOP("InputError", "is far too large, got {value}"),
    ("far_too_small", ("value",)): QT_TRANSLATE_NOOP("InputError", "is far too small, got {value}"),
    ("required", ()): QT_TRANSLATE_NOOP("InputError", "is required"),
}


def _shown(value: object) -> str:
    """A parameter as the sentence shows it: 10,000 and 0.5, not 10000 and 1/2."""
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        return str(value)
    if isinstance(value, int) or (isinstance(value, Fraction) and value.denominator == 1):
        return f"{int(value):,}"
    return f"{float(value):g}"


def reason_text(error: InputError) -> str:
    """The reason of ``error`` in the UI language (the core's English reason as the fallback)."""
    for (code, needs), template in TEMPLATES.items():
        if error.code == code and all(k in error.params for k in needs):
            translated = QCoreApplication.translate(CONTEXT, template)
            if translated != template:
                return translated.format(**{k: _shown(error.params[k]) for k in needs})
    return error.reason
