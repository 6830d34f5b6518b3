"""The overhead term: CUDA context, workspaces, allocator slack (SPEC §3.5)."""

from __future__ import annotations

import functools
from fractions import Fraction

from vramdesk.core.model.runtime import OverheadForm, Runtime
from vramdesk.core.terms.breakdown import Part
from vramdesk.core.units import GIB, ceil_bytes, ceil_div


# -------------------------------------------------------------------- overhead
def overhead_part(
    weights: Part, kv: Part, act: Part, runtime: Runtime, state_bytes: int = 0
) -> Part:
    """Framework overhead: CUDA context, workspaces, allocator slack (SPEC §3.5).

    Multiplier form: ``overhead = (w + kv + act) * (factor - 1) + fixed`` so that
    ``total = (w + kv + act) * factor + fixed`` (defaults 1.15 and 1 GiB). Workspace form:
    ``overhead = w * fraction`` (default 0.05). Rounded up to whole bytes.
    """
    base = weights.bytes + kv.bytes + act.bytes + state_bytes
    if runtime.overhead is OverheadForm.WORKSPACE:
        frac = runtime.workspace_fraction
        return Part(
            "overhead",
            "Overhead (workspace)",
            ceil_bytes(weights.bytes * Fraction(frac)),
            "weights * workspace_fraction",
            f"{weights.bytes:,} * {float(frac):g}",
        )
    factor_minus_one, factor_text = _factor_terms(runtime.overhead_factor)
    fixed = runtime.fixed_overhead_bytes
    # ceil(base * (factor - 1)) in integers: the same bytes as through a Fraction, faster
    extra = ceil_div(base * factor_minus_one.numerator, factor_minus_one.denominator) + fixed
    return Part(
        "overhead",
        "Overhead (multiplier)",
        extra,
        "(weights + kv + activations) * (factor - 1) + fixed"
        if not state_bytes
        else "(weights + kv + state + activations) * (factor - 1) + fixed",
        f"{base:,} * ({factor_text} - 1) + {fixed:,}",
        (
            f"factor {factor_text} covers allocator fragmentation; fixed "
            f"{fixed / GIB:g} GiB covers the CUDA context and workspaces",
        ),
    )


@functools.lru_cache(maxsize=64, typed=True)
def _factor_terms(factor: float | Fraction) -> tuple[Fraction, str]:
    """``(Fraction(factor) - 1, factor as text)`` of an overhead factor (few values recur)."""
    exact = Fraction(factor)
    return exact - 1, f"{float(exact):g}"
