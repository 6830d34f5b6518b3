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
"""

from __future__ import annotations

import math  # noqa: F401
from fractions import Fraction

from vramdesk.core.engines.base import check_kv_dtype, with_parts
from vramdesk.core.engines.formula import FormulaProfile
from vramdesk.core.engines.vllm.weights import auto_dtype, vllm_weights_part
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.kv_cache import gpu_layers, kv_bytes_per_token, layer_row_elements
from vramdesk.core.units import ceil_bytes

#: ``mem_fraction_static`` used when the runtime does not set one.
DEFAULT_MEM_FRACTION_STATIC = Fraction(88, 100)


def mem_fraction(runtime: Runtime) -> Fraction:
    """``mem_fraction_static`` or :data:`DEFAULT_MEM_FRACTION_STATIC`."""
    return Fraction(runtime.mem_fraction_static or DEFAULT_MEM_FRACTION_STATIC)


class SglangProfile(FormulaProfile):
    """SGLang: vLLM-style loaded weights, an unpaged token KV pool, a static fraction."""

    engine = Engine.SGLANG
    #: ``total_gpu_memory`` comes from ``torch.cuda.mem_get_info`` (``get_available_gpu_memory``)
    budgets_from_cuda_total = True

    def validate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> None:
        """Run the base checks; refuse a KV cache type SGLang cannot store (``check_kv_dtype``)."""
        super().validate(model, weights, workload, runtime)
        check_kv_dtype("SGLang", workload.kv_dtype)

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Weights as loaded, the KV of the workload's tokens (page size 1), no overhead term.

        A float32 checkpoint is loaded in 16 bits (:func:`auto_dtype`).
        """
        weights, dtype_notes = auto_dtype(weights, "SGLang")
        base = super().estimate(model, weights, workload, runtime.replace(block_size=None))
        return with_parts(
            base,
            warnings=dtype_notes,
            weights=vllm_weights_part(model, weights, runtime),
            overhead=Part(
                "overhead",
                "Overhead",
                0,
                "outside the static pool",
                "0",
                (
                    "SGLang leaves total * (1 - mem_fraction_static) for activations "
                    "and CUDA graphs",
                ),
            ),
        )

    def usable_bytes(self, breakdown: Breakdown, capacity_bytes: int, runtime: Runtime) -> int:
        """Return the KV pool: ``floor(total * mem_fraction_static) - weights``.

        Activations live outside the static pool (``total * (1 - mem_fraction_static)``), so
        only the KV cache is compared with it (:meth:`need_bytes`).
        """
        static = math.floor(capacity_bytes * mem_fraction(runtime))
        return static - breakdown.weights.bytes

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
        cell = kv_bytes_per_token(model, workload.kv_dtype, runtime)
        if tokens is None and counts.get("kv_cache_bytes") is not None:
            tokens = counts["kv_cache_bytes"] // cell  # a given pool size feeds the tokens
        if tokens is None and gpu_total_bytes is not None:
            tokens = max(0, self.usable_bytes(b, gpu_total_bytes, runtime)) // cell
        if tokens is None:
            return {}
        e = workload.kv_dtype.bytes_per_element
        rows = [layer_row_elements(model, x, runtime) for x in gpu_layers(model, runtime)]
        k = tokens * sum(ceil_bytes(r[0] * e) for r in rows)
        v = tokens * sum(ceil_bytes(r[1] * e) for r in rows)
        return {
            "kv_cache_tokens": tokens,
            "kv_cache_bytes_k": k,
            "kv_cache_bytes_v": v,
            "kv_cache_bytes": k + v,
        }
