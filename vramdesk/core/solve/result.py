"""What a reverse solve answers (:class:`SolveResult`), and vLLM's own lines for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from vramdesk.core.estimate import Breakdown
from vramdesk.core.solve.advisor import Advice
from vramdesk.core.solve.search import Layout


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The reverse solver's answers for one GPU capacity.

    All byte figures are per GPU, exact ints; ``max_concurrency_exact`` is an exact
    fraction (``float`` in JSON).

    Two verdicts answer two questions. ``fits``: the workload's KV cache and activations fit
    the KV budget the way a serving engine sizes it (``capacity * gpu_memory_utilization -
    reserved - weights``); ``max_concurrency`` and ``max_context`` answer the same question.
    ``fits_total``: the forward estimate's total (with whatever overhead the engine profile
    adds: the formula profile's 1.15 margin, vLLM's profiled terms, ...) is within the
    capacity, as the fits table compares it. They can differ near the edge, because the
    overhead the total carries and what ``gpu_memory_utilization`` holds back differ.
    """

    capacity_bytes: int
    usable_bytes: int
    kv_budget_bytes: int
    kv_cache_tokens: int
    kv_cache_blocks: int | None
    max_concurrency: int
    max_concurrency_exact: Fraction
    max_context: int
    max_context_limited_by: str
    fits: bool
    fits_total: bool
    min_gpus: int | None
    advice: tuple[Advice, ...]
    breakdown: Breakdown
    context_tokens: int
    logged_concurrency: Fraction | None = None
    notes: tuple[str, ...] = field(default=())
    #: What must fit in ``usable_bytes`` (``EngineProfile.need_bytes``): KV cache +
    #: activations; SGLang's KV cache alone (its activations are outside the static pool).
    need_bytes: int = 0
    #: A data-parallel layout on fewer GPUs than ``min_gpus`` (MoE under vLLM / SGLang).
    min_layout: Layout | None = None

    def vllm_lines(self) -> list[str]:
        """The two start-up lines vLLM prints, computed for this budget."""
        return vllm_style_lines(self.kv_cache_tokens, self.context_tokens, self.logged_concurrency)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with SPEC §8's keys (exact integer bytes)."""
        return {
            "capacity_bytes": self.capacity_bytes,
            "usable_bytes": self.usable_bytes,
            "kv_budget_bytes": self.kv_budget_bytes,
            "kv_cache_tokens": self.kv_cache_tokens,
            "kv_cache_blocks": self.kv_cache_blocks,
            "max_concurrency": self.max_concurrency,
            "max_concurrency_exact": float(self.max_concurrency_exact),
            "max_context": self.max_context,
            "max_context_limited_by": self.max_context_limited_by,
            "fits": self.fits,
            "fits_total": self.fits_total,
            "min_gpus": self.min_gpus,
            "advice": [a.to_dict() for a in self.advice],
            "vllm_lines": self.vllm_lines(),
            "notes": list(self.notes),
            **({"min_layout": self.min_layout.to_dict()} if self.min_layout else {}),
        }


def vllm_style_lines(
    kv_cache_tokens: int, max_model_len: int, concurrency: Fraction | None = None
) -> list[str]:
    """VLLM's start-up lines for a KV budget of ``kv_cache_tokens``.

    ``"GPU KV cache size: 129,024 tokens"`` and ``"Maximum concurrency for 8192 tokens per
    request: 15.75x"`` (two decimals), as vLLM's ``vllm/v1/core/kv_cache_utils.py`` logs
    them. ``concurrency`` is the engine's own figure when it has one (vLLM's hybrid
    sliding-window allocator counts blocks per request); else tokens / max_model_len.
    """
    ratio = float(concurrency) if concurrency is not None else kv_cache_tokens / max_model_len
    return [
        f"GPU KV cache size: {kv_cache_tokens:,} tokens",
        f"Maximum concurrency for {max_model_len:,} tokens per request: {ratio:.2f}x",
    ]
