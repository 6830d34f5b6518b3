"""The forward estimate: weights, KV cache, activations, overhead (SPEC §3).

:func:`estimate` validates the inputs and dispatches the terms to the runtime's engine
profile (:mod:`vramdesk.core.engines`); the engine-neutral terms live in
:mod:`vramdesk.core.terms` (weights, kv_cache, state, activations, overhead) and the neutral
profile in :mod:`vramdesk.core.engines.formula`. The engines import those modules, never this
one: no import cycle.
"""

from __future__ import annotations

import dataclasses

from vramdesk.core.engines import profile_for
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.inputs import tp_problem, validate_inputs
from vramdesk.core.model.mtp import GGUF_MTP_NOTE, mtp_note
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.kv_cache import kv_bytes_per_token

#: What callers of the estimate also read: its result types, its input checks, and the KV
#: bytes per token (the one figure every screen shows beside the breakdown).
__all__ = [
    "Breakdown",
    "Part",
    "estimate",
    "kv_bytes_per_token",
    "tp_problem",
    "validate_inputs",
]


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
        its formula. A checkpoint's multi-token-prediction layers are not in the weights;
        the weights' notes say so (:func:`vramdesk.core.model.mtp.mtp_note`).

    Raises
    ------
    InputError
        Any invalid field, named (``num_key_value_heads``, ``context_tokens``, ...).
    """
    runtime = runtime or Runtime()
    validate_inputs(model, weights, workload, runtime)
    breakdown = profile_for(runtime.engine).estimate(model, weights, workload, runtime)
    notes = [n for n in (tower_note(model, runtime), mtp_note(model)) if n is not None]
    if model.num_nextn_predict_layers and runtime.engine in (Engine.LLAMA_CPP, Engine.OLLAMA):
        notes.append(GGUF_MTP_NOTE)
    if not notes:
        return breakdown
    part = breakdown.weights
    part = dataclasses.replace(part, assumptions=(*part.assumptions, *notes))
    return dataclasses.replace(breakdown, weights=part)


def tower_note(model: ModelSpec, runtime: Runtime) -> str | None:
    """The weights' note on a multimodal model's towers, where the engine loads them.

    vLLM, SGLang, transformers and the formula load the vision and audio towers and
    projectors with the model (``ModelSpec.encoder_params``); llama.cpp and Ollama read them
    from a separate projector file and vLLM's ``--language-model-only`` leaves them out, and
    those profiles say so in their own notes. None without towers.
    """
    measured = runtime.loaded_weights_bytes is not None  # the log's figure holds whatever loaded
    if not model.encoder_params or not runtime.loads_encoders or measured:
        return None
    flag = " (vLLM --language-model-only leaves them out)" if runtime.engine is Engine.VLLM else ""
    return (
        f"includes the multimodal encoders and projectors: {model.encoder_params:,} "
        f"parameters{flag}"
    )
