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

from vramdesk.core.engines import profile_for
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.inputs import tp_problem
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.advisor import advise
from vramdesk.core.solve.result import SolveResult
from vramdesk.core.solve.search import (
    TP_CANDIDATES,
    Problem,
    fits_on,
    smallest_layout,
    smallest_tp,
)


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
    p = Problem(model, weights, workload, runtime, capacity_bytes)
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
    tp_gpus = None if min_gpus is None else runtime.replace(tensor_parallel_size=min_gpus)
    layout = smallest_layout(
        model,
        weights,
        workload,
        runtime,
        capacity_bytes,
        None if tp_gpus is None else tp_gpus.world_size() // runtime.pipeline_parallel_size,
    )
    advice = () if fits else tuple(advise(p, max_conc, max_ctx, min_gpus))
    notes = []
    if p.usable + base.weights.bytes <= 0:
        notes.append(
            "the fixed overhead alone exceeds this GPU's usable memory: no GPU count of this "
            "size can help"
        )
    notes.extend(profile_for(runtime.engine).solve_notes(model, runtime))
    if min_gpus is None and profile_for(runtime.engine).shards_heads:
        # why "none up to 64" when the heads stop the search early (Llama-4: 40 heads)
        shardable = [tp for tp in TP_CANDIDATES if tp_problem(model, tp) is None]
        if shardable[-1] < TP_CANDIDATES[-1]:
            notes.append(
                f"smallest GPU count: no tensor-parallel size tried above {shardable[-1]} "
                f"shards the {model.num_attention_heads} attention and "
                f"{model.num_key_value_heads} KV heads evenly, and {shardable[-1]} GPUs are "
                "not enough"
            )
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
        min_layout=layout,
    )


def min_gpus_text(result: SolveResult, engine: Engine) -> str:
    """The smallest GPU count as a user reads it, for the CLI and the window alike."""
    if not profile_for(engine).shards_heads:
        return f"not computed ({engine.value} splits layers across GPUs rather than sharding heads)"
    layout = result.min_layout
    fewer = ""
    if layout is not None:
        how = "with expert parallel" if layout.expert_parallel else "without expert parallel"
        if layout.dp_attention:
            how = f"dp-attention{', ep ' + str(layout.tp) if layout.expert_parallel else ''}"
        fewer = f"; or {layout.gpus} as TP {layout.tp} x DP {layout.dp} ({how})"
    if result.min_gpus is None:
        return f"none up to {TP_CANDIDATES[-1]}{fewer}"
    return str(result.min_gpus) + fewer
