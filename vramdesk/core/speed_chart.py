"""Decode tokens/s against concurrency, with the memory limit: the speed chart's figures.

:func:`speed_chart` gives every figure the window's speed chart draws and ``solve --json``
carries as ``speed_curve``: at each concurrency ``B`` of :func:`chart_batches` the expected
and ceiling decode tokens/s per sequence and in all (:func:`vramdesk.core.speed.speed_curve`,
each point an estimate at ``B`` sequences of the workload's context, so the KV cache read per
step grows with ``B``), the memory limit (the solver's ``max_concurrency``: where memory stops
the workload) and the first concurrency at which the ceiling is compute bound (where the
bandwidth stops being the limit). The window only draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vramdesk.core.estimate import estimate
from vramdesk.core.limits import INT_LIMITS
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.speed import (
    CurvePoint,
    SpeedReport,
    SpeedUnavailable,
    speed,
    speed_curve,
)

#: The chart reaches at least this concurrency, whatever the memory limit.
MIN_REACH = 64
#: ... and at most this one (4 times the memory limit or the workload's batch, else).
MAX_REACH = 4096


def chart_batches(limit: int | None, current: int) -> list[int]:
    """Concurrencies to plot: 1, 2, 4, ... and ``4 * max(limit, current)`` (64 at least).

    The memory ``limit`` (None or 0: nothing fits), ``limit + 1`` (the first that does not fit)
    and the workload's ``current`` batch are among them, so the curves pass through the points
    the chart marks. Capped at :data:`MAX_REACH` (the batch field's upper limit, if lower).
    """
    top = min(MAX_REACH, INT_LIMITS["batch"][1])
    reach = min(top, max(MIN_REACH, 4 * max(limit or 0, current)))
    out = {1 << k for k in range(reach.bit_length()) if 1 << k <= reach}
    out |= {b for b in (reach, limit, (limit or 0) + 1, current) if b and 1 <= b <= top}
    return sorted(out)


@dataclass(frozen=True, slots=True)
class SpeedChart:
    """The speed chart's figures: curves against concurrency, the limits, the assumptions.

    Attributes
    ----------
    gpu : str
        The catalog GPU.
    context : int
        Tokens cached per sequence at every point (the workload's context).
    points : tuple of CurvePoint
        One per concurrency, ascending.
    memory_limit : int or None
        The solver's ``max_concurrency`` at the context (None: not solved; 0: none fits).
    compute_bound_from : int or None
        The smallest concurrency within the points' range whose decode ceiling is compute
        bound (None: bandwidth bound over the whole range).
    current : int
        The workload's concurrency.
    assumptions : tuple of str
        What every figure assumes (:meth:`vramdesk.core.speed.SpeedReport.assumptions`).
    """

    gpu: str
    context: int
    points: tuple[CurvePoint, ...]
    memory_limit: int | None
    compute_bound_from: int | None
    current: int
    assumptions: tuple[str, ...]

    def lines(self) -> list[str]:
        """The curve as ``solve --speed-curve`` prints it: one row per concurrency."""
        limit = (
            "not solved"
            if self.memory_limit is None
            else f"memory holds {self.memory_limit:,} sequences"
        )
        compute = (
            "bandwidth bound throughout"
            if self.compute_bound_from is None
            else f"compute bound from {self.compute_bound_from:,} sequences"
        )
        out = [
            f"Decode against concurrency on {self.gpu}, {self.context:,} tokens per sequence "
            f"({limit}; {compute}):",
            f"  {'sequences':>9}{'per seq.':>12}{'ceiling':>12}{'total':>12}{'ceiling':>12}  "
            "tokens/s",
        ]
        for p in self.points:
            mark = "  <- this workload" if p.batch == self.current else ""
            if p.batch == self.memory_limit:
                mark += "  <- memory limit"
            out.append(
                f"  {p.batch:>9,}{p.decode_tokens_per_s:>12,.1f}"
                f"{p.decode_ceiling_tokens_per_s:>12,.1f}{p.aggregate_decode_tokens_per_s:>12,.1f}"
                f"{p.aggregate_ceiling_tokens_per_s:>12,.1f}{mark}"
            )
        out.extend(f"    assumption: {a}" for a in self.assumptions)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``speed_curve`` of ``solve --speed-curve --json`` (tokens/s floats)."""
        return {
            "gpu": self.gpu,
            "context_tokens": self.context,
            "memory_limit_concurrency": self.memory_limit,
            "compute_bound_from_concurrency": self.compute_bound_from,
            "points": [
                {
                    "concurrency": p.batch,
                    "decode_tokens_per_s": p.decode_tokens_per_s,
                    "aggregate_decode_tokens_per_s": p.aggregate_decode_tokens_per_s,
                    "decode_ceiling_tokens_per_s": p.decode_ceiling_tokens_per_s,
                    "aggregate_ceiling_tokens_per_s": p.aggregate_ceiling_tokens_per_s,
                    "bound": p.bound,
                }
                for p in self.points
            ],
            "assumptions": list(self.assumptions),
        }


def _bound_at(model, weights, workload, runtime, gpu, batch: int) -> str:  # noqa: ANN001
    """The decode ceiling's bound at ``batch`` sequences (one estimate)."""
    wl = workload.replace(batch=batch)
    r = speed(model, weights, wl, runtime, estimate(model, weights, wl, runtime), gpu)
    assert isinstance(r, SpeedReport)  # the caller checked the GPU's facts
    return r.decode_roof.bound


def speed_chart(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    gpu: Any,
    memory_limit: int | None,
) -> SpeedChart | SpeedUnavailable:
    """The speed chart of the scenario on catalog GPU ``gpu`` (a ``GpuSpec``).

    Parameters
    ----------
    model, weights, workload, runtime
        The scenario; every point keeps ``workload.context_tokens`` and changes the batch.
    gpu : GpuSpec
        Needs ``memory_bandwidth_gb_s`` and a peak for the weights (else SpeedUnavailable).
    memory_limit : int or None
        The solver's ``max_concurrency`` at that context (``SolveResult.max_concurrency``).

    Returns
    -------
    SpeedChart or SpeedUnavailable
        The latter names the missing speed facts.

    Notes
    -----
    The compute-bound concurrency is searched by bisection between the first plotted point
    that is compute bound and the one before it (the bound changes once: memory time grows by
    the KV cache of a sequence, compute time by its FLOPs, both linear in ``B``, and the
    weights read per step only grow with ``B`` for MoE models).
    """
    batches = chart_batches(memory_limit, workload.batch)
    first = workload.replace(batch=batches[0])
    probe = speed(model, weights, first, runtime, estimate(model, weights, first, runtime), gpu)
    if isinstance(probe, SpeedUnavailable):
        return probe
    points = speed_curve(model, weights, workload, runtime, gpu, batches)
    knee = next((i for i, p in enumerate(points) if p.bound == "compute"), None)
    compute_from = None
    if knee is not None:
        lo, hi = (points[knee - 1].batch, points[knee].batch) if knee else (0, points[0].batch)
        while hi - lo > 1:  # lo: bandwidth bound (or 0), hi: compute bound
            mid = (lo + hi) // 2
            if _bound_at(model, weights, workload, runtime, gpu, mid) == "compute":
                hi = mid
            else:
                lo = mid
        compute_from = hi
    return SpeedChart(
        gpu=gpu.name,
        context=workload.context_tokens,
        points=tuple(points),
        memory_limit=memory_limit,
        compute_bound_from=compute_from,
        current=workload.batch,
        assumptions=tuple(probe.assumptions()),  # the same at every batch
    )
