"""vLLM's memory accounting: weights as loaded, the profiled KV budget, blocks, concurrency.

Sources (read in vllm-project/vllm, not copied):

* ``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory`` (V1) and
  ``vllm/worker/worker.py`` ``determine_num_available_blocks`` (V0): the KV budget is
  ``total * gpu_memory_utilization - (weights + activation peak + non-torch memory)``
  (V0: the profiled torch peak, weights included, replaces weights + activations).
  Recent releases can also subtract a CUDA-graph estimate; the 0.6-0.11 logs do not.
* ``vllm/v1/core/kv_cache_utils.py``: one page = ``block_size * bytes per token per layer``;
  layers of each attention type form groups of ``group_size`` layers that share
  ``group_size`` KV tensors; ``num_blocks = budget // (page * group_size)``; the log's
  "GPU KV cache size: N tokens" is ``num_blocks // len(groups) * block_size`` and
  "Maximum concurrency for L tokens per request" is ``num_blocks`` over the blocks one
  request of ``max_model_len`` needs in every group (sliding groups need
  ``cdiv(min(window - 1 + max_num_batched_tokens, L), block) + 1``).
* ``vllm/model_executor/layers/vocab_parallel_embedding.py``: vocabulary padded to a
  multiple of 64 rows (embedding, and lm_head when untied).
* ``vllm/model_executor/layers/rotary_embedding``: the cos/sin cache,
  ``max_position_embeddings * rotary_dim`` values in the model dtype, on every GPU.
* ``vllm/platforms/interface.py`` ``_align_hybrid_block_size``: hybrid attention + Mamba models
  get an attention block large enough that one page holds a layer's Mamba state, which is
  padded to that page; each Mamba layer group needs one block per request.
* compressed-tensors / fp8 per-channel schemes: int8/fp8 linear weights plus one fp32
  scale per output channel; embeddings, lm_head, norms and routers stay 16-bit.

Modules, after the engine's own files: :mod:`.version` (releases and their defaults),
:mod:`.weights` (weights as loaded), :mod:`.profile_run` (activation peak, non-torch memory),
:mod:`.kv_cache_utils` (groups, pages, blocks, concurrency) and :mod:`.profile`
(:class:`VllmProfile`, which puts them together).
"""

from __future__ import annotations

from vramdesk.core.engines.vllm.profile import VllmProfile

__all__ = ["VllmProfile"]
