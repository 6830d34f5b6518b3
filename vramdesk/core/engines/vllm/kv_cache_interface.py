"""vLLM's per-layer KV cache specs: one small class per kind of layer.

As ``vllm/v1/kv_cache_interface.py`` (read, not copied) gives every attention layer a spec
object (``FullAttentionSpec``, ``SlidingWindowSpec``, ``ChunkedLocalAttentionSpec``,
``MambaSpec``) that knows its page and how many blocks one request needs, so do these;
:mod:`.kv_cache_utils` only groups layers, unifies their pages and divides the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core.engines.formula import STATE_BYTES
from vramdesk.core.engines.vllm.version import (
    CHUNKED_HYBRID_OFF_SINCE,
    CHUNKED_HYBRID_ON_SINCE,
    CHUNKED_SPEC_SINCE,
    MAMBA_FLOAT16_SINCE,
    NEMOTRON_H_FP32_SINCE,
    parse_version,
)
from vramdesk.core.model.formats import MAMBA_DTYPE_BYTES
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import CHUNKED, FULL, RECURRENT, SLIDING, ModelSpec
from vramdesk.core.units import ceil_bytes, ceil_div


@dataclass(frozen=True, slots=True)
class KVCacheSpec:
    """The cache of one layer in vLLM's allocator: blocks of ``block_size`` tokens.

    Attributes
    ----------
    block_size : int
        Tokens per block (``--block-size``, or the hybrid block size).
    """

    block_size: int

    def blocks_per_request(self, context_tokens: int, batched_tokens: int) -> int:
        """Blocks one request of ``context_tokens`` holds in a layer of this kind.

        ``batched_tokens`` is the scheduler's ``max_num_batched_tokens`` (tokens); the
        result is whole blocks (``max_memory_usage_bytes`` over the page size).
        """
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class FullAttentionSpec(KVCacheSpec):
    """Full attention: the whole context, ``cdiv(context_tokens, block_size)`` blocks."""

    def blocks_per_request(self, context_tokens: int, batched_tokens: int) -> int:
        """``cdiv(context_tokens, block_size)``."""
        return ceil_div(context_tokens, self.block_size)


@dataclass(frozen=True, slots=True)
class SlidingWindowSpec(KVCacheSpec):
    """Sliding-window attention: the window plus one step's tokens, and one block more.

    ``cdiv(min(sliding_window - 1 + max_num_batched_tokens, context), block_size) + 1``
    (``SlidingWindowSpec.max_memory_usage_bytes``); a model without a window keeps the
    whole context.
    """

    sliding_window: int | None = None

    def blocks_per_request(self, context_tokens: int, batched_tokens: int) -> int:
        """The window's blocks, as the docstring of the class gives them."""
        window = self.sliding_window or context_tokens
        span = min(window - 1 + batched_tokens, context_tokens)
        return ceil_div(span, self.block_size) + 1


@dataclass(frozen=True, slots=True)
class ChunkedLocalAttentionSpec(KVCacheSpec):
    """Chunked local attention (Llama-4's RoPE layers): one chunk plus one step's tokens.

    ``cdiv(min(attention_chunk_size + max_num_batched_tokens, context), block_size)``
    (``ChunkedLocalAttentionSpec.max_memory_usage_bytes``, the same from 0.10.0 to 0.33.0,
    where ``max_num_batched_tokens`` is read as ``max_in_flight_tokens``): a request holds
    the blocks of its current chunk and of the tokens being scheduled; earlier chunks' blocks
    are freed. No extra block, unlike the sliding window: a chunk starts on a chunk boundary.
    """

    attention_chunk_size: int | None = None

    def blocks_per_request(self, context_tokens: int, batched_tokens: int) -> int:
        """The chunk's blocks, as the docstring of the class gives them."""
        chunk = self.attention_chunk_size or context_tokens
        return ceil_div(min(chunk + batched_tokens, context_tokens), self.block_size)


@dataclass(frozen=True, slots=True)
class MambaSpec(KVCacheSpec):
    """A recurrent (Mamba / linear-attention) layer: one state block per request.

    ``mamba_cache_mode`` none: the state is constant per sequence, whatever the context.
    """

    def blocks_per_request(self, context_tokens: int, batched_tokens: int) -> int:
        """One block: the state."""
        return 1


#: The spec class of each kind of layer that holds a cache in vLLM.
SPEC_OF_KIND: dict[str, type[KVCacheSpec]] = {
    FULL: FullAttentionSpec,
    SLIDING: SlidingWindowSpec,
    CHUNKED: ChunkedLocalAttentionSpec,
    RECURRENT: MambaSpec,
}


def layer_spec(kind: str, model: ModelSpec, block_size: int) -> KVCacheSpec:
    """The spec of a layer of ``kind`` (a key of :data:`SPEC_OF_KIND`) in ``model``."""
    cls = SPEC_OF_KIND[kind]
    if cls is SlidingWindowSpec:
        return SlidingWindowSpec(block_size, model.sliding_window)
    if cls is ChunkedLocalAttentionSpec:
        return ChunkedLocalAttentionSpec(block_size, model.attention_chunk_size)
    return cls(block_size)


def chunked_spec_in_use(runtime: Runtime) -> bool:
    """Whether vLLM gives chunked layers their own :class:`ChunkedLocalAttentionSpec` group.

    False (every chunked layer is a full-attention layer that keeps the whole context; the
    chunk only masks the attention) for V0, before :data:`CHUNKED_SPEC_SINCE`, from
    :data:`CHUNKED_HYBRID_OFF_SINCE` up to :data:`CHUNKED_HYBRID_ON_SINCE` (the hybrid KV
    cache manager off by default for chunked attention: ``vllm/config/__init__.py``
    ``VllmConfig.__post_init__``, then ``vllm/v1/core/kv_cache_utils.py``
    ``unify_hybrid_kv_cache_specs`` turns the chunked specs into ``FullAttentionSpec``), and
    whenever the runtime does not exploit local layers (``sliding_window_exploited`` false:
    ``--disable-hybrid-kv-cache-manager``). Setting
    ``VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1`` on 0.10.1-0.13 is not modelled.
    """
    is_v0, release = parse_version(runtime.engine_version)
    if is_v0 or not runtime.sliding_window_exploited or release < CHUNKED_SPEC_SINCE:
        return False
    return not CHUNKED_HYBRID_OFF_SINCE <= release < CHUNKED_HYBRID_ON_SINCE


def mamba_state_dtypes(model: ModelSpec, runtime: Runtime) -> tuple[str, str]:
    """The conv and SSM state dtypes vLLM keeps: ``(conv, ssm)``, ``auto`` = the model dtype.

    ``vllm/model_executor/layers/mamba/mamba_utils.py``
    ``MambaStateDtypeCalculator._mamba_state_dtype``: the conv state is ``mamba_cache_dtype``
    (``auto``: the model dtype); the SSM (temporal) state is ``mamba_ssm_cache_dtype``, or the
    conv state's dtype when that is ``auto``. Before that, a family's config hook may set an
    ``auto`` SSM dtype (``vllm/model_executor/models/config.py``
    ``NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype``, from
    :data:`MAMBA_FLOAT16_SINCE`): the config's ``mamba_ssm_cache_dtype``, else float16, and
    float32 from :data:`NEMOTRON_H_FP32_SINCE`.
    """
    conv = runtime.mamba_cache_dtype or "auto"
    ssm = runtime.mamba_ssm_cache_dtype or "auto"
    release = parse_version(runtime.engine_version)[1]
    if ssm == "auto" and model.ssm_dtype_hook and release >= MAMBA_FLOAT16_SINCE:
        default = "float32" if release >= NEMOTRON_H_FP32_SINCE else "float16"
        ssm = model.mamba_ssm_cache_dtype or default
    return conv, conv if ssm == "auto" else ssm


def state_element_bytes(dtype: str) -> Fraction:
    """Bytes per state element of a :func:`mamba_state_dtypes` name (``auto``: 16-bit, 2)."""
    return Fraction(MAMBA_DTYPE_BYTES[dtype]) if dtype in MAMBA_DTYPE_BYTES else STATE_BYTES


def mamba_page_bytes(model: ModelSpec, runtime: Runtime) -> int:
    """One recurrent layer's state for one request on one GPU (``MambaSpec.page_size_bytes``).

    Conv and SSM state in the dtypes of :func:`mamba_state_dtypes`, sharded over TP
    (:mod:`vramdesk.core.terms.state`); bytes, exact int.
    """
    tp = runtime.tensor_parallel_size
    conv, ssm = (state_element_bytes(d) for d in mamba_state_dtypes(model, runtime))
    return ceil_bytes(Fraction(model.conv_state_elements, tp) * conv) + ceil_bytes(
        Fraction(model.ssm_state_elements, tp) * ssm
    )
