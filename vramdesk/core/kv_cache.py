"""The KV-cache term of the estimate (SPEC §3.3).

Per token per layer ``2 * kv_heads * head_dim * e`` (MLA: the latent row), summed over
the layers one GPU holds, times the tokens each layer caches: whole context on full
layers, at most the window on sliding layers, whole paged blocks, a shared prefix once.
"""

from __future__ import annotations

import math
from fractions import Fraction

from vramdesk.core.breakdown import Part
from vramdesk.core.formats import KVDtype
from vramdesk.core.model import FULL, ModelSpec
from vramdesk.core.runtime import MlaCache, Runtime
from vramdesk.core.units import ceil_bytes
from vramdesk.core.workload import Workload


def kv_heads_per_gpu(model: ModelSpec, runtime: Runtime) -> int:
    """KV heads each GPU holds: ``max(1, num_key_value_heads // TP)``.

    Heads are replicated when TP exceeds them (vLLM ``get_num_kv_heads``).
    """
    return max(1, model.num_key_value_heads // runtime.tensor_parallel_size)


def kv_row_elements(model: ModelSpec, runtime: Runtime) -> tuple[int, int]:
    """Elements cached per token per layer per GPU, as ``(k, v)``.

    Standard attention: ``kv_heads_per_gpu * head_dim`` each. MLA latent:
    ``kv_lora_rank + qk_rope_head_dim`` in one row and no V (replicated over TP,
    as vLLM and SGLang store it). MLA expanded: per head ``qk_nope + qk_rope`` for K
    and ``v_head_dim`` for V.
    """
    if model.is_mla:
        if runtime.mla_cache is MlaCache.LATENT:
            return model.kv_lora_rank + (model.qk_rope_head_dim or 0), 0
        heads = max(1, (model.num_attention_heads or 1) // runtime.tensor_parallel_size)
        nope, rope = model.qk_nope_head_dim or 0, model.qk_rope_head_dim or 0
        return heads * (nope + rope), heads * (model.v_head_dim or nope)
    width = kv_heads_per_gpu(model, runtime) * model.resolved_head_dim
    return width, width


def kv_bytes_per_token_per_layer(model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime) -> int:
    """Bytes one token takes in one layer's KV cache on one GPU.

    ``2 * kv_heads * head_dim * e`` for standard attention (``e`` = bytes per element;
    ggml block types ``q8_0`` = 34/32 and ``q4_0`` = 18/32 bytes per element, each row
    rounded up to whole bytes); ``(kv_lora_rank + qk_rope_head_dim) * e`` for MLA.
    """
    k, v = kv_row_elements(model, runtime)
    e = kv_dtype.bytes_per_element
    return ceil_bytes(k * e) + ceil_bytes(v * e)


def _gpu_layers(model: ModelSpec, runtime: Runtime) -> list[str]:
    """Layer types of the pipeline stage that holds the most layers (the first one)."""
    types = list(model.resolved_layer_types())
    per_stage = math.ceil(len(types) / runtime.pipeline_parallel_size)
    stages = [types[i : i + per_stage] for i in range(0, len(types), per_stage)]
    return max(stages, key=lambda s: (len(s), s.count(FULL)))


def kv_bytes_per_token(model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime) -> int:
    """KV bytes per token over all layers of one GPU, no window cap.

    ``2 * layers * kv_heads * head_dim * e``: 7B MHA (32 x 32 x 128, fp16) gives
    524,288 bytes = 512 KiB per token; 70B GQA-8 (80 x 8 x 128) 327,680 = 320 KiB.
    """
    return len(_gpu_layers(model, runtime)) * kv_bytes_per_token_per_layer(model, kv_dtype, runtime)


def _round_block(tokens: int, block: int | None) -> int:
    return tokens if block is None else -(-tokens // block) * block


def shared_prefix_tokens(workload: Workload, runtime: Runtime) -> int:
    """Tokens of the common prefix stored once: its whole blocks (all of it when unpaged)."""
    prefix = min(runtime.shared_prefix_tokens, workload.context_tokens)
    block = runtime.block_size
    return prefix if block is None else (prefix // block) * block


def cached_tokens(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Tokens each kind of layer caches over all sequences.

    Returns
    -------
    dict
        ``{"full_attention": n, "sliding_attention": m}``. Full layers cache
        ``batch * ceil_block(context) - (batch - 1) * shared`` where ``shared`` is the
        whole blocks of the common prefix (:func:`shared_prefix_tokens`); sliding layers
        cache ``batch * ceil_block(min(context, sliding_window))`` when the engine exploits
        the window (the prefix is not shared there).
    """
    block, ctx, batch = runtime.block_size, workload.context_tokens, workload.batch
    full = batch * _round_block(ctx, block) - (batch - 1) * shared_prefix_tokens(workload, runtime)
    if model.sliding_window and runtime.sliding_window_exploited:
        sliding = batch * _round_block(min(ctx, model.sliding_window), block)
    else:
        sliding = full
    return {"full_attention": full, "sliding_attention": sliding}


def kv_cache_part(model: ModelSpec, workload: Workload, runtime: Runtime) -> Part:
    """KV-cache memory per GPU.

    ``kv_bytes = sum over layers of per_token_per_layer * tokens_cached(layer)``
    (SPEC §3.3), with ``per_token_per_layer`` from :func:`kv_bytes_per_token_per_layer`
    and ``tokens_cached`` from :func:`cached_tokens`.
    """
    per_layer = kv_bytes_per_token_per_layer(model, workload.kv_dtype, runtime)
    layers = _gpu_layers(model, runtime)
    tokens = cached_tokens(model, workload, runtime)
    n_full = layers.count(FULL)
    n_slide = len(layers) - n_full
    total = per_layer * (n_full * tokens["full_attention"] + n_slide * tokens["sliding_attention"])
    k, v = kv_row_elements(model, runtime)
    e = workload.kv_dtype.bytes_per_element
    if model.is_mla and not v:
        row = "(kv_lora_rank + qk_rope_head_dim) * e"
        row_s = f"({model.kv_lora_rank} + {model.qk_rope_head_dim}) * {_fmt_e(e)}"
    elif model.is_mla:
        row = "heads * (qk_nope + qk_rope + v_head_dim) * e"
        row_s = f"({k} + {v}) * {_fmt_e(e)}"
    else:
        row = "2 * kv_heads * head_dim * e"
        row_s = f"2 * {kv_heads_per_gpu(model, runtime)} * {model.resolved_head_dim} * {_fmt_e(e)}"
    token_text = _token_text(workload, runtime)
    if n_slide:
        formula = f"{row} * (full_layers * tokens_full + sliding_layers * tokens_sliding)"
        subst = (
            f"{row_s} * ({n_full} * {tokens['full_attention']:,} + {n_slide} * "
            f"{tokens['sliding_attention']:,})"
        )
    else:
        formula = f"{row} * layers * {token_text[0]}"
        subst = f"{row_s} * {n_full} * {token_text[1]}"
    notes = []
    if model.is_mla:
        notes.append(
            "MLA cache is the compressed latent (vLLM/SGLang layout), replicated on every TP rank"
            if not v
            else "MLA cache expanded to per-head K and V (older llama.cpp layout)"
        )
    if n_slide:
        notes.append(
            f"{n_slide} sliding-window layers cache at most {model.sliding_window} tokens per sequence"
        )
    return Part("kv_cache", "KV cache", total, formula, subst, tuple(notes))


def _fmt_e(e: Fraction) -> str:
    return str(e) if e.denominator != 1 else str(e.numerator)


def _token_text(workload: Workload, runtime: Runtime) -> tuple[str, str]:
    """Symbolic and substituted text of the cached-token count of full layers."""
    ctx, batch, block = workload.context_tokens, workload.batch, runtime.block_size
    paged = block is not None and ctx % block != 0
    sym = "ceil_block(context)" if paged else "context"
    val = f"{_round_block(ctx, block):,}" if paged else f"{ctx:,}"
    shared = shared_prefix_tokens(workload, runtime)
    if shared and batch > 1:
        return (
            f"(batch * {sym} - (batch - 1) * shared_prefix)",
            f"({batch} * {val} - {batch - 1} * {shared:,})",
        )
    return f"{sym} * batch", f"{val} * {batch}"
