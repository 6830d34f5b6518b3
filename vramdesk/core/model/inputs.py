"""Validation of the four inputs of an estimate, alone and together.

Shared by :func:`vramdesk.core.estimate.estimate` and the engine profiles' short paths
(the solver's need), which must refuse exactly what the estimate refuses.
"""

from __future__ import annotations

from vramdesk.core._memo import validated
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload


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
    # each object is checked once while it lives (frozen inputs): a solver or a grid that
    # estimates one model thousands of times range-checks its float knobs once
    validated(model)
    validated(weights)
    validated(workload)
    validated(runtime)
    problem = tp_problem(model, runtime.tensor_parallel_size)
    if problem is not None:
        raise problem
    if weights.experts_only and not model.is_moe:
        raise InputError(
            "weights",
            f"{weights.format.label} quantizes only the routed experts (vLLM "
            "quantization/mxfp4.py: linear layers stay unquantized) and this model has none; "
            "use MXFP4_MOE (llama.cpp: Q8_0 outside the experts), bf16 or another format",
            "not_applicable",
        )
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
