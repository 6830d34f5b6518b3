"""Ollama's own memory estimate, by release: what it *thinks* a model needs, and its layers.

An Ollama user gets the layers *that* Ollama offloads, which it decides from its own
estimate, not from the allocation that follows. Sources (read in ollama/ollama, not copied):

* ``llm/memory.go`` ``EstimateGPULayers`` (v0.5.x to v0.12.x): per GPU it holds
  ``MinimumMemory`` (457 MiB, ``discover/gpu.go``) + ``blk.0``'s size + its KV, then adds
  each layer ``i`` (``blk.i`` + ``kv[i]``) while ``free > OLLAMA_GPU_OVERHEAD + used +
  max(graph partial, graph full) + layer``; then the output layer (``output`` or, tied,
  ``token_embd``, plus ``output_norm``); then the graph: the full-offload one when every
  layer and the output fit, else the partial one. ``memory.required.partial`` is that sum;
  ``memory.required.full`` adds the layers left on the host ("overflow": each at the last
  layer's size). ``layers.offload`` is the count (repeating layers + 1 for the output).
* ``fs/ggml/ggml.go`` ``GraphSize``: ``kv[i] = context * (key_length + value_length) *
  head_count_kv * bytes`` with ``context = num_ctx * num_parallel`` (``server/sched.go``)
  and ``bytes`` 2 (f16), 1 (q8_0), 0.5 (q4_0) (``kvCacheBytesPerElement``). From v0.6.3
  (commit f66216e39, "Support heterogeneous KV cache layer sizes") the ``gemma3`` case sizes
  every layer but each 6th at ``num_parallel * attention.sliding_window + batch``; before
  it, every layer is at the whole context, windows ignored. The gemma family's graph:
  ``full = max(4b(E + V), 4b(2 + c + c*H + 2E + 2*K*H))``, ``partial = max(4Eb + E*V*105/128
  + 4Vb, 4b(2E + 1 + 2*K*H + c + c*H) + 4*K*c*8 + E*K*H*9/16)`` (``b`` batch, ``c`` context,
  ``E`` embedding, ``V`` vocab, ``H`` heads, ``K`` key_length). A family without its own case
  gets ``partial = full = GQA * kv_total / 6``; the other families' own cases (llama,
  qwen2, ...) are not modelled: that fallback stands in, said in :attr:`Estimate.notes`.
* From v0.11.11 (``OLLAMA_NEW_ESTIMATES`` made the default; ``llm/server.go``
  ``ollamaServer.createLayout``) models on Ollama's own engine (Gemma-3 is always on it) are
  laid out from the backend's real allocations: no separate estimate, Ollama follows the
  engine. Other models keep ``GraphSize`` in ``llamaServer`` until v0.30 (llama-server).

Only one GPU is modelled; a vision projector (``projectorMemoryRequirements``) is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core.engines.llamacpp.kv_cache import slots
from vramdesk.core.engines.llamacpp.offload import weight_split
from vramdesk.core.model.formats import KVDtype, WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import FULL, SLIDING, ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.units import MIB

#: ``cudaMinimumMemory`` (``discover/gpu.go``).
MINIMUM_MEMORY = 457 * MIB

#: ``api.DefaultOptions`` ``NumBatch``.
NUM_BATCH = 512

#: First release whose ``GraphSize`` gives Gemma-3's sliding layers their window.
GEMMA3_WINDOW_SINCE = (0, 6, 3)

#: First release where Ollama-engine models follow the backend's own allocation.
ENGINE_LAYOUT_SINCE = (0, 11, 11)

#: First release that runs GGUF models on llama-server only (no ``GraphSize`` estimate).
LLAMA_SERVER_SINCE = (0, 30, 0)

#: ``gemma3GlobalCacheCount``: every 6th Gemma-3 layer is global.
GEMMA3_GLOBAL_EVERY = 6

#: ``kvCacheBytesPerElement``: what the estimator counts per element by cache type.
ESTIMATE_BYTES = {KVDtype.Q8_0: Fraction(1), KVDtype.Q4_0: Fraction(1, 2)}


def ollama_version(version: str | None) -> tuple[int, int, int]:
    """``(major, minor, patch)`` of ``engine_version`` ("0.6.2" -> (0, 6, 2)); none: newest."""
    found = re.search(r"(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?", (version or "")[:100])
    if not found:
        return (99, 0, 0)
    return (int(found.group(1)), int(found.group(2)), int(found.group(3) or 0))


def is_gemma3(model: ModelSpec) -> bool:
    """Every 6th layer full and the rest sliding: the pattern ``GraphSize`` hard-codes."""
    types = model.resolved_layer_types()
    want = [FULL if (i + 1) % GEMMA3_GLOBAL_EVERY == 0 else SLIDING for i in range(len(types))]
    return bool(model.sliding_window) and list(types) == want


def estimator_rule(model: ModelSpec, runtime: Runtime) -> str | None:
    """Which estimator the Ollama release of ``runtime`` uses for ``model``.

    ``"every_layer"`` (before :data:`GEMMA3_WINDOW_SINCE`, or a model without Gemma-3's
    pattern: every layer at the whole context), ``"gemma3_window"``, or None: Ollama follows
    the engine's allocation (:data:`ENGINE_LAYOUT_SINCE` for Gemma-3,
    :data:`LLAMA_SERVER_SINCE` for every model).
    """
    v = ollama_version(runtime.engine_version)
    gemma3 = is_gemma3(model)
    if v >= LLAMA_SERVER_SINCE or (gemma3 and v >= ENGINE_LAYOUT_SINCE):
        return None
    return "gemma3_window" if gemma3 and v >= GEMMA3_WINDOW_SINCE else "every_layer"


@dataclass(frozen=True, slots=True)
class Estimate:
    """Ollama's estimate on one GPU (``MemoryEstimate``), bytes.

    Attributes
    ----------
    rule : str
        :func:`estimator_rule`.
    kv_bytes : int
        ``memory.required.kv``: the KV over every layer as the estimator counts it.
    graph_full_bytes, graph_partial_bytes : int
        ``memory.graph.full`` / ``memory.graph.partial``.
    layers_offload, layers_model : int
        ``layers.offload`` and ``layers.model`` (repeating layers + the output layer).
    required_partial_bytes : int
        ``memory.required.partial``: what it plans to put on the GPU.
    required_full_bytes : int
        ``memory.required.full``: that plus the layers left on the host.
    notes : tuple of str
        What stands in for a rule that was not read.
    """

    rule: str
    kv_bytes: int
    graph_full_bytes: int
    graph_partial_bytes: int
    layers_offload: int
    layers_model: int
    required_partial_bytes: int
    required_full_bytes: int
    notes: tuple[str, ...] = ()


def kv_per_layer(
    model: ModelSpec, kv_dtype: KVDtype, context: int, batch: int, parallel: int, rule: str
) -> list[int]:
    """``GraphSize``'s ``kv[i]`` in bytes: ``context * (k + v) * kv_heads * bytes``.

    ``context`` is ``num_ctx * num_parallel``; under ``gemma3_window`` the sliding layers
    take ``parallel * sliding_window + batch`` tokens instead. Truncated to whole bytes as
    ``uint64(float64(...))``.
    """
    e = ESTIMATE_BYTES.get(kv_dtype, Fraction(2))
    row = (model.resolved_head_dim + (model.v_head_dim or model.resolved_head_dim)) * (
        model.num_key_value_heads
    )
    window = parallel * (model.sliding_window or 0) + batch
    out = []
    for i in range(model.num_hidden_layers):
        local = rule == "gemma3_window" and (i + 1) % GEMMA3_GLOBAL_EVERY != 0
        out.append(int((window if local else context) * row * e))
    return out


def graph_sizes(model: ModelSpec, context: int, batch: int, kv_total: int) -> tuple[int, int]:
    """``GraphSize``'s ``(partialOffload, fullOffload)`` for the gemma family, in bytes.

    The formulas of the module docstring, with ``heads = num_attention_heads`` and ``K`` the
    head dim (``key_length``); integer arithmetic as Go's ``uint64``.
    """
    e, v = model.hidden_size or 0, model.vocab_size or 0
    h, k, b, c = model.num_attention_heads or 1, model.resolved_head_dim, batch, context
    full = max(4 * b * (e + v), 4 * b * (2 + c + c * h + 2 * e + 2 * k * h))
    partial = max(
        4 * e * b + e * v * 105 // 128 + 4 * v * b,
        4 * b * (2 * e + 1 + 2 * k * h + c + c * h) + 4 * k * c * 8 + e * k * h * 9 // 16,
    )
    return partial, full


def estimate_gpu_layers(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    free_bytes: int,
    gpu_overhead: int = 0,
) -> Estimate | None:
    """``EstimateGPULayers`` on one GPU with ``free_bytes`` free; None where no estimator runs.

    ``num_gpu`` unset (``layers.requested=-1``). ``blk.i`` is the repeating layers' weights
    over the layer count and the output layer the output matrix (the embedding when tied)
    plus an f32 ``output_norm`` (:func:`vramdesk.core.engines.llamacpp.offload.weight_split`).
    Raises what ``weight_split`` raises for an impossible checkpoint.
    """
    rule = estimator_rule(model, runtime)
    if rule is None:
        return None
    parallel = max(1, slots(workload, runtime))
    context = workload.context_tokens * parallel
    batch = min(context, runtime.n_ubatch or NUM_BATCH)
    kv = kv_per_layer(model, workload.kv_dtype, context, batch, parallel, rule)
    kv_total = sum(kv)
    split = weight_split(model, weights, runtime.replace(n_gpu_layers=None))
    n = model.num_hidden_layers
    blk = split["layers"] // n
    output = split["output_matrix"] + 4 * (model.hidden_size or 0)
    notes: tuple[str, ...] = ()
    if model.sliding_window and is_gemma3(model):
        partial, full = graph_sizes(model, context, batch, kv_total)
    else:
        gqa = (model.num_attention_heads or 1) // max(1, model.num_key_value_heads)
        partial = full = gqa * kv_total // 6
        notes = ("graph: GraphSize's fallback (GQA x KV / 6); this family's own case not read",)
    graph = max(partial, full)
    layer = blk + kv[0]
    count, alloc, space = 0, 0, free_bytes >= gpu_overhead + graph + MINIMUM_MEMORY + 2 * layer
    if space:
        alloc = MINIMUM_MEMORY + layer
    for i in range(n):
        layer = blk + kv[i]
        if space and free_bytes > gpu_overhead + alloc + graph + layer:
            alloc += layer
            count += 1
        else:
            space = False
    overflow = (n - count) * layer
    fully = count >= n
    if space and free_bytes > gpu_overhead + alloc + graph + output:
        alloc += output
        count += 1
    if count < n + 1:
        fully = False
        overflow += output
    if count:
        alloc += full if fully else partial
    return Estimate(rule, kv_total, full, partial, count, n + 1, alloc, alloc + overflow, notes)


def estimate_sentence(version: str | None, e: Estimate, allocated_bytes: int) -> str:
    """The note: Ollama 0.6.2 estimates X GiB, offloads N of M layers, then allocates Y GiB."""
    gib = 1 << 30
    return (
        f"Ollama {version or 'latest'} estimates {e.required_partial_bytes / gib:.2f} GiB and "
        f"offloads {e.layers_offload} of {e.layers_model} layers; it then allocates "
        f"{allocated_bytes / gib:.2f} GiB"
    )
