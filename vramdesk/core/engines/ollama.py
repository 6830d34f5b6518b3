"""Ollama: llama.cpp's accounting plus Ollama's own reserve per GPU.

Sources (read in ollama/ollama, not copied):

* ``llm/server.go`` / ``runner``: the llama.cpp context is ``num_ctx * num_parallel``
  cells, so every parallel slot gets a full ``num_ctx``.
* ``llm/memory.go`` ``EstimateGPULayers``: per GPU it reserves the GPU's minimum memory,
  ``OLLAMA_GPU_OVERHEAD`` (0 by default), the compute graph and the layers' weights + KV.
* ``fs/ggml/ggml.go`` ``SupportsKVCacheType``: ``OLLAMA_KV_CACHE_TYPE`` is f16, q8_0 or q4_0.
* ``discover/gpu.go``: ``cudaMinimumMemory = rocmMinimumMemory = 457 MiB``.
* Ollama's own estimate (``llm/memory.go``, ``fs/ggml/ggml.go``), which decides how many
  layers it offloads: :mod:`vramdesk.core.engines.ollama_estimate`, by release, beside the
  allocation that follows (:meth:`OllamaProfile.ollama_figures`).
* Chunked local attention (Llama-4): from :data:`LLAMA_SERVER_SINCE` Ollama runs every GGUF
  model on llama.cpp's ``llama-server`` (ollama/ollama#16031, "use llama-server exclusively
  for GGML models"), so the chunked layers get llama.cpp's iSWA cells
  (:func:`vramdesk.core.engines.llamacpp.kv_cache.cells_per_stream`). Before it Ollama's own
  engine ran Llama-4 (``model/models/llama4/model.go``: ``NewChunkedAttentionCache`` beside a
  causal cache), whose ``kvcache/causal.go`` ``Causal.Init`` leaves a chunked cache without a
  window (``swaWindowSize`` stays ``MaxInt32``) and so sizes it ``maxSequences * capacity``:
  the chunk only masks, every layer keeps the whole context.
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core.engines.base import with_parts
from vramdesk.core.engines.llamacpp.profile import LlamaCppProfile
from vramdesk.core.engines.ollama_estimate import (
    LLAMA_SERVER_SINCE,
    MINIMUM_MEMORY,
    estimate_gpu_layers,
    estimate_sentence,
    ollama_version,
)
from vramdesk.core.model.formats import KVDtype, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import CHUNKED, ModelSpec, chunks_as_full
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part

#: ``cudaMinimumMemory`` (discover/gpu.go): memory Ollama never schedules on a CUDA/ROCm GPU
#: (one constant with the estimator's, :data:`.ollama_estimate.MINIMUM_MEMORY`).
MINIMUM_MEMORY_BYTES = MINIMUM_MEMORY


def keeps_chunks_whole(runtime: Runtime) -> bool:
    """Ollama's own engine, before v0.30.0: chunked layers at full context.

    :data:`.ollama_estimate.LLAMA_SERVER_SINCE` (the first tag holding ollama/ollama#16031).
    """
    return ollama_version(runtime.engine_version) < LLAMA_SERVER_SINCE


class OllamaProfile(LlamaCppProfile):
    """Ollama: :class:`LlamaCppProfile`, ``n_ctx = num_ctx * num_parallel``, 457 MiB reserved."""

    engine = Engine.OLLAMA
    kv_dtypes = (KVDtype.FP16, KVDtype.Q8_0, KVDtype.Q4_0)

    def check_engine_version(self, version: str | None) -> None:
        """Accept any Ollama version ("0.5.7"): chunked layers and the estimate depend on it.

        Llama-4's chunked layers and Ollama's own estimate
        (:mod:`~vramdesk.core.engines.ollama_estimate`) follow the release.

        A version without ``major.minor`` reads as the newest
        (:func:`.ollama_estimate.ollama_version`).
        """

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """llama.cpp's breakdown with Ollama's per-GPU minimum memory as the overhead.

        Chunked layers keep the whole context before :data:`LLAMA_SERVER_SINCE`
        (:func:`keeps_chunks_whole`, module docstring).
        """
        notes: tuple[str, ...] = ()
        if CHUNKED in model.resolved_layer_types() and keeps_chunks_whole(runtime):
            model = chunks_as_full(model)
            notes = (
                "chunked local-attention layers cache the whole context: Ollama's own engine "
                "(before 0.30) masks the chunk but sizes the cache for the full context "
                "(kvcache/causal.go)",
            )
        base = super().estimate(model, weights, workload, runtime)
        over = Part(
            "overhead",
            "Ollama reserve",
            MINIMUM_MEMORY_BYTES,
            "cudaMinimumMemory + OLLAMA_GPU_OVERHEAD",
            f"{MINIMUM_MEMORY_BYTES:,} + 0",
            ("457 MiB per GPU (discover/gpu.go); OLLAMA_GPU_OVERHEAD defaults to 0",),
        )
        return with_parts(base, overhead=over, warnings=notes)

    def figures(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        *,
        gpu_total_bytes: int | None = None,
        counts: dict[str, int] | None = None,
    ) -> dict[str, int | Fraction]:
        """llama.cpp's figures, and Ollama's own estimate on a GPU of ``gpu_total_bytes`` free.

        The estimate's keys are those of :meth:`ollama_figures` (none without a GPU size).
        """
        out = super().figures(
            model, weights, workload, runtime, gpu_total_bytes=gpu_total_bytes, counts=counts
        )
        if gpu_total_bytes is not None:
            out.update(self.ollama_figures(model, weights, workload, runtime, gpu_total_bytes)[0])
        return out

    def ollama_figures(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        free_bytes: int,
    ) -> tuple[dict[str, int | Fraction], str | None]:
        """Ollama's estimate and the allocation at the layers it picks, with the sentence.

        Keys (bytes unless a count): ``ollama_estimate_kv_bytes`` (``memory.required.kv``),
        ``ollama_estimate_partial_bytes`` / ``ollama_estimate_full_bytes``
        (``memory.required.partial`` / ``.full``), ``ollama_graph_full_bytes``,
        ``ollama_graph_partial_bytes``, ``ollama_layers_offload`` / ``ollama_layers_model``
        (``layers.offload`` / ``layers.model``) and ``ollama_allocated_bytes``: this profile's
        breakdown at ``n_gpu_layers = layers.offload`` (what is really allocated). The
        sentence says both where they differ. ``({}, None)`` where the release follows the
        engine (:func:`~.ollama_estimate.estimator_rule`) or ``num_gpu`` is set.
        """
        if runtime.n_gpu_layers is not None:
            return {}, None
        est = estimate_gpu_layers(model, weights, workload, runtime, free_bytes)
        if est is None:
            return {}, None
        real = self.estimate(
            model, weights, workload, runtime.replace(n_gpu_layers=est.layers_offload)
        )
        allocated = real.total_bytes
        figures: dict[str, int | Fraction] = {
            "ollama_estimate_kv_bytes": est.kv_bytes,
            "ollama_estimate_partial_bytes": est.required_partial_bytes,
            "ollama_estimate_full_bytes": est.required_full_bytes,
            "ollama_graph_full_bytes": est.graph_full_bytes,
            "ollama_graph_partial_bytes": est.graph_partial_bytes,
            "ollama_layers_offload": est.layers_offload,
            "ollama_layers_model": est.layers_model,
            "ollama_allocated_bytes": allocated,
        }
        differ = allocated != est.required_partial_bytes
        return figures, estimate_sentence(
            runtime.engine_version, est, allocated
        ) if differ else None


def ollama_own_estimate(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime, free_bytes: int
) -> tuple[dict[str, int | Fraction], str | None]:
    """What Ollama itself estimates on a GPU of ``free_bytes`` free, beside what it allocates.

    For ``runtime.engine`` Ollama: :meth:`OllamaProfile.ollama_figures` (its release's
    ``EstimateGPULayers``, ``llm/memory.go``, and this profile's breakdown at the layers it
    picks); ``({}, None)`` for every other engine, where the release follows the engine, or
    where ``num_gpu`` (``n_gpu_layers``) is set. The sentence is None where the two agree.
    The figures are bytes, except the layer counts.
    """
    if runtime.engine is not Engine.OLLAMA:
        return {}, None
    return OllamaProfile().ollama_figures(model, weights, workload, runtime, free_bytes)
