"""vLLM's per-layer KV cache specs: one small class per kind of layer.

As ``vllm/v1/kv_cache_interface.py`` (read, not copied) gives every attention layer a spec
object (``FullAttentionSpec``, ``SlidingWindowSpec``, ``MambaSpec``) that knows its page and
how many blocks one request needs, so do these; :mod:`.kv_cache_utils` only groups layers,
unifies their pages and divides the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core.engines.formula import STATE_BYTES
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import FULL, RECURRENT, SLIDING, ModelSpec
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
    RECURRENT: MambaSpec,
}


def layer_spec(kind: str, model: ModelSpec, block_size: int) -> KVCacheSpec:
    """The spec of a layer of ``kind`` (a key of :data:`SPEC_OF_KIND`) in ``model``."""
    cls = SPEC_OF_KIND[kind]
    if cls is SlidingWindowSpec:
        return SlidingWindowSpec(block_size, model.sliding_window)
    return cls(block_size)


def mamba_page_bytes(model: ModelSpec, runtime: Runtime) -> int:
    """One recurrent layer's state for one request on one GPU (``MambaSpec.page_size_bytes``).

    Conv and SSM state in the 16-bit model dtype (``mamba_cache_dtype`` / ``mamba_ssm_cache_dtype``
    ``auto``), sharded over TP (:mod:`vramdesk.core.terms.state`); bytes, exact int.
    """
    tp = runtime.tensor_parallel_size
    return ceil_bytes(Fraction(model.conv_state_elements, tp) * STATE_BYTES) + ceil_bytes(
        Fraction(model.ssm_state_elements, tp) * STATE_BYTES
    )
