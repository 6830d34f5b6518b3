"""The KV-cache term of the estimate (SPEC §3.3).

Per token per layer ``2 * kv_heads * head_dim * e`` (MLA: the latent row; DeepSeek sparse
attention: the latent and the indexer key, in the engine's layout: :func:`layer_row`), summed over
the layers one GPU holds, times the tokens each layer caches: whole context on full
layers, at most the window on sliding layers, at most the chunk on chunked local layers
(Llama-4), whole paged blocks, a shared prefix once.

Longer than 400 lines: the row of a layer (:func:`layer_row`, with the sparse-attention
layouts), its grouping and the formula text of the part read one another's groups; split
them when a second engine-specific layout family arrives.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core._memo import memo
from vramdesk.core.model.formats import KVDtype
from vramdesk.core.model.runtime import Engine, MlaCache, Runtime
from vramdesk.core.model.spec import (
    CHUNKED,
    FULL,
    LOCAL_KINDS,
    NO_CACHE,
    RECURRENT,
    SLIDING,
    LayerCache,
    ModelSpec,
    stage_layers,
)
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Part
from vramdesk.core.units import ceil_bytes, round_up


def kv_heads_per_gpu(model: ModelSpec, runtime: Runtime, heads: int | None = None) -> int:
    """KV heads each GPU holds: ``max(1, kv_heads // TP)``.

    ``heads``: a layer's own KV heads (default ``num_key_value_heads``). Heads are replicated
    when TP exceeds them (vLLM ``get_num_kv_heads``).
    """
    n = model.num_key_value_heads if heads is None else heads
    return max(1, n // runtime.tensor_parallel_size)


def layer_row_elements(model: ModelSpec, layer: LayerCache, runtime: Runtime) -> tuple[int, int]:
    """Elements one token takes in ``layer``'s cache on one GPU, as ``(k, v)``.

    ``(0, 0)`` for a layer without a cache of its own (recurrent, no-cache, or reusing
    another layer's).

    Standard attention: ``kv_heads_per_gpu * k_head_dim`` and ``kv_heads_per_gpu *
    v_head_dim``. MLA latent: ``kv_lora_rank + qk_rope_head_dim`` in one row and no V
    (replicated over TP, as vLLM and SGLang store it). MLA expanded: per head ``qk_nope +
    qk_rope`` for K and ``v_head_dim`` for V.
    """
    if not layer.holds_kv:
        return 0, 0
    if model.is_mla:
        if runtime.mla_cache in _LATENT_LAYOUTS:
            return model.kv_lora_rank + (model.qk_rope_head_dim or 0), 0
        if runtime.mla_cache is MlaCache.LATENT_WITH_V:
            return model.kv_lora_rank + (model.qk_rope_head_dim or 0), model.kv_lora_rank
        heads = max(1, (model.num_attention_heads or 1) // runtime.tensor_parallel_size)
        nope, rope = model.qk_nope_head_dim or 0, model.qk_rope_head_dim or 0
        return heads * (nope + rope), heads * (model.v_head_dim or nope)
    n = kv_heads_per_gpu(model, runtime, layer.kv_heads)
    return n * layer.k_head_dim, n * layer.v_head_dim


#: MLA layouts that cache the latent + rope as one row and no V.
_LATENT_LAYOUTS = (MlaCache.LATENT, MlaCache.DSA_LATENT, MlaCache.DSA_FP8)

#: Values per float32 scale in the engines' fp8 DeepSeek-sparse-attention caches (vLLM
#: ``deepseek_v2.py`` ``Indexer`` ``quant_block_size``; SGLang ``memory_pool.py``
#: ``NSATokenToKVPool.quant_block_size``), and the bytes of one scale.
DSA_QUANT_BLOCK = 128
DSA_SCALE_BYTES = 4

#: Bytes per element of the rope part in the fp8 layout: kept in bf16 (SGLang
#: ``NSATokenToKVPool.rope_storage_dtype``; vLLM ``flashmla_sparse.py``, 64 x 2 = 128 B).
DSA_ROPE_BYTES = 2


def indexer_key_bytes(model: ModelSpec) -> int:
    """Bytes of one token's indexer key in one layer as vLLM and SGLang store it.

    ``index_head_dim`` fp8 values plus one float32 scale per :data:`DSA_QUANT_BLOCK`:
    ``128 + 128 // 128 * 4 = 132`` on DeepSeek-V3.2, whatever the cache dtype (vLLM
    ``deepseek_v2.py`` ``Indexer.__init__`` builds ``DeepseekV32IndexerCache`` with ``head_dim
    = index_head_dim + index_head_dim // quant_block_size * 4`` of uint8, its
    ``get_kv_cache_spec`` an ``MLAAttentionSpec`` of one head; SGLang ``model_runner.py`` /
    ``pool_configurator.py`` ``cell_size += indexer_size_per_token * layers``). 0: no indexer.
    """
    dim = model.index_head_dim or 0
    return dim + dim // DSA_QUANT_BLOCK * DSA_SCALE_BYTES


def mla_layout(model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime) -> MlaCache:
    """The MLA layout the engine of ``runtime`` keeps for ``model`` at ``kv_dtype``.

    A DeepSeek-sparse-attention model (``index_head_dim`` set) under vLLM or SGLang with the
    default latent layout: :attr:`MlaCache.DSA_FP8` at fp8 (vLLM ``models/config.py``
    ``DeepseekV32ForCausalLM.verify_and_update_config`` turns any ``fp8*`` cache dtype into
    ``fp8_ds_mla``; SGLang ``calculate_mla_kv_cache_dim``: ``kv_lora_rank + kv_lora_rank //
    128 * 4 + qk_rope_head_dim * 2`` for ``float8_e4m3fn``), else :attr:`MlaCache.DSA_LATENT`.
    Every other case: ``runtime.mla_cache`` as given.
    """
    if (
        model.index_head_dim
        and model.is_mla
        and runtime.mla_cache is MlaCache.LATENT
        and runtime.engine in (Engine.VLLM, Engine.SGLANG)
    ):
        return MlaCache.DSA_FP8 if kv_dtype is KVDtype.FP8 else MlaCache.DSA_LATENT
    return runtime.mla_cache


def layer_row(model: ModelSpec, layer: LayerCache, runtime: Runtime) -> tuple[int, int, int]:
    """One token's cache in ``layer`` on one GPU: ``(k elements, v elements, fixed bytes)``.

    The bytes are ``ceil(k * e) + ceil(v * e) + fixed`` (``e`` the cache dtype's bytes per
    element). :func:`layer_row_elements` for every model without a sparse-attention indexer
    (``fixed`` 0). With one (``index_head_dim``), by ``runtime.mla_cache``:

    * :attr:`MlaCache.DSA_FP8`: ``kv_lora_rank`` fp8 values, fixed ``kv_lora_rank // 128 * 4
      + qk_rope_head_dim * 2 + indexer`` bytes: ``512 + (16 + 128 + 132) = 788`` on
      DeepSeek-V3.2 (vLLM ``kv_cache_interface.py`` ``MLAAttentionSpec.real_page_size_bytes``
      656 per token for ``fp8_ds_mla``, plus the indexer page);
    * :attr:`MlaCache.DSA_LATENT`: the latent row at ``e``, fixed = the indexer's
      :func:`indexer_key_bytes` (``576 * 2 + 132 = 1,284`` at bf16);
    * any other layout (the neutral formula): the indexer key as ``index_head_dim`` more
      elements at ``e`` (``576 + 128`` elements).
    """
    k, v = layer_row_elements(model, layer, runtime)
    if not layer.holds_kv or not model.is_mla or not model.index_head_dim:
        return k, v, 0
    if runtime.mla_cache is MlaCache.DSA_FP8:
        rank, rope = model.kv_lora_rank or 0, model.qk_rope_head_dim or 0
        scales = rank // DSA_QUANT_BLOCK * DSA_SCALE_BYTES
        return rank, 0, scales + rope * DSA_ROPE_BYTES + indexer_key_bytes(model)
    if runtime.mla_cache is MlaCache.DSA_LATENT:
        return k, v, indexer_key_bytes(model)
    return k + model.index_head_dim, v, 0


def layer_row_bytes(
    model: ModelSpec, layer: LayerCache, kv_dtype: KVDtype, runtime: Runtime
) -> tuple[int, int]:
    """One token's K and V bytes in ``layer`` in the engine's layout (:func:`mla_layout`).

    ``(ceil(k * e) + fixed, ceil(v * e))`` from :func:`layer_row`: an indexer key counts
    with K.
    """
    rt = runtime.replace(mla_cache=mla_layout(model, kv_dtype, runtime))
    k, v, fixed = layer_row(model, layer, rt)
    e = kv_dtype.bytes_per_element
    return ceil_bytes(k * e) + fixed, ceil_bytes(v * e)


def gpu_layers(model: ModelSpec, runtime: Runtime) -> list[LayerCache]:
    """Layers of the pipeline stage that holds the most KV cache (:func:`model.stage_layers`)."""
    return stage_layers(model, runtime.pipeline_parallel_size)


@dataclass(frozen=True, slots=True)
class _Group:
    """Layers of one GPU stage that cache alike: ``count`` layers of ``kind_label``."""

    kind: str
    kind_label: str
    k: int
    v: int
    window: int | None
    fixed: int
    count: int

    def bytes_per_token(self, e: Fraction) -> int:
        return ceil_bytes(self.k * e) + ceil_bytes(self.v * e) + self.fixed


def stage_groups(model: ModelSpec, runtime: Runtime) -> tuple[_Group, ...]:
    """The layers of :func:`gpu_layers` grouped by kind and row width (:func:`layer_row`).

    ``runtime.mla_cache`` is taken as given (callers with a cache dtype resolve the engine's
    layout first: :func:`mla_layout`). Memoised: the solver asks for the same model many times.
    """
    return _stage_groups(
        model, runtime.tensor_parallel_size, runtime.pipeline_parallel_size, runtime.mla_cache
    )


@memo  # an unhashable field (a list where a tuple belongs) falls through uncached
def _stage_groups(model: ModelSpec, tp: int, pp: int, mla: MlaCache) -> tuple[_Group, ...]:
    rt = Runtime(tensor_parallel_size=tp, pipeline_parallel_size=pp, mla_cache=mla)
    groups: dict[tuple, int] = {}
    for layer in gpu_layers(model, rt):
        k, v, fixed = layer_row(model, layer, rt)
        key = (layer.kind, layer.kind_label, k, v, layer.span, fixed)
        groups[key] = groups.get(key, 0) + 1
    return tuple(_Group(*key, n) for key, n in groups.items())


def kv_bytes_per_token(model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime) -> int:
    """KV bytes per token over all cache-holding layers of one GPU, no window cap.

    ``2 * layers * kv_heads * head_dim * e``: 7B MHA (32 x 32 x 128, fp16) gives
    524,288 bytes = 512 KiB per token; 70B GQA-8 (80 x 8 x 128) 327,680 = 320 KiB. Layers
    reusing another layer's cache, recurrent and encoder layers add nothing.
    """
    return _kv_bytes_per_token(
        model,
        kv_dtype,
        runtime.tensor_parallel_size,
        runtime.pipeline_parallel_size,
        mla_layout(model, kv_dtype, runtime),
    )


@memo
def _kv_bytes_per_token(
    model: ModelSpec, kv_dtype: KVDtype, tp: int, pp: int, mla: MlaCache
) -> int:
    e = kv_dtype.bytes_per_element
    rt = Runtime(tensor_parallel_size=tp, pipeline_parallel_size=pp, mla_cache=mla)
    return sum(g.count * g.bytes_per_token(e) for g in stage_groups(model, rt))


@dataclass(frozen=True, slots=True)
class KindCost:
    """The per-token KV cost of one kind of layer on one GPU.

    Attributes
    ----------
    kind : str
        ``full_attention``, ``sliding_attention``, ``chunked_attention``, ``shared``,
        ``recurrent`` or ``no_cache``.
    layers : int
        Layers of that kind on the GPU.
    bytes_per_token : int
        Bytes one token adds over all those layers (0 for shared, recurrent, no-cache).
    window : int or None
        Sliding layers: tokens per sequence they keep at most (the window); chunked layers:
        the chunk (``attention_chunk_size``), which they never need more than.
    """

    kind: str
    layers: int
    bytes_per_token: int
    window: int | None = None


def kv_cost_by_kind(model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime) -> list[KindCost]:
    """Per-token KV cost of each kind of layer (full, sliding, chunked, shared, recurrent, none).

    A sliding layer's cost stops growing at its window and a chunked layer's at its chunk; the
    effective per-token cost at a context is the KV part divided by the live tokens.
    """
    return list(
        _kv_cost_by_kind(
            model,
            kv_dtype,
            runtime.tensor_parallel_size,
            runtime.pipeline_parallel_size,
            mla_layout(model, kv_dtype, runtime),
        )
    )


@memo
def _kv_cost_by_kind(
    model: ModelSpec, kv_dtype: KVDtype, tp: int, pp: int, mla: MlaCache
) -> tuple[KindCost, ...]:
    out: dict[str, list[int]] = {}
    windows: dict[str, int | None] = {}
    e = kv_dtype.bytes_per_element
    rt = Runtime(tensor_parallel_size=tp, pipeline_parallel_size=pp, mla_cache=mla)
    for g in stage_groups(model, rt):
        row = out.setdefault(g.kind_label, [0, 0])
        row[0] += g.count
        row[1] += g.count * g.bytes_per_token(e)
        windows[g.kind_label] = g.window
    order = (FULL, SLIDING, CHUNKED, "shared", RECURRENT, NO_CACHE)
    return tuple(KindCost(k, out[k][0], out[k][1], windows[k]) for k in order if k in out)


def _round_block(tokens: int, block: int | None) -> int:
    return tokens if block is None else round_up(tokens, block)


def shared_prefix_tokens(workload: Workload, runtime: Runtime) -> int:
    """Tokens of the common prefix stored once: its whole blocks (all of it when unpaged)."""
    return shared_prefix_at(runtime, workload.context_tokens)


def shared_prefix_at(runtime: Runtime, ctx: int) -> int:
    """:func:`shared_prefix_tokens` at a context of ``ctx`` tokens (the one home of the rule).

    ``min(shared_prefix_tokens, ctx)`` rounded down to whole blocks: a partial last block is
    not shared (vLLM's prefix caching hashes full blocks only).
    """
    prefix = min(runtime.shared_prefix_tokens, ctx)
    block = runtime.block_size
    return prefix if block is None else (prefix // block) * block


def cached_tokens(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Tokens each kind of layer caches over all sequences.

    Returns
    -------
    dict
        ``{"full_attention": n, "sliding_attention": m, "chunked_attention": c}``. Full
        layers cache ``batch * ceil_block(context) - (batch - 1) * shared`` where ``shared``
        is the whole blocks of the common prefix (:func:`shared_prefix_tokens`); sliding
        layers cache ``batch * ceil_block(min(context, sliding_window))`` when the engine
        exploits the window (the prefix is not shared there); chunked layers likewise
        ``batch * ceil_block(min(context, attention_chunk_size))``: a token of a chunked layer
        attends only to the earlier tokens of its own chunk, so a sequence never needs more
        than one chunk's tokens there (transformers ``modeling_llama4.py``, chunked causal
        mask; llama.cpp ``llama-hparams.cpp`` ``is_masked_swa`` with
        ``LLAMA_SWA_TYPE_CHUNKED``). Engines that keep the whole context on local layers
        (``sliding_window_exploited`` false) cache ``n`` tokens on every kind.
    """
    return cached_tokens_at(model, runtime, workload.context_tokens, workload.batch)


def cached_tokens_at(model: ModelSpec, runtime: Runtime, ctx: int, batch: int) -> dict[str, int]:
    """:func:`cached_tokens` for ``batch`` sequences of ``ctx`` tokens (no Workload built)."""
    block = runtime.block_size
    full = batch * _round_block(ctx, block) - (batch - 1) * shared_prefix_at(runtime, ctx)
    exploited = runtime.sliding_window_exploited
    if model.sliding_window and exploited:
        sliding = batch * _round_block(min(ctx, model.sliding_window), block)
    else:
        sliding = full
    if model.attention_chunk_size and exploited:
        chunked = batch * _round_block(min(ctx, model.attention_chunk_size), block)
    else:
        chunked = full
    return {FULL: full, SLIDING: sliding, CHUNKED: chunked}


def kv_cost_per_kind(
    model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime
) -> tuple[tuple[str, int], ...]:
    """``(kind, bytes per cached token over the layer group)`` for each KV layer group.

    ``kv_cache_part(...).bytes == sum(b * cached_tokens(...)[kind] for kind, b in this)``;
    it depends only on the model, the dtype and the GPUs (memoised).
    """
    return _kv_layout(
        model,
        kv_dtype,
        runtime.tensor_parallel_size,
        runtime.pipeline_parallel_size,
        mla_layout(model, kv_dtype, runtime),
    )[1]


def kv_cache_part(model: ModelSpec, workload: Workload, runtime: Runtime) -> Part:
    """KV-cache memory per GPU.

    ``kv_bytes = sum over layers of per_token(layer) * tokens_cached(kind)`` (SPEC §3.3),
    with ``per_token(layer)`` = :func:`layer_row_elements` times the element size, each row
    rounded up to whole bytes (0 for layers without a cache of their own), and
    ``tokens_cached`` from :func:`cached_tokens`.
    """
    e = workload.kv_dtype.bytes_per_element
    tokens = cached_tokens(model, workload, runtime)
    layout = _kv_layout(
        model,
        workload.kv_dtype,
        runtime.tensor_parallel_size,
        runtime.pipeline_parallel_size,
        mla_layout(model, workload.kv_dtype, runtime),
    )
    groups, per_token, n_full, n_local, rows, row, row_s, notes = layout
    total = sum(b * tokens[kind] for kind, b in per_token)
    token_text = _token_text(workload, runtime)
    if not groups:
        formula, subst = "0 (no layer keeps a per-token KV cache)", "0"
    elif len(rows) > 1:
        formula = "sum over layer groups of layers * (k_row + v_row) * e * tokens(kind)"
        subst = " + ".join(
            f"{n} * ({kk} + {vv}) * {_fmt_e(e)} * {tokens[kind]:,}"
            for (kind, kk, vv, _), n in groups.items()
        )
    elif n_local:
        kind, n = next(iter(n_local.items())) if len(n_local) == 1 else (None, 0)
        if kind is None:  # sliding and chunked layers both: one term per kind
            formula = "sum over layer groups of layers * row * tokens(kind)"
            subst = " + ".join(
                f"{n} * {row_s} * {tokens[k]:,}" for (k, _, _, _), n in groups.items()
            )
        else:
            name = "sliding" if kind == SLIDING else "chunked"
            formula = f"{row} * (full_layers * tokens_full + {name}_layers * tokens_{name})"
            subst = f"{row_s} * ({n_full} * {tokens[FULL]:,} + {n} * {tokens[kind]:,})"
    else:
        formula = f"{row} * layers * {token_text[0]}"
        subst = f"{row_s} * {n_full} * {token_text[1]}"
    return Part("kv_cache", "KV cache", total, formula, subst, notes)


@memo
def _kv_layout(model: ModelSpec, kv_dtype: KVDtype, tp: int, pp: int, mla: MlaCache) -> tuple:
    """What :func:`kv_cache_part` needs that depends only on the model, the dtype and the GPUs.

    ``(groups, per_token, n_full, n_local, rows, row, row_s, notes)``: layer groups
    ``(kind, k, v, fixed bytes) -> layers``, ``(kind, bytes per cached token over the
    group)``, the full layer count, the sliding and chunked layer counts by kind, the row
    widths, the row formula in symbols and with values, and the notes. Memoised: a grid or a
    solver sizes one model at many workloads.
    """
    runtime = Runtime(tensor_parallel_size=tp, pipeline_parallel_size=pp, mla_cache=mla)
    e = kv_dtype.bytes_per_element
    groups: dict[tuple[str, int, int, int], int] = {}
    stage = stage_groups(model, runtime)
    for g in stage:
        if g.k or g.v or g.fixed:
            key = (g.kind, g.k, g.v, g.fixed)
            groups[key] = groups.get(key, 0) + g.count
    per_token = tuple(
        (kind, n * (ceil_bytes(k * e) + ceil_bytes(v * e) + f))
        for (kind, k, v, f), n in groups.items()
    )
    n_full = sum(n for (kind, _, _, _), n in groups.items() if kind == FULL)
    n_local = {
        k: sum(n for (kind, _, _, _), n in groups.items() if kind == k)
        for k in LOCAL_KINDS
        if any(kind == k for kind, _, _, _ in groups)
    }
    rows = {(k, v) for _, k, v, _ in groups}
    k, v = next(iter(rows)) if rows else (0, 0)
    fixed = next((f for _, _, _, f in groups), 0)
    rank, rope = model.kv_lora_rank, model.qk_rope_head_dim
    if model.is_mla and mla is MlaCache.DSA_FP8:
        row = "(kv_lora_rank + kv_lora_rank / 128 * 4 + qk_rope_head_dim * 2 + indexer)"
        row_s = f"({rank} + {rank // DSA_QUANT_BLOCK * DSA_SCALE_BYTES} + {(rope or 0) * 2} + {indexer_key_bytes(model)})"  # noqa: E501 - one formula
    elif model.is_mla and mla is MlaCache.DSA_LATENT:
        row = "((kv_lora_rank + qk_rope_head_dim) * e + indexer)"
        row_s = f"(({rank} + {rope}) * {_fmt_e(e)} + {fixed})"
    elif model.is_mla and model.index_head_dim and not v:
        row = "(kv_lora_rank + qk_rope_head_dim + index_head_dim) * e"
        row_s = f"({rank} + {rope} + {model.index_head_dim}) * {_fmt_e(e)}"
    elif model.is_mla and not v:
        row = "(kv_lora_rank + qk_rope_head_dim) * e"
        row_s = f"({model.kv_lora_rank} + {model.qk_rope_head_dim}) * {_fmt_e(e)}"
    elif model.is_mla and runtime.mla_cache is MlaCache.LATENT_WITH_V:
        row = "(kv_lora_rank + qk_rope_head_dim + kv_lora_rank) * e"
        row_s = f"({k} + {v}) * {_fmt_e(e)}"
    elif model.is_mla:
        row = "heads * (qk_nope + qk_rope + v_head_dim) * e"
        row_s = f"({k} + {v}) * {_fmt_e(e)}"
    elif k == v and rows:
        heads = k // next(x.k_head_dim for x in gpu_layers(model, runtime) if x.holds_kv)
        row = "2 * kv_heads * head_dim * e"
        row_s = f"2 * {heads} * {k // heads} * {_fmt_e(e)}"
    else:
        row = "(kv_heads * k_head_dim + kv_heads * v_head_dim) * e"
        row_s = f"({k} + {v}) * {_fmt_e(e)}"
    notes = []
    if model.is_mla and model.index_head_dim:
        notes.append(_dsa_note(model, mla))
    if model.is_mla:
        notes.append(
            "MLA cache is the compressed latent (vLLM/SGLang layout), replicated on every TP rank"
            if not v
            else "MLA cache: latent + rope as K and the latent again as V (llama.cpp before "
            "its V-less cache)"
            if runtime.mla_cache is MlaCache.LATENT_WITH_V
            else "MLA cache expanded to per-head K and V (older llama.cpp layout)"
        )
    if n_local.get(SLIDING):
        notes.append(
            f"{n_local[SLIDING]} sliding-window layers cache at most {model.sliding_window:,} tokens per sequence"  # noqa: E501 - one sentence for lupdate
        )
    if n_local.get(CHUNKED):
        notes.append(
            f"{n_local[CHUNKED]} chunked local-attention layers cache at most {model.attention_chunk_size:,} tokens per sequence"  # noqa: E501 - one sentence for lupdate
        )
    shared = sum(g.count for g in stage if g.kind_label == "shared")
    if shared:
        notes.append(f"{shared} layers reuse an earlier layer's cache and hold none")
    if not model.causal:
        notes.append("encoder: bidirectional attention over the input, no KV cache is kept")
    return groups, per_token, n_full, n_local, rows, row, row_s, tuple(notes)


def _dsa_note(model: ModelSpec, mla: MlaCache) -> str:
    """The sentence saying how the sparse-attention indexer key is cached."""
    if mla is MlaCache.DSA_FP8:
        return f"sparse attention (fp8_ds_mla): {model.kv_lora_rank} fp8 latent values + float32 scales + 16-bit rope, and the indexer key in fp8 + scale ({indexer_key_bytes(model)} bytes), per token per layer"  # noqa: E501 - one sentence for lupdate
    if mla is MlaCache.DSA_LATENT:
        return f"sparse attention: the indexer key is cached in fp8 + a float32 scale ({indexer_key_bytes(model)} bytes per token per layer) beside the latent"  # noqa: E501 - one sentence for lupdate
    return f"sparse attention: the indexer key ({model.index_head_dim} values per token per layer) is cached beside the latent at the cache dtype"  # noqa: E501 - one sentence for lupdate


def _fmt_e(e: Fraction) -> str:
    return str(e)  # "2" for a whole Fraction, "17/16" for q8_0


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
