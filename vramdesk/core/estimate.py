"""The forward estimate: weights, KV cache, activations, overhead (SPEC §3).

:func:`estimate` validates the inputs and dispatches the terms to the runtime's engine
profile (:mod:`vramdesk.core.engines`); the neutral ``formula`` profile's terms live in
:mod:`vramdesk.core.formula` and the KV cache's in :mod:`vramdesk.core.kv_cache`, both
re-exported here. The engines import those modules, never this one: no import cycle.
"""

from __future__ import annotations

from vramdesk.core.breakdown import Breakdown, Part  # noqa: F401 - Part re-exported
from vramdesk.core.engines import profile_for
from vramdesk.core.errors import InputError
from vramdesk.core.formats import WeightSpec
from vramdesk.core.formula import (  # noqa: F401 - re-exported: the terms of the estimate
    ACTIVATION_BYTES,
    LOGIT_BYTES,
    STATE_BYTES,
    activation_part,
    estimate_warnings,
    formula_estimate,
    overhead_part,
    weight_groups,
    weights_part,
)
from vramdesk.core.kv_cache import (  # noqa: F401 - re-exported: the KV terms are part of the estimate
    cached_tokens,
    kv_bytes_per_token,
    kv_bytes_per_token_per_layer,
    kv_cache_part,
    kv_cost_by_kind,
    kv_heads_per_gpu,
    shared_prefix_tokens,
)
from vramdesk.core.model import ModelSpec
from vramdesk.core.runtime import Runtime
from vramdesk.core.workload import Workload


# -------------------------------------------------------------------- estimate
def estimate(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime | None = None
) -> Breakdown:
    """Forward estimate: the memory one GPU needs for this model and traffic.

    Parameters
    ----------
    model : ModelSpec
        Architecture (validated here).
    weights : WeightSpec
        Weight storage format.
    workload : Workload
        Context, concurrency, prompt, KV dtype.
    runtime : Runtime, optional
        Engine knobs; defaults to :class:`Runtime()` (formula profile).

    Returns
    -------
    Breakdown
        Exact bytes per GPU for weights, KV cache, activations and overhead, each with
        its formula.

    Raises
    ------
    InputError
        Any invalid field, named (``num_key_value_heads``, ``context_tokens``, ...).
    """
    runtime = runtime or Runtime()
    validate_inputs(model, weights, workload, runtime)
    return profile_for(runtime.engine).estimate(model, weights, workload, runtime)


def tp_problem(model: ModelSpec, tp: int) -> InputError | None:
    """Why ``model`` cannot be sharded over ``tp`` GPUs, or None when it can.

    Engines shard attention heads: ``tp`` must divide ``num_attention_heads``, and the KV heads
    must divide evenly or be replicated (``tp`` a multiple of ``num_key_value_heads``; vLLM
    ``get_num_kv_heads``). MLA's latent cache is replicated, so only the query heads count.
    """
    kv, heads = model.num_key_value_heads, model.num_attention_heads
    if tp > 1 and heads and heads % tp:
        return InputError(
            "tensor_parallel_size",
            f"must divide num_attention_heads ({heads})",
            "divisor",
            {"heads": heads},
        )
    if tp > 1 and not model.is_mla and kv % tp and tp % kv:
        return InputError(
            "tensor_parallel_size",
            f"must divide num_key_value_heads ({kv}) or be a multiple of it",
            "divisor",
        )
    return None


def validate_inputs(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
) -> None:
    """Validate the four inputs and their combination.

    Raises
    ------
    InputError
        The first invalid field, e.g. ``tensor_parallel_size`` not dividing the KV heads.
    """
    model.validate()
    weights.validate()
    workload.validate()
    runtime.validate()
    problem = tp_problem(model, runtime.tensor_parallel_size)
    if problem is not None:
        raise problem
    if runtime.shared_prefix_tokens > workload.context_tokens:
        raise InputError(
            "shared_prefix_tokens",
            f"must not exceed context_tokens ({workload.context_tokens})",
            "too_large",
            {"max": workload.context_tokens},
        )
    if runtime.pipeline_parallel_size > model.num_hidden_layers:
        raise InputError(
            "pipeline_parallel_size",
            f"must not exceed num_hidden_layers ({model.num_hidden_layers})",
            "too_large",
        )
