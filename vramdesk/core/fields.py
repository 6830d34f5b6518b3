"""Input fields: their names, typed text read by the core's rules, the target GPU.

:class:`Target` and ``DEFAULT_GPU`` live in :mod:`vramdesk.core.model.target` (so that the
preset store can read a saved target) and are re-exported here.

Widgets (and scripts) hand raw values to :class:`vramdesk.core.session.ScenarioSession`:
spin-box ints, combo values, typed text. :func:`convert_field` turns them into the typed
value of the named input field through :func:`vramdesk.core.store.serialize.from_dict`, so
the same rules apply as for a preset file. These rules were the window's
(``vramdesk/gui/forms/fields.py``, which re-exports them); they live in the core so that the
Qt-free session reads typed text exactly as the window always has.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import typing
from fractions import Fraction
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.limits import INT_LIMITS, check_number_text
from vramdesk.core.model.target import DEFAULT_GPU, Target
from vramdesk.core.present import views
from vramdesk.core.store.serialize import TYPES, from_dict, type_hints
from vramdesk.core.units import gib_to_bytes, mib_to_bytes, to_fraction

#: Field name -> the input it belongs to ("model", "weights", "workload", "runtime").
FIELD_PART: dict[str, str] = {
    f.name: part for part, cls in TYPES.items() for f in dataclasses.fields(cls)
}

#: Typed whole numbers longer than this many digits are refused before they are built:
#: every limit in ``INT_LIMITS`` is far below it, and ``1e400`` must not become a 401-digit int.
MAX_TYPED_DIGITS = 30

#: A typed number: sign, digits with an optional point, optional exponent.
_NUMBER = re.compile(r"[+-]?(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?")

#: Units the custom capacity may be typed in, and their exact conversion to bytes.
CAPACITY_UNITS = {"GiB": gib_to_bytes, "MiB": mib_to_bytes, "B": int}


def parse_int_text(name: str, text: str) -> int | None:
    """Integer from typed text (``7,000,000,000``, ``7_000``, ``7e9``); ``""`` is None."""
    cleaned = check_number_text(name, text.strip()).replace(",", "").replace("_", "")
    if not cleaned:
        return None
    digits = typed_digits(cleaned)
    shown = views.compact_text(cleaned)
    if digits > MAX_TYPED_DIGITS:
        raise InputError(name, f"is far too large, got {shown}", "far_too_large", {"value": shown})
    if digits < -MAX_TYPED_DIGITS:  # 1e-999999: no whole number, and no huge denominator built
        raise InputError(
            name, f"must be a whole number, got {shown!r}", "not_int", {"value": shown}
        )
    try:
        value = to_fraction(cleaned)
    except (ValueError, ZeroDivisionError):
        raise InputError(
            name, f"must be a whole number, got {shown!r}", "not_int", {"value": shown}
        ) from None
    if value.denominator != 1:
        raise InputError(
            name, f"must be a whole number, got {shown!r}", "not_int", {"value": shown}
        )
    return int(value)


def parse_real_text(name: str, text: str) -> Fraction | None:
    """Exact number from typed text (``1.25``, ``2,048.5``, ``1e3``); ``""`` is None.

    Raises
    ------
    InputError
        ``name``: not a number, or more than :data:`MAX_TYPED_DIGITS` digits before the
        point (``1e400`` is refused before a 401-digit value is built).
    """
    cleaned = check_number_text(name, text.strip()).replace(",", "").replace("_", "")
    if not cleaned:
        return None
    shown = views.compact_text(cleaned)
    if abs(typed_digits(cleaned)) > MAX_TYPED_DIGITS:
        if typed_digits(cleaned) > 0:
            raise InputError(
                name, f"is far too large, got {shown}", "far_too_large", {"value": shown}
            )
        raise InputError(name, f"is far too small, got {shown}", "far_too_small", {"value": shown})
    try:
        return to_fraction(cleaned)
    except (ValueError, ZeroDivisionError):
        raise InputError(
            name, f"must be a number, got {shown!r}", "not_number", {"value": shown}
        ) from None


def typed_digits(text: str) -> int:
    """Digits before the point of a typed number (``1e400`` has 401, ``1e-40`` has -40).

    0 when ``text`` is not a plain number (the parser then says why).
    """
    match = _NUMBER.fullmatch(text)
    if match is None:
        return 0
    whole, _frac, exponent = match.groups()
    shift = int(exponent[:12]) if exponent else 0  # 12 digits: a huge exponent stays huge
    return len(whole.lstrip("0")) + shift


def convert_field(name: str, raw: Any) -> Any:
    """Turn a widget's raw value into the typed value of input field ``name``.

    Raises
    ------
    InputError
        ``name``: the value cannot be read as the field's type.
    """
    if isinstance(raw, enum.Enum):
        return raw
    cls = TYPES[FIELD_PART[name]]
    hint = type_hints(cls)[name]
    kinds = typing.get_args(hint) or (hint,)
    if isinstance(raw, str) and (int in kinds or Fraction in kinds):
        raw = parse_int_text(name, raw) if int in kinds else parse_real_text(name, raw)
        if raw is None and type(None) not in kinds:
            raise InputError(name, "is required", "required")
    return getattr(from_dict(cls, {name: raw}), name)


def capacity_bytes_of(value: Any, unit_label: str) -> int:
    """Bytes of a custom capacity typed as ``value`` in ``unit_label`` (GiB, MiB or B), exact.

    Raises
    ------
    InputError
        ``custom_capacity``: not a number, or outside ``INT_LIMITS["budget_bytes"]``; the
        reason states the limit in ``unit_label``, the unit the user typed in.
    """
    try:
        to_bytes = CAPACITY_UNITS[unit_label]
        n_bytes = to_bytes(value)
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError("custom_capacity", str(exc), "not_number") from None
    lo, hi = INT_LIMITS["budget_bytes"]
    if lo <= n_bytes <= hi:
        return n_bytes
    typed = f"{_short_number(value)} {unit_label}"
    if n_bytes < lo:
        raise InputError(
            "custom_capacity",
            f"must be positive, got {typed}",
            "too_small",
            {"min": f"{lo} B", "value": typed},
        )
    limit = f"{_short_number(Fraction(hi, to_bytes(1)))} {unit_label}"
    raise InputError(
        "custom_capacity",
        f"must be at most {limit}, got {typed}",
        "too_large",
        {"max": limit, "value": typed},
    )


def _short_number(value: Any) -> str:
    """Format a number for a message, compactly.

    Whole numbers below 1e15 in full (``1,073,741,824``), others as ``{:.6g}``
    (``1e+30``, ``0.5``), anything else as cut text.
    """
    try:
        if Fraction(value).denominator == 1 and abs(value) < 10**15:
            return f"{int(value):,}"
        return f"{float(value):.6g}"
    except (OverflowError, ValueError, TypeError):
        return views.compact_text(str(value))


__all__ = [
    "CAPACITY_UNITS",
    "DEFAULT_GPU",
    "FIELD_PART",
    "MAX_TYPED_DIGITS",
    "Target",
    "capacity_bytes_of",
    "convert_field",
    "parse_int_text",
    "parse_real_text",
    "typed_digits",
]
