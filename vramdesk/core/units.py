"""Byte units and their display.

Bytes are exact ``int`` everywhere in the core; they are divided into GiB,
GB or MiB only for display (SPEC §2). GiB = 2**30 bytes, GB = 10**9 bytes,
MiB = 2**20 bytes: the ~7 % gap between GiB and GB is the gap between an
nvidia-smi reading and a spec-sheet "80 GB".
"""

from __future__ import annotations

import enum
import math
import re
from fractions import Fraction
from numbers import Rational

from vramdesk.core.limits import MAX_NUMBER_CHARS

KIB = 2**10
MIB = 2**20
GIB = 2**30
GB = 10**9
MB = 10**6


class Unit(enum.Enum):
    """A display unit for byte counts."""

    GIB = ("GiB", GIB)
    GB = ("GB", GB)
    MIB = ("MiB", MIB)

    def __init__(self, label: str, size_bytes: int) -> None:
        self.label = label
        self.size_bytes = size_bytes

    @classmethod
    def parse(cls, text: str) -> Unit:
        """Return the unit named ``text`` (``"GiB"``, ``"GB"`` or ``"MiB"``, any case).

        Raises
        ------
        ValueError
            If ``text`` names no unit.
        """
        for unit in cls:
            if unit.label.lower() == text.strip().lower():
                return unit
        raise ValueError(f"unknown unit {text!r}: expected GiB, GB or MiB")


def to_unit(n_bytes: int | Fraction, unit: Unit = Unit.GIB) -> float:
    """Return ``n_bytes`` expressed in ``unit`` as a float (display only).

    The float nearest the exact quotient: for an int, ``int / int`` is correctly rounded in
    Python, the same float as through a Fraction, without building one (a hot path).
    """
    if type(n_bytes) is int:
        return n_bytes / unit.size_bytes
    return float(Fraction(n_bytes) / unit.size_bytes)


def format_bytes(n_bytes: int | Fraction, unit: Unit = Unit.GIB, digits: int = 2) -> str:
    """Format a byte count for display, always with its unit, e.g. ``"13.04 GiB"``."""
    return f"{to_unit(n_bytes, unit):,.{digits}f} {unit.label}"


def gib_to_bytes(gib: float | Fraction | str) -> int:
    """Return the whole number of bytes in ``gib`` GiB, rounded half up.

    ``gib`` is converted through :class:`fractions.Fraction` from its decimal
    text, so ``gib_to_bytes(0.9)`` is exact: 966367641.6 -> 966367642.
    """
    return round_half_up(to_fraction(gib) * GIB)


def mib_to_bytes(mib: int | float | Fraction | str) -> int:
    """Return the whole number of bytes in ``mib`` MiB, rounded half up."""
    return round_half_up(to_fraction(mib) * MIB)


#: Decimal exponents beyond this are refused before Fraction expands them (floats end at 1e308).
MAX_DECIMAL_EXPONENT = 4000
_EXPONENT = re.compile(r"[eE]\s*[+-]?0*(\d+)\s*$")


def to_fraction(value: float | int | Fraction | str) -> Fraction:
    """Return ``value`` as an exact fraction, reading floats by their shortest repr.

    ``to_fraction(0.9) == Fraction(9, 10)`` (not the binary float 0.900000000000000022...),
    which keeps user-typed decimals such as 0.9 or 1.15 exact.

    Raises
    ------
    ValueError
        Not a number, not finite, or a decimal exponent beyond ``MAX_DECIMAL_EXPONENT``.
    """
    if isinstance(value, (int, Fraction, Rational)) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {value!r}")
        return Fraction(repr(value))
    text = str(value).strip()
    if len(text) > MAX_NUMBER_CHARS:  # before Fraction(): Python refuses 4,300 digits
        raise ValueError(f"a number of {len(text):,} characters (at most {MAX_NUMBER_CHARS})")
    exponent = _EXPONENT.search(text)
    digits = exponent.group(1) if exponent is not None else ""
    if len(digits) > 6 or (digits and int(digits) > MAX_DECIMAL_EXPONENT):
        # Fraction("1e999999999") builds a 10**999999999 integer: minutes of work
        raise ValueError(f"{text!r} is out of range (exponent beyond ±{MAX_DECIMAL_EXPONENT})")
    return Fraction(text)


def round_half_up(value: Fraction | int) -> int:
    """Round an exact value to the nearest int, halves away from zero."""
    value = Fraction(value)
    if value >= 0:
        return math.floor(value + Fraction(1, 2))
    return -math.floor(-value + Fraction(1, 2))


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for ints, exactly (vLLM's ``cdiv``): blocks for tokens, layers per stage.

    Raises
    ------
    ZeroDivisionError
        If ``b`` is 0.
    """
    return -(-a // b)


def round_up(value: int, multiple: int) -> int:
    """``value`` rounded up to a whole number of ``multiple`` (``ceil_div(value, m) * m``)."""
    return ceil_div(value, multiple) * multiple


def ceil_bytes(value: Fraction | int) -> int:
    """Round a fractional byte count up to whole bytes (memory is allocated in bytes)."""
    if type(value) is int:  # already whole: skip building a Fraction (hot path)
        return value
    return math.ceil(Fraction(value))
