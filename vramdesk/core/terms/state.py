"""Recurrent state: the constant per-sequence memory of SSM and linear-attention layers.

A Mamba / Mamba-2 layer keeps a convolution state (the last ``conv_kernel - 1`` inputs of
its depthwise convolution) and an SSM state; a gated-DeltaNet layer (Qwen3-Next) keeps a
convolution state and a ``v_head_dim x k_head_dim`` matrix per value head. Neither grows
with the context: the memory is per sequence (SPEC: the solver treats it per sequence).

Element counts per layer and sequence (vLLM ``vllm/model_executor/layers/mamba/
mamba_utils.py`` ``MambaStateShapeCalculator``; llama.cpp ``hparams.n_embd_r()`` /
``n_embd_s()`` in ``src/llama-hparams.cpp``):

* Mamba-1: conv ``d_inner * (d_conv - 1)``, SSM ``d_inner * d_state``;
* Mamba-2: conv ``(d_inner + 2 * n_groups * d_state) * (d_conv - 1)``, SSM
  ``n_heads * head_dim * d_state``;
* gated DeltaNet: conv ``(2 * n_k_heads * d_k + n_v_heads * d_v) * (kernel - 1)``, state
  ``n_v_heads * d_v * d_k``.

Dtypes: vLLM keeps the conv state in the model dtype and the SSM state in
``mamba_ssm_cache_dtype`` (``auto`` = the model dtype; ``MambaStateDtypeCalculator`` in
the same file), so 2 bytes each for a 16-bit model unless the config asks for float32;
llama.cpp keeps both in f32 (``llama_memory_recurrent`` created with ``GGML_TYPE_F32`` for
``type_r`` and ``type_s`` in ``src/llama-model.cpp`` ``create_memory``), with one state per
sequence slot (``rs_size = max(1, n_seq_max)``).
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core._memo import memo
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec, stage_layers
from vramdesk.core.terms.breakdown import Part
from vramdesk.core.units import ceil_bytes


def state_layers(model: ModelSpec, runtime: Runtime) -> int:
    """Layers with a recurrent state on one GPU's pipeline stage (:func:`model.stage_layers`)."""
    return _state_layers(model, runtime.pipeline_parallel_size)


@memo
def _state_layers(model: ModelSpec, pp: int) -> int:
    return sum(1 for x in stage_layers(model, pp) if x.has_state)


def state_bytes_per_sequence(
    model: ModelSpec, runtime: Runtime, conv_bytes: Fraction, ssm_bytes: Fraction
) -> int:
    """Bytes of one sequence's state on one GPU: ``layers * (conv * e_conv + ssm * e_ssm) / TP``.

    TP shards the state with the heads / inner channels (vLLM ``divide(..., tp)``).
    """
    tp = runtime.tensor_parallel_size
    per_layer = ceil_bytes(Fraction(model.conv_state_elements, tp) * conv_bytes) + ceil_bytes(
        Fraction(model.ssm_state_elements, tp) * ssm_bytes
    )
    return state_layers(model, runtime) * per_layer


def state_part(
    model: ModelSpec,
    sequences: int,
    runtime: Runtime,
    conv_bytes: Fraction,
    ssm_bytes: Fraction,
    source: str,
) -> Part | None:
    """The recurrent-state part for ``sequences`` sequences, or None for a model without one."""
    layers = state_layers(model, runtime)
    if not layers:
        return None
    per_seq = state_bytes_per_sequence(model, runtime, conv_bytes, ssm_bytes)
    tp = runtime.tensor_parallel_size
    return Part(
        "state",
        "Recurrent state",
        per_seq * sequences,
        "sequences * recurrent_layers * (conv_elements * e_conv + ssm_elements * e_ssm) / TP",
        f"{sequences} * {layers} * ({model.conv_state_elements:,} * {conv_bytes} + "
        f"{model.ssm_state_elements:,} * {ssm_bytes}) / {tp}",
        (
            "constant per sequence (does not grow with the context)",
            source,
        ),
    )
