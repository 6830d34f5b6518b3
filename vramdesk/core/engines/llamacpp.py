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
* ``src/llama-kv-cache-iswa.cpp``: sliding-window layers get, per stream,
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
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from vramdesk.core.engines.base import check_kv_dtype, measured_part, with_parts
from vramdesk.core.engines.formula import FormulaProfile
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import KVDtype, WeightSpec
from vramdesk.core.model.gguf_recipes import embedding_types
from vramdesk.core.model.runtime import Engine, MlaCache, Runtime
from vramdesk.core.model.spec import FULL, SLIDING, ModelSpec, count_params, ffn_width
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.kv_cache import layer_row_elements
from vramdesk.core.terms.state import state_part
from vramdesk.core.terms.weights import weights_part
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


#: First build whose ``-fa`` defaults to ``auto`` (on where the backend supports it), from
#: the flash-attention "auto" change of late August 2025; the exact build is an assumption.
FA_AUTO_SINCE_BUILD = 6325


def is_quantized(dtype: KVDtype) -> bool:
    """Whether ``dtype`` is a ggml block type (``q8_0``, ``q4_0``, ...), not f16/bf16/f32."""
    return dtype.bytes_per_element.denominator > 1


def flash_attention(runtime: Runtime, workload: Workload | None = None) -> bool:
    """Whether flash attention is on: ``flash_attn`` (on/off), else the engine's ``auto``.

    * llama.cpp (``common/arg.cpp``, ``src/llama-context.cpp``): builds from
      :data:`FA_AUTO_SINCE_BUILD` on (and unknown builds, read as the newest) default to
      ``-fa auto``, which turns it on where the GPU backend supports it; older builds
      default to off.
    * Ollama (``llm/server.go``): it stores a quantized ``OLLAMA_KV_CACHE_TYPE`` only with
      flash attention on, so a quantized cache (``workload.kv_dtype``) means it is on; an
      f16 cache keeps the conservative default, off (``OLLAMA_FLASH_ATTENTION`` unset in
      releases before flash attention became automatic; an assumption for newer ones).
    """
    if runtime.flash_attn is not None:
        return runtime.flash_attn
    if runtime.engine is Engine.OLLAMA:
        return workload is not None and any(map(is_quantized, requested_types(workload, runtime)))
    if runtime.engine is not Engine.LLAMA_CPP:
        return False
    build = build_number(runtime.engine_version)
    return build is None or build >= FA_AUTO_SINCE_BUILD


#: First build with the MLA cache (PR #12801, merged 2025-04-15); the exact build number
#: is an assumption, read from the release dates around the merge.
MLA_CACHE_SINCE_BUILD = 5140
#: First build with the V-less MLA cache (PR #19067, merged 2026-01-24); the exact build
#: number is likewise an assumption: release tags b6451 (2025-09-13) and b7045 (2025-11-13)
#: run at about ten builds a day, which puts the merge near b7750.
MLA_VLESS_SINCE_BUILD = 7750


def mla_cache_for(runtime: Runtime) -> MlaCache:
    """How this llama.cpp build caches MLA: from ``engine_version`` (unknown: the newest).

    An explicit ``mla_cache`` other than the default latent wins (a log that says so).
    """
    if runtime.mla_cache is not MlaCache.LATENT:
        return runtime.mla_cache
    build = build_number(runtime.engine_version)
    if build is None or build >= MLA_VLESS_SINCE_BUILD:
        return MlaCache.LATENT
    if build >= MLA_CACHE_SINCE_BUILD:
        return MlaCache.LATENT_WITH_V
    return MlaCache.EXPANDED


#: Bytes of one f32 recurrent-state element (``type_r``/``type_s``).
STATE_F32 = Fraction(4)


def build_number(text: str | None) -> int | None:
    """Return the llama.cpp build in ``text`` (``"b6699"``, ``"6699 (abc1234)"``), or None."""
    found = re.search(r"\bb?(\d{3,6})\b", (text or "")[:100])
    return int(found[1]) if found else None


def check_build(text: str | None) -> None:
    """Refuse a llama.cpp version with no build number (flash-attention default depends on it).

    Raises
    ------
    InputError
        ``engine_version``: text without a build such as ``b6699`` (empty or None is the newest).
    """
    if text is None or not text.strip() or build_number(text) is not None:
        return
    raise InputError(
        "engine_version",
        f"cannot read a llama.cpp build from {text[:40]!r}: "
        "expected e.g. b6699 (the build number 'llama-server --version' prints)",
        "invalid",
    )


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
    """
    total = pad(n_ctx(workload, runtime))
    n_stream = streams(workload, runtime)
    full = total if n_stream == 1 else pad(total // n_stream)
    if not model.sliding_window or runtime.swa_full or not runtime.sliding_window_exploited:
        return {FULL: full, SLIDING: full}
    seqs = slots(workload, runtime) if n_stream == 1 else 1
    ubatch = runtime.n_ubatch or DEFAULT_UBATCH
    return {FULL: full, SLIDING: pad(min(full, model.sliding_window * seqs + ubatch))}


def cells(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Cells per layer kind over every stream: ``{"full_attention": n, "sliding_attention": m}``.

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


def offloaded(model: ModelSpec, runtime: Runtime) -> list[bool]:
    """Per layer: True when it sits on the device (the last ``n_gpu_layers`` layers)."""
    layers = model.num_hidden_layers
    ngl = layers if runtime.n_gpu_layers is None else min(runtime.n_gpu_layers, layers)
    return [i >= layers - ngl for i in range(layers)]


def kv_split(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Split the cache: device parts (bytes), the host part and the cells.

    Keys: ``kv_cache_bytes_k``, ``kv_cache_bytes_v``, ``kv_cache_bytes_full_layers``,
    ``kv_cache_bytes_swa_layers``, ``kv_cache_bytes_host``, ``kv_cache_cells``,
    ``kv_cache_cells_swa``.
    """
    single = runtime.replace(tensor_parallel_size=1)
    tk, tv = cache_types(workload, runtime)
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
    for layer, on_device in zip(model.attention_layers(), offloaded(model, runtime), strict=True):
        if not layer.holds_kv:  # recurrent, encoder, or reading another layer's cache
            continue
        kind = layer.kind
        k_el, v_el = layer_row_elements(model, layer, single)
        k, v = row_bytes(k_el, tk) * n[kind], row_bytes(v_el, tv) * n[kind]
        if not on_device:
            out["kv_cache_bytes_host"] += k + v
            continue
        out["kv_cache_bytes_k"] += k
        out["kv_cache_bytes_v"] += v
        out["kv_cache_bytes_full_layers" if kind == FULL else "kv_cache_bytes_swa_layers"] += k + v
    out["kv_cache_cells"] = n[FULL]
    out["kv_cache_cells_swa"] = n[SLIDING] if model.sliding_window else 0
    out["kv_cache_streams"] = streams(workload, runtime)
    return out


def kv_bytes_per_cell(model: ModelSpec, workload: Workload, runtime: Runtime) -> int:
    """Device bytes of one cell: K + V rows (``ggml_row_size``) over the offloaded layers.

    Only layers that hold a cache count (recurrent layers and layers reading another's
    cache hold none).
    """
    if model.is_mla:
        runtime = runtime.replace(mla_cache=mla_cache_for(runtime))
    single = runtime.replace(tensor_parallel_size=1)
    tk, tv = cache_types(workload, runtime)
    total = 0
    for layer, on_device in zip(model.attention_layers(), offloaded(model, runtime), strict=True):
        if layer.holds_kv and on_device:
            k_el, v_el = layer_row_elements(model, layer, single)
            total += row_bytes(k_el, tk) + row_bytes(v_el, tv)
    return total


def compute_buffer_bytes(model: ModelSpec, workload: Workload, runtime: Runtime) -> int:
    """Device compute buffer, modelled: ``max(KQ, logits) + n_ubatch * (hidden + ffn) * 4``.

    Without flash attention the f32 scores ``n_head * cells * n_ubatch * 4``; the f32 logits
    ``n_ubatch * n_vocab * 4``; plus one f32 hidden + FFN row per ubatch token. Within about
    15 % of the published buffers (506 MiB Gemma-7B, 254 MiB Llama-3.2-1B, 588 MiB Llama-70B,
    2.44 GiB Qwen3-235B at n_ubatch 4096); a measured ``compute_buffer_bytes`` wins.
    """
    ubatch = runtime.n_ubatch or DEFAULT_UBATCH
    heads = model.num_attention_heads or model.num_key_value_heads
    # split streams: the ubatch's tokens attend their own stream's cells only
    kq = (
        0
        if flash_attention(runtime, workload)
        else heads * cells_per_stream(model, workload, runtime)[FULL] * ubatch * 4
    )
    logits = ubatch * (model.vocab_size or 0) * 4
    return max(kq, logits) + ubatch * ((model.hidden_size or 0) + ffn_width(model)) * 4


def weight_split(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> dict[str, int]:
    """Weight bytes by place: repeating layers by offload, input embedding on the host.

    Returns
    -------
    dict
        ``layers`` (all repeating layers), ``on`` (layers offloaded), ``embedding``,
        ``output`` (lm_head, or the tied embedding's device copy; 0 when it stays on the host),
        ``device`` = ``layers * on / num_hidden_layers + output`` and ``host``. The output
        matrix is on the device when ``n_gpu_layers`` exceeds the repeating layers (or is
        not set). Without a full shape the whole file counts as layers.
    """
    single = runtime.replace(tensor_parallel_size=1, pipeline_parallel_size=1)
    total = weights_part(model, spec, single).bytes
    on = sum(offloaded(model, runtime))
    try:
        counts = count_params(model)
    except InputError:  # shape incomplete (count_params names the field): no split
        counts = None
    embed_bits, head_bits = spec.bits_per_weight, spec.bits_per_weight
    types = embedding_types(model, spec)
    if types is not None:  # a llama.cpp file type: token_embd and output have their own types
        embed_bits, head_bits = types[0].bits, types[1].bits
    embed = ceil_bytes(counts.embedding * embed_bits / 8) if counts else 0
    head = (
        embed
        if model.tie_word_embeddings
        else ceil_bytes((counts.lm_head if counts else 0) * head_bits / 8)
    )
    layers = total - embed - (0 if model.tie_word_embeddings else head)
    if layers < 0:  # a checkpoint smaller than its own embeddings: refuse, never negative bytes
        raise InputError(
            "checkpoint_bytes",
            f"{total:,} bytes of weights are fewer than the {total - layers:,} bytes that this "
            "shape's embeddings and output matrix alone need",
            "too_small",
            {"min": total - layers, "value": total},
        )
    output_on = runtime.n_gpu_layers is None or runtime.n_gpu_layers > model.num_hidden_layers
    device = layers * on // model.num_hidden_layers
    host = embed + layers - device + (0 if output_on or model.tie_word_embeddings else head)
    output = head if output_on else 0
    return {
        "layers": layers,
        "on": on,
        "embedding": embed,
        "output": output,
        "output_matrix": head,
        "device": device + output,
        "host": host,
    }


#: Smallest batch for which the CUDA backend runs an op whose weight sits in host memory
#: (``ggml/src/ggml-cuda/ggml-cuda.cu`` ``offload_op``: ``min_batch_size = 32``).
OFFLOAD_MIN_BATCH = 32


def output_copy_bytes(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> int:
    """Bytes of the output matrix copied into the device compute buffer (partial offload).

    When the output layer stays in host memory (``n_gpu_layers`` <= ``num_hidden_layers``),
    the scheduler (``ggml/src/ggml-backend.cpp`` ``ggml_backend_sched``) still runs the output
    matmul of a large batch (``n_ubatch`` >= :data:`OFFLOAD_MIN_BATCH`; the reserve graph
    computes logits for every ubatch token) on the GPU, copying the weight into the compute
    buffer: the whole ``vocab x hidden`` matrix (or the tied embedding). 0 when the output
    is offloaded or the batch is small. Copies of host-resident repeating layers are not
    modelled (the output matrix is the largest single weight).
    """
    split = weight_split(model, spec, runtime)
    if split["output"] or (runtime.n_ubatch or DEFAULT_UBATCH) < OFFLOAD_MIN_BATCH:
        return 0
    return split["output_matrix"]


class LlamaCppProfile(FormulaProfile):
    """llama.cpp (and forks): see the module docstring for the engine sources followed."""

    engine = Engine.LLAMA_CPP

    #: llama.cpp splits layers (``--split-mode layer``) rather than sharding heads.
    shards_heads = False
    compact_kv_dtype = KVDtype.Q8_0
    #: Cache types this engine stores (Ollama narrows them).
    kv_dtypes: tuple[KVDtype, ...] = LLAMACPP_KV_DTYPES

    def check_engine_version(self, version: str | None) -> None:
        """Refuse a version without a build number (:func:`check_build`)."""
        check_build(version)

    def validate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> None:
        """Check the version and refuse a multi-GPU split this profile does not model.

        Raises
        ------
        InputError
            ``tensor_parallel_size`` > 1: llama.cpp has no tensor parallelism in vLLM's sense
            (``--split-mode layer`` puts whole layers on each GPU, ``src/llama-model.cpp``);
            ``pipeline_parallel_size`` > 1: that layer split is not modelled (the weights and
            KV of every layer would be counted on each GPU).
        kv_dtype, cache_type_k, cache_type_v
            A type outside :attr:`kv_dtypes` (fp8, int8).
        flash_attn
            llama.cpp with a quantized V cache and flash attention off (explicitly, or the
            default of builds before :data:`FA_AUTO_SINCE_BUILD`): the engine refuses to start
            ("quantized V cache requires flash_attn", ``src/llama-context.cpp``). A quantized
            K cache alone is allowed. Ollama does not refuse: it falls back to f16.
        """
        super().validate(model, weights, workload, runtime)
        name = "Ollama" if self.engine is Engine.OLLAMA else "llama.cpp"
        check_kv_dtype(name, workload.kv_dtype, self.kv_dtypes)
        for field in ("cache_type_k", "cache_type_v"):
            if getattr(runtime, field) is not None:
                check_kv_dtype(name, getattr(runtime, field), self.kv_dtypes, field)
        _, type_v = cache_types(workload, runtime)
        if self.engine is Engine.LLAMA_CPP and is_quantized(type_v):
            if not flash_attention(runtime, workload):
                how = (
                    "--flash-attn off"
                    if runtime.flash_attn is False
                    else f"build {build_number(runtime.engine_version)}'s default (off)"
                )
                raise InputError(
                    "flash_attn",
                    f"llama.cpp refuses a quantized V cache ({type_v.label}) without flash "
                    f"attention ({how}; src/llama-context.cpp): use --flash-attn on or an f16 "
                    "V cache",
                    "unsupported",
                )
        if runtime.tensor_parallel_size > 1:
            raise InputError(
                "tensor_parallel_size",
                "llama.cpp splits layers across GPUs rather than sharding heads; "
                "estimate one GPU holding all layers (--tp 1)",
                "unsupported",
            )
        if runtime.pipeline_parallel_size > 1:
            raise InputError(
                "pipeline_parallel_size",
                "llama.cpp's layer split across GPUs is not modelled yet; estimate one GPU "
                "holding all layers (--pp 1)",
                "unsupported",
            )

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Device weights, device KV cache, compute buffer; no fixed overhead is printed.

        llama.cpp does not page its cache (cells, padded to 256): ``block_size`` is not one of
        its options (:data:`vramdesk.core.model.runtime.ENGINE_OPTION_GROUPS`), so a set one is
        refused by :meth:`Runtime.validate`.
        """
        if model.is_mla:
            runtime = runtime.replace(mla_cache=mla_cache_for(runtime))
        warnings = []
        if ollama_drops_quantized_cache(workload, runtime):
            warnings.append(
                "Ollama stores a quantized cache only with flash attention on: with it off it "
                "falls back to f16 (llm/server.go), as counted here"
            )
            workload = workload.replace(kv_dtype=KVDtype.FP16)
        base = super().estimate(model, weights, workload, runtime.replace(block_size=None))
        split = kv_split(model, workload, runtime)
        split["weights_bytes_host"] = weight_split(model, weights, runtime)["host"]
        state = state_part(
            model,
            max(1, slots(workload, runtime)),
            runtime,
            STATE_F32,
            STATE_F32,
            "llama.cpp keeps f32 r/s states, one per sequence slot (-np)",
        )
        if state is not None:
            base = dataclasses.replace(base, state=state)
        return with_parts(
            base,
            warnings=tuple(warnings),
            weights=self._weights(model, weights, runtime),
            kv_cache=self._kv(split),
            activations=self._compute(model, weights, workload, runtime),
            overhead=Part(
                "overhead",
                "Overhead",
                0,
                "0 (not in llama.cpp's buffers)",
                "0",
                ("the CUDA context (about 0.3-0.5 GiB) is outside llama.cpp's buffers",),
            ),
            extras=split,
        )

    def usable_bytes(self, breakdown: Breakdown, capacity_bytes: int, runtime: Runtime) -> int:
        """Return ``capacity - reserved - weights``: llama.cpp has no utilization fraction.

        Its buffers are sized exactly and allocated up front; whatever else the GPU holds
        is the user's concern, so ``gpu_memory_utilization`` does not apply.
        """
        return capacity_bytes - self.reserved_bytes(breakdown, runtime) - breakdown.weights.bytes

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Return the overhead part (0 for llama.cpp; Ollama's minimum memory)."""
        return breakdown.overhead.bytes

    def kv_capacity(
        self,
        breakdown: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        kv_budget_bytes: int,
    ) -> tuple[int, int | None, Fraction]:
        """Cells that fit the budget, in whole 256-cell pads (no blocks), and cells / context.

        A cell costs K + V of one token on every device layer (sliding layers counted at full
        size, as for the other engines' "tokens").
        """
        per_cell = kv_bytes_per_cell(model, workload, runtime)
        fit = max(0, kv_budget_bytes) // per_cell // CELL_PAD * CELL_PAD if per_cell else 0
        return fit, None, Fraction(fit, workload.context_tokens)

    def at_point(
        self, workload: Workload, runtime: Runtime, batch: int, context: int
    ) -> tuple[Workload, Runtime]:
        """``batch`` sequences are ``batch`` slots: a set ``n_parallel`` moves with it."""
        wl = workload.replace(batch=batch, context_tokens=context)
        return wl, runtime if runtime.n_parallel is None else runtime.replace(n_parallel=batch)

    @staticmethod
    def _weights(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> Part:
        if runtime.loaded_weights_bytes is not None:
            return measured_part(
                "weights", "Weights", runtime.loaded_weights_bytes, "model buffer size"
            )
        w = weight_split(model, spec, runtime)
        return Part(
            "weights",
            "Weights (device)",
            w["device"],
            "repeating_layers * offloaded / num_hidden_layers + output_matrix",
            f"{w['layers']:,} * {w['on']} / {model.num_hidden_layers} + {w['output']:,}",
            (f"the input embedding ({w['embedding']:,} bytes) stays in host memory",),
        )

    @staticmethod
    def _kv(split: dict[str, int]) -> Part:
        k, v = split["kv_cache_bytes_k"], split["kv_cache_bytes_v"]
        return Part(
            "kv_cache",
            "KV cache (device)",
            k + v,
            "sum over device layers of cells * (row_k + row_v)",
            f"{k:,} (K) + {v:,} (V)",
            (f"{split['kv_cache_cells']:,} cells (padded to {CELL_PAD})",),
        )

    @staticmethod
    def _compute(
        model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Part:
        if runtime.compute_buffer_bytes is not None:
            return measured_part(
                "activations", "Compute buffer", runtime.compute_buffer_bytes, "compute buffer size"
            )
        graph = compute_buffer_bytes(model, workload, runtime)
        copy = output_copy_bytes(model, weights, runtime)
        fa = flash_attention(runtime, workload)
        notes = [
            "flash attention on: no f32 KQ scores in the compute buffer"
            if fa
            else "flash attention off: the f32 KQ scores are in the compute buffer",
            "modelled within about 15 %: calibrate from the log's compute buffer line",
        ]
        if copy:
            notes.insert(
                0,
                "the output layer stays in host memory (n_gpu_layers <= num_hidden_layers): its "
                f"matrix ({copy:,} bytes) is copied into the compute buffer for batches of "
                f"{OFFLOAD_MIN_BATCH}+ tokens (ggml-backend.cpp scheduler)",
            )
        return Part(
            "activations",
            "Compute buffer",
            graph + copy,
            "max(n_head * cells * n_ubatch * 4 [no FA], n_ubatch * vocab * 4)"
            " + n_ubatch * (hidden + ffn) * 4"
            + (" + output_matrix [output on host]" if copy else ""),
            f"{graph:,}" + (f" + {copy:,}" if copy else ""),
            tuple(notes),
        )

    def breakdown_figures(
        self, b: Breakdown, model: ModelSpec, workload: Workload, runtime: Runtime
    ) -> dict[str, int | Fraction]:
        """Cells, K/V and full/SWA splits, device weights and compute buffer."""
        return {
            **b.extras,
            "weights_bytes": b.weights.bytes,
            "kv_cache_bytes": b.kv_cache.bytes,
            "compute_buffer_bytes": b.activations.bytes,
            "output_buffer_bytes": slots(workload, runtime) * (model.vocab_size or 0) * 4,
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
        """None: llama.cpp sizes its cache from ``-c``, not from a budget."""
        return {}
