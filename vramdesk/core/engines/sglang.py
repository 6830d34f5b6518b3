"""SGLang: a static pool of ``mem_fraction_static`` of the GPU for weights + token KV pool.

Sources (read in sgl-project/sglang, not copied):

* ``python/sglang/srt/model_executor/model_runner.py`` ``profile_max_num_token``: after
  the weights load, ``rest = free - total * (1 - mem_fraction_static)`` and
  ``max_total_num_tokens = rest // cell_size`` with ``cell_size = layers * kv_heads_per_gpu
  * head_dim * 2 (K and V) * dtype bytes`` (MLA: ``(kv_lora_rank + qk_rope_head_dim)``).
* ``python/sglang/srt/mem_cache/memory_pool.py``: ``MHATokenToKVPool`` holds one K and one
  V buffer per layer of ``tokens`` rows (page size 1: no block rounding); the log prints
  "KV Cache is allocated. #tokens: N, K size: X GB, V size: X GB" (GiB).
* ``server_args.py``: ``mem_fraction_static`` defaults by GPU memory and TP size; 0.88 is
  used here when it is not given (an approximation of the large-GPU default).
* ``model_runner.py`` ``ModelRunner.__init__`` / ``init_torch_distributed``: ``total`` above is
  not the device total but ``pre_model_load_memory``, the free memory measured once
  ``init_distributed_environment``, ``initialize_model_parallel`` (NCCL, the custom
  all-reduce buffers) and ``initialize_dp_attention`` have run; ``free`` is measured after the
  weights load (``post_model_load_memory`` in current releases, at ``init_memory_pool`` in older
  ones). So ``pool = pre_free * mem_fraction_static - weights`` with ``pre_free = total - in
  use before loading`` (:func:`in_use_before_load`): what is in use before profiling comes
  out of the pool, scaled by the fraction. CUDA graphs are captured in ``init_backends``
  after ``alloc_memory_pool`` (and ``init_cuda_graphs`` after ``init_memory_pool`` in the
  0.4 releases: the 2025-05 log prints "Memory pool end" before "Capture cuda graph end"),
  so they come out of the reserve, not the pool.
* DeepSeek sparse attention (DeepSeek-V3.2): ``memory_pool.py`` ``NSATokenToKVPool`` keeps
  beside each layer's latent an indexer key of ``index_head_dim`` fp8 values + a float32
  scale per 128 (132 bytes), and at an fp8 cache the latent as ``kv_lora_rank`` fp8 + its
  scales + the rope part in bf16 (``calculate_mla_kv_cache_dim``: 656 bytes); the cell of
  ``pool_configurator.py`` ``DefaultPoolConfigurator._compute_cell_size`` counts both
  (:func:`vramdesk.core.terms.kv_cache.layer_row`). Older releases' ``profile_max_num_token``
  counted the fp8 latent as 576 bytes in the cell while the pool stores 656: not modelled.
* Chunked local attention (Llama-4): ``python/sglang/srt/configs/model_config.py``
  ``is_hybrid_swa_model`` lists ``Llama4ForConditionalGeneration`` (both released Llama-4
  checkpoints) and ``get_hybrid_layer_ids`` puts its layers ``i`` with ``(i + 1) % 4 != 0``
  (the chunked RoPE layers) in the SWA pool, no model override turning it off (unlike
  Gemma-2/3); so the KV of the workload is the formula's, a chunked layer holding at most one
  chunk per sequence (:func:`vramdesk.core.terms.kv_cache.cached_tokens`), as sliding layers
  hold their window. The pool's split between full and SWA tokens (``swa_full_tokens_ratio``)
  is not modelled: the pool's tokens count every layer at full size.
* Data parallelism (``--dp-size``): each DP rank has its own scheduler and pool, holding
  ``ceil(batch / dp)`` of the sequences. With ``--enable-dp-attention`` the DP ranks are
  inside the TP group: ``layers/dp_attention.py`` ``compute_dp_attention_world_info`` gives
  attention TP ``tp_size // dp_size``, so a rank holds ``max(1, kv_heads // (tp / dp))`` KV
  heads (MLA: its own latent rows) and ``1 / (tp / dp)`` of the attention weights, and the
  models build ``VocabParallelEmbedding(enable_tp=not is_dp_attention_enabled())``: the
  embedding whole on every rank (:func:`attention_runtime`, :func:`dp_attention_weights`).
* ``--ep-size``: ``layers/moe`` gives each rank ``num_experts // ep_size`` whole experts,
  each TP-sharded over ``tp_size // ep_size``: the routed bytes per GPU are TP's.
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

from vramdesk.core.engines.base import check_kv_dtype, with_parts
from vramdesk.core.engines.formula import FormulaProfile
from vramdesk.core.engines.vllm.weights import auto_dtype, vllm_weights_part
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec, count_params
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.kv_cache import gpu_layers, kv_bytes_per_token, layer_row_bytes
from vramdesk.core.units import GIB, MIB, ceil_bytes

#: ``mem_fraction_static`` used when the runtime does not set one.
DEFAULT_MEM_FRACTION_STATIC = Fraction(88, 100)


#: The CUDA context (and torch's allocator state) in use before ``pre_model_load_memory`` on
#: one GPU, bytes. Fitted, not read: the 2025-05 TP4 H100 log
#: (``tests/data/engine-logs/sglang-qwen3-moe-tp4.log``: "Load weight begin. avail mem=78.61
#: GB" of a 79.185 GiB CUDA total) leaves 0.575 GiB for context + distributed buffers, and
#: the 2025-10 TP8 H200 log of sgl-project/sglang#11716 (137.29 GiB free of about 139.8,
#: "Init torch distributed ends. mem usage=2.01 GB") about 0.5 GiB besides the 2.01.
CUDA_CONTEXT_BYTES = 512 * MIB


#: NCCL and custom all-reduce buffers allocated by ``init_torch_distributed`` when TP > 1,
#: bytes: 0.575 GiB - :data:`CUDA_CONTEXT_BYTES` (63 MiB, rounded to 64) in the 2025-05 TP4
#: log (0.4 releases); 2.01 GiB ("Init torch distributed ends. mem usage=2.01 GB", TP8) in
#: the 2025-10 log (from :data:`LARGE_DIST_BUFFERS_SINCE`). Fitted at one TP size each.
DIST_BUFFERS_BYTES = {False: 64 * MIB, True: math.floor(Fraction(201, 100) * GIB)}


#: First SGLang release whose distributed init takes the larger buffers (0.5: symmetric
#: memory and the pre-warmed NCCL communicator of ``init_torch_distributed``); the exact
#: first release is an assumption between the two logs above.
LARGE_DIST_BUFFERS_SINCE = (0, 5)


def sglang_release(version: str | None) -> tuple[int, ...]:
    """``(major, minor)`` read from ``engine_version`` (``"0.4.6.post1"`` -> ``(0, 4)``).

    No ``major.minor`` in the text reads as the newest release, ``(99,)``.
    """
    found = re.search(r"(\d{1,4})\.(\d{1,4})", (version or "")[:100])
    return (int(found.group(1)), int(found.group(2))) if found else (99,)


def in_use_text(runtime: Runtime) -> str:
    """What is in use before the weights load, in words: "512 MiB (CUDA context)"."""
    what = "CUDA context"
    if in_use_before_load(runtime) > CUDA_CONTEXT_BYTES:
        what += ", NCCL and all-reduce buffers"
    return f"{in_use_before_load(runtime) / MIB:,.0f} MiB ({what})"


def in_use_before_load(runtime: Runtime) -> int:
    """Bytes in use on one GPU when SGLang takes ``pre_model_load_memory``.

    The CUDA context (:data:`CUDA_CONTEXT_BYTES`), plus with ``tensor_parallel_size *
    pipeline_parallel_size > 1`` the NCCL and custom all-reduce buffers of
    ``init_torch_distributed`` (:data:`DIST_BUFFERS_BYTES`, by release:
    :data:`LARGE_DIST_BUFFERS_SINCE`). ``model_runner.py`` ``init_torch_distributed``.
    """
    if runtime.tensor_parallel_size * runtime.pipeline_parallel_size == 1:
        return CUDA_CONTEXT_BYTES
    large = sglang_release(runtime.engine_version) >= LARGE_DIST_BUFFERS_SINCE
    return CUDA_CONTEXT_BYTES + DIST_BUFFERS_BYTES[large]


def mem_fraction(runtime: Runtime) -> Fraction:
    """``mem_fraction_static`` or :data:`DEFAULT_MEM_FRACTION_STATIC`."""
    return Fraction(runtime.mem_fraction_static or DEFAULT_MEM_FRACTION_STATIC)


def attention_runtime(runtime: Runtime) -> Runtime:
    """The runtime as one attention rank sees it: TP ``tp / dp`` under dp-attention.

    ``layers/dp_attention.py`` ``compute_dp_attention_world_info``: ``attn_tp_size =
    tp_size // dp_size``; the KV heads, the pool's cell size and the activations follow it.
    Without dp-attention, ``runtime`` itself.
    """
    if not runtime.enable_dp_attention or runtime.data_parallel_size == 1:
        return runtime
    return runtime.replace(
        tensor_parallel_size=runtime.tensor_parallel_size // runtime.data_parallel_size,
        data_parallel_size=1,
        enable_dp_attention=False,
        ep_size=1,
    )


def dp_attention_weights(model: ModelSpec, weights: WeightSpec, runtime: Runtime) -> int:
    """Bytes per GPU that dp-attention adds to the TP-sharded weights.

    Attention weights sharded over ``tp / dp`` instead of ``tp``: ``attention * bits / 8 *
    (1 / (tp / dp) - 1 / tp) / PP``; the embedding replicated (``enable_tp=not
    is_dp_attention_enabled()``): ``embedding * bits / 8 * (1 - 1 / tp) / PP``, its bits 16
    where the format keeps embeddings 16-bit. 0 without dp-attention.
    """
    attn_rt = attention_runtime(runtime)
    if attn_rt is runtime:
        return 0
    tp, pp = runtime.tensor_parallel_size, runtime.pipeline_parallel_size
    counts = count_params(model)
    bits = weights.bits_per_weight
    embed_bits = Fraction(16) if weights.keeps_embeddings or weights.experts_only else bits
    attn = Fraction(counts.attention) * (16 if weights.experts_only else bits) / 8
    attn_extra = attn * (Fraction(1, attn_rt.tensor_parallel_size) - Fraction(1, tp))
    embed_extra = Fraction(counts.embedding) * embed_bits / 8 * (1 - Fraction(1, tp))
    return ceil_bytes((attn_extra + embed_extra) / pp)


def check_ep_size(model: ModelSpec, runtime: Runtime) -> None:
    """Refuse an ``ep_size`` that does not divide the routed experts (SGLang asserts it).

    Raises
    ------
    InputError
        ``ep_size``: not dividing ``num_local_experts`` (a dense model has none to split).
    """
    if runtime.ep_size == 1 or not model.is_moe:  # a dense model: nothing to split
        return
    if model.num_local_experts % runtime.ep_size:
        raise InputError(
            "ep_size",
            f"must divide the {model.num_local_experts} routed experts (SGLang gives each rank "
            "num_experts // ep_size)",
            "invalid",
        )


class SglangProfile(FormulaProfile):
    """SGLang: vLLM-style loaded weights, an unpaged token KV pool, a static fraction."""

    engine = Engine.SGLANG
    #: ``total_gpu_memory`` comes from ``torch.cuda.mem_get_info`` (``get_available_gpu_memory``)
    budgets_from_cuda_total = True
    #: ... and it is the free memory then, the minimum over the ranks (``distributed=True``)
    budgets_from_free_memory = True

    def validate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> None:
        """Run the base checks; refuse a KV cache type SGLang cannot store (``check_kv_dtype``)."""
        super().validate(model, weights, workload, runtime)
        check_kv_dtype("SGLang", workload.kv_dtype)
        check_ep_size(model, runtime)

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Weights as loaded, the KV of the workload's tokens (page size 1), no overhead term.

        A float32 checkpoint is loaded in 16 bits (:func:`auto_dtype`). With data
        parallelism the figures are one DP rank's: ``ceil(batch / dp)`` sequences, KV heads
        at the attention TP size (:func:`attention_runtime`), weights with the dp-attention
        share (:func:`dp_attention_weights`).
        """
        weights, dtype_notes = auto_dtype(weights, "SGLang")
        dp = runtime.data_parallel_size
        rank = workload.replace(batch=runtime.ranks_batch(workload.batch))
        attn_rt = attention_runtime(runtime)
        base = super().estimate(model, weights, rank, attn_rt.replace(block_size=None))
        base = dataclasses.replace(base, gpus=runtime.world_size())
        w = vllm_weights_part(model, weights, runtime)
        extra = dp_attention_weights(model, weights, runtime)
        if extra:
            w = dataclasses.replace(
                w,
                bytes=w.bytes + extra,
                formula=f"{w.formula} + dp_attention_share",
                substituted=f"{w.substituted} + {extra:,}",
                assumptions=(
                    f"dp-attention: attention weights over tp / dp = "
                    f"{attn_rt.tensor_parallel_size} ranks and the embedding whole on each "
                    "GPU (SGLang dp_attention.py, VocabParallelEmbedding enable_tp)",
                    *w.assumptions,
                ),
            )
        if dp > 1:
            dtype_notes = (
                *dtype_notes,
                f"data parallel {dp}: each rank's pool holds {rank.batch} of the sequences; "
                "figures per GPU are one rank's",
            )
        return with_parts(
            base,
            warnings=dtype_notes,
            weights=w,
            overhead=Part(
                "overhead",
                "Overhead",
                0,
                "outside the static pool",
                "0",
                (
                    "SGLang leaves total * (1 - mem_fraction_static) for activations "
                    "and CUDA graphs",
                    f"{in_use_text(runtime)} in use before the weights load comes out of "
                    "the pool, times mem_fraction_static (model_runner.py profile_max_num_token)",
                ),
            ),
        )

    def usable_bytes(self, breakdown: Breakdown, capacity_bytes: int, runtime: Runtime) -> int:
        """Return the KV pool: ``floor(pre_free * mem_fraction_static) - weights``, bytes.

        ``model_runner.py`` ``profile_max_num_token``: ``rest = post_free - pre_free * (1 -
        mem_fraction_static)`` with ``post_free = pre_free - weights`` and ``pre_free =
        capacity - in use before loading`` (:func:`in_use_before_load`). Activations and CUDA
        graphs live outside the static pool, so only the KV cache is compared with it
        (:meth:`need_bytes`).
        """
        pre_free = capacity_bytes - in_use_before_load(runtime)
        static = math.floor(pre_free * mem_fraction(runtime))
        return static - breakdown.weights.bytes

    def solve_notes(self, model: ModelSpec, runtime: Runtime) -> tuple[str, ...]:
        """Say what is in use before the weights load and how it shrinks the pool."""
        return (
            *super().solve_notes(model, runtime),
            "SGLang's pool is mem_fraction_static of the memory free before the weights "
            f"load: {in_use_text(runtime)} in use then comes out of it; CUDA graphs are "
            "captured later, from the reserve",
        )

    def need_bytes(self, breakdown: Breakdown) -> int:
        """KV cache and recurrent state: activations are outside the static pool."""
        return breakdown.kv_cache.bytes + breakdown.state_bytes

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Nothing besides the static fraction (see :meth:`usable_bytes`)."""
        return 0

    def breakdown_figures(
        self, b: Breakdown, model: ModelSpec, workload: Workload, runtime: Runtime
    ) -> dict[str, int | Fraction]:
        """The weights; SGLang's other figures follow from its pool (:meth:`capacity_figures`)."""
        return {"weights_bytes": b.weights.bytes}

    def capacity_figures(
        self,
        b: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        counts: dict[str, int],
        gpu_total_bytes: int | None,
    ) -> dict[str, int | Fraction]:
        """Pool tokens (given, from a given pool size, or from the static fraction), K and V.

        ``max_total_num_tokens = pool bytes // cell`` (``model_runner.py``
        ``profile_max_num_token``), ``cell`` the bytes per token over the GPU's layers.
        """
        tokens = counts.get("kv_cache_tokens")
        runtime = attention_runtime(runtime)  # the KV heads of one attention rank
        cell = kv_bytes_per_token(model, workload.kv_dtype, runtime)
        if tokens is None and counts.get("kv_cache_bytes") is not None:
            tokens = counts["kv_cache_bytes"] // cell  # a given pool size feeds the tokens
        if tokens is None and gpu_total_bytes is not None:
            tokens = max(0, self.usable_bytes(b, gpu_total_bytes, runtime)) // cell
        if tokens is None:
            return {}
        rows = [
            layer_row_bytes(model, x, workload.kv_dtype, runtime)
            for x in gpu_layers(model, runtime)
        ]
        k = tokens * sum(r[0] for r in rows)  # an indexer key counts with K
        v = tokens * sum(r[1] for r in rows)
        return {
            "kv_cache_tokens": tokens,
            "kv_cache_bytes_k": k,
            "kv_cache_bytes_v": v,
            "kv_cache_bytes": k + v,
        }
