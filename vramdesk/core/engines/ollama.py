"""Ollama: llama.cpp's accounting plus Ollama's own reserve per GPU.

Sources (read in ollama/ollama, not copied):

* ``llm/server.go`` / ``runner``: the llama.cpp context is ``num_ctx * num_parallel``
  cells, so every parallel slot gets a full ``num_ctx``.
* ``llm/memory.go`` ``EstimateGPULayers``: per GPU it reserves the GPU's minimum memory,
  ``OLLAMA_GPU_OVERHEAD`` (0 by default), the compute graph and the layers' weights + KV.
* ``fs/ggml/ggml.go`` ``SupportsKVCacheType``: ``OLLAMA_KV_CACHE_TYPE`` is f16, q8_0 or q4_0.
* ``discover/gpu.go``: ``cudaMinimumMemory = rocmMinimumMemory = 457 MiB``.
"""

from __future__ import annotations

from vramdesk.core.engines.base import with_parts
from vramdesk.core.engines.llamacpp.profile import LlamaCppProfile
from vramdesk.core.model.formats import KVDtype, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.units import MIB

#: ``cudaMinimumMemory`` (discover/gpu.go): memory Ollama never schedules on a CUDA/ROCm GPU.
MINIMUM_MEMORY_BYTES = 457 * MIB


class OllamaProfile(LlamaCppProfile):
    """Ollama: :class:`LlamaCppProfile`, ``n_ctx = num_ctx * num_parallel``, 457 MiB reserved."""

    engine = Engine.OLLAMA
    kv_dtypes = (KVDtype.FP16, KVDtype.Q8_0, KVDtype.Q4_0)

    def check_engine_version(self, version: str | None) -> None:
        """Accept any Ollama version ("0.5.7"): its accounting here does not depend on it."""

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """llama.cpp's breakdown with Ollama's per-GPU minimum memory as the overhead."""
        base = super().estimate(model, weights, workload, runtime)
        over = Part(
            "overhead",
            "Ollama reserve",
            MINIMUM_MEMORY_BYTES,
            "cudaMinimumMemory + OLLAMA_GPU_OVERHEAD",
            f"{MINIMUM_MEMORY_BYTES:,} + 0",
            ("457 MiB per GPU (discover/gpu.go); OLLAMA_GPU_OVERHEAD defaults to 0",),
        )
        return with_parts(base, overhead=over)
