"""Dicts to and from the frozen inputs, for JSON presets, settings and the CLI.

Only fields that differ from their defaults are written (save what the user set,
not derived values). Enums are written by value, fractions as decimal strings.
Reading rejects unknown keys and wrong types with :class:`InputError` naming the key.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from fractions import Fraction
from typing import Any, TypeVar

from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, MlaCache, OverheadForm, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.units import to_fraction

T = TypeVar("T")

_ENUM_PARSERS = {
    WeightFormat: WeightFormat.parse,
    KVDtype: KVDtype.parse,
    Engine: Engine.parse,
}


def _encode(value: Any) -> Any:
    if isinstance(value, WeightFormat | KVDtype):
        return value.label
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Fraction):
        return format(float(value), "g") if Fraction(repr(float(value))) == value else str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def to_dict(obj: Any, *, all_fields: bool = False) -> dict[str, Any]:
    """A JSON-ready dict of a frozen input; only non-default fields unless ``all_fields``."""
    out = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if not all_fields and f.default is not dataclasses.MISSING and value == f.default:
            continue
        out[f.name] = _encode(value)
    return out


def _decode(name: str, tp: Any, value: Any) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        last: Exception | None = None
        for a in inner:
            try:
                return _decode(name, a, value)
            except InputError as exc:
                last = exc
        raise last or InputError(name, f"invalid value {value!r}")
    if tp in _ENUM_PARSERS:
        return _ENUM_PARSERS[tp](value, name)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError:
            choices = ", ".join(str(m.value) for m in tp)
            raise InputError(
                name, f"unknown value {value!r}; known: {choices}", "unknown_choice"
            ) from None
    if tp is Fraction:
        if isinstance(value, bool) or not isinstance(value, int | float | str | Fraction):
            raise InputError(name, f"must be a number, got {value!r}", "not_number")
        try:
            return to_fraction(value)
        except (ValueError, ZeroDivisionError):
            raise InputError(name, f"must be a number, got {value!r}", "not_number") from None
    if tp is bool:
        if not isinstance(value, bool):
            raise InputError(name, f"must be true or false, got {value!r}", "not_bool")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(name, f"must be a whole number, got {value!r}", "not_int")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise InputError(name, f"must be text, got {value!r}", "not_str")
        return value
    if origin is tuple:
        item = args[0] if args else str
        if item is int:  # per-layer numbers (layer_kv_heads)
            if not isinstance(value, list | tuple):
                raise InputError(name, "must be a list of whole numbers", "not_list")
            return tuple(_decode(name, int, v) for v in value)
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise InputError(name, "must be a list of strings", "not_list")
        return tuple(value)
    raise InputError(name, f"unsupported field type {tp!r}")


@functools.cache
def type_hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints`` of a dataclass, cached: field name -> type.

    Evaluating the string annotations dominated loading many presets and each parse of a
    typed field in the window; the result is read-only (do not mutate it).
    """
    return typing.get_type_hints(cls)


def from_dict(cls: type[T], data: dict[str, Any], *, what: str = "") -> T:
    """Build ``cls`` from a dict written by :func:`to_dict` (missing keys take defaults).

    Raises
    ------
    InputError
        An unknown key or a value of the wrong type, named by its key.
    """
    if not isinstance(data, dict):
        raise InputError(what or cls.__name__, "must be a JSON object", "not_object")
    hints = type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise InputError(unknown[0], f"is not a field of {what or cls.__name__}", "unknown_key")
    kwargs = {k: _decode(k, hints[k], v) for k, v in data.items()}
    return cls(**kwargs)


def scenario_to_dict(
    model: ModelSpec | None = None,
    weights: WeightSpec | None = None,
    workload: Workload | None = None,
    runtime: Runtime | None = None,
) -> dict[str, Any]:
    """The parts given, each as a non-default dict under its own key."""
    parts = {"model": model, "weights": weights, "workload": workload, "runtime": runtime}
    return {k: to_dict(v) for k, v in parts.items() if v is not None}


TYPES: dict[str, type] = {
    "model": ModelSpec,
    "weights": WeightSpec,
    "workload": Workload,
    "runtime": Runtime,
}

__all__ = ["TYPES", "MlaCache", "OverheadForm", "from_dict", "scenario_to_dict", "to_dict"]
