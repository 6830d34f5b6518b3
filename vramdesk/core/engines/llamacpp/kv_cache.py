"""llama.cpp's KV cache: cells, streams, the iSWA cache, cache types and the per-layer rows.

Sources: ``src/llama-context.cpp`` (``n_ctx`` cells shared by the ``-np`` slots, split
streams), ``src/llama-kv-cache.cpp`` (one K and one V tensor per layer of
``ggml_row_size(type, n_embd_gqa) * cells`` bytes), ``src/llama-kv-cache-iswa.cpp`` (the
sliding-window and chunked layers' own cells), ``ggml/src/ggml-common.h`` (block sizes of the
types).
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

from vramdesk.core.engines.llamacpp.build import mla_cache_for
from vramdesk.core.engines.llamacpp.offload import offloaded
from vramdesk.core.model.formats import KVDtype
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import CHUNKED, FULL, SLIDING, ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.kv_cache import layer_row_elements
from vramdesk.core.units import ceil_bytes, round_up

#: Cell padding of the KV cache (llama-kv-cache.cpp ``get_padding`` / the iSWA cache).
CELL_PAD = 256


#: Cache types llama.cpp accepts for ``-ctk``/``-ctv`` (``common/arg.cpp``
#: ``kv_cache_types``): no fp8 and no plain int8.
LLAMACPP_KV_DTYPES = (
    KVDtype.FP32,
    KVDtype.FP16,
    KVDtype.BF16,
    KVDtype.Q8_0,
    KVDtype.Q4_0,
    KVDtype.Q4_1,
    KVDtype.IQ4_NL,
    KVDtype.Q5_0,
    KVDtype.Q5_1,
)


#: Default physical batch ``n_ubatch`` (common/common.h).
DEFAULT_UBATCH = 512


def is_quantized(dtype: KVDtype) -> bool:
    """Whether ``dtype`` is a ggml block type (``q8_0``, ``q4_0``, ...), not f16/bf16/f32."""
    return dtype.bytes_per_element.denominator > 1


def pad(value: int, multiple: int = CELL_PAD) -> int:
    """``value`` rounded up to a multiple of ``multiple`` (``GGML_PAD``)."""
    return round_up(value, multiple)


def n_ctx(workload: Workload, runtime: Runtime) -> int:
    """Total cells before padding: ``context_tokens * slots`` (``-c`` covers every slot)."""
    return workload.context_tokens * slots(workload, runtime)


def slots(workload: Workload, runtime: Runtime) -> int:
    """Parallel sequences ``-np``: ``n_parallel`` or the workload's batch."""
    return runtime.n_parallel or workload.batch


def streams(workload: Workload, runtime: Runtime) -> int:
    """KV streams: one per slot when the cache is split (``-np N`` > 1 without ``--kv-unified``).

    ``src/llama-context.cpp``: with ``kv_unified`` false every sequence gets its own stream of
    ``n_ctx_seq`` cells. ``tools/server/server.cpp``: without ``-np`` (``n_parallel`` unset,
    the slots follow the concurrency) llama-server picks its slots itself and unifies the
    cache, so one stream. Ollama's runner keeps one shared stream (``num_ctx * num_parallel``
    cells, ``llm/server.go``), as this profile always modelled it.
    """
    n = slots(workload, runtime)
    if runtime.n_parallel is None or runtime.kv_unified or n == 1:
        return 1
    return 1 if runtime.engine is Engine.OLLAMA else n


def cells_per_stream(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Cells of one stream per layer kind (:func:`cells` is the total over the streams).

    ``src/llama-context.cpp``: ``n_ctx = pad256(n_ctx)``; a split cache (:func:`streams` > 1)
    gives each stream ``n_ctx_seq = pad256(n_ctx / n_seq_max)`` cells (163,840 / 6 slots ->
    27,392 each), a unified one all ``n_ctx``. ``src/llama-kv-cache-iswa.cpp``: sliding layers
    get ``pad256(min(cells, n_swa * (unified ? n_seq : 1) + n_ubatch))`` cells per stream,
    or the full size with ``swa_full``.

    Chunked local-attention layers (Llama-4's RoPE layers) are ``is_swa`` layers of the same
    iSWA cache, with ``swa_type = LLAMA_SWA_TYPE_CHUNKED`` masking every key before the
    query's own chunk (``src/llama-hparams.cpp`` ``is_masked_swa``) and ``n_swa`` the chunk:
    ``src/models/llama4.cpp`` ``load_arch_hparams`` sets ``n_swa = 8192`` (a literal, which
    both Llama-4 configs' ``attention_chunk_size`` equal; the model's chunk is used here) and
    ``set_swa_pattern(4)`` (layer ``il`` chunked when ``il % 4 < 3``), unless the GGUF's
    ``attention.sliding_window`` is 0 (every layer full). So they get ``pad256(min(cells,
    chunk * (unified ? n_seq : 1) + n_ubatch))`` cells, the formula of the sliding layers.
    """
    total = pad(n_ctx(workload, runtime))
    n_stream = streams(workload, runtime)
    full = total if n_stream == 1 else pad(total // n_stream)
    out = {FULL: full, SLIDING: full}
    if model.attention_chunk_size:
        out[CHUNKED] = full
    if runtime.swa_full or not runtime.sliding_window_exploited:
        return out
    seqs = slots(workload, runtime) if n_stream == 1 else 1
    ubatch = runtime.n_ubatch or DEFAULT_UBATCH
    for kind, n_swa in ((SLIDING, model.sliding_window), (CHUNKED, model.attention_chunk_size)):
        if n_swa:
            out[kind] = pad(min(full, n_swa * seqs + ubatch))
    return out


def cells(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Cells per layer kind over every stream: ``{"full_attention": n, ...}`` (a key per kind).

    :func:`cells_per_stream` times :func:`streams`: with ``-np 2`` and separate streams each
    slot has its own sliding-window cache (Gemma-3-270M class, ``-c 4096``: 2 x 1,024 cells,
    not one 1,024-cell window shared by both).
    """
    n_stream = streams(workload, runtime)
    return {k: v * n_stream for k, v in cells_per_stream(model, workload, runtime).items()}


def requested_types(workload: Workload, runtime: Runtime) -> tuple[KVDtype, KVDtype]:
    """``(type_k, type_v)`` asked for: ``cache_type_k``/``cache_type_v`` or ``kv_dtype``."""
    return runtime.cache_type_k or workload.kv_dtype, runtime.cache_type_v or workload.kv_dtype


def ollama_drops_quantized_cache(workload: Workload, runtime: Runtime) -> bool:
    """Ollama with flash attention off and a quantized cache: it falls back to f16.

    ``llm/server.go`` logs "quantized kv cache requested but flash attention disabled" (or
    "OLLAMA_FLASH_ATTENTION must be enabled to use a quantized OLLAMA_KV_CACHE_TYPE") and
    starts with the default f16 cache.
    """
    return (
        runtime.engine is Engine.OLLAMA
        and runtime.flash_attn is False
        and any(map(is_quantized, requested_types(workload, runtime)))
    )


def cache_types(workload: Workload, runtime: Runtime) -> tuple[KVDtype, KVDtype]:
    """``(type_k, type_v)`` the engine stores.

    :func:`requested_types`, except that Ollama without flash attention stores f16
    (:func:`ollama_drops_quantized_cache`).
    """
    if ollama_drops_quantized_cache(workload, runtime):
        return KVDtype.FP16, KVDtype.FP16
    return requested_types(workload, runtime)


def row_bytes(elements: int, dtype: KVDtype) -> int:
    """``ggml_row_size``: bytes of ``elements`` values of ``dtype`` (whole blocks)."""
    return ceil_bytes(elements * dtype.bytes_per_element)


@dataclass(frozen=True, slots=True)
class LayerRow:
    """One layer's cache row in llama.cpp: the bytes one cell takes, and where it lives.

    Attributes
    ----------
    kind : str
        :data:`~vramdesk.core.model.spec.FULL`, :data:`~vramdesk.core.model.spec.SLIDING` or
        :data:`~vramdesk.core.model.spec.CHUNKED` (which cell count applies: :func:`cells`).
    k_bytes, v_bytes : int
        ``ggml_row_size(type_k, n_embd_k_gqa(il))`` and likewise for V: bytes per cell.
    on_device : bool
        The layer is offloaded (:func:`~vramdesk.core.engines.llamacpp.offload.offloaded`).
    """

    kind: str
    k_bytes: int
    v_bytes: int
    on_device: bool


def layer_rows(model: ModelSpec, workload: Workload, runtime: Runtime) -> tuple[LayerRow, ...]:
    """The one per-layer loop: every layer that holds a cache, with its K and V row bytes.

    As ``src/llama-hparams.cpp`` fixes each layer's widths once (``n_embd_k_gqa(il)``,
    ``n_embd_v_gqa(il)``, ``is_swa(il)``) and every cache class reads them, the forward
    estimate (:func:`kv_split`) and the solver (:func:`kv_bytes_per_cell`) both read these
    rows. The MLA layout follows the build (:func:`~.build.mla_cache_for`); the cache types
    are what the engine stores (:func:`cache_types`); recurrent layers, encoder layers and
    layers reading another's cache hold no row.

    The rows depend on the model, the cache types and the single-GPU runtime only, not on the
    workload's context or concurrency: they are memoised on those, so a search over contexts
    walks the layers once, not once per point (an 8,192-layer model under partial offload
    took 5 s per solve; issue 22).
    """
    return _layer_rows(*_row_key(model, workload, runtime))


def row_groups(
    model: ModelSpec, workload: Workload, runtime: Runtime
) -> tuple[tuple[LayerRow, int], ...]:
    """:func:`layer_rows` grouped: each distinct row once, with how many layers have it.

    The sums over rows (:func:`kv_split`, :func:`kv_bytes_per_cell`) are sums over these
    groups times their counts: the same integers, in a few steps instead of one per layer.
    """
    return _row_groups(*_row_key(model, workload, runtime))


def _row_key(
    model: ModelSpec, workload: Workload, runtime: Runtime
) -> tuple[ModelSpec, Runtime, KVDtype, KVDtype]:
    """What the rows depend on: the model, the single-GPU runtime, the stored cache types."""
    if model.is_mla:
        runtime = runtime.replace(mla_cache=mla_cache_for(runtime))
    tk, tv = cache_types(workload, runtime)
    return model, runtime.replace(tensor_parallel_size=1), tk, tv


def _compute_rows(
    model: ModelSpec, single: Runtime, tk: KVDtype, tv: KVDtype
) -> tuple[LayerRow, ...]:
    rows = []
    for layer, on_device in zip(model.attention_layers(), offloaded(model, single), strict=True):
        if layer.holds_kv:
            k_el, v_el = layer_row_elements(model, layer, single)
            rows.append(LayerRow(layer.kind, row_bytes(k_el, tk), row_bytes(v_el, tv), on_device))
    return tuple(rows)


_memo_rows = functools.lru_cache(maxsize=64)(_compute_rows)


def _layer_rows(
    model: ModelSpec, single: Runtime, tk: KVDtype, tv: KVDtype
) -> tuple[LayerRow, ...]:
    try:
        return _memo_rows(model, single, tk, tv)
    except TypeError:  # an unhashable field (a list where a tuple belongs): no memo
        return _compute_rows(model, single, tk, tv)


def _compute_groups(
    model: ModelSpec, single: Runtime, tk: KVDtype, tv: KVDtype
) -> tuple[tuple[LayerRow, int], ...]:
    return tuple(Counter(_layer_rows(model, single, tk, tv)).items())


_memo_groups = functools.lru_cache(maxsize=64)(_compute_groups)


def _row_groups(
    model: ModelSpec, single: Runtime, tk: KVDtype, tv: KVDtype
) -> tuple[tuple[LayerRow, int], ...]:
    try:
        return _memo_groups(model, single, tk, tv)
    except TypeError:  # as in _layer_rows
        return _compute_groups(model, single, tk, tv)


def kv_split(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Split the cache: device parts (bytes), the host part and the cells.

    ``sum over layer_rows of cells[kind] * (k_bytes + v_bytes)``, by place and by kind.
    Keys: ``kv_cache_bytes_k``, ``kv_cache_bytes_v``, ``kv_cache_bytes_full_layers``,
    ``kv_cache_bytes_swa_layers``, ``kv_cache_bytes_host``, ``kv_cache_cells``,
    ``kv_cache_cells_swa``, ``kv_cache_streams``.
    """
    n = cells(model, workload, runtime)
    out = dict.fromkeys(
        (
            "kv_cache_bytes_k",
            "kv_cache_bytes_v",
            "kv_cache_bytes_full_layers",
            "kv_cache_bytes_swa_layers",
            "kv_cache_bytes_host",
        ),
        0,
    )
    for row, count in row_groups(model, workload, runtime):
        k, v = row.k_bytes * n[row.kind] * count, row.v_bytes * n[row.kind] * count
        if not row.on_device:
            out["kv_cache_bytes_host"] += k + v
            continue
        out["kv_cache_bytes_k"] += k
        out["kv_cache_bytes_v"] += v
        by_kind = "kv_cache_bytes_full_layers" if row.kind == FULL else "kv_cache_bytes_swa_layers"
        out[by_kind] += k + v
    out["kv_cache_cells"] = n[FULL]
    # the iSWA cache's SWA cells: the sliding layers', else the chunked layers' (one n_swa)
    local = SLIDING if model.sliding_window else CHUNKED if model.attention_chunk_size else None
    out["kv_cache_cells_swa"] = n[local] if local else 0
    out["kv_cache_streams"] = streams(workload, runtime)
    return out


def kv_bytes_per_cell(model: ModelSpec, workload: Workload, runtime: Runtime) -> int:
    """Device bytes of one cell: ``sum over device layer_rows of k_bytes + v_bytes``.

    The solver's unit (cells that fit a budget); bytes, exact int. Only layers that hold a
    cache count (recurrent layers and layers reading another's cache hold none).
    """
    groups = row_groups(model, workload, runtime)
    return sum((r.k_bytes + r.v_bytes) * count for r, count in groups if r.on_device)
