"""What each lever of the fit advisor costs or gains in speed (issue 25).

For every :class:`~vramdesk.core.solve.advisor.Advice` of a solve, :func:`lever_speeds` gives
the expected decode tokens/s of all sequences together (:func:`vramdesk.core.speed.speed`)
for the workload as asked (every sequence, as if memory held them all) and for the same
workload with that lever applied: fp8 KV reads half the KV bytes a step; a context cap
reads fewer cached tokens; a concurrency cap runs fewer sequences (less in all, faster each);
smaller weights read fewer bytes; more GPUs (tensor parallel) split what each reads (the
communication between them is not modelled: a gain that is an upper bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import KVDtype, WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.advisor import _LEVER_WEIGHTS, Advice
from vramdesk.core.solve.search import at_tp
from vramdesk.core.speed import SpeedReport, speed


@dataclass(frozen=True, slots=True)
class LeverSpeed:
    """One lever's expected aggregate decode tokens/s, before and after (floats)."""

    lever: str
    value: str | int
    action: str
    before_tokens_per_s: float
    after_tokens_per_s: float
    sequences_after: int

    @property
    def change(self) -> float:
        """``after / before - 1`` (0.25: 25 % faster in all)."""
        return self.after_tokens_per_s / self.before_tokens_per_s - 1

    def line(self) -> str:
        """``Store the KV cache in fp8: 2,147.0 -> 3,366.2 tokens/s in all (+56.8 %)``."""
        return (
            f"{self.action}: {self.before_tokens_per_s:,.1f} -> {self.after_tokens_per_s:,.1f} "
            f"tokens/s in all ({self.change:+.1%}, {self.sequences_after:,} sequences)"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "lever": self.lever,
            "value": self.value,
            "aggregate_decode_tokens_per_s_before": self.before_tokens_per_s,
            "aggregate_decode_tokens_per_s_after": self.after_tokens_per_s,
            "concurrency_after": self.sequences_after,
        }


def _applied(
    advice: Advice, weights: WeightSpec, workload: Workload, runtime: Runtime
) -> tuple[WeightSpec, Workload, Runtime]:
    """The scenario with ``advice``'s lever set to its value."""
    if advice.lever == "kv_dtype":
        return weights, workload.replace(kv_dtype=KVDtype.parse(str(advice.value))), runtime
    if advice.lever == "context_tokens":
        return weights, workload.replace(context_tokens=int(advice.value)), runtime
    if advice.lever == "batch":
        return weights, workload.replace(batch=int(advice.value)), runtime
    if advice.lever == "weights":
        spec = next(w for w in _LEVER_WEIGHTS if w.label() == advice.value)
        return spec, workload, runtime
    return weights, workload, at_tp(runtime, int(advice.value))


def lever_speeds(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    advice: tuple[Advice, ...],
    gpu: Any,
) -> list[LeverSpeed]:
    """Expected aggregate decode tokens/s before and after each lever, on catalog ``gpu``.

    Returns
    -------
    list of LeverSpeed
        One per lever, in the advisor's order; empty when ``gpu`` lacks a speed fact. The
        ``n_cpu_moe`` lever is left out (the speed of experts read from host RAM is not
        modelled).
    """
    base = speed(
        model, weights, workload, runtime, estimate(model, weights, workload, runtime), gpu
    )
    if not isinstance(base, SpeedReport):
        return []
    out = []
    for a in advice:
        if a.lever == "n_cpu_moe":  # experts read from host RAM: that speed is not modelled
            continue
        w, wl, rt = _applied(a, weights, workload, runtime)
        after = speed(model, w, wl, rt, estimate(model, w, wl, rt), gpu)
        if not isinstance(after, SpeedReport):  # another weight format without its peak
            continue
        out.append(
            LeverSpeed(
                a.lever,
                a.value,
                a.action,
                base.aggregate_decode_tokens_per_s,
                after.aggregate_decode_tokens_per_s,
                wl.batch,
            )
        )
    return out
