"""vLLM's KV blocks: layer groups, pages, the budget, blocks per request, hybrid block size.

Sources: ``vllm/v1/core/kv_cache_utils.py`` (groups of ``group_size`` layers sharing KV
tensors, ``num_blocks = budget // (page * group_size)``), ``vllm/platforms/interface.py``
``_align_hybrid_block_size`` (the attention block raised so a page holds a Mamba state).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from vramdesk.core.engines.vllm.kv_cache_interface import (
    chunked_spec_in_use,
    layer_spec,
    mamba_page_bytes,
    mamba_state_dtypes,
)
from vramdesk.core.engines.vllm.profile_run import batched_tokens
from vramdesk.core.engines.vllm.version import (
    HYBRID_ALIGN_BY_BACKEND_SINCE,
    HYBRID_MLA_ALIGN_SINCE,
    parse_version,
)
from vramdesk.core.model.formats import KVDtype
from vramdesk.core.model.runtime import DEFAULT_BLOCK_SIZE, Runtime
from vramdesk.core.model.spec import (
    CHUNKED,
    FULL,
    RECURRENT,
    ModelSpec,
    stage_layers,
)
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.kv_cache import kv_cache_part, mla_layout, stage_groups
from vramdesk.core.terms.state import state_layers
from vramdesk.core.units import ceil_div


# ---------------------------------------------------------------------- KV blocks
def layer_types_per_gpu(model: ModelSpec, runtime: Runtime) -> list[str]:
    """Kinds of one GPU's pipeline stage's layers (:func:`model.stage_layers`) that cache.

    Layers reading another layer's cache (Gemma-3n), recurrent and encoder layers get no
    KV blocks (their ``KVCacheSpec`` is absent or a Mamba spec). Chunked layers are full
    attention where vLLM keeps them whole (:func:`~.kv_cache_interface.chunked_spec_in_use`).
    """
    stage = stage_layers(model, runtime.pipeline_parallel_size)
    whole = not chunked_spec_in_use(runtime)
    kinds = [FULL if whole and x.kind == CHUNKED else x.kind for x in stage if x.holds_kv]
    # a layer with a recurrent state has a MambaSpec of its own (Falcon-H1: beside attention)
    return kinds + [RECURRENT for x in stage if x.has_state]


#: vLLM's attention kernels take blocks in multiples of 16 tokens (FlashAttention
#: ``get_supported_kernel_block_sizes``: ``MultipleOf(16)``; FlashInfer's smallest is 16).
KERNEL_BLOCK_ALIGNMENT = 16


#: The MLA kernels' block (FlashMLA ``kernel_block_size`` 64; CUTLASS MLA's 128 is not chosen
#: by default and not modelled).
MLA_KERNEL_BLOCK_ALIGNMENT = 64


def hybrid_block_alignment(model: ModelSpec, runtime: Runtime) -> int:
    """The token multiple vLLM rounds the hybrid attention block to, by backend and release.

    ``vllm/model_executor/models/config.py`` ``HybridAttentionMambaModelConfig``
    ``verify_and_update_config``: 16 (FlashAttention / FlashInfer) up to 0.11.0; 64 for MLA
    from :data:`HYBRID_MLA_ALIGN_SINCE`. From :data:`HYBRID_ALIGN_BY_BACKEND_SINCE`
    (``vllm/platforms/interface.py`` ``_align_hybrid_block_size``): ``max(the backend's
    smallest kernel block, block_size)``, so a configured 64 aligns to 64.
    """
    release = parse_version(runtime.engine_version)[1]
    mla = model.is_mla and release >= HYBRID_MLA_ALIGN_SINCE
    base = MLA_KERNEL_BLOCK_ALIGNMENT if mla else KERNEL_BLOCK_ALIGNMENT
    if release >= HYBRID_ALIGN_BY_BACKEND_SINCE:
        return max(base, runtime.block_size or DEFAULT_BLOCK_SIZE)
    return base


def kv_bytes_per_token_per_layer(model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime) -> int:
    """Bytes one token takes in one layer's page on one GPU: the widest layer's.

    ``2 * kv_heads * head_dim * e`` for a uniform model (``e`` = bytes per element);
    ``(kv_lora_rank + qk_rope_head_dim) * e`` for MLA. When layers differ (Gemma-4-class
    global layers) the widest, which is what vLLM pads every page to
    (``vllm/v1/core/kv_cache_utils.py`` ``unify_kv_cache_spec_page_size``); bytes, exact int.
    DeepSeek sparse attention: the latent page and the indexer's page of the same layer
    (``DeepseekV32IndexerCache``, an ``MLAAttentionSpec`` of 132 bytes per token), both full
    attention, share one block count (``UniformTypeKVCacheSpecs``: a block costs the sum of
    the pages), so a layer's token costs both: 1,152 + 132 at bf16, 656 + 132 at
    ``fp8_ds_mla`` (:func:`~vramdesk.core.terms.kv_cache.layer_row`).
    """
    e = kv_dtype.bytes_per_element
    rt = runtime.replace(pipeline_parallel_size=1, mla_cache=mla_layout(model, kv_dtype, runtime))
    groups = stage_groups(model, rt)
    return max((g.bytes_per_token(e) for g in groups if g.k or g.v), default=0)


def hybrid_block_size(model: ModelSpec, workload: Workload, runtime: Runtime) -> int | None:
    """The attention block size vLLM sets for a hybrid attention + Mamba model, or None.

    ``vllm/platforms/interface.py`` ``_align_hybrid_block_size`` (``models/config.py``
    ``HybridAttentionMambaModelConfig`` in older releases; without prefix caching): the
    attention page must hold a Mamba page, so ``block = align * cdiv(mamba_page, align *
    attn_bytes_per_token_per_layer)`` with ``align`` = :func:`hybrid_block_alignment`, never
    below the configured block size; the Mamba page is then padded up to the attention page
    (``mamba_page_size_padded``). The Mamba page is in the state dtypes of
    :func:`~.kv_cache_interface.mamba_state_dtypes`, so a float32 SSM state raises the block.
    None for models without recurrent state or without attention.
    """
    if not any(x.has_state for x in model.attention_layers()):
        return None
    per_token = kv_bytes_per_token_per_layer(model, workload.kv_dtype, runtime)
    mamba = mamba_page_bytes(model, runtime)
    if not per_token or not mamba:
        return None
    block = runtime.block_size or DEFAULT_BLOCK_SIZE
    align = hybrid_block_alignment(model, runtime)
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
    """Blocks one request of ``context_tokens`` needs over every group (vLLM V1).

    ``sum over groups of n * spec.blocks_per_request(context, max_num_batched_tokens)`` with
    each kind's :mod:`.kv_cache_interface` spec; V1 only (V0 has no hybrid allocator), whose
    batched tokens do not depend on the model (V0's automatic chunked prefill does). With
    ``decode_context_parallel_size`` the context is ``cdiv(context, dcp)`` per rank
    (``FullAttentionSpec.max_memory_usage_bytes``: "each dcp rank only need save
    max_model_len // dcp_world_size tokens").
    """
    block, ctx = runtime.block_size or DEFAULT_BLOCK_SIZE, workload.context_tokens
    # decode context parallel: each rank keeps cdiv(L, dcp) tokens of a request
    # (kv_cache_interface.py FullAttentionSpec.max_memory_usage_bytes)
    ctx = ceil_div(ctx, runtime.decode_context_parallel_size)
    batched = batched_tokens(workload, runtime)
    return sum(
        n * layer_spec(kind, model, block).blocks_per_request(ctx, batched)
        for kind, n in groups.items()
    )


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
            "conv state {}, SSM state {} (mamba_cache_dtype / mamba_ssm_cache_dtype; "
            "auto = the 16-bit model dtype)".format(*mamba_state_dtypes(model, runtime)),
        ),
    )
    return (
        dataclasses.replace(
            kv, assumptions=kv.assumptions + (f"hybrid model: {block}-token blocks",)
        ),
        state,
    )
