"""llama.cpp's memory accounting: KV cells, cache types, SWA cache, offload, compute buffer.

Sources (read in ggml-org/llama.cpp, not copied):

* ``src/llama-context.cpp``: ``n_ctx`` is the total number of cells shared by the
  ``n_seq_max`` (``-np``) slots, padded to the cache's padding (256; 32 in builds before
  the 2025 KV refactor when flash attention is off).
* ``src/llama-kv-cache.cpp``: per layer one K tensor of ``ggml_row_size(type_k,
  n_embd_k_gqa) * cells`` bytes and one V tensor likewise; layers offloaded to the GPU
  (the last ``n_gpu_layers``) keep their cache there, the others in host memory.
* ``src/llama-context.cpp`` (split cache, ``-np N`` without ``--kv-unified``): one stream per
  slot of ``n_ctx_seq = pad256(n_ctx / N)`` cells.
* ``src/llama-kv-cache-iswa.cpp``: sliding-window and chunked (Llama-4) layers get, per stream,
  ``pad256(min(cells, n_swa * (unified ? n_seq : 1) + n_ubatch))`` cells unless ``swa_full``.
* ``ggml/src/ggml-backend.cpp`` (scheduler) and ``ggml/src/ggml-cuda/ggml-cuda.cu``
  (``offload_op``): an output matrix left in host memory is copied into the compute buffer.
* ``common/arg.cpp`` / ``src/llama-context.cpp``: ``-fa auto`` by default in recent builds;
  a quantized V cache needs flash attention.
* ``ggml/src/ggml-common.h``: q8_0 34 bytes per 32 values, q4_0 18 per 32, f16 2, f32 4.
* DeepSeek MLA (``--engine-version`` decides, :func:`mla_cache_for`): builds before the
  MLA implementation (ggml-org/llama.cpp PR #12801, April 2025) store per-head K (nope +
  rope) and V; from it, K holds the latent ``kv_lora_rank + qk_rope_head_dim`` and V the
  latent ``kv_lora_rank`` again; from the V-less cache (PR #19067, January 2026) K only.
* Recurrent layers (Mamba, gated DeltaNet): ``llama_memory_recurrent`` with f32 ``r``
  (conv) and ``s`` (SSM) states, one per sequence slot (``src/llama-model.cpp``
  ``create_memory``; :mod:`vramdesk.core.terms.state`).
* ``src/llama-model.cpp``: the input embedding always stays in host memory; a tied
  output matrix is a second copy on the device.

Modules, after the engine's own files: :mod:`.build` (build numbers and what they decide),
:mod:`.kv_cache` (cells, streams, the iSWA cache and the one per-layer loop of cache rows
that the estimate and the solver both read), :mod:`.offload` (``-ngl``), :mod:`.compute`
(the compute buffer) and :mod:`.profile` (:class:`LlamaCppProfile`).
"""

from __future__ import annotations

from vramdesk.core.engines.llamacpp.profile import LlamaCppProfile

__all__ = ["LlamaCppProfile"]
