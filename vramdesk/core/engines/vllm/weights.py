"""vLLM's weights as loaded: the dtype it picks, padded vocabulary, RoPE cache, per-channel scales.

Sources: ``vllm/model_executor/layers/vocab_parallel_embedding.py`` (vocabulary padded to a
multiple of 64 rows), ``vllm/model_executor/layers/rotary_embedding`` (the cos/sin cache on
every GPU), compressed-tensors / fp8 per-channel schemes (one fp32 scale per output channel),
``quantization/mxfp4.py`` (MXFP4 experts padded to the MoE kernel's tiles: :mod:`.mxfp4`),
``fused_moe/config.py`` ``FusedMoEParallelConfig.make`` (routed experts over ``tp * dp``
ranks under data parallelism: :func:`expert_shards`).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from vramdesk.core.engines.base import measured_part
from vramdesk.core.engines.vllm import mxfp4
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.modules import kept_params
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import (
    ModelSpec,
    count_params,
    language_model,
    total_params,
)
from vramdesk.core.terms.breakdown import Part
from vramdesk.core.terms.weights import weights_part
from vramdesk.core.units import ceil_bytes, ceil_div, round_up

#: ``DEFAULT_VOCAB_PADDING_SIZE`` of vocab_parallel_embedding.py.
VOCAB_PADDING = 64


#: Bytes of one fp32 per-channel scale.
SCALE_BYTES = 4


# ----------------------------------------------------------------------- weights
def auto_dtype(spec: WeightSpec, engine: str) -> tuple[WeightSpec, tuple[str, ...]]:
    """The weights as ``dtype=auto`` loads them: a float32 checkpoint in 16 bits.

    vLLM ``vllm/config/model.py`` ``_get_and_verify_dtype`` (SGLang reuses the rule in
    ``python/sglang/srt/configs/model_config.py``): with ``auto`` a float32 config dtype
    becomes bfloat16 (float16 on GPUs without bf16), 2 bytes either way. Other formats are
    loaded as stored.
    """
    if spec.format is not WeightFormat.FP32:
        return spec, ()
    return spec.replace(format=WeightFormat.BF16), (
        f"dtype=auto: {engine} loads the float32 checkpoint in 16 bits (bfloat16)",
    )


def rope_cache_bytes(model: ModelSpec) -> int:
    """Bytes of the RoPE cos/sin cache: ``max_position_embeddings * rotary_dim * 2``.

    ``rotary_dim`` is ``head_dim`` (``qk_rope_head_dim`` for MLA), times
    ``partial_rotary_factor`` when the model rotates only part of each head (``get_rope``:
    ``rotary_dim = int(rotary_dim * partial_rotary_factor)``); 2 bytes per value (16-bit model
    dtype). Replicated on every GPU. 0 when ``max_position_embeddings`` is unknown.
    """
    dim = model.qk_rope_head_dim if model.is_mla else model.resolved_head_dim
    if dim and model.partial_rotary_factor is not None and not model.is_mla:
        dim = int(dim * model.partial_rotary_factor)
    return (model.max_position_embeddings or 0) * (dim or 0) * 2


def vocab_padding_params(model: ModelSpec) -> int:
    """Extra parameters from padding the vocabulary to :data:`VOCAB_PADDING` rows.

    ``(pad64(vocab) - vocab) * hidden`` for the embedding, twice when lm_head is untied.
    """
    if not model.vocab_size or not model.hidden_size:
        return 0
    pad = round_up(model.vocab_size, VOCAB_PADDING) - model.vocab_size
    return pad * model.hidden_size * (1 if model.tie_word_embeddings else 2)


def output_channels(model: ModelSpec) -> int:
    """Output channels of every quantized linear layer (one fp32 scale each).

    Per layer: q ``heads * head_dim``, k and v ``kv_heads * head_dim``, o ``hidden``;
    gated MLP ``2 * intermediate + hidden``; every routed expert likewise, and the shared
    experts as the one MLP vLLM builds for them (``shared_expert_intermediate_size``, else
    ``n_shared_experts * moe_intermediate_size`` wide: ``deepseek_v2.py``, ``qwen2_moe.py``).
    """
    h, d, layers = model.hidden_size, model.resolved_head_dim, model.num_hidden_layers
    attn = (model.num_attention_heads or 0) * d + 2 * model.num_key_value_heads * d + h
    dense = model.first_k_dense_replace if model.is_moe else layers
    total = layers * attn + dense * (2 * (model.intermediate_size or 0) + h)
    if model.is_moe:
        width = model.moe_intermediate_size or model.intermediate_size or 0
        shared = model.shared_expert_intermediate_size or model.n_shared_experts * width
        per_layer = model.num_local_experts * (2 * width + h) + (2 * shared + h if shared else 0)
        total += (layers - dense) * per_layer
    return total


def _per_channel(spec: WeightSpec) -> bool:
    return spec.format in (WeightFormat.INT8, WeightFormat.FP8) and spec.group_size is None


def _per_channel_bytes(model: ModelSpec, spec: WeightSpec | None = None) -> tuple[int, str, str]:
    counts = count_params(model)
    kept = (
        counts.embedding
        + counts.lm_head
        + counts.norms
        + counts.router
        + counts.other
        + counts.expert_biases
    )
    kept += vocab_padding_params(model)
    linear = (
        total_params(model) - counts.total + counts.attention + counts.mlp + counts.routed_experts
    )
    if (
        spec is not None and spec.unquantized_modules is not None
    ):  # the checkpoint's own not-quantized list
        linear = kept_params(model, spec.unquantized_modules, "quantization_config")[0]
        linear += total_params(model) - counts.total
        kept = total_params(model) - linear + vocab_padding_params(model)
    channels = output_channels(model)
    total = linear + channels * SCALE_BYTES + kept * 2
    return (
        total,
        "linear * 1 + output_channels * 4 + (embeddings + lm_head + norms + vocab_pad) * 2",
        f"{linear:,} + {channels:,} * 4 + {kept:,} * 2",
    )


def expert_shards(model: ModelSpec, runtime: Runtime) -> tuple[int, int] | None:
    """How the routed experts are split when data or expert parallelism is on, else None.

    ``vllm/model_executor/layers/fused_moe/config.py`` ``FusedMoEParallelConfig.make``: the
    MoE layers flatten TP across DP, ``flatten_tp_size = dp * tp``. Without
    ``enable_expert_parallel`` every rank holds a ``1 / (tp * dp)`` slice of every expert
    (``tp_size = flatten_tp_size``); with it, ``ep_size = flatten_tp_size`` and ``tp_size =
    1``: whole experts, ``E // ep`` per rank and one more on the first ``E % ep`` ranks
    (``determine_expert_map``), so the fullest rank holds ``ceil(E / ep)``.

    Returns
    -------
    (ranks, experts_on_fullest_rank) or None
        ``experts_on_fullest_rank`` is 0 without expert parallelism (a slice of each);
        None for a dense model, or with ``dp == 1`` and EP off (the plain TP split).
    Under SGLang the split is SGLang's (:func:`sglang_shards`): None here.
    """
    if not model.is_moe or runtime.engine is not Engine.VLLM:
        return None
    ranks = runtime.tensor_parallel_size * runtime.data_parallel_size
    if runtime.enable_expert_parallel and ranks > 1:
        return ranks, ceil_div(model.num_local_experts, ranks)
    if runtime.data_parallel_size > 1:
        return ranks, 0
    return None


def routed_bytes(model: ModelSpec, spec: WeightSpec) -> int:
    """Bytes of the routed experts (and their biases) at TP = PP = 1, in ``spec``'s format.

    ``routed params * bits_per_weight / 8`` (16-bit biases); int8/fp8 per-channel adds one
    fp32 scale per expert output channel (``(layers - dense) * E * (2 * I + H) * 4``).
    """
    counts = count_params(model)
    body = ceil_bytes(Fraction(counts.routed_experts) * spec.bits_per_weight / 8)
    body += counts.expert_biases * 2
    if _per_channel(spec):
        moe_layers = model.num_hidden_layers - model.first_k_dense_replace
        width = model.moe_intermediate_size or model.intermediate_size or 0
        body += moe_layers * model.num_local_experts * (2 * width + model.hidden_size) * SCALE_BYTES
    return body


def _split_experts(
    model: ModelSpec, spec: WeightSpec, runtime: Runtime, body: int, shards: tuple[int, int]
) -> tuple[int, str, str, str]:
    """Per-GPU bytes of ``body`` (the whole model) with the experts split as ``shards`` says.

    ``rest / (TP * PP) + experts / (TP * DP * PP)`` without EP; with EP ``rest / (TP * PP) +
    experts * ceil(E / (TP * DP)) / E / PP``: :func:`expert_shards`.
    """
    tp, pp, dp = (
        runtime.tensor_parallel_size,
        runtime.pipeline_parallel_size,
        runtime.data_parallel_size,
    )
    experts = min(body, routed_bytes(model, spec))
    rest = body - experts
    ranks, local = shards
    if local:
        e = model.num_local_experts
        per_gpu = ceil_bytes(Fraction(experts * local, e * pp))
        formula = "rest / (TP * PP) + experts * ceil(E / (TP * DP)) / E / PP"
        subst = f"{rest:,} / {tp * pp} + {experts:,} * {local} / {e} / {pp}"
        note = (
            f"expert parallel: {local} of {e} routed experts whole on the fullest of {ranks} "
            "ranks, attention and dense layers TP-sharded per DP rank (vLLM "
            "fused_moe/config.py FusedMoEParallelConfig.make)"
        )
    else:
        per_gpu = ceil_bytes(Fraction(experts, ranks * pp))
        formula = "rest / (TP * PP) + experts / (TP * DP * PP)"
        subst = f"{rest:,} / {tp * pp} + {experts:,} / {ranks * pp}"
        note = (
            f"data parallel {dp}: routed experts sliced over TP * DP = {ranks} ranks, "
            "attention and dense layers TP-sharded per DP rank (vLLM fused_moe/config.py "
            "FusedMoEParallelConfig.make)"
        )
    return ceil_bytes(Fraction(rest, tp * pp)) + per_gpu, formula, subst, note


def vllm_weights_part(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> Part:
    """Weights per GPU as vLLM loads them ("Model loading took X GiB").

    16-bit: ``(params + vocab_pad) * 2 / (TP * PP) + rope_cache``; MXFP4 experts under vLLM:
    :func:`_mxfp4_part` (padded to the kernel's tiles); int8/fp8 per-channel:
    :func:`_per_channel_bytes` ``/ (TP * PP) + rope_cache``; other formats: the formula
    profile's weights plus the RoPE cache. A measured ``loaded_weights_bytes`` wins. With
    ``language_model_only`` the model's ``encoder_params`` (vision / audio towers and
    projectors) are left out, and so is the checkpoint's exact byte size, which holds them.
    """
    if not runtime.language_model_only or runtime.loaded_weights_bytes is not None:
        return _loaded_weights(model, spec, runtime)
    tower = model.encoder_params
    if not tower:
        part = _loaded_weights(model, spec, runtime)
        note = "--language-model-only: this model has no multimodal encoder to leave out"
    else:
        part = _loaded_weights(language_model(model), spec, runtime)
        note = (
            f"--language-model-only: the multimodal encoders and projectors ({tower:,} "
            "parameters) are not loaded"
        )
    return dataclasses.replace(part, assumptions=(*part.assumptions, note))


def _loaded_weights(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> Part:
    """:func:`vllm_weights_part` of the modules vLLM builds for ``model``."""
    if runtime.loaded_weights_bytes is not None:
        return measured_part(
            "weights", "Weights", runtime.loaded_weights_bytes, "Model loading took"
        )
    shards = runtime.tensor_parallel_size * runtime.pipeline_parallel_size
    rope = rope_cache_bytes(model)
    if spec.format is WeightFormat.MXFP4 and model.is_moe and runtime.engine is Engine.VLLM:
        # SGLang shares this accounting but pads by its own rules (not read): unpadded there
        return _mxfp4_part(model, spec, runtime, rope)
    if _per_channel(spec):
        body, formula, subst = _per_channel_bytes(model, spec)
    elif not spec.format.quantized:
        pad = vocab_padding_params(model)
        body = ceil_bytes((total_params(model) + pad) * spec.bits_per_weight / 8)
        formula = f"(params + vocab_pad) * {spec.bits_per_weight / 8}"
        subst = f"({total_params(model):,} + {pad:,}) * {spec.bits_per_weight / 8}"
    else:
        base = weights_part(
            model, spec, runtime.replace(tensor_parallel_size=1, pipeline_parallel_size=1)
        )
        body, formula, subst = base.bytes, base.formula, base.substituted
    notes: tuple[str, ...] = (
        "vocabulary padded to 64 rows and a 16-bit RoPE cos/sin cache on each GPU "
        "(vLLM/SGLang VocabParallelEmbedding and rotary embedding)",
    )
    split = expert_shards(model, runtime)
    if split is not None:
        per_gpu, how, how_subst, note = _split_experts(model, spec, runtime, body, split)
        return Part(
            "weights",
            "Weights",
            per_gpu + rope,
            f"{how} + rope_cache; whole model: {formula}",
            f"{how_subst} + {rope:,}",
            (note, *notes),
        )
    value = ceil_bytes(Fraction(body, shards)) + rope
    return Part(
        "weights",
        "Weights",
        value,
        f"({formula}) / (TP * PP) + rope_cache",
        f"({subst}) / {shards} + {rope:,}",
        notes,
    )


def _mxfp4_part(model: ModelSpec, spec: WeightSpec, runtime: Runtime, rope: int) -> Part:
    """MXFP4 (gpt-oss) under vLLM: the 16-bit rest / (TP * PP) + the padded experts per GPU.

    The rest is the checkpoint (or the formula's figure) less its experts; the experts are
    :func:`mxfp4.experts_part` for ``runtime.mxfp4_backend`` (or :func:`mxfp4.default_backend`).
    """
    tp, pp = runtime.tensor_parallel_size, runtime.pipeline_parallel_size
    base = weights_part(model, spec, Runtime())
    rest = base.bytes - mxfp4.routed_stored_bytes(model)
    backend, note = runtime.mxfp4_backend, ""
    if backend is None:
        backend, note = mxfp4.default_backend(runtime.engine_version)
    split = expert_shards(model, runtime)
    if split is not None and split[1]:  # expert parallel: whole experts, no TP inside them
        padded, stored, formula, subst = mxfp4.experts_part(
            model.replace(num_local_experts=split[1]), backend, 1, pp
        )
    else:  # a slice of every expert over TP (times DP under data parallelism)
        padded, stored, formula, subst = mxfp4.experts_part(
            model, backend, split[0] if split else tp, pp
        )
    value = ceil_bytes(Fraction(rest, tp * pp)) + padded + rope
    notes = [
        f"MXFP4 experts padded for the {backend} kernel: {padded:,} bytes per GPU, "
        f"{padded - stored:+,} on the checkpoint's {stored:,} (vLLM quantization/mxfp4.py "
        "create_weights)",
        *base.assumptions,
    ]
    if note:
        notes.append(note)
    return Part(
        "weights",
        "Weights",
        value,
        f"rest / (TP * PP) + {formula} + rope_cache",
        f"{rest:,} / {tp * pp} + {subst} + {rope:,}",
        tuple(notes),
    )
