"""The runtime: engine knobs that change memory without changing the model (SPEC §3.5, §4)."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core.errors import InputError
from vramdesk.core.formats import KVDtype
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
        key = (
            str(text)
            .strip()
            .lower()
            .replace("llamacpp", "llama.cpp")
            .replace("llama-cpp", "llama.cpp")
        )
        for member in cls:
            if member.value == key:
                return member
        names = ", ".join(m.value for m in cls)
        raise InputError(field, f"unknown engine {text!r}; known: {names}", "unknown_choice")


class MlaCache(enum.Enum):
    """How an engine caches MLA attention."""

    LATENT = "latent"  #: kv_lora_rank + qk_rope_head_dim per token per layer (vLLM, SGLang)
    EXPANDED = "expanded"  #: per-head K (nope + rope) and V (older llama.cpp builds)
    #: K = latent + rope, V = the latent again (llama.cpp from the MLA cache until V-less)
    LATENT_WITH_V = "latent+v"


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
    max_num_batched_tokens : int or None
        vLLM/SGLang tokens per scheduler step (the profiled prefill size); ``None``: the
        engine version's default.
    n_ubatch, n_parallel : int or None
        llama.cpp physical batch (default 512) and slots (default: the workload's batch).
    flash_attn : bool or None
        llama.cpp flash attention (``None``: off, the conservative default).
    swa_full, kv_unified : bool
        llama.cpp full-size sliding-window cache; one unified KV stream for all slots.
    n_gpu_layers : int or None
        llama.cpp layers offloaded (``None``: all); the GPU holds the last ones' KV.
    cache_type_k, cache_type_v : KVDtype or None
        llama.cpp cache types of K and V (``None``: the workload's ``kv_dtype``).
    mem_fraction_static : Fraction or None
        SGLang share of the GPU for weights + KV pool (``None``: 0.88).
    non_torch_bytes, activation_peak_bytes, cuda_graph_bytes : int or None
        Measured vLLM profiler terms per GPU (from a start-up log); ``None``: modelled.
    profiled_peak_bytes : int or None
        vLLM V0 ``peak_torch_memory`` (weights included), replaces weights + activations
        in the KV budget.
    loaded_weights_bytes : int or None
        Measured resident weights per GPU ("Model loading took", llama.cpp model buffer).
    compute_buffer_bytes : int or None
        Measured llama.cpp compute buffer on the GPU.
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
    # engine knobs and measured figures (appended; defaults keep the formula profile unchanged)
    max_num_batched_tokens: int | None = None
    n_ubatch: int | None = None
    n_parallel: int | None = None
    flash_attn: bool | None = None
    swa_full: bool = False
    kv_unified: bool = False
    n_gpu_layers: int | None = None
    cache_type_k: KVDtype | None = None
    cache_type_v: KVDtype | None = None
    mem_fraction_static: Fraction | None = None
    non_torch_bytes: int | None = None
    activation_peak_bytes: int | None = None
    cuda_graph_bytes: int | None = None
    profiled_peak_bytes: int | None = None
    loaded_weights_bytes: int | None = None
    compute_buffer_bytes: int | None = None

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
        if (
            isinstance(self.fixed_overhead_bytes, bool)
            or not isinstance(self.fixed_overhead_bytes, int)
            or self.fixed_overhead_bytes < 0
        ):
            raise InputError("fixed_overhead_gib", "must be zero or more", "too_small")
        if not isinstance(self.overhead, OverheadForm):
            raise InputError(
                "overhead", f"unknown overhead form {self.overhead!r}", "unknown_choice"
            )
        self._validate_engine_knobs()
        return self

    def _validate_engine_knobs(self) -> None:
        for name in (
            "max_num_batched_tokens",
            "n_ubatch",
            "n_parallel",
            "n_gpu_layers",
            "non_torch_bytes",
            "activation_peak_bytes",
            "cuda_graph_bytes",
            "profiled_peak_bytes",
            "loaded_weights_bytes",
            "compute_buffer_bytes",
        ):
            check_int(name, getattr(self, name), optional=True)
        if self.mem_fraction_static is not None:
            check_real("mem_fraction_static", self.mem_fraction_static)
        for name in ("cache_type_k", "cache_type_v"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), KVDtype):
                raise InputError(
                    name, f"must be a KVDtype, got {getattr(self, name)!r}", "unknown_choice"
                )

    def replace(self, **changes: object) -> Runtime:
        """Return a copy with ``changes`` applied (not validated)."""
        return dataclasses.replace(self, **changes)
