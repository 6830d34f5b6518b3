"""The value types of the command line's flags: a positive number, a whole number, a block size.

Each raises ``argparse.ArgumentTypeError`` with the reason, so that argparse names the flag
(exit 2, one line).
"""

from __future__ import annotations

import argparse

from vramdesk.core.limits import MAX_NUMBER_CHARS, short_text


def _short(text: str) -> str:
    """A length check first (no conversion of a huge text), then ``text`` as a message shows it."""
    if len(text) > MAX_NUMBER_CHARS:
        raise argparse.ArgumentTypeError(
            f"is {len(text):,} characters long, more than any number takes (at most "
            f"{MAX_NUMBER_CHARS})"
        )
    return short_text(text)


def positive_number(text: str) -> float:
    shown = _short(text)
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {shown}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {shown}")
    return value


def whole(text: str) -> int:
    shown = _short(text)
    try:
        return int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {shown}") from None


def block_size(text: str) -> int | str:
    return "none" if text.strip().lower() in ("none", "off") else whole(text)
