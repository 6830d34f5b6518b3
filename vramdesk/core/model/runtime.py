"""The runtime: engine knobs that change memory without changing the model (SPEC §3.5, §4).

Longer than 400 lines: one frozen dataclass holds every engine's knobs with their option
groups and validation (the parallel sizes and how they divide TP among them); a field and
the rule that checks it stay side by side.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_int, check_real
from vramdesk.core.model.formats import KVDtype, check_mamba_dtype
from vramdesk.core.units import GIB, ceil_div


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
    #: DeepSeek sparse attention at 16 bits (vLLM, SGLang): the latent + rope at the cache dtype
    #: and the indexer key in fp8 with a float32 scale per 128 values (132 bytes at 128)
    DSA_LATENT = "dsa-latent"
    #: DeepSeek sparse attention with an fp8 cache (vLLM ``fp8_ds_mla``, SGLang's NSA fp8
    #: layout): the latent in fp8 + a float32 scale per 128 values + the rope part in bf16
    #: (656 bytes at 512 + 64), beside the fp8 indexer key (132 bytes)
    DSA_FP8 = "fp8_ds_mla"


#: Runtime fields by option group. Every engine takes the common group; each takes the
#: groups :data:`ENGINE_OPTION_GROUPS` lists, and refuses a field of another group that is
#: set (:meth:`Runtime.check_engine_options`) instead of ignoring it silently.
OPTION_GROUPS: dict[str, tuple[str, ...]] = {
    "common": (
        "engine",
        "engine_version",
        "tensor_parallel_size",
        "pipeline_parallel_size",
        "sliding_window_exploited",
        "mla_cache",
        "loaded_weights_bytes",
    ),
    #: data-parallel replicas (vLLM ``--data-parallel-size``, SGLang ``--dp-size``)
    "data_parallel": ("data_parallel_size",),
    #: a fraction of the GPU the engine may use (vLLM, transformers, the formula profile)
    "utilization": ("gpu_memory_utilization",),
    #: paged KV cache (vLLM, the formula profile)
    "paging": ("block_size",),
    #: a prefix stored once (vLLM prefix caching, SGLang's radix cache, the formula profile)
    "prefix": ("shared_prefix_tokens",),
    #: the source documents' overhead forms (formula profile only)
    "formula_overhead": (
        "overhead",
        "overhead_factor",
        "fixed_overhead_bytes",
        "workspace_fraction",
    ),
    #: vLLM's scheduler and profiler terms
    "vllm": (
        "max_num_batched_tokens",
        "non_torch_bytes",
        "activation_peak_bytes",
        "cuda_graph_bytes",
        "profiled_peak_bytes",
        "mamba_cache_dtype",
        "mamba_ssm_cache_dtype",
        "mxfp4_backend",
        "enable_expert_parallel",
        "decode_context_parallel_size",
        "language_model_only",
    ),
    #: SGLang's static memory fraction, attention data parallelism, expert parallelism
    "sglang": ("mem_fraction_static", "enable_dp_attention", "ep_size"),
    #: llama.cpp (and Ollama) context, batch, slots, offload, flash attention, cache types
    "llama.cpp": (
        "n_ubatch",
        "n_parallel",
        "flash_attn",
        "swa_full",
        "kv_unified",
        "n_gpu_layers",
        "n_cpu_moe",
        "cpu_moe",
        "mmproj_bytes",
        "cache_type_k",
        "cache_type_v",
        "compute_buffer_bytes",
    ),
}
#: The option groups each engine has besides ``common``.
ENGINE_OPTION_GROUPS: dict[Engine, tuple[str, ...]] = {
    Engine.FORMULA: ("utilization", "paging", "prefix", "formula_overhead"),
    Engine.VLLM: ("utilization", "paging", "prefix", "data_parallel", "vllm"),
    Engine.SGLANG: ("prefix", "data_parallel", "sglang"),
    Engine.LLAMA_CPP: ("llama.cpp",),
    Engine.OLLAMA: ("llama.cpp",),
    Engine.TRANSFORMERS: ("utilization",),
}


def engine_options(engine: Engine) -> tuple[str, ...]:
    """The Runtime fields ``engine`` has: the common group plus its own groups."""
    names = ("common", *ENGINE_OPTION_GROUPS[engine])
    return tuple(f for g in names for f in OPTION_GROUPS[g])


def option_owners(field: str) -> list[Engine]:
    """The engines that have the Runtime field ``field``."""
    return [e for e in Engine if field in engine_options(e)]


def foreign_option_error(engine: Engine, field: str) -> InputError:
    """The refusal of ``field`` under ``engine``, naming the field and the engines that have it."""
    owners = ", ".join(e.value for e in option_owners(field))
    hint = {
        "gpu_memory_utilization": (
            "; SGLang sizes its pool with mem_fraction_static"
            if engine is Engine.SGLANG
            else "; llama.cpp allocates its buffers exactly"
            if engine in (Engine.LLAMA_CPP, Engine.OLLAMA)
            else ""
        ),
        "mmproj_bytes": "; a projector is loaded by llama-server (--engine llama.cpp)",
        "block_size": "; its cache is not paged in blocks"
        if engine in (Engine.LLAMA_CPP, Engine.OLLAMA, Engine.SGLANG, Engine.TRANSFORMERS)
        else "",
    }.get(field, "")
    return InputError(
        field,
        f"{engine.value} has no {field} (an option of {owners}){hint}; "
        "leave it unset for this engine",
        "unsupported",
        {"engine": engine.value},
    )


#: vLLM's MXFP4 MoE backends as vramdesk names them (``quantization/mxfp4.py``
#: ``Mxfp4Backend``: TRITON, MARLIN, SM100_FI_MXFP4_MXFP8_TRTLLM / SM100_FI_MXFP4_BF16,
#: SM100_FI_MXFP4_MXFP8_CUTLASS / SM90_FI_MXFP4_BF16), grouped by the padding they allocate.
MXFP4_BACKENDS = ("triton", "marlin", "flashinfer-trtllm", "flashinfer-cutlass")


#: The paged-attention block in tokens when none is set: vLLM's default (``CacheConfig.block_size``,
#: vllm/config/cache.py), and the block a paged engine rounds with when ``block_size`` is None.
DEFAULT_BLOCK_SIZE = 16


@dataclass(frozen=True, slots=True)
class Runtime:
    """Engine settings.

    The fields fall into option groups (:data:`OPTION_GROUPS`); each engine has the common
    group and its own (:data:`ENGINE_OPTION_GROUPS`), and :meth:`validate` refuses a field
    of another engine that is set, naming it.

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
    data_parallel_size : int
        vLLM ``--data-parallel-size`` / SGLang ``--dp-size``: ranks that each serve
        ``ceil(batch / dp)`` of the workload's sequences with their own KV cache. vLLM: each
        DP rank is a TP x PP replica of everything but the routed experts, which are sharded
        over ``tp * dp`` (``fused_moe/config.py`` ``FusedMoEParallelConfig.make``); SGLang
        with ``enable_dp_attention``: the DP ranks live inside the TP group (attention TP
        ``tp / dp``), else whole replicas. GPUs: :meth:`Runtime.world_size`.
    enable_expert_parallel : bool
        vLLM ``--enable-expert-parallel``: each of the ``tp * dp`` ranks holds whole routed
        experts, ``ceil(E / (tp * dp))`` on the fullest rank, instead of a ``1 / (tp * dp)``
        slice of every expert.
    language_model_only : bool
        vLLM ``--language-model-only``: a multimodal model's vision / audio towers and
        projectors (``ModelSpec.encoder_params``) are not loaded, only its language model
        (``vllm/config/multimodal.py``: every modality's limit 0, so the model's
        multimodal modules are not built).
    decode_context_parallel_size : int
        vLLM ``--decode-context-parallel-size``: the ranks of a TP group that shard the KV
        cache by token position, each holding ``cdiv(tokens, dcp)`` of every sequence; must
        divide ``tensor_parallel_size`` (``vllm/config/parallel.py``).
    enable_dp_attention : bool
        SGLang ``--enable-dp-attention``: attention runs data-parallel inside the TP group,
        ``tp / dp`` ranks per attention group (KV heads ``max(1, kv_heads // (tp / dp))``),
        the embedding replicated (``VocabParallelEmbedding(enable_tp=not
        is_dp_attention_enabled())``).
    ep_size : int
        SGLang ``--ep-size``: ``E / ep`` whole experts per rank, each TP-sharded over ``tp /
        ep`` (the same routed bytes per GPU as TP alone); must divide the TP size.
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
        llama.cpp flash attention: on, off, or ``None`` for ``auto`` (the build's default:
        :func:`vramdesk.core.engines.llamacpp.compute.flash_attention`).
    swa_full, kv_unified : bool
        llama.cpp full-size sliding-window cache; one unified KV stream for all slots.
    n_gpu_layers : int or None
        llama.cpp layers offloaded (``None``: all); the GPU holds the last ones' KV.
    n_cpu_moe : int or None
        llama.cpp ``--n-cpu-moe N``: the routed experts of the first ``N`` layers stay in host
        RAM (``common/arg.cpp``: one override per layer (``blk.i.ffn_(up|down|gate)_exps``)
        -> CPU for ``i < N``); ``None``: none.
    cpu_moe : bool
        llama.cpp ``--cpu-moe`` / ``-ot exps=CPU``: every layer's routed experts in host RAM.
    mmproj_bytes : int or None
        llama.cpp ``--mmproj FILE``: the vision projector's weight bytes on the GPU (read from
        the file's tensor table, :mod:`vramdesk.core.local.importers._mmproj`).
    cache_type_k, cache_type_v : KVDtype or None
        llama.cpp cache types of K and V (``None``: the workload's ``kv_dtype``).
    mem_fraction_static : Fraction or None
        SGLang share of the GPU for weights + KV pool (``None``: 0.88).
    non_torch_bytes, activation_peak_bytes, cuda_graph_bytes : int or None
        Measured vLLM profiler terms per GPU (from a start-up log); ``None``: modelled.
    profiled_peak_bytes : int or None
        vLLM V0 ``peak_torch_memory`` (weights included), replaces weights + activations
        in the KV budget.
    mamba_cache_dtype, mamba_ssm_cache_dtype : str or None
        vLLM ``--mamba-cache-dtype`` (conv state, and the SSM state when the other is auto)
        and ``--mamba-ssm-cache-dtype``: ``float32``, ``float16``, ``bfloat16``; ``None`` is
        ``auto`` (the model dtype; the SSM state follows the conv state, or the model's
        config hook).
    mxfp4_backend : str or None
        vLLM's MXFP4 MoE backend (:data:`MXFP4_BACKENDS`), which sets the experts' padding;
        ``None``: the one vLLM picks on an H100/H200 for the release
        (:func:`vramdesk.core.engines.vllm.mxfp4.default_backend`).
    loaded_weights_bytes : int or None
        Measured resident weights per GPU ("Model loading took", llama.cpp model buffer).
    compute_buffer_bytes : int or None
        Measured llama.cpp compute buffer on the GPU.
    """

    gpu_memory_utilization: Fraction = Fraction(9, 10)
    block_size: int | None = DEFAULT_BLOCK_SIZE
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
    mamba_cache_dtype: str | None = None
    mamba_ssm_cache_dtype: str | None = None
    mxfp4_backend: str | None = None
    n_cpu_moe: int | None = None
    cpu_moe: bool = False
    mmproj_bytes: int | None = None
    data_parallel_size: int = 1
    enable_expert_parallel: bool = False
    decode_context_parallel_size: int = 1
    enable_dp_attention: bool = False
    ep_size: int = 1
    language_model_only: bool = False

    @property
    def loads_encoders(self) -> bool:
        """Whether the engine loads a multimodal model's encoders with it (``encoder_params``).

        Not llama.cpp or Ollama (their GGUF holds the language model; the encoders are the
        projector file), not vLLM with ``--language-model-only``.
        """
        return self.engine not in (Engine.LLAMA_CPP, Engine.OLLAMA) and not self.language_model_only

    def world_size(self) -> int:
        """GPUs the deployment takes: ``tp * pp * dp``; SGLang's attention DP is inside TP.

        vLLM: ``tp * pp`` per DP rank (``ParallelConfig.world_size``), times
        ``data_parallel_size`` ranks; decode context parallelism reuses the TP ranks.
        SGLang with ``enable_dp_attention``: ``tp * pp`` (the DP ranks share the TP group).
        """
        dp = 1 if self.enable_dp_attention else self.data_parallel_size
        return self.tensor_parallel_size * self.pipeline_parallel_size * dp

    def ranks_batch(self, batch: int) -> int:
        """Sequences one data-parallel rank holds: ``ceil(batch / data_parallel_size)``."""
        return ceil_div(batch, max(1, self.data_parallel_size))

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
        self.check_parallel()
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
        self.check_engine_options()
        return self

    def check_engine_options(self) -> None:
        """Refuse a field the engine does not have (:data:`ENGINE_OPTION_GROUPS`) when it is set.

        "Set" means different from :class:`Runtime`'s default (the command line also refuses
        a typed flag equal to the default).

        Raises
        ------
        InputError
            The field, e.g. ``gpu_memory_utilization``: "llama.cpp has no
            gpu_memory_utilization (an option of vllm, transformers)...".
        """
        if not isinstance(self.engine, Engine):
            return
        allowed = set(engine_options(self.engine))
        for f in dataclasses.fields(self):
            if f.name not in allowed and getattr(self, f.name) != f.default:
                raise foreign_option_error(self.engine, f.name)

    def options(self) -> dict[str, object]:
        """The fields this runtime's engine has, with their values (the engine's option group)."""
        return {name: getattr(self, name) for name in engine_options(self.engine)}

    def _validate_engine_knobs(self) -> None:
        for name in (
            "max_num_batched_tokens",
            "n_ubatch",
            "n_parallel",
            "n_gpu_layers",
            "n_cpu_moe",
            "mmproj_bytes",
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
        check_mamba_dtype("mamba_cache_dtype", self.mamba_cache_dtype)
        check_mamba_dtype("mamba_ssm_cache_dtype", self.mamba_ssm_cache_dtype)
        for name in ("cache_type_k", "cache_type_v"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), KVDtype):
                raise InputError(
                    name, f"must be a KVDtype, got {getattr(self, name)!r}", "unknown_choice"
                )

    def check_parallel(self) -> None:
        """The data, expert and decode-context parallel sizes and how they divide TP.

        Raises
        ------
        InputError
            ``decode_context_parallel_size`` not dividing ``tensor_parallel_size`` (vLLM
            ``vllm/config/parallel.py``: DCP reuses the TP ranks); ``data_parallel_size`` not
            dividing TP under SGLang's ``enable_dp_attention`` (``server_args.py``: attention
            TP is ``tp_size // dp_size``); ``ep_size`` not dividing TP (SGLang: MoE TP is
            ``tp_size // ep_size``).
        """
        for name in ("data_parallel_size", "decode_context_parallel_size", "ep_size"):
            check_int(name, getattr(self, name))
        for name in ("enable_expert_parallel", "enable_dp_attention", "language_model_only"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(name, f"must be true or false, got {getattr(self, name)!r}")
        tp = self.tensor_parallel_size
        if tp % self.decode_context_parallel_size:
            raise InputError(
                "decode_context_parallel_size",
                f"must divide tensor_parallel_size ({tp}): vLLM's decode context parallel "
                "ranks are the TP group's own",
                "invalid",
            )
        if self.enable_dp_attention and tp % self.data_parallel_size:
            raise InputError(
                "data_parallel_size",
                f"must divide tensor_parallel_size ({tp}) with enable_dp_attention: SGLang's "
                "attention groups are tp / dp ranks",
                "invalid",
            )
        if tp % self.ep_size:
            raise InputError(
                "ep_size",
                f"must divide tensor_parallel_size ({tp}): SGLang's MoE TP is tp / ep",
                "invalid",
            )

    def replace(self, **changes: object) -> Runtime:
        """Return a copy with ``changes`` applied (not validated)."""
        return dataclasses.replace(self, **changes)
