"""The reverse solver and the fit advisor (SPEC §4).

Given a GPU's capacity, how many sequences, how much context, how many GPUs?
The usable memory per GPU is ``floor(capacity * gpu_memory_utilization) - reserved -
weights`` (the engine profile says what is reserved); a workload fits when its
KV cache plus activations need no more than that. The need grows monotonically
with concurrency and context, so integer answers come from exact search over
:func:`vramdesk.core.estimate.estimate` itself: sliding-window models, paged
blocks and shared prefixes are solved exactly, with no closed form to drift from
the forward estimate.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from vramdesk.core._memo import memo
from vramdesk.core.engines import profile_for
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown, estimate, tp_problem
from vramdesk.core.limits import INT_LIMITS
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.verdict import advice_sentence
from vramdesk.core.units import Unit

#: Tensor-parallel sizes the solver tries for "smallest GPU count".
TP_CANDIDATES = (1, 2, 4, 8, 16, 32, 64)


@dataclass(frozen=True, slots=True)
class Advice:
    """One lever of the fit advisor.

    Attributes
    ----------
    lever : str
        ``"kv_dtype"``, ``"context_tokens"``, ``"batch"``, ``"weights"`` or
        ``"tensor_parallel_size"``.
    value : str or int
        The setting the lever needs (``"fp8"``, a context, a concurrency, a format, a GPU count).
    saves_bytes : int
        Bytes per GPU it saves against the current workload.
    fits : bool
        Whether that lever alone makes the workload fit.
    action : str
        What to do, e.g. ``"Store the KV cache in fp8"``.
    reason : str
        Why a lever that does not fit cannot: ``""``, ``"overhead"`` (the fixed overhead alone
        exceeds the usable memory) or ``"kv_alone"`` (KV cache + activations, ``need_bytes``,
        exceed the ``room_bytes`` left after overhead).
    """

    lever: str
    value: str | int
    saves_bytes: int
    fits: bool
    action: str
    reason: str = ""
    need_bytes: int = 0
    room_bytes: int = 0

    def describe(self, unit: Unit = Unit.GIB) -> str:
        """One plain sentence in ``unit`` (:func:`vramdesk.core.solve.verdict.advice_sentence`)."""
        return advice_sentence(self, unit).text

    @property
    def text(self) -> str:
        """:meth:`describe` in GiB."""
        return self.describe(Unit.GIB)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "lever": self.lever,
            "value": self.value,
            "saves_bytes": self.saves_bytes,
            "fits": self.fits,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The reverse solver's answers for one GPU capacity.

    All byte figures are per GPU, exact ints; ``max_concurrency_exact`` is an exact
    fraction (``float`` in JSON).

    Two verdicts answer two questions. ``fits``: the workload's KV cache and activations fit
    the KV budget the way a serving engine sizes it (``capacity * gpu_memory_utilization -
    reserved - weights``); ``max_concurrency`` and ``max_context`` answer the same question.
    ``fits_total``: the forward estimate's total (with whatever overhead the engine profile
    adds: the formula profile's 1.15 margin, vLLM's profiled terms, ...) is within the
    capacity, as the fits table compares it. They can differ near the edge, because the
    overhead the total carries and what ``gpu_memory_utilization`` holds back differ.
    """

    capacity_bytes: int
    usable_bytes: int
    kv_budget_bytes: int
    kv_cache_tokens: int
    kv_cache_blocks: int | None
    max_concurrency: int
    max_concurrency_exact: Fraction
    max_context: int
    max_context_limited_by: str
    fits: bool
    fits_total: bool
    min_gpus: int | None
    advice: tuple[Advice, ...]
    breakdown: Breakdown
    context_tokens: int
    logged_concurrency: Fraction | None = None
    notes: tuple[str, ...] = field(default=())
    #: What must fit in ``usable_bytes`` (``EngineProfile.need_bytes``): KV cache +
    #: activations; SGLang's KV cache alone (its activations are outside the static pool).
    need_bytes: int = 0

    def vllm_lines(self) -> list[str]:
        """The two start-up lines vLLM prints, computed for this budget."""
        return vllm_style_lines(self.kv_cache_tokens, self.context_tokens, self.logged_concurrency)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with SPEC §8's keys (exact integer bytes)."""
        return {
            "capacity_bytes": self.capacity_bytes,
            "usable_bytes": self.usable_bytes,
            "kv_budget_bytes": self.kv_budget_bytes,
            "kv_cache_tokens": self.kv_cache_tokens,
            "kv_cache_blocks": self.kv_cache_blocks,
            "max_concurrency": self.max_concurrency,
            "max_concurrency_exact": float(self.max_concurrency_exact),
            "max_context": self.max_context,
            "max_context_limited_by": self.max_context_limited_by,
            "fits": self.fits,
            "fits_total": self.fits_total,
            "min_gpus": self.min_gpus,
            "advice": [a.to_dict() for a in self.advice],
            "vllm_lines": self.vllm_lines(),
            "notes": list(self.notes),
        }


def vllm_style_lines(
    kv_cache_tokens: int, max_model_len: int, concurrency: Fraction | None = None
) -> list[str]:
    """VLLM's start-up lines for a KV budget of ``kv_cache_tokens``.

    ``"GPU KV cache size: 129,024 tokens"`` and ``"Maximum concurrency for 8192 tokens per
    request: 15.75x"`` (two decimals), as vLLM's ``vllm/v1/core/kv_cache_utils.py`` logs
    them. ``concurrency`` is the engine's own figure when it has one (vLLM's hybrid
    sliding-window allocator counts blocks per request); else tokens / max_model_len.
    """
    ratio = float(concurrency) if concurrency is not None else kv_cache_tokens / max_model_len
    return [
        f"GPU KV cache size: {kv_cache_tokens:,} tokens",
        f"Maximum concurrency for {max_model_len:,} tokens per request: {ratio:.2f}x",
    ]


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


class _Problem:
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


def solve(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime, capacity_bytes: int
) -> SolveResult:
    """Reverse-solve the workload on one GPU of ``capacity_bytes``.

    Parameters
    ----------
    model, weights, workload, runtime
        As for :func:`vramdesk.core.estimate.estimate`; ``workload.context_tokens`` is the
        per-request length for concurrency, ``workload.batch`` the concurrency for context.
    capacity_bytes : int
        Memory of one GPU in bytes (a catalog GPU's MiB * 2**20, a custom size, or the
        free memory NVML reports).

    Returns
    -------
    SolveResult
        KV budget in bytes and tokens (whole blocks), max concurrency at the context
        (integer and exact), max context at the concurrency, the verdict, the smallest
        TP that fits and the fit advisor's levers.

    Raises
    ------
    InputError
        Invalid inputs, or ``budget_bytes`` not positive.
    """
    if not isinstance(capacity_bytes, int) or capacity_bytes <= 0:
        raise InputError(
            "budget_bytes",
            f"must be a positive number of bytes, got {capacity_bytes!r}",
            "too_small",
        )
    p = _Problem(model, weights, workload, runtime, capacity_bytes)
    base = p.base
    ctx, batch = workload.context_tokens, workload.batch
    kv_budget = p.usable - (p.base_need - base.kv_cache.bytes)
    tokens, blocks, logged = profile_for(runtime.engine).kv_capacity(
        base, model, workload, runtime, kv_budget
    )
    max_conc, exact = p.max_concurrency(ctx)
    if not profile_for(runtime.engine).logs_concurrency:
        logged = exact  # no engine log to mirror: one concurrency answer, the solver's
    max_ctx, limited_by = p.max_context(batch)
    fits = p.fits_now()
    min_gpus = smallest_tp(model, weights, workload, runtime, capacity_bytes, p)
    advice = () if fits else tuple(advise(p, max_conc, max_ctx, min_gpus))
    notes = []
    if p.usable + base.weights.bytes <= 0:
        notes.append(
            "the fixed overhead alone exceeds this GPU's usable memory: no GPU count of this "
            "size can help"
        )
    notes.extend(profile_for(runtime.engine).solve_notes(model, runtime))
    if base.state is not None:
        slots = runtime.engine in (Engine.LLAMA_CPP, Engine.OLLAMA) and runtime.n_parallel
        per_seq = base.state_bytes // max(1, (runtime.n_parallel if slots else None) or batch)
        notes.append(
            f"recurrent layers: {per_seq:,} bytes of state per sequence, whatever the context "
            "(max concurrency counts it per sequence, max context does not grow it)"
        )
    return SolveResult(
        capacity_bytes=capacity_bytes,
        usable_bytes=p.usable,
        kv_budget_bytes=kv_budget,
        kv_cache_tokens=tokens,
        kv_cache_blocks=blocks,
        logged_concurrency=logged,
        max_concurrency=max_conc,
        max_concurrency_exact=exact,
        max_context=max_ctx,
        max_context_limited_by=limited_by,
        fits=fits,
        fits_total=fits_on(base, capacity_bytes),
        min_gpus=min_gpus,
        advice=advice,
        breakdown=base,
        context_tokens=ctx,
        notes=tuple(notes),
        need_bytes=p.base_need,
    )


def min_gpus_text(result: SolveResult, engine: Engine) -> str:
    """The smallest GPU count as a user reads it, for the CLI and the window alike."""
    if not profile_for(engine).shards_heads:
        return f"not computed ({engine.value} splits layers across GPUs rather than sharding heads)"
    if result.min_gpus is None:
        return f"none up to {TP_CANDIDATES[-1]}"
    return str(result.min_gpus)


def smallest_tp(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    capacity_bytes: int,
    _current: _Problem | None = None,
) -> int | None:
    """The smallest tensor-parallel size in :data:`TP_CANDIDATES` at which the workload fits.

    Sizes that do not divide ``num_attention_heads`` (or the KV heads) are skipped, as
    engines refuse them. ``None`` when even 64 GPUs are not enough, or when the engine has
    no tensor parallelism (``EngineProfile.shards_heads``: llama.cpp, Ollama).
    """
    if not profile_for(runtime.engine).shards_heads:
        return None
    for tp in TP_CANDIDATES:
        if tp_problem(model, tp) is not None:
            continue
        if _current is not None and tp == runtime.tensor_parallel_size:
            fits = _current.fits_now()  # the problem being solved: its verdict is known
        else:
            rt = _at_tp(runtime, tp)
            fits = _fits(model, weights, workload, rt, capacity_bytes)
        if fits:
            return tp
    return None


@memo
def _at_tp(runtime: Runtime, tp: int) -> Runtime:
    """``runtime`` at ``tp`` GPUs: one object per (runtime, size), so it is checked once."""
    return runtime.replace(tensor_parallel_size=tp)


@memo
def _with_kv_dtype(workload: Workload, kv_dtype: Any) -> Workload:
    """``workload`` with another KV dtype: one object per pair, so it is checked once."""
    return workload.replace(kv_dtype=kv_dtype)


#: the weight formats the advisor tries, largest first (one object each: checked once)
_LEVER_WEIGHTS = (WeightSpec(WeightFormat.INT8), WeightSpec(WeightFormat.INT4, group_size=128))


def _fits(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime, capacity: int
) -> bool:
    """:meth:`_Problem.fits_now` of these inputs, through the profile's shortest exact path."""
    v = profile_for(runtime.engine).budget_check_at(model, weights, workload, runtime, capacity)
    return v.need <= v.usable


def advise(p: _Problem, max_conc: int, max_ctx: int, min_gpus: int | None) -> list[Advice]:
    """Levers that would make a non-fitting workload fit, most effective first.

    Each lever is tried alone: KV cache to the engine's smallest type (fp8; q8_0 for
    llama.cpp), cap context, cap concurrency, quantize weights (int8 then int4 with
    group-128 scales), add GPUs. Levers that cannot make it
    fit are listed too, after those that can, so that the user sees why (quantizing
    weights often cannot help when the KV cache alone is over the budget).
    """
    wl, base = p.workload, p.base
    current = p.base_need + base.weights.bytes
    out: list[Advice] = []
    compact = profile_for(p.runtime.engine).compact_kv_dtype  # fp8; q8_0 for llama.cpp
    if wl.kv_dtype.bytes_per_element > compact.bytes_per_element:
        alt = p.profile.budget_check_at(
            p.model, p.weights, _with_kv_dtype(wl, compact), p.runtime, p.capacity
        )
        saves = base.kv_cache.bytes - alt.kv
        ok = alt.need <= alt.usable
        label = compact.label
        out.append(Advice("kv_dtype", label, saves, ok, f"Store the KV cache in {label}"))
    if max_ctx >= 1:
        saves = current - _total_at(p, wl.batch, max_ctx)
        out.append(
            Advice("context_tokens", max_ctx, saves, True, f"Cap the context at {max_ctx:,} tokens")
        )
    if max_conc >= 1:
        saves = current - _total_at(p, max_conc, wl.context_tokens)
        out.append(
            Advice("batch", max_conc, saves, True, f"Cap concurrency at {max_conc} sequences")
        )
    out.extend(_weight_levers(p))
    if min_gpus is not None and min_gpus > p.runtime.tensor_parallel_size:
        rt = _at_tp(p.runtime, min_gpus)
        alt = estimate(p.model, p.weights, wl, rt)  # the one breakdown the levers read
        saves = base.total_bytes - alt.total_bytes
        out.append(
            Advice(
                "tensor_parallel_size",
                min_gpus,
                saves,
                True,
                f"Shard over {min_gpus} GPUs (tensor parallel)",
            )
        )
    out.sort(key=lambda a: (not a.fits, -a.saves_bytes))
    return out


def _total_at(p: _Problem, batch: int, context: int) -> int:
    return p.need(batch, context) + p.base.weights.bytes


def _weight_levers(p: _Problem) -> list[Advice]:
    """Quantize the weights: the largest format that fits, or why none does."""
    now_bits = p.weights.bits_per_weight
    tried = [w for w in _LEVER_WEIGHTS if w.bits_per_weight < now_bits]
    last = None
    for spec in tried:
        alt = p.profile.budget_check_at(p.model, spec, p.workload, p.runtime, p.capacity)
        saves = p.base.weights.bytes - alt.weights
        last = (spec, saves)
        if alt.need <= alt.usable:
            return [
                Advice(
                    "weights", spec.label(), saves, True, f"Quantize the weights to {spec.label()}"
                )
            ]
    if last is None:
        return []
    spec, saves = last
    room = p.usable + p.base.weights.bytes  # what is left after the overhead, before weights
    need = p.base_need
    reason = "overhead" if room <= 0 else "kv_alone" if need > room else ""
    return [
        Advice(
            "weights",
            spec.label(),
            saves,
            False,
            f"Quantizing the weights to {spec.label()}",
            reason,
            need,
            room,
        )
    ]


def fits_on(breakdown: Breakdown, capacity_bytes: int) -> bool:
    """Forward verdict: the estimate's total per GPU is within ``capacity_bytes``."""
    return breakdown.total_bytes <= capacity_bytes
