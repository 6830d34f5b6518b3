"""The runtime: engine knobs that change memory without changing the model (SPEC §3.5, §4)."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_int, check_real
from vramdesk.core.units import GIB


class OverheadForm(enum.Enum):
    """How framework overhead is added (both forms come from the source documents)."""

    MULTIPLIER = "multiplier"  #: (weights + kv + activations) * factor + fixed
    WORKSPACE = "workspace"  #: weights * fraction


class Engine(enum.Enum):
    """Which inference engine's accounting to follow."""

    FORMULA = "formula"  #: the source documents' neutral formulas (default)
    VLLM = "vllm"
    SGLANG = "sglang"
    LLAMA_CPP = "llama.cpp"
    OLLAMA = "ollama"
    TRANSFORMERS = "transformers"

    @classmethod
    def parse(cls, text: str, field: str = "engine") -> Engine:
        """Return the engine named ``text`` (``llamacpp`` and ``llama-cpp`` accepted).

        Raises
        ------
        InputError
            ``field``: unknown engine.
        """
        key = str(text).strip().lower().replace("llamacpp", "llama.cpp").replace("llama-cpp", "llama.cpp")
        for member in cls:
            if member.value == key:
                return member
        names = ", ".join(m.value for m in cls)
        raise InputError(field, f"unknown engine {text!r}; known: {names}", "unknown_choice")


class MlaCache(enum.Enum):
    """How an engine caches MLA attention."""

    LATENT = "latent"  #: kv_lora_rank + qk_rope_head_dim per token per layer (vLLM, SGLang)
    EXPANDED = "expanded"  #: per-head K (nope + rope) and V (older llama.cpp builds)


@dataclass(frozen=True, slots=True)
class Runtime:
    """Engine settings.

    Attributes
    ----------
    gpu_memory_utilization : Fraction
        Share of the GPU the engine may use (vLLM's flag; 0.9 by default).
    block_size : int or None
        Paged-attention block in tokens (vLLM default 16): each sequence is rounded up to
        whole blocks. ``None`` disables paging (exact token counts).
    shared_prefix_tokens : int
        A prefix common to every sequence (system prompt); its whole blocks are stored once.
    tensor_parallel_size, pipeline_parallel_size : int
        TP shards weights and KV heads (``max(1, kv_heads // tp)`` KV heads per GPU; MLA's
        latent cache is replicated); PP splits the layers (``ceil(layers / pp)`` per GPU).
    overhead : OverheadForm
        Multiplier form ``(w + kv + act) * overhead_factor + fixed_overhead_bytes`` or
        workspace form ``w * workspace_fraction``.
    fixed_overhead_bytes : int
        CUDA context, cuBLAS workspace, allocator slack: 1 GiB by default (source article).
    engine : Engine
        Whose accounting to follow; ``FORMULA`` is the source documents'.
    sliding_window_exploited : bool
        Sliding-window layers cache at most ``sliding_window`` tokens (vLLM/HF); False
        caches the full context on every layer (engines that ignore the window).
    """

    gpu_memory_utilization: Fraction = Fraction(9, 10)
    block_size: int | None = 16
    shared_prefix_tokens: int = 0
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    overhead: OverheadForm = OverheadForm.MULTIPLIER
    overhead_factor: Fraction = Fraction(115, 100)
    fixed_overhead_bytes: int = GIB
    workspace_fraction: Fraction = Fraction(5, 100)
    engine: Engine = Engine.FORMULA
    engine_version: str | None = None
    sliding_window_exploited: bool = True
    mla_cache: MlaCache = MlaCache.LATENT

    def validate(self) -> Runtime:
        """Check every field; return ``self``.

        Raises
        ------
        InputError
            The first invalid field.
        """
        check_real("gpu_memory_utilization", self.gpu_memory_utilization)
        check_int("block_size", self.block_size, optional=True)
        check_int("shared_prefix_tokens", self.shared_prefix_tokens)
        check_int("tensor_parallel_size", self.tensor_parallel_size)
        check_int("pipeline_parallel_size", self.pipeline_parallel_size)
        check_real("overhead_factor", self.overhead_factor)
        check_real("workspace_fraction", self.workspace_fraction)
        if isinstance(self.fixed_overhead_bytes, bool) or not isinstance(self.fixed_overhead_bytes, int) \
                or self.fixed_overhead_bytes < 0:
            raise InputError("fixed_overhead_gib", "must be zero or more", "too_small")
        if not isinstance(self.overhead, OverheadForm):
            raise InputError("overhead", f"unknown overhead form {self.overhead!r}", "unknown_choice")
        return self

    def replace(self, **changes: object) -> Runtime:
        """Return a copy with ``changes`` applied (not validated)."""
        return dataclasses.replace(self, **changes)
