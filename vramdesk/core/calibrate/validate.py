"""Predictions against real engine measurements (``vramdesk validate CASES.jsonl``).

Reads the case format "vramdesk-engine-case/1" (reference/ENGINE-CASES.md): one JSON
record per line with a model, weights, runtime, GPU, the figures an engine printed, the
figures a predictor may take as inputs (``given``) and the checks. Each case is predicted
twice: with the ``given`` figures as inputs, and from the inputs alone. Reading and input
building live in :mod:`vramdesk.core.calibrate._cases` (re-exported here).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from vramdesk.core.calibrate._cases import (
    GIVEN_COUNTS,
    GIVEN_RUNTIME,
    MAX_CASES,
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    SCHEMA,
    CaseInputs,
    case_inputs,
    model_from_case,
    parse_cases,
    read_cases,
    runtime_from_case,
    weights_from_case,
    workload_from_case,
)
from vramdesk.core.engines import profile_for
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.spec import ModelSpec, total_params
from vramdesk.core.units import to_fraction

_CAPACITY = ("kv_cache_tokens", "num_gpu_blocks", "kv_cache_bytes")
__all__ = [
    "GIVEN_COUNTS",
    "GIVEN_RUNTIME",
    "MAX_CASES",
    "MAX_FILE_BYTES",
    "MAX_LINE_CHARS",
    "SCHEMA",
    "CaseInputs",
    "case_inputs",
    "case_report",
    "format_report",
    "model_from_case",
    "parse_cases",
    "predict",
    "read_cases",
    "rel_error",
    "runtime_from_case",
    "summarize",
    "validate_cases",
    "weights_from_case",
    "workload_from_case",
]


# ---------------------------------------------------------------------- predicting
def _countable(model: ModelSpec) -> bool:
    try:
        total_params(model)
    except InputError:
        return False
    return True


def predict(inputs: CaseInputs) -> dict[str, int | Fraction]:
    """Predict the engine's start-up figures from ``inputs`` (``EngineProfile.figures``).

    Without a weight size (no measured weights, or no known format or parameter count),
    figures that depend on the weights (weights, peaks, vLLM/SGLang budgets) are left out.
    """
    model, rt = inputs.model, inputs.runtime
    countable = _countable(model)
    known = rt.loaded_weights_bytes is not None or (inputs.weights is not None and countable)
    if not countable:
        model = model.replace(params=1)  # placeholder: no figure below depends on it
    if not known:
        rt = rt.replace(loaded_weights_bytes=0)
    out = profile_for(rt.engine).figures(
        model,
        inputs.weights or WeightSpec(),
        inputs.workload,
        rt,
        gpu_total_bytes=inputs.gpu_total_bytes if known else None,
        counts=inputs.counts,
    )
    if not known:
        for key in ("weights_bytes", "peak_bytes", "weights_bytes_host"):
            out.pop(key, None)
    return out


def rel_error(predicted: float | Fraction | None, reported: float | int) -> float | None:
    """``|predicted - reported| / |reported|``; for a reported 0, 0 if exact else infinity."""
    if predicted is None:
        return None
    if reported == 0:
        return 0.0 if predicted == 0 else math.inf
    return float(abs(Fraction(predicted) - to_fraction(reported)) / abs(to_fraction(reported)))


def _number(value: int | Fraction | None) -> int | float | None:
    if value is None or isinstance(value, int):
        return value
    return float(value)


def case_report(record: dict[str, Any]) -> dict[str, Any]:
    """One case: per reported figure the two predictions and their relative errors.

    Returns
    -------
    dict
        ``{"id", "engine", "figures": {name: {"reported", "predicted_with_given", "predicted",
        "rel_error_with_given", "rel_error", "given", "tolerance_rel", "within_tolerance"}}}``;
        ``tolerance_rel`` / ``within_tolerance`` only for the case's ``check`` figures. A
        reported 0 with a non-zero prediction has no relative error (None) and
        ``zero_reported_mismatch: true``, so the report stays valid JSON.
    """
    with_given, alone = (
        predict(case_inputs(record, with_given=True)),
        predict(case_inputs(record, with_given=False)),
    )
    figures = {}
    for name, reported in record["reported"].items():
        if isinstance(reported, bool) or not isinstance(reported, int | float):
            continue
        is_given = name in record["given"]
        fig = {
            "reported": reported,
            "given": is_given,
            "predicted_with_given": None if is_given else _number(with_given.get(name)),
            "predicted": _number(alone.get(name)),
        }
        for key, pred in (
            ("rel_error_with_given", "predicted_with_given"),
            ("rel_error", "predicted"),
        ):
            err = rel_error(fig[pred], reported)
            if err is not None and math.isinf(err):  # reported 0, predicted not: JSON has no inf
                err, fig["zero_reported_mismatch"] = None, True
            fig[key] = err
        check = record["check"].get(name)
        if isinstance(check, dict) and "tolerance_rel" in check:
            err = fig["rel_error_with_given"]
            fig["tolerance_rel"] = check["tolerance_rel"]
            fig["within_tolerance"] = err is not None and err <= check["tolerance_rel"]
        figures[name] = fig
    return {"id": record["id"], "engine": record["engine"], "figures": figures}


def _stats(errors: list[float]) -> dict[str, Any]:
    finite = [e for e in errors if math.isfinite(e)]
    return {
        "n": len(errors),
        "mean_abs_rel_error": sum(finite) / len(finite) if finite else None,
        "max_abs_rel_error": max(errors) if errors else None,
    }


def _within(
    cases: list[dict[str, Any]], engine: str, names: tuple[str, ...], limit: float
) -> dict[str, int]:
    """Count cases of ``engine`` whose first non-given figure of ``names`` is within ``limit``."""
    hits = []
    for case in (c for c in cases if c["engine"] == engine):
        figs = [
            case["figures"][n]
            for n in names
            if n in case["figures"] and not case["figures"][n]["given"]
        ]
        hits += figs[:1]
    ok = sum(1 for f in hits if f["rel_error"] is not None and f["rel_error"] <= limit)
    return {
        "within": ok,
        "of_reported": len(hits),
        "predicted": sum(f["predicted"] is not None for f in hits),
    }


def summarize(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean and max absolute relative error per figure, in both modes, and the check tally.

    ``targets`` counts the vLLM cases whose weights lie within 2 % and whose KV capacity lies
    within 10 % when everything is predicted; the capacity is the first reported, non-given
    figure of ``kv_cache_tokens``, ``num_gpu_blocks`` (blocks x block_size are the tokens) and
    ``kv_cache_bytes``.
    """
    modes: dict[str, dict[str, list[float]]] = {"with_given": {}, "predicted": {}}
    passed = total = 0
    for case in cases:
        for name, fig in case["figures"].items():
            for mode, key in (("with_given", "rel_error_with_given"), ("predicted", "rel_error")):
                if fig[key] is not None:
                    modes[mode].setdefault(name, []).append(fig[key])
            if "within_tolerance" in fig:
                total += 1
                passed += fig["within_tolerance"]
    return {
        "with_given": {k: _stats(v) for k, v in sorted(modes["with_given"].items())},
        "predicted": {k: _stats(v) for k, v in sorted(modes["predicted"].items())},
        "checks": {"passed": passed, "total": total},
        "targets": {
            "vllm_weights_within_2pct": _within(cases, "vllm", ("weights_bytes",), 0.02),
            "vllm_kv_capacity_within_10pct": _within(cases, "vllm", _CAPACITY, 0.10),
        },
    }


def validate_cases(records: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"cases": [case_report...], "summary": summarize(...)}`` for parsed records.

    Raises
    ------
    InputError
        A case whose fields vramdesk cannot use; the field is prefixed with the case id.
    """
    cases = []
    for record in records:
        try:
            cases.append(case_report(record))
        except InputError as exc:
            raise InputError(
                f"{record['id']}: {exc.field}", exc.reason, exc.code, exc.params
            ) from None
        except (TypeError, ValueError, AttributeError, KeyError, ArithmeticError) as exc:
            # an untrusted case file: a value of an unexpected shape is one line, not a traceback
            raise InputError(record["id"], f"unusable value ({exc})", "invalid") from None
    return {"cases": cases, "summary": summarize(cases)}


def _fmt(value: float | int | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.4f}"
    return f"{int(value):,}"


def _pct(value: float | None) -> str:
    return "-" if value is None else ("inf" if math.isinf(value) else f"{value * 100:.3f}%")


def format_report(report: dict[str, Any]) -> str:
    """Format the report as text: one block per case, then the summary."""
    lines = []
    for case in report["cases"]:
        lines.append(f"{case['id']} ({case['engine']})")
        lines.append(
            f"  {'figure':28} {'reported':>18} {'with given':>18} {'err':>9} "
            f"{'predicted':>18} {'err':>9}"
        )
        for name, f in case["figures"].items():
            mark = (
                " given"
                if f["given"]
                else (
                    ""
                    if "within_tolerance" not in f
                    else (" ok" if f["within_tolerance"] else " FAIL")
                )
            )
            lines.append(
                f"  {name:28} {_fmt(f['reported']):>18} {_fmt(f['predicted_with_given']):>18} "
                f"{_pct(f['rel_error_with_given']):>9} {_fmt(f['predicted']):>18} "
                f"{_pct(f['rel_error']):>9}{mark}"
            )
    s = report["summary"]
    lines.append(
        f"checks within tolerance (with given): {s['checks']['passed']}/{s['checks']['total']}"
    )
    for mode in ("with_given", "predicted"):
        lines.append(
            f"summary ({mode.replace('_', ' ')}): figure  n  mean |rel err|  max |rel err|"
        )
        for name, st in s[mode].items():
            lines.append(
                f"  {name:28} {st['n']:3} {_pct(st['mean_abs_rel_error']):>10} "
                f"{_pct(st['max_abs_rel_error']):>10}"
            )
    for name, t in s["targets"].items():
        lines.append(
            f"{name}: {t['within']}/{t['of_reported']} reported ({t['predicted']} predictable)"
        )
    return "\n".join(lines)
