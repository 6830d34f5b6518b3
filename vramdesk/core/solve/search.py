"""The solver's search: one problem, the engine's need at any point, exact integer searches.

A problem is a model, weights and runtime on one GPU; the engine's need is asked at any batch
and context.
The need grows monotonically with concurrency and context, so integer answers come from
exact search over :func:`vramdesk.core.estimate.estimate` itself: a closed form only seeds
the search, it never decides an answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core._memo import memo
from vramdesk.core.engines import profile_for
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown, estimate, tp_problem
from vramdesk.core.limits import INT_LIMITS
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload

#: Tensor-parallel sizes the solver tries for "smallest GPU count".
TP_CANDIDATES = (1, 2, 4, 8, 16, 32, 64)


def largest_fitting(fits: Callable[[int], bool], low: int, high: int, guess: int) -> int:
    """Largest ``n`` in ``[low, high]`` with ``fits(n)``, or ``low - 1`` when none fits.

    ``fits`` must be monotone (true up to the answer, false after it). The search gallops
    from ``guess`` (a closed-form estimate, clamped into the range) in steps that double,
    then bisects the bracket it found: ``O(log |answer - guess|)`` calls, so a good guess
    costs two or three and a bad one (a closed form that assumed linearity where the
    engine pads, caps or saturates) still costs ``O(log range)``, never a linear walk.
    """
    if high < low or not fits(low):
        return low - 1
    g = min(max(guess, low), high)
    step = 1
    if fits(g):
        lo = g
        while True:  # gallop up until a point does not fit or the range ends
            if lo == high:
                return high
            cand = min(high, lo + step)
            if not fits(cand):
                hi = cand
                break
            lo, step = cand, step * 2
    else:
        hi = g
        while True:  # gallop down; ``low`` fits, so this ends
            cand = max(low, hi - step)
            if fits(cand):
                lo = cand
                break
            hi, step = cand, step * 2
    while hi - lo > 1:  # fits(lo), not fits(hi)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


class Problem:
    """One solve: fixed model, weights and runtime; workload varies.

    Every verdict compares the engine profile's own need (:meth:`EngineProfile.need_bytes`
    of :func:`estimate` at that batch and context) with its usable memory: no closed form
    decides an answer, it only seeds the search (:func:`largest_fitting`).
    """

    def __init__(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        capacity_bytes: int,
    ) -> None:
        self.model, self.weights, self.workload, self.runtime = model, weights, workload, runtime
        self.capacity = capacity_bytes
        self.profile = profile_for(runtime.engine)
        self.base = estimate(model, weights, workload, runtime)
        self.base_need = self.profile.need_bytes(self.base)
        self._need: dict[tuple[int, int], int] = {}
        self.usable = self.profile.usable_bytes(self.base, capacity_bytes, runtime)

    def need(self, batch: int, context: int) -> int:
        """The profile's need per GPU for ``batch`` sequences of ``context`` tokens.

        Memoised: the searches, the verdict and the advisor ask for the same points.
        """
        key = (batch, context)
        if key not in self._need:
            self._need[key] = self.profile.need_at_point(
                self.model, self.weights, self.workload, self.runtime, batch, context
            )
        return self._need[key]

    def fits(self, batch: int, context: int) -> bool:
        """Whether ``batch`` x ``context`` fits: the need within the usable memory."""
        return self.need(batch, context) <= self.usable

    def fits_now(self) -> bool:
        """The verdict on the workload as given."""
        return self.base_need <= self.usable

    def max_concurrency(self, context: int) -> tuple[int, Fraction]:
        """Largest batch that fits at ``context``, and the fractional concurrency.

        The integer answer ``N`` is searched over the engine's estimate itself; the closed
        form through the needs at batch 1 and 2 only seeds the search. The fraction is ``N +
        (usable - need(N)) / (need(N + 1) - need(N))``: the share of the next sequence's
        increment that fits, so it floors to ``N`` and equals the closed form exactly when
        the need is linear in batch (the formula profile without chunked prefill).
        """
        limit = INT_LIMITS["batch"][1]
        one = self.need(1, context)
        two = self.need(2, context) if limit >= 2 else one
        slope, intercept = two - one, 2 * one - two
        guess = math.floor(Fraction(self.usable - intercept, slope)) if slope > 0 else 1
        best = largest_fitting(lambda n: self.fits(n, context), 1, limit, guess)
        if best <= 0:
            if slope > 0:
                exact = Fraction(self.usable - intercept, slope)
            else:
                exact = Fraction(max(0, self.usable), one) if one > 0 else Fraction(0)
            return 0, min(max(Fraction(0), exact), Fraction(limit))
        if best >= limit:
            if self.need(limit, context) == one:
                raise InputError(
                    "context_tokens",
                    "KV cache per sequence is zero (a model without a per-sequence cache, such "
                    "as an encoder): concurrency is not bounded by memory",
                    "invalid",
                )
            return best, Fraction(best)
        at, nxt = self.need(best, context), self.need(best + 1, context)
        return best, best + Fraction(self.usable - at, nxt - at)

    def max_context(self, batch: int) -> tuple[int, str]:
        """Largest context that fits at ``batch``, capped at ``max_position_embeddings``.

        The need grows with context except where the engine changes its own settings at a
        length (:meth:`EngineProfile.context_breaks`, e.g. vLLM V0 turning chunked prefill
        on above 32K): each monotone segment is searched and the longest fit is kept.
        """
        limit = self.model.max_position_embeddings or INT_LIMITS["context_tokens"][1]
        shortest = max(1, self.workload.prompt_len or 1, self.runtime.shared_prefix_tokens)
        if shortest > limit:
            return 0, "memory"
        if self.fits(batch, limit):
            return (
                limit,
                "max_position_embeddings" if self.model.max_position_embeddings else "limit",
            )
        breaks = self.profile.context_breaks(self.workload, self.runtime)
        edges = [shortest] + [b + 1 for b in sorted(breaks) if shortest <= b < limit]
        best = 0
        for i, start in enumerate(edges):
            stop = edges[i + 1] - 1 if i + 1 < len(edges) else limit
            lo_need, hi_need = self.need(batch, start), self.need(batch, stop)
            guess = start
            if hi_need > lo_need:
                guess = start + math.floor(
                    Fraction(self.usable - lo_need, hi_need - lo_need) * (stop - start)
                )
            found = largest_fitting(lambda c: self.fits(batch, c), start, stop, guess)
            if found >= start:
                best = found
        return best, "memory"


def smallest_tp(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    capacity_bytes: int,
    _current: Problem | None = None,
) -> int | None:
    """The smallest tensor-parallel size in :data:`TP_CANDIDATES` at which the workload fits.

    Sizes that do not divide ``num_attention_heads`` (or the KV heads) are skipped, as
    engines refuse them, and so are sizes the runtime's DCP, dp-attention or EP size does
    not divide (:meth:`Runtime.check_parallel`). ``None`` when even 64 GPUs are not enough,
    or when the engine has no tensor parallelism (``EngineProfile.shards_heads``: llama.cpp,
    Ollama).
    """
    if not profile_for(runtime.engine).shards_heads:
        return None
    for tp in TP_CANDIDATES:
        if tp_problem(model, tp) is not None:
            continue
        if _current is not None and tp == runtime.tensor_parallel_size:
            fits = _current.fits_now()  # the problem being solved: its verdict is known
        else:
            rt = at_tp(runtime, tp)
            try:
                rt.check_parallel()
            except InputError:  # DCP, dp-attention or EP sizes this TP does not divide
                continue
            fits = fits_at(model, weights, workload, rt, capacity_bytes)
        if fits:
            return tp
    return None


@dataclass(frozen=True, slots=True)
class Layout:
    """A data-parallel layout the solver found: ``gpus = tp * pp * dp`` (SGLang: ``tp * pp``).

    Attributes
    ----------
    gpus, tp, dp : int
        GPUs in all, the tensor- and data-parallel sizes.
    expert_parallel : bool
        vLLM ``--enable-expert-parallel`` (SGLang: ``--ep-size`` = ``tp``).
    dp_attention : bool
        SGLang ``--enable-dp-attention`` (the DP ranks inside the TP group).
    """

    gpus: int
    tp: int
    dp: int
    expert_parallel: bool = False
    dp_attention: bool = False

    def to_dict(self) -> dict[str, int | bool]:
        """JSON-ready: the five fields."""
        return {
            "gpus": self.gpus,
            "tp": self.tp,
            "dp": self.dp,
            "expert_parallel": self.expert_parallel,
            "dp_attention": self.dp_attention,
        }


def layout_runtime(runtime: Runtime, model: ModelSpec, gpus: int, dp: int) -> Runtime:
    """``runtime`` laid out over ``gpus`` GPUs (per pipeline stage) with ``dp`` DP ranks.

    vLLM: ``tp = gpus / dp`` with expert parallelism (``FusedMoEParallelConfig.make``: the
    experts over all ``tp * dp`` ranks); SGLang: ``tp = gpus`` with dp-attention (attention
    TP ``gpus / dp``) and ``ep_size = gpus`` where that divides the experts.
    """
    if runtime.engine is Engine.SGLANG:
        ep = gpus if model.num_local_experts % gpus == 0 else 1
        return runtime.replace(
            tensor_parallel_size=gpus, data_parallel_size=dp, enable_dp_attention=True, ep_size=ep
        )
    return runtime.replace(
        tensor_parallel_size=gpus // dp, data_parallel_size=dp, enable_expert_parallel=True
    )


def smallest_layout(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    capacity_bytes: int,
    tp_gpus: int | None,
) -> Layout | None:
    """A data-parallel layout on fewer GPUs than tensor parallelism alone needs, or None.

    For an MoE model under vLLM or SGLang, at each GPU count of :data:`TP_CANDIDATES` below
    ``tp_gpus`` (the GPUs of :func:`smallest_tp`'s answer; all 64 when it has none), the DP
    sizes that divide it are tried from the smallest: DP ranks each hold ``ceil(batch / dp)``
    sequences, so where the KV cache (MLA's latent, replicated over TP) is what does not fit,
    DP with expert parallelism can fit on fewer GPUs (:func:`layout_runtime`). The first that
    fits is returned; None where TP alone is as small, for dense models, other engines, or a
    runtime that already sets data parallelism.
    """
    if (
        runtime.engine not in (Engine.VLLM, Engine.SGLANG)
        or not model.is_moe
        or runtime.data_parallel_size > 1
    ):
        return None
    limit = tp_gpus if tp_gpus is not None else TP_CANDIDATES[-1] + 1
    for gpus in TP_CANDIDATES:
        if gpus >= limit:
            break
        for dp in (d for d in range(2, gpus + 1) if gpus % d == 0):
            rt = layout_runtime(runtime, model, gpus, dp)
            if tp_problem(model, rt.tensor_parallel_size // (dp if rt.enable_dp_attention else 1)):
                continue
            try:
                fits = fits_at(model, weights, workload, rt, capacity_bytes)
            except InputError:  # a layout the engine refuses (its own checks name why)
                continue
            if fits:
                return Layout(
                    rt.world_size(),
                    rt.tensor_parallel_size,
                    dp,
                    rt.enable_expert_parallel or rt.ep_size > 1,
                    rt.enable_dp_attention,
                )
    return None


@memo
def at_tp(runtime: Runtime, tp: int) -> Runtime:
    """``runtime`` at ``tp`` GPUs: one object per (runtime, size), so it is checked once."""
    return runtime.replace(tensor_parallel_size=tp)


def fits_at(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime, capacity: int
) -> bool:
    """:meth:`Problem.fits_now` of these inputs, through the profile's shortest exact path."""
    v = profile_for(runtime.engine).budget_check_at(model, weights, workload, runtime, capacity)
    return v.need <= v.usable


def fits_on(breakdown: Breakdown, capacity_bytes: int) -> bool:
    """Forward verdict: the estimate's total per GPU is within ``capacity_bytes``."""
    return breakdown.total_bytes <= capacity_bytes
