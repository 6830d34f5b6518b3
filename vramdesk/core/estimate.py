"""The forward estimate: weights, KV cache, activations, overhead (SPEC §3).

:func:`estimate` validates the inputs and dispatches the terms to the runtime's engine
profile (:mod:`vramdesk.core.engines`); the neutral ``formula`` profile's terms live in
:mod:`vramdesk.core.terms.formula` and the KV cache's in :mod:`vramdesk.core.terms.kv_cache`, both
re-exported here. The engines import those modules, never this one: no import cycle.
"""

from __future__ import annotations

from vramdesk.core.engines import profile_for
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.inputs import tp_problem, validate_inputs  # noqa: F401 - re-exported
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part  # noqa: F401 - Part re-exported
from vramdesk.core.terms.formula import (  # noqa: F401 - re-exported: the terms of the estimate
    ACTIVATION_BYTES,
    LOGIT_BYTES,
    STATE_BYTES,
    activation_bytes,
    activation_part,
    estimate_warnings,
    formula_estimate,
    overhead_part,
    weight_groups,
    weights_part,
)
from vramdesk.core.terms.kv_cache import (  # noqa: F401 - re-exported: the KV terms are part of the estimate
    cached_tokens,
    kv_bytes_per_token,
    kv_bytes_per_token_per_layer,
    kv_cache_part,
    kv_cost_by_kind,
    kv_heads_per_gpu,
    shared_prefix_tokens,
)


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
