"""vLLM's memory accounting: weights as loaded, the profiled KV budget, blocks, concurrency.

Sources (read in vllm-project/vllm, not copied):

* ``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory`` (V1) and
  ``vllm/worker/worker.py`` ``determine_num_available_blocks`` (V0): the KV budget is
  ``total * gpu_memory_utilization - (weights + activation peak + non-torch memory)``
  (V0: the profiled torch peak, weights included, replaces weights + activations).
  Recent releases can also subtract a CUDA-graph estimate; the 0.6-0.11 logs do not.
* ``vllm/v1/core/kv_cache_utils.py``: one page = ``block_size * bytes per token per layer``;
  layers of each attention type form groups of ``group_size`` layers that share
  ``group_size`` KV tensors; ``num_blocks = budget // (page * group_size)``; the log's
  "GPU KV cache size: N tokens" is ``num_blocks // len(groups) * block_size`` and
  "Maximum concurrency for L tokens per request" is ``num_blocks`` over the blocks one
  request of ``max_model_len`` needs in every group (sliding groups need
  ``cdiv(min(window - 1 + max_num_batched_tokens, L), block) + 1``).
* ``vllm/model_executor/layers/vocab_parallel_embedding.py``: vocabulary padded to a
  multiple of 64 rows (embedding, and lm_head when untied).
* ``vllm/model_executor/layers/rotary_embedding``: the cos/sin cache,
  ``max_position_embeddings * rotary_dim`` values in the model dtype, on every GPU.
* ``vllm/platforms/interface.py`` ``_align_hybrid_block_size``: hybrid attention + Mamba models
  get an attention block large enough that one page holds a layer's Mamba state, which is
  padded to that page; each Mamba layer group needs one block per request.
* compressed-tensors / fp8 per-channel schemes: int8/fp8 linear weights plus one fp32
  scale per output channel; embeddings, lm_head, norms and routers stay 16-bit.
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

from vramdesk.core.engines.base import check_kv_dtype, measured_part, with_parts
from vramdesk.core.engines.formula import STATE_BYTES, FormulaProfile
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import (
    FULL,
    RECURRENT,
    SLIDING,
    ModelSpec,
    count_params,
    ffn_width,
    stage_layers,
    total_params,
)
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.kv_cache import (
    kv_bytes_per_token_per_layer,
    kv_cache_part,
    shared_prefix_tokens,
)
from vramdesk.core.terms.state import state_layers
from vramdesk.core.terms.weights import weights_part
from vramdesk.core.units import MIB, ceil_bytes, ceil_div, round_up

#: ``DEFAULT_VOCAB_PADDING_SIZE`` of vocab_parallel_embedding.py.
VOCAB_PADDING = 64
#: Bytes of one fp32 per-channel scale.
SCALE_BYTES = 4
#: The first release (V1) whose default ``gpu_memory_utilization`` is 0.92 and which subtracts
#: its CUDA-graph estimate from the budget, as read in ``vllm/config/cache.py`` and
#: ``gpu_worker.py`` of recent releases; the exact first release is an assumption.
RECENT_SINCE = (0, 14)
#: ``BlockSize = Literal[1, 8, 16, 32, 64, 128]`` of ``vllm/config/cache.py`` (0.10-0.11;
#: ``--block-size`` choices 8-128 in 0.6). Releases from :data:`RECENT_SINCE` (and unknown
#: versions) are not checked against a list: a multiple of 8 is required there, an
#: assumption rather than a value read in their source.
BLOCK_SIZES = (1, 8, 16, 32, 64, 128)
#: Profile-run defaults: V0 ``max(max_model_len, 2048)`` tokens and 256 sequences; V1 (the
#: OpenAI server on large GPUs) 8192 tokens and 1024 sequences (``vllm/engine/arg_utils.py``).
V0_MIN_BATCHED_TOKENS, V0_MAX_NUM_SEQS = 2048, 256
#: V0 enables chunked prefill by itself above this ``max_model_len`` (``arg_utils.py``
#: ``use_long_context = max_model_len > 32768``).
V0_LONG_CONTEXT = 32_768
#: First release whose V0 chunked-prefill default is 2048 tokens (512 before); an assumption
#: between the 0.6 logs (512) and the 0.8.5 logs (2048).
V0_CHUNKED_2048_SINCE = (0, 7)
V1_BATCHED_TOKENS, V1_MAX_NUM_SEQS = 8192, 1024
#: First release whose "GPU KV cache size" log is ``int(max_concurrency * max_model_len)``
#: rather than ``num_blocks // len(groups) * block_size`` (vllm-project/vllm#40691 reports the
#: old rule on 0.19.0); the exact release is an assumption.
KV_TOKENS_FROM_CONCURRENCY_SINCE = (0, 20)
#: Live fp32 logit-sized buffers at the V1 profile peak (the dummy sampler run), fitted to
#: Llama-3.1-8B (8.71) and Qwen3-32B TP2 (8.92) on vLLM 0.11 / H100: 8.8 within 2 %. The
#: multimodal Mistral-Small-3.2 run peaked at 2.5x less: the activation model is +-60 %.
V1_LOGIT_BUFFERS = Fraction(88, 10)
#: V0 prefill-peak multiple of ``T * (hidden + 2 * intermediate) * 2``, fitted to the
#: Llama-3.1-8B RTX 3090 run (1.6).
V0_MLP_BUFFERS = Fraction(16, 10)
#: The V0/V1 engine marker ("V0 ~0.6.4", "0.7.2 (V1 engine)"); a ``v``/``V`` followed by a
#: release (``v0.11.0``, the GitHub tag style) is a tag prefix, not the marker.
ENGINE_MARKER = re.compile(r"\bV([01])\b(?!\.\d)", re.IGNORECASE)
#: Non-torch memory (CUDA context outside torch, NCCL buffers), fitted to the logs:
#: V0 0.35 GiB; V1 0.13-0.14 GiB at TP 1, 0.54 GiB at TP 2 (NCCL).
V0_NON_TORCH = 360 * MIB
V1_NON_TORCH = 144 * MIB
V1_NCCL = 400 * MIB


def parse_version(text: str | None) -> tuple[bool, tuple[int, ...]]:
    """``(is_v0, release)`` from free text: ``"V0 ~0.6.4"``, ``"0.11.0"``, ``"0.7.2 (V1 engine)"``.

    The V1 engine is the default from 0.8.0; unknown versions are read as the newest. A tag
    prefix (``"v0.11.0"``, ``"V0.6.4"``) is not the engine marker (:data:`ENGINE_MARKER`).
    """
    text = (text or "")[:100]
    found = re.search(r"(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?", text)
    release = tuple(int(g) for g in found.groups() if g is not None) if found else (99,)
    marker = ENGINE_MARKER.search(text)
    if marker:
        return marker.group(1) == "0", release
    return release < (0, 8), release


def check_version(text: str | None) -> None:
    """Refuse an engine version :func:`parse_version` cannot read (it would be read as the newest).

    Accepted: empty or ``None`` (the newest release), text with a ``major.minor`` release
    (``"0.11.0"``, ``"V0 ~0.6.4"``, ``"0.8.3.dev172+g2b93162f"``) or a bare ``V0``/``V1`` tag.

    Raises
    ------
    InputError
        ``engine_version``: anything else (``"banana"``, ``"11"``).
    """
    if text is None or not text.strip():
        return
    head = text[:100]
    if re.search(r"\d{1,4}\.\d{1,4}", head) or ENGINE_MARKER.search(head):
        return
    raise InputError(
        "engine_version",
        f"cannot read a vLLM release from {head[:40]!r}: expected "
        "e.g. 0.11.0 (or 'V0 0.6.4'); the defaults, profile run and budget "
        "depend on it",
        "invalid",
    )


def default_gpu_memory_utilization(version: str | None) -> Fraction:
    """VLLM's default ``gpu_memory_utilization``: 0.9, 0.92 from :data:`RECENT_SINCE`."""
    return Fraction(92, 100) if parse_version(version)[1] >= RECENT_SINCE else Fraction(9, 10)


def subtracts_cuda_graphs(version: str | None) -> bool:
    """Whether the release subtracts CUDA-graph memory from the KV budget."""
    is_v0, release = parse_version(version)
    return not is_v0 and release >= RECENT_SINCE


def check_block_size(block_size: int | None, version: str | None) -> None:
    """Refuse a ``block_size`` vLLM does not accept (:data:`BLOCK_SIZES`).

    Raises
    ------
    InputError
        ``block_size``: not in :data:`BLOCK_SIZES` for releases before :data:`RECENT_SINCE`,
        not a multiple of 8 for later (or unknown) releases. ``None`` is vLLM's default, 16.
    """
    if block_size is None:
        return
    if parse_version(version)[1] < RECENT_SINCE:
        if block_size not in BLOCK_SIZES:
            raise InputError(
                "block_size",
                f"vLLM accepts {', '.join(map(str, BLOCK_SIZES))}, got {block_size}",
                "unsupported",
            )
    elif block_size % 8:
        raise InputError(
            "block_size", f"must be a multiple of 8 for vLLM, got {block_size}", "unsupported"
        )


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

    ``rotary_dim`` is ``head_dim`` (``qk_rope_head_dim`` for MLA); 2 bytes per value
    (16-bit model dtype). Replicated on every GPU. 0 when ``max_position_embeddings`` is unknown.
    """
    dim = model.qk_rope_head_dim if model.is_mla else model.resolved_head_dim
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
    gated MLP ``2 * intermediate + hidden``; every routed and shared expert likewise.
    """
    h, d, layers = model.hidden_size, model.resolved_head_dim, model.num_hidden_layers
    attn = (model.num_attention_heads or 0) * d + 2 * model.num_key_value_heads * d + h
    dense = model.first_k_dense_replace if model.is_moe else layers
    total = layers * attn + dense * (2 * (model.intermediate_size or 0) + h)
    if model.is_moe:
        width = model.moe_intermediate_size or model.intermediate_size or 0
        experts = model.num_local_experts + model.n_shared_experts
        total += (layers - dense) * experts * (2 * width + h)
    return total


def _per_channel(spec: WeightSpec) -> bool:
    return spec.format in (WeightFormat.INT8, WeightFormat.FP8) and spec.group_size is None


def _per_channel_bytes(model: ModelSpec) -> tuple[int, str, str]:
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
    channels = output_channels(model)
    total = linear + channels * SCALE_BYTES + kept * 2
    return (
        total,
        "linear * 1 + output_channels * 4 + (embeddings + lm_head + norms + vocab_pad) * 2",
        f"{linear:,} + {channels:,} * 4 + {kept:,} * 2",
    )


def vllm_weights_part(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> Part:
    """Weights per GPU as vLLM loads them ("Model loading took X GiB").

    16-bit: ``(params + vocab_pad) * 2 / (TP * PP) + rope_cache``; int8/fp8 per-channel:
    :func:`_per_channel_bytes` ``/ (TP * PP) + rope_cache``; other formats: the formula
    profile's weights plus the RoPE cache. A measured ``loaded_weights_bytes`` wins.
    """
    if runtime.loaded_weights_bytes is not None:
        return measured_part(
            "weights", "Weights", runtime.loaded_weights_bytes, "Model loading took"
        )
    shards = runtime.tensor_parallel_size * runtime.pipeline_parallel_size
    rope = rope_cache_bytes(model)
    if _per_channel(spec):
        body, formula, subst = _per_channel_bytes(model)
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
    value = ceil_bytes(Fraction(body, shards)) + rope
    return Part(
        "weights",
        "Weights",
        value,
        f"({formula}) / (TP * PP) + rope_cache",
        f"({subst}) / {shards} + {rope:,}",
        (
            "vocabulary padded to 64 rows and a 16-bit RoPE cos/sin cache on each GPU "
            "(vLLM/SGLang VocabParallelEmbedding and rotary embedding)",
        ),
    )


# ------------------------------------------------------------------ activations
def v0_auto_chunked_prefill(
    workload: Workload, runtime: Runtime, model: ModelSpec | None = None
) -> bool:
    """Whether vLLM V0 turns chunked prefill on by itself for this run.

    ``vllm/engine/arg_utils.py`` ``create_engine_config`` (0.6-0.8, V0): when
    ``--enable-chunked-prefill`` is not given and ``max_model_len > 32768`` on a GPU, it enables
    chunked prefill unless the model has a sliding window or prefix caching, LoRA or
    speculative decoding is on ("Chunked prefill is enabled by default for models with
    max_model_len > 32K"). Here: V0, no ``max_num_batched_tokens`` or chunk given, context
    above :data:`V0_LONG_CONTEXT`, no sliding window, no shared prefix (prefix caching).
    """
    return (
        parse_version(runtime.engine_version)[0]
        and runtime.max_num_batched_tokens is None
        and workload.chunk_tokens is None
        and workload.context_tokens > V0_LONG_CONTEXT
        and runtime.shared_prefix_tokens == 0
        and not (model is not None and model.sliding_window)
    )


def v0_chunked_default(version: str | None) -> int:
    """``max_num_batched_tokens`` V0 uses once chunked prefill is on and none is given.

    ``vllm/config.py`` ``SchedulerConfig``: 512 in 0.6 ("Chunked prefill is enabled with
    max_num_batched_tokens=512"); 2048 in later V0 engines (0.8.5 logs print 2048; the first
    release with 2048 is an assumption, :data:`V0_CHUNKED_2048_SINCE`).
    """
    return 2048 if parse_version(version)[1] >= V0_CHUNKED_2048_SINCE else 512


def batched_tokens(workload: Workload, runtime: Runtime, model: ModelSpec | None = None) -> int:
    """Tokens of the profile run (vLLM's ``max_num_batched_tokens``).

    The runtime's ``max_num_batched_tokens``, else the workload's ``chunk_tokens`` (the
    chunked-prefill size is that flag in vLLM, SPEC §3.4), else the version's default: V1
    8192; V0 ``max(max_model_len, 2048)``, or :func:`v0_chunked_default` when V0 turns chunked
    prefill on by itself (:func:`v0_auto_chunked_prefill`, above 32K tokens).
    """
    if runtime.max_num_batched_tokens is not None:
        return runtime.max_num_batched_tokens
    if workload.chunk_tokens is not None:
        return workload.chunk_tokens
    if v0_auto_chunked_prefill(workload, runtime, model):
        return v0_chunked_default(runtime.engine_version)
    if parse_version(runtime.engine_version)[0]:
        return max(workload.context_tokens, V0_MIN_BATCHED_TOKENS)
    return V1_BATCHED_TOKENS


def activation_peak_part(model: ModelSpec, workload: Workload, runtime: Runtime) -> Part:
    """Model the profile run's torch peak above the weights, per GPU.

    V1: ``T * (hidden + 2 * intermediate / TP) * 2 + 8.8 * S * vocab * 4`` (the dummy
    sampler's fp32 logits dominate); V0: ``1.6 * T * (hidden + 2 * intermediate / TP) * 2 +
    S * vocab * 4``. ``T`` = :func:`batched_tokens`, ``S`` = max_num_seqs default. A measured
    ``activation_peak_bytes`` (or V0 ``profiled_peak_bytes``) wins.

    Notes
    -----
    Fitted constants (:data:`V1_LOGIT_BUFFERS`, :data:`V0_MLP_BUFFERS`); uncertainty about
    +-60 % across models, so calibrate with ``vramdesk calibrate`` on the engine's log.
    """
    if runtime.activation_peak_bytes is not None:
        return measured_part(
            "activations",
            "Activation peak",
            runtime.activation_peak_bytes,
            "torch peak memory increase",
        )
    is_v0 = parse_version(runtime.engine_version)[0]
    seqs = V0_MAX_NUM_SEQS if is_v0 else V1_MAX_NUM_SEQS
    tokens = batched_tokens(workload, runtime, model)
    width = (model.hidden_size or 0) + 2 * ffn_width(model) // runtime.tensor_parallel_size
    mlp, logits = tokens * width * 2, min(seqs, tokens) * (model.vocab_size or 0) * 4
    mlp_k, logit_k = (V0_MLP_BUFFERS, 1) if is_v0 else (1, V1_LOGIT_BUFFERS)
    value = ceil_bytes(mlp * mlp_k + logits * logit_k)
    return Part(
        "activations",
        "Activation peak",
        value,
        "k_mlp * T * (hidden + 2 * intermediate / TP) * 2 + k_logits * S * vocab * 4",
        f"{float(mlp_k):g} * {tokens:,} * {width:,} * 2 + {float(logit_k):g} * "
        f"{min(seqs, tokens):,} * {model.vocab_size} * 4",
        (
            "fitted to published vLLM logs; +-60 % across models: calibrate from a start-up log",
            *(
                (
                    f"V0 turns chunked prefill on by itself above {V0_LONG_CONTEXT:,} tokens: "
                    f"the profile run is {tokens:,} tokens (arg_utils.py)",
                )
                if v0_auto_chunked_prefill(workload, runtime, model)
                else ()
            ),
        ),
    )


def non_torch_part(runtime: Runtime) -> Part:
    """Non-torch memory (+ CUDA graphs where the release subtracts them), per GPU."""
    graphs = runtime.cuda_graph_bytes if subtracts_cuda_graphs(runtime.engine_version) else None
    if runtime.non_torch_bytes is not None:
        value, how = runtime.non_torch_bytes, "measured non-torch memory"
    elif parse_version(runtime.engine_version)[0]:
        value, how = V0_NON_TORCH, "V0 non-torch memory (fitted)"
    else:
        nccl = V1_NCCL if runtime.tensor_parallel_size * runtime.pipeline_parallel_size > 1 else 0
        value, how = (
            V1_NON_TORCH + nccl,
            "V1 non-torch memory + NCCL buffers when TP/PP > 1 (fitted)",
        )
    if graphs:
        return Part(
            "overhead",
            "Non-torch + CUDA graphs",
            value + graphs,
            "non_torch + cuda_graphs",
            f"{value:,} + {graphs:,}",
            (how,),
        )
    return Part("overhead", "Non-torch memory", value, "non_torch", f"{value:,}", (how,))


# ---------------------------------------------------------------------- KV blocks
def layer_types_per_gpu(model: ModelSpec, runtime: Runtime) -> list[str]:
    """Kinds of one GPU's pipeline stage's layers (:func:`model.stage_layers`) that cache.

    Layers reading another layer's cache (Gemma-3n), recurrent and encoder layers get no
    KV blocks (their ``KVCacheSpec`` is absent or a Mamba spec).
    """
    stage = stage_layers(model, runtime.pipeline_parallel_size)
    kinds = [x.kind for x in stage if x.holds_kv]
    # a layer with a recurrent state has a MambaSpec of its own (Falcon-H1: beside attention)
    return kinds + [RECURRENT for x in stage if x.has_state]


#: vLLM's attention kernels take blocks in multiples of 16 tokens (FlashAttention
#: ``get_supported_kernel_block_sizes``: ``MultipleOf(16)``).
KERNEL_BLOCK_ALIGNMENT = 16


def mamba_page_bytes(model: ModelSpec, runtime: Runtime) -> int:
    """One recurrent layer's state for one request on one GPU (``MambaSpec.page_size_bytes``).

    Conv and SSM state in the 16-bit model dtype (``mamba_cache_dtype`` / ``mamba_ssm_cache_dtype``
    ``auto``), sharded over TP (:mod:`vramdesk.core.terms.state`).
    """
    tp = runtime.tensor_parallel_size
    return ceil_bytes(Fraction(model.conv_state_elements, tp) * STATE_BYTES) + ceil_bytes(
        Fraction(model.ssm_state_elements, tp) * STATE_BYTES
    )


def hybrid_block_size(model: ModelSpec, workload: Workload, runtime: Runtime) -> int | None:
    """The attention block size vLLM sets for a hybrid attention + Mamba model, or None.

    ``vllm/platforms/interface.py`` ``_align_hybrid_block_size`` (without prefix caching): the
    attention page must hold a Mamba page, so ``block = align * cdiv(mamba_page, align *
    attn_bytes_per_token_per_layer)`` with ``align = max(16, block_size)``, never below the
    configured block size; the Mamba page is then padded up to the attention page
    (``mamba_page_size_padded``). None for models without recurrent state or without attention.
    """
    if not any(x.has_state for x in model.attention_layers()):
        return None
    per_token = kv_bytes_per_token_per_layer(model, workload.kv_dtype, runtime)
    mamba = mamba_page_bytes(model, runtime)
    if not per_token or not mamba:
        return None
    block = runtime.block_size or 16
    align = max(KERNEL_BLOCK_ALIGNMENT, block)
    return max(block, align * ceil_div(mamba, align * per_token))


def kv_groups(types: list[str]) -> tuple[int, dict[str, int]]:
    """``(group_size, groups per layer type)`` of vLLM's hybrid allocator.

    One type: one group of every layer. Several: ``group_size`` is the smallest type's
    layer count (the largest when it is under 1.25x the smallest) and each type is cut
    into ``ceil(count / group_size)`` groups (``kv_cache_utils.py``).
    """
    counts = {t: types.count(t) for t in dict.fromkeys(types)}
    if not counts:
        return 1, {}
    lo, hi = min(counts.values()), max(counts.values())
    size = hi if hi < lo * Fraction(5, 4) else lo
    return size, {t: ceil_div(n, size) for t, n in counts.items()}


def kv_budget_bytes(total_bytes: int, b: Breakdown, runtime: Runtime) -> int:
    """``floor(total * util) - weights - activation - non_torch [- graphs]`` (may be negative)."""
    requested = math.floor(total_bytes * Fraction(runtime.gpu_memory_utilization))
    return requested - b.weights.bytes - b.activations.bytes - b.overhead.bytes


def blocks_per_request(
    model: ModelSpec, workload: Workload, runtime: Runtime, groups: dict[str, int]
) -> int:
    """Blocks one request of ``context_tokens`` needs over every group (vLLM V1)."""
    block, ctx = runtime.block_size or 16, workload.context_tokens
    need = 0
    for kind, n in groups.items():
        if kind == FULL:
            need += n * ceil_div(ctx, block)
        elif kind == RECURRENT:  # one state block per request (mamba_cache_mode none)
            need += n
        else:
            # V1 only (V0 has no hybrid allocator), whose batched tokens do not depend on the
            # model (V0's automatic chunked prefill does)
            span = min((model.sliding_window or ctx) - 1 + batched_tokens(workload, runtime), ctx)
            need += n * (ceil_div(span, block) + 1)
    return need


def _hybrid_runtime(model: ModelSpec, workload: Workload, runtime: Runtime) -> Runtime:
    """``runtime`` with the hybrid block size (:func:`hybrid_block_size`) where it applies."""
    block = hybrid_block_size(model, workload, runtime)
    return runtime if block is None else runtime.replace(block_size=block)


def hybrid_parts(
    model: ModelSpec, workload: Workload, runtime: Runtime
) -> tuple[Part, Part] | None:
    """KV cache and recurrent state as vLLM's hybrid allocator holds them, or None.

    KV in blocks of the raised block size; each recurrent layer's state padded to the
    attention page (``block_size * bytes_per_token_per_layer``), one page per sequence.
    """
    block = hybrid_block_size(model, workload, runtime)
    if block is None:
        return None
    rt = runtime.replace(block_size=block)
    kv = kv_cache_part(model, workload, rt)
    page = block * kv_bytes_per_token_per_layer(model, workload.kv_dtype, rt)
    layers = state_layers(model, runtime)
    mamba = mamba_page_bytes(model, runtime)
    state = Part(
        "state",
        "Recurrent state",
        workload.batch * layers * page,
        "sequences * recurrent_layers * attention_page (the Mamba page padded to it)",
        f"{workload.batch} * {layers} * {block} * "
        f"{kv_bytes_per_token_per_layer(model, workload.kv_dtype, rt):,}",
        (
            f"vLLM raises the attention block to {block} tokens so that a page holds one "
            f"layer's state ({mamba:,} bytes) and pads the state to the page "
            "(vllm/platforms/interface.py _align_hybrid_block_size)",
            "constant per sequence (does not grow with the context)",
        ),
    )
    return (
        dataclasses.replace(
            kv, assumptions=kv.assumptions + (f"hybrid model: {block}-token blocks",)
        ),
        state,
    )


class VllmProfile(FormulaProfile):
    """vLLM (V0 and V1): see the module docstring for the engine sources followed."""

    engine = Engine.VLLM
    logs_concurrency = True

    def check_engine_version(self, version: str | None) -> None:
        """Refuse a version :func:`parse_version` cannot read (:func:`check_version`)."""
        check_version(version)

    def validate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> None:
        """Check the version, the KV cache type (:func:`check_kv_dtype`) and the block size.

        Raises
        ------
        InputError
            ``engine_version``, ``kv_dtype`` or ``block_size`` (:func:`check_block_size`).
        """
        super().validate(model, weights, workload, runtime)
        check_kv_dtype("vLLM", workload.kv_dtype)
        check_block_size(runtime.block_size, runtime.engine_version)

    #: ``requested_memory = torch.cuda.mem_get_info()[1] * gpu_memory_utilization`` (gpu_worker.py)
    budgets_from_cuda_total = True

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Weights as loaded, paged KV cache, profiled activation peak, non-torch memory.

        A float32 checkpoint is loaded in 16 bits (:func:`auto_dtype`).
        """
        weights, dtype_notes = auto_dtype(weights, "vLLM")
        base = super().estimate(model, weights, workload, runtime)
        w = vllm_weights_part(model, weights, runtime)
        act = activation_peak_part(model, workload, runtime)
        if runtime.profiled_peak_bytes is not None and runtime.activation_peak_bytes is None:
            act = measured_part(
                "activations",
                "Activation peak",
                runtime.profiled_peak_bytes - w.bytes,
                "V0 peak torch memory - weights",
            )
        hybrid = hybrid_parts(model, workload, runtime)
        if hybrid is not None:
            base = dataclasses.replace(base, kv_cache=hybrid[0], state=hybrid[1])
        extras = {
            "rope_cache_bytes": rope_cache_bytes(model),
            "vocab_padding_params": vocab_padding_params(model),
            "kv_block_bytes": self.block_bytes(model, workload, runtime),
        }
        # the chunk sets max_num_batched_tokens here, with or without a prompt length
        base = dataclasses.replace(
            base, warnings=tuple(n for n in base.warnings if not n.startswith("chunk_tokens"))
        )
        kv = None  # Mamba hybrids: hybrid_parts above; sliding windows: the reservation
        if hybrid is None:
            kv = self.reserved_kv_part(model, workload, runtime, extras["kv_block_bytes"])
        return with_parts(
            base,
            weights=w,
            kv_cache=kv,
            activations=act,
            overhead=non_torch_part(runtime),
            extras=extras,
            warnings=dtype_notes,
        )

    @staticmethod
    def reserved_kv_part(
        model: ModelSpec, workload: Workload, runtime: Runtime, unit: int
    ) -> Part | None:
        """The KV cache as V1's hybrid allocator reserves it, for models with sliding layers.

        ``vllm/v1/core/kv_cache_utils.py`` (``get_max_concurrency_for_kv_cache_config``): a
        request of ``max_model_len`` tokens holds, in every KV group, the blocks its spec's
        ``max_memory_usage_bytes`` asks (full: ``cdiv(L, block)``; sliding: ``cdiv(min(window
        - 1 + max_num_batched_tokens, L), block) + 1``), each block ``unit`` bytes over the
        group's layers. So ``kv = unit * (batch * blocks_per_request - (batch - 1) * shared
        prefix blocks of the full groups)``: the forward estimate, the solver's max
        concurrency and the logged "Maximum concurrency" answer the same question.

        ``None`` (the formula's cache, identical for full attention) for V0, for models
        without sliding layers, or when the window is not exploited.
        """
        types = layer_types_per_gpu(model, runtime)
        if (
            parse_version(runtime.engine_version)[0]
            or SLIDING not in types
            or not runtime.sliding_window_exploited
            or not model.sliding_window
        ):
            return None
        _, groups = kv_groups(types)
        per_request = blocks_per_request(model, workload, runtime, groups)
        shared_blocks = shared_prefix_tokens(workload, runtime) // (runtime.block_size or 16)
        full_groups = groups.get(FULL, 0)
        batch = workload.batch
        blocks = batch * per_request - (batch - 1) * shared_blocks * full_groups
        return Part(
            "kv_cache",
            "KV cache",
            unit * blocks,
            "block_bytes * (batch * blocks_per_request - (batch - 1) * shared_prefix_blocks)",
            f"{unit:,} * ({batch} * {per_request:,} - {batch - 1} * {shared_blocks * full_groups})",
            (
                "vLLM's hybrid allocator reserves, per request, blocks in every KV group; a "
                "sliding group holds the window plus max_num_batched_tokens (kv_cache_utils.py)",
            ),
        )

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Non-torch memory (and CUDA graphs where subtracted): the overhead part."""
        return breakdown.overhead.bytes

    def solve_notes(self, model: ModelSpec, runtime: Runtime) -> tuple[str, ...]:
        """V1 with sliding layers: every figure follows the hybrid allocator's reservation."""
        if parse_version(runtime.engine_version)[0] or not model.sliding_window:
            return super().solve_notes(model, runtime)
        return (
            "sliding-window layers: vLLM's hybrid allocator reserves blocks per request in every "
            "KV group; the KV cache, max concurrency and the logged concurrency all follow it",
        )

    def context_breaks(self, workload: Workload, runtime: Runtime) -> tuple[int, ...]:
        """V0 turns chunked prefill on above 32,768 tokens: the profile run shrinks there."""
        probe = workload.replace(context_tokens=V0_LONG_CONTEXT + 1)
        return (V0_LONG_CONTEXT,) if v0_auto_chunked_prefill(probe, runtime) else ()

    def kv_capacity(
        self,
        breakdown: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        kv_budget_bytes: int,
    ) -> tuple[int, int | None, Fraction]:
        """Blocks, tokens and concurrency as vLLM logs them (:meth:`block_figures`)."""
        unit = breakdown.extras["kv_block_bytes"]
        blocks = max(0, kv_budget_bytes // unit) if unit else 0
        f = self.block_figures(model, workload, runtime, blocks)
        return int(f["kv_cache_tokens"]), blocks, Fraction(f["max_concurrency"])

    @staticmethod
    def block_bytes(model: ModelSpec, workload: Workload, runtime: Runtime) -> int:
        """Bytes of one block over one group: ``block_size * per_token_per_layer * group_size``.

        Hybrid models use the raised block size (:func:`hybrid_block_size`); a model without
        attention, one Mamba page per layer of the group.
        """
        size, _ = kv_groups(layer_types_per_gpu(model, runtime))
        runtime = _hybrid_runtime(model, workload, runtime)
        per_token = kv_bytes_per_token_per_layer(model, workload.kv_dtype, runtime)
        if not per_token:
            return mamba_page_bytes(model, runtime) * size
        return (runtime.block_size or 16) * per_token * size

    def breakdown_figures(
        self, b: Breakdown, model: ModelSpec, workload: Workload, runtime: Runtime
    ) -> dict[str, int | Fraction]:
        """Weights, the profiler's terms (activation peak, non-torch) and the extras."""
        return {
            "weights_bytes": b.weights.bytes,
            "activation_peak_bytes": b.activations.bytes,
            "non_torch_bytes": runtime.non_torch_bytes
            if runtime.non_torch_bytes is not None
            else b.overhead.bytes,
            "peak_bytes": b.weights.bytes + b.activations.bytes,
            **b.extras,
        }

    def capacity_figures(
        self,
        b: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        counts: dict[str, int],
        gpu_total_bytes: int | None,
    ) -> dict[str, int | Fraction]:
        """KV budget, blocks, tokens and concurrency, from whichever of them is given.

        A given KV figure feeds every figure derived from it, in any direction
        (``kv_cache_utils.py``: ``num_blocks = budget // block_bytes``, tokens ``num_blocks //
        groups * block_size``): given ``num_gpu_blocks`` is used as is; given
        ``kv_cache_tokens`` gives ``tokens // block_size * groups`` blocks; given
        ``kv_cache_bytes`` (or the budget from ``gpu_total_bytes``) gives ``bytes //
        block_bytes`` blocks. Block bytes use the KV heads one GPU holds (``max(1, kv_heads
        // TP)``). Without a budget, ``kv_cache_bytes`` is ``blocks * block_bytes``.
        """
        out: dict[str, int | Fraction] = {}
        unit = b.extras["kv_block_bytes"]
        _, groups = kv_groups(layer_types_per_gpu(model, runtime))
        budget = counts.get("kv_cache_bytes")
        if budget is None and gpu_total_bytes is not None:
            budget = out["kv_cache_bytes"] = kv_budget_bytes(gpu_total_bytes, b, runtime)
        blocks = counts.get("num_gpu_blocks")
        if blocks is None and counts.get("kv_cache_tokens") is not None:
            blocks = counts["kv_cache_tokens"] // (runtime.block_size or 16) * sum(groups.values())
        if blocks is None and budget is not None:
            blocks = max(0, budget // unit) if unit else 0
        if blocks is not None and budget is None:
            out["kv_cache_bytes"] = blocks * unit
        if blocks is not None:
            out.update(self.block_figures(model, workload, runtime, blocks))
        return out

    def block_figures(
        self, model: ModelSpec, workload: Workload, runtime: Runtime, blocks: int
    ) -> dict[str, int | Fraction]:
        """Return ``num_gpu_blocks``, ``kv_cache_tokens`` and ``max_concurrency`` as logged.

        V1: concurrency is ``blocks`` over the blocks one request needs in every group; V0
        (``gpu_executor.py``): ``blocks * block_size / max_model_len``. The logged "GPU KV
        cache size" of V1 is ``blocks // groups * block_size`` before
        :data:`KV_TOKENS_FROM_CONCURRENCY_SINCE` and ``int(concurrency * max_model_len)`` from
        it (``kv_cache_utils.py``: the old rule undercounts hybrid models), following
        ``engine_version``. The two agree for one group of full-attention layers.
        """
        _, groups = kv_groups(layer_types_per_gpu(model, runtime))
        runtime = _hybrid_runtime(model, workload, runtime)
        block = runtime.block_size or 16
        is_v0, release = parse_version(runtime.engine_version)
        tokens = blocks // max(1, sum(groups.values())) * block
        if is_v0:
            concurrency = Fraction(blocks * block, workload.context_tokens)
        else:
            per_request = blocks_per_request(model, workload, runtime, groups)
            concurrency = Fraction(blocks, per_request) if per_request else Fraction(0)
            if release >= KV_TOKENS_FROM_CONCURRENCY_SINCE:
                tokens = math.floor(concurrency * workload.context_tokens)
        return {"num_gpu_blocks": blocks, "kv_cache_tokens": tokens, "max_concurrency": concurrency}
