"""Hugging Face transformers: unpaged dynamic cache, weights as loaded, bitsandbytes buffers.

Sources (read in huggingface/transformers and bitsandbytes-foundation/bitsandbytes):

* ``src/transformers/cache_utils.py`` ``DynamicCache``: K and V tensors grow with the
  tokens actually seen (no blocks: ``block_size`` is ignored); sliding layers keep at most
  the window (``DynamicSlidingWindowLayer``), and so do chunked layers (Llama-4's
  ``layer_types`` ``"chunked_attention"``), whose window is ``attention_chunk_size``:
  "from a cache point of view, both sliding and chunked are the same", only the mask differs.
* ``from_pretrained(torch_dtype=bfloat16)``: ``params * 2`` bytes resident.
* bitsandbytes ``Linear8bitLt`` (LLM.int8) and ``Linear4bit`` (NF4): int8 / 4-bit linear
  weights, 16-bit embeddings, lm_head and norms; each matmul dequantizes (or, for int8
  outliers, materialises) a 16-bit copy of one weight matrix, so the largest linear
  layer in 16 bits is the extra transient buffer.
* ``src/transformers/models/deepseek_v3/modeling_deepseek_v3.py`` (and ``deepseek_v2/
  modeling_deepseek_v2.py``) ``DeepseekV3Attention.forward``: the cache is updated with the
  up-projected per-head K (``qk_nope_head_dim + qk_rope_head_dim``) and V (``v_head_dim``),
  not the compressed latent, so MLA is cached expanded (:attr:`MlaCache.EXPANDED`).
* ``DynamicCache`` stores K and V in a torch dtype: there are no ggml block types
  (q8_0, q4_0, ...) in transformers.
* ``torch.cuda.max_memory_allocated()`` (the usual "peak" figure) excludes the CUDA
  context and the allocator's cached free blocks.
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core.engines.base import check_kv_dtype, with_parts
from vramdesk.core.engines.formula import FormulaProfile
from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, MlaCache, Runtime
from vramdesk.core.model.spec import ModelSpec, widest_ffn_matrix
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part

#: KV cache types a torch tensor can hold (the ggml block types excluded).
TORCH_KV_DTYPES = (KVDtype.FP16, KVDtype.BF16, KVDtype.FP32, KVDtype.FP8, KVDtype.INT8)
#: Formats bitsandbytes quantizes on load.
BNB_FORMATS = (WeightFormat.INT8, WeightFormat.NF4)


def dequant_buffer_bytes(model: ModelSpec, spec: WeightSpec) -> int:
    """16-bit copy of the largest linear weight: ``max(hidden * ffn, hidden * q_width) * 2``.

    0 unless the format is bitsandbytes int8 or NF4.
    """
    if spec.format not in BNB_FORMATS or not model.hidden_size:
        return 0
    q = (model.num_attention_heads or 0) * (model.head_dim or model.resolved_head_dim)
    return max(widest_ffn_matrix(model), q) * model.hidden_size * 2


class TransformersProfile(FormulaProfile):
    """transformers ``generate``: see the module docstring for the sources followed."""

    engine = Engine.TRANSFORMERS

    def validate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> None:
        """Refuse ggml KV cache types (:data:`TORCH_KV_DTYPES`).

        Raises
        ------
        InputError
            ``kv_dtype``: q8_0, q4_0 and the other llama.cpp block types.
        """
        super().validate(model, weights, workload, runtime)
        check_kv_dtype("transformers", workload.kv_dtype, TORCH_KV_DTYPES)

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Estimate: formula weights and activations, unpaged KV, bitsandbytes buffer.

        MLA models (DeepSeek-V2/V3) are cached expanded, per head, as the transformers
        implementation stores them (module docstring).
        """
        runtime = runtime.replace(
            block_size=None, shared_prefix_tokens=0, mla_cache=MlaCache.EXPANDED
        )
        base = super().estimate(model, weights, workload, runtime)
        buf = dequant_buffer_bytes(model, weights)
        over = Part(
            "overhead",
            "Dequantization buffer",
            buf,
            "max(hidden * intermediate, hidden * heads * head_dim) * 2 (bitsandbytes only)",
            f"{buf:,}",
            ("torch.cuda.max_memory_allocated excludes the CUDA context",),
        )
        return with_parts(base, overhead=over)

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Return the dequantization buffer (the overhead part)."""
        return breakdown.overhead.bytes

    def breakdown_figures(
        self, b: Breakdown, model: ModelSpec, workload: Workload, runtime: Runtime
    ) -> dict[str, int | Fraction]:
        """Resident weights, KV, activations and ``peak_bytes`` = the breakdown's total."""
        return {
            "weights_bytes": b.weights.bytes,
            "kv_cache_bytes": b.kv_cache.bytes,
            "activation_peak_bytes": b.activations.bytes,
            "peak_bytes": b.total_bytes,
        }

    def capacity_figures(
        self,
        b: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        counts: dict[str, int],
        gpu_total_bytes: int | None,
    ) -> dict[str, int | Fraction]:
        """None: transformers allocates its cache per request and logs no capacity."""
        return {}
