"""Input fields: their names, typed text read by the core's rules, the target GPU.

One parse function for each kind of typed value, shared by the window and every subcommand
of the command line: a token count (:func:`parse_tokens_text`: ``8192``, ``8,192``, ``8k``),
a workload (:func:`parse_workload_text`: a workload preset or ``CONTEXTxBATCH``) and a target
(:func:`parse_target_text`: a catalog GPU, a size such as ``80GiB``, or ``local[:INDEX]``).

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
from vramdesk.core.store import bundled
from vramdesk.core.store.serialize import TYPES, from_dict, type_hints
from vramdesk.core.units import gib_to_bytes, mib_to_bytes, round_half_up, to_fraction

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
CAPACITY_UNITS = {
    "GiB": gib_to_bytes,
    "GB": lambda v: round_half_up(to_fraction(v) * 10**9),
    "MiB": mib_to_bytes,
    "B": int,
}

#: Fields typed as a token count (:func:`parse_tokens_text`: ``8k`` as on the command line).
TOKEN_FIELDS = frozenset({"context_tokens"})

#: A typed token count: digits (``,``/``_`` allowed), then ``k``/``K`` for x 1,024 (the
#: bundled presets' "8k" is 8,192 tokens).
_TOKENS = re.compile(r"\s*([+-]?\d[\d,_]*)\s*([kK])?\s*")
#: A typed workload shape: a token count, then ``x``/``*`` and the concurrent sequences.
_SHAPE = re.compile(r"\s*(\d[\d,_]*\s*[kK]?)\s*(?:[xX*]\s*(\d[\d,_]*))?\s*")
#: A typed size: a number and a unit of :data:`CAPACITY_UNITS` (a bare number is GiB).
_SIZE = re.compile(r"\s*(\d[\d,_]*(?:\.\d*)?|\.\d+)\s*(GiB|GB|MiB|B)?\s*", re.IGNORECASE)


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
    if isinstance(raw, str) and name in TOKEN_FIELDS and raw.strip():
        raw = _tokens_or_number(name, raw)
    elif isinstance(raw, str) and (int in kinds or Fraction in kinds):
        raw = parse_int_text(name, raw) if int in kinds else parse_real_text(name, raw)
        if raw is None and type(None) not in kinds:
            raise InputError(name, "is required", "required")
    return getattr(from_dict(cls, {name: raw}), name)


def parse_number_text(name: str, text: str) -> Fraction | None:
    """The number a field's text reads as (what a number field steps from); None when empty.

    A token count for :data:`TOKEN_FIELDS` (``8k``), else :func:`parse_real_text`.

    Raises
    ------
    InputError
        ``name``: the text is not a number.
    """
    if name in TOKEN_FIELDS and text.strip():
        return Fraction(_tokens_or_number(name, text))
    return parse_real_text(name, text)


def _tokens_or_number(name: str, text: str) -> int | None:
    """A token count as the command line reads it (``8k``), else a whole number (``1e4``).

    A text that is no number at all is refused with the token count's reason (it names
    ``8k``); a number refused as one (``1e400``: far too large) with that reason.
    """
    try:
        return parse_tokens_text(name, text)
    except InputError as refused:
        try:
            return parse_int_text(name, text)
        except InputError as as_number:
            if as_number.code == "not_int":
                raise refused from None
            raise


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


def parse_tokens_text(name: str, text: str) -> int:
    """A token count typed as ``8192``, ``8,192``, ``8k`` or ``128K`` (``k``: x 1,024).

    ``k`` is 1,024 as in the bundled workload presets (``chat-8k-x8`` is 8,192 tokens); note
    that vLLM's own ``--max-model-len 8k`` reads 8,000 (``vllm/engine/arg_utils.py``,
    ``human_readable_int``), which ``vramdesk from-command`` follows for a pasted command.

    Raises
    ------
    InputError
        ``name``: not a whole number of tokens (the limits are the workload's).
    """
    match = _TOKENS.fullmatch(check_number_text(name, text))
    if match is None:
        shown = views.compact_text(text.strip())
        raise InputError(
            name,
            f"must be a whole number of tokens (8192, 8,192 or 8k), got {shown!r}",
            "not_int",
            {"value": shown},
        )
    count = parse_int_text(name, match[1])
    assert count is not None  # the pattern holds a digit
    return count * (1024 if match[2] else 1)


def parse_shape_text(text: str) -> tuple[int, int | None] | None:
    """``(context_tokens, batch)`` of ``CONTEXTxBATCH``, or None when ``text`` is no such shape.

    ``8192x8``, ``8kx8``, ``8K*8``; ``128k`` alone has batch None.

    Raises
    ------
    InputError
        ``workload``: a text that starts with a digit and is longer than any number;
        ``batch``: a batch that is no whole number.
    """
    if text.strip()[:1].isdigit():  # a number gone long is refused by its length
        check_number_text("workload", text)
    match = _SHAPE.fullmatch(text)
    if match is None:
        return None
    batch = parse_int_text("batch", match[2]) if match[2] else None
    return parse_tokens_text("context_tokens", match[1]), batch


def parse_workload_text(text: str) -> Any:
    """A workload typed as ``CONTEXTxBATCH`` or a workload preset's name.

    ``CONTEXTxBATCH`` as :func:`parse_shape_text` reads it (batch 1 when left out); a bundled
    workload preset (file stem or name, case and punctuation ignored); or a saved preset with
    a workload (a workload or scenario preset).

    Returns
    -------
    vramdesk.core.model.workload.Workload

    Raises
    ------
    InputError
        ``workload``: none of these; ``context_tokens`` / ``batch``: outside the limits.
    """
    # on first use: the workload type is only needed once a workload is typed
    from vramdesk.core.model.workload import Workload

    shape = parse_shape_text(text)
    if shape is not None:
        context, batch = shape
        return Workload(context_tokens=context, batch=1 if batch is None else batch).validate()
    stems = [p.stem for p in sorted((bundled.presets_dir() / "workloads").glob("*.json"))]
    key = bundled._norm(text)
    for stem, (name, workload) in zip(stems, bundled.bundled_workloads(), strict=False):
        if key in (bundled._norm(stem), bundled._norm(name)):
            return workload
    saved = _saved_workload(text)
    if saved is not None:
        return saved
    raise InputError(
        "workload",
        f"{views.compact_text(text.strip(), 40)!r} is not a workload: give a workload preset "
        f"({', '.join(stems)}) or CONTEXTxBATCH such as 8192x8 or 8kx8",
        "unknown_choice",
    )


def _saved_workload(name: str) -> Any:
    """The workload of the saved preset ``name`` (a workload or a scenario), else None."""
    # on first use: the preset store (a file lock, platformdirs) only for a saved name
    from vramdesk.core.store.presets import PresetStore, scenario_parts

    try:
        user = PresetStore().find(name)
    except InputError:
        return None
    return scenario_parts(user).get("workload")


def parse_target_text(text: str) -> tuple[Target, str]:
    """The target GPU typed as a catalog name, a size or ``local[:INDEX]``, and its label.

    A size is a number and a unit of :data:`CAPACITY_UNITS` (``80GiB``, ``80 GB``,
    ``24576 MiB``; a bare number is GiB), converted exactly by :func:`capacity_bytes_of`
    (its label is the number and unit typed: ``80 GB``). A catalog name is matched as
    :func:`vramdesk.core.store.bundled.find_gpu` does (label: the catalog's name).

    Raises
    ------
    InputError
        ``gpu``: no catalog GPU of that name (code ``unknown_choice``), or a size out of
        range or longer than any number.
    """
    key = text.strip()
    if key.lower() == "local" or key.lower().startswith("local:"):
        # the indices (local:1, local:0,1) are checked against the GPUs present by
        # vramdesk.core.local.budget.parse_local_gpu; the picker's index is the first
        first = key[6:].split(",")[0].strip()
        return Target(kind="local", local_index=int(first) if first.isdigit() else 0), key
    try:
        if key[:1].isdigit() or key[:1] == ".":  # a size gone long is refused by its length
            check_number_text("gpu", text)
        match = _SIZE.fullmatch(text)
        if match is not None:
            value = parse_real_text("gpu", match[1])
            unit = {u.lower(): u for u in CAPACITY_UNITS}[(match[2] or "GiB").lower()]
            n_bytes = capacity_bytes_of(value, unit)
            return Target(kind="custom", custom_bytes=n_bytes), f"{_short_number(value)} {unit}"
    except InputError as exc:  # the window's custom capacity says it; here the target does
        raise InputError("gpu", exc.reason, exc.code, exc.params) from None
    gpu = bundled.find_gpu(key)
    return Target(kind="gpu", name=gpu.name), gpu.name


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
    "parse_shape_text",
    "parse_target_text",
    "parse_tokens_text",
    "parse_workload_text",
    "typed_digits",
]
