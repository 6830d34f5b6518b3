"""llama.cpp's memory accounting: KV cells, cache types, SWA cache, offload, compute buffer.

Sources (read in ggml-org/llama.cpp, not copied):

* ``src/llama-context.cpp``: ``n_ctx`` is the total number of cells shared by the
  ``n_seq_max`` (``-np``) slots, padded to the cache's padding (256; 32 in builds before
  the 2025 KV refactor when flash attention is off).
* ``src/llama-kv-cache.cpp``: per layer one K tensor of ``ggml_row_size(type_k,
  n_embd_k_gqa) * cells`` bytes and one V tensor likewise; layers offloaded to the GPU
  (the last ``n_gpu_layers``) keep their cache there, the others in host memory.
* ``src/llama-kv-cache-iswa.cpp``: sliding-window layers get
  ``pad256(min(n_ctx, n_swa * (unified ? n_seq : 1) + n_ubatch))`` cells unless ``swa_full``.
* ``ggml/src/ggml-common.h``: q8_0 34 bytes per 32 values, q4_0 18 per 32, f16 2, f32 4.
* DeepSeek MLA (``--engine-version`` decides, :func:`mla_cache_for`): builds before the
  MLA implementation (ggml-org/llama.cpp PR #12801, April 2025) store per-head K (nope +
  rope) and V; from it, K holds the latent ``kv_lora_rank + qk_rope_head_dim`` and V the
  latent ``kv_lora_rank`` again; from the V-less cache (PR #19067, January 2026) K only.
* Recurrent layers (Mamba, gated DeltaNet): ``llama_memory_recurrent`` with f32 ``r``
  (conv) and ``s`` (SSM) states, one per sequence slot (``src/llama-model.cpp``
  ``create_memory``; :mod:`vramdesk.core.state`).
* ``src/llama-model.cpp``: the input embedding always stays in host memory; a tied
  output matrix is a second copy on the device.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from vramdesk.core.engines.base import (
    FormulaProfile,
    check_kv_dtype,
    measured_part,
    with_parts,
)
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown, Part, weights_part
from vramdesk.core.formats import KVDtype, WeightSpec
from vramdesk.core.gguf_recipes import embedding_types
from vramdesk.core.kv_cache import layer_row_elements
from vramdesk.core.model import FULL, SLIDING, ModelSpec, count_params
from vramdesk.core.runtime import Engine, MlaCache, Runtime
from vramdesk.core.state import state_part
from vramdesk.core.units import ceil_bytes
from vramdesk.core.workload import Workload

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
#: The default ``block_size`` of :class:`Runtime`, which cannot be told from an explicit 16.
DEFAULT_BLOCK_SIZE = 16
#: Default physical batch ``n_ubatch`` (common/common.h).
DEFAULT_UBATCH = 512


#: First build whose ``-fa`` defaults to ``auto`` (on where the backend supports it), from
#: the flash-attention "auto" change of late August 2025; the exact build is an assumption.
FA_AUTO_SINCE_BUILD = 6325


def flash_attention(runtime: Runtime) -> bool:
    """Whether flash attention is on: ``flash_attn``, else the build's default.

    llama.cpp builds from :data:`FA_AUTO_SINCE_BUILD` on (and unknown builds) default to
    ``auto`` (on for GPU backends); older builds and Ollama default to off.
    """
    if runtime.flash_attn is not None:
        return runtime.flash_attn
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
    return -(-value // multiple) * multiple


def n_ctx(workload: Workload, runtime: Runtime) -> int:
    """Total cells before padding: ``context_tokens * slots`` (``-c`` covers every slot)."""
    return workload.context_tokens * slots(workload, runtime)


def slots(workload: Workload, runtime: Runtime) -> int:
    """Parallel sequences ``-np``: ``n_parallel`` or the workload's batch."""
    return runtime.n_parallel or workload.batch


def cells(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Cells per layer kind: ``{"full_attention": n, "sliding_attention": m}``.

    Full layers: ``pad256(n_ctx)``; sliding layers: ``pad256(min(n_ctx, n_swa * n_seq +
    n_ubatch))`` (``n_seq`` = 1 per stream when not unified), or the full size with ``swa_full``.
    """
    full = pad(n_ctx(workload, runtime))
    if not model.sliding_window or runtime.swa_full or not runtime.sliding_window_exploited:
        return {FULL: full, SLIDING: full}
    seqs = slots(workload, runtime) if runtime.kv_unified or slots(workload, runtime) == 1 else 1
    ubatch = runtime.n_ubatch or DEFAULT_UBATCH
    return {FULL: full, SLIDING: pad(min(full, model.sliding_window * seqs + ubatch))}


def cache_types(workload: Workload, runtime: Runtime) -> tuple[KVDtype, KVDtype]:
    """``(type_k, type_v)``: ``cache_type_k``/``cache_type_v`` or the workload's ``kv_dtype``."""
    return runtime.cache_type_k or workload.kv_dtype, runtime.cache_type_v or workload.kv_dtype


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
    return out


def compute_buffer_bytes(model: ModelSpec, workload: Workload, runtime: Runtime) -> int:
    """Device compute buffer, modelled: ``max(KQ, logits) + n_ubatch * (hidden + ffn) * 4``.

    Without flash attention the f32 scores ``n_head * cells * n_ubatch * 4``; the f32 logits
    ``n_ubatch * n_vocab * 4``; plus one f32 hidden + FFN row per ubatch token. Within about
    15 % of the published buffers (506 MiB Gemma-7B, 254 MiB Llama-3.2-1B, 588 MiB Llama-70B,
    2.44 GiB Qwen3-235B at n_ubatch 4096); a measured ``compute_buffer_bytes`` wins.
    """
    ubatch = runtime.n_ubatch or DEFAULT_UBATCH
    heads = model.num_attention_heads or model.num_key_value_heads
    kq = (
        0
        if flash_attention(runtime)
        else heads * cells(model, workload, runtime)[FULL] * ubatch * 4
    )
    logits = ubatch * (model.vocab_size or 0) * 4
    ffn = model.intermediate_size or (model.moe_intermediate_size or 0) * max(
        1, model.num_experts_per_tok
    )
    return max(kq, logits) + ubatch * ((model.hidden_size or 0) + ffn) * 4


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
    except Exception:  # noqa: BLE001 - shape incomplete: no split
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
        "device": device + output,
        "host": host,
    }


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
        """
        super().validate(model, weights, workload, runtime)
        name = "Ollama" if self.engine is Engine.OLLAMA else "llama.cpp"
        check_kv_dtype(name, workload.kv_dtype, self.kv_dtypes)
        for field in ("cache_type_k", "cache_type_v"):
            if getattr(runtime, field) is not None:
                check_kv_dtype(name, getattr(runtime, field), self.kv_dtypes, field)
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

        llama.cpp does not page its cache (cells, padded to 256): a ``block_size`` other than
        the default 16 is ignored with a warning (an explicit 16 cannot be told apart).
        """
        if model.is_mla:
            runtime = runtime.replace(mla_cache=mla_cache_for(runtime))
        base = super().estimate(model, weights, workload, runtime.replace(block_size=None))
        if runtime.block_size not in (None, DEFAULT_BLOCK_SIZE):
            base = with_parts(
                base,
                warnings=(
                    f"block_size {runtime.block_size} ignored: llama.cpp does not page its KV "
                    f"cache (cells padded to {CELL_PAD})",
                ),
            )
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
            weights=self._weights(model, weights, runtime),
            kv_cache=self._kv(split),
            activations=self._compute(model, workload, runtime),
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
    def _compute(model: ModelSpec, workload: Workload, runtime: Runtime) -> Part:
        if runtime.compute_buffer_bytes is not None:
            return measured_part(
                "activations", "Compute buffer", runtime.compute_buffer_bytes, "compute buffer size"
            )
        value = compute_buffer_bytes(model, workload, runtime)
        return Part(
            "activations",
            "Compute buffer",
            value,
            "max(n_head * cells * n_ubatch * 4 [no FA], n_ubatch * vocab * 4)"
            " + n_ubatch * (hidden + ffn) * 4",
            f"{value:,}",
            ("modelled within about 15 %: calibrate from the log's compute buffer line",),
        )

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
        """Cells, K/V and full/SWA splits, device weights and compute buffer."""
        b = self.estimate(model, weights, workload, runtime)
        out: dict[str, int | Fraction] = dict(b.extras)
        out.update(
            weights_bytes=b.weights.bytes,
            kv_cache_bytes=b.kv_cache.bytes,
            compute_buffer_bytes=b.activations.bytes,
            output_buffer_bytes=slots(workload, runtime) * (model.vocab_size or 0) * 4,
        )
        return out
