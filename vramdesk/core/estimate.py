"""The forward estimate: weights, KV cache, activations, overhead (SPEC §3).

Every term is exact integer bytes together with its formula, once symbolic and
once with the user's values substituted, so that each figure can be checked by
hand. :func:`estimate` dispatches the terms to the runtime's engine profile
(:mod:`vramdesk.core.engines`); the neutral ``formula`` profile implements the
source documents' formulas and lives here as plain functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from vramdesk.core.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model import FULL, ModelSpec, count_params, total_params
from vramdesk.core.runtime import Engine, MlaCache, OverheadForm, Runtime
from vramdesk.core.units import GIB, Unit, ceil_bytes, format_bytes
from vramdesk.core.workload import Workload

#: Bytes per logit: engines compute logits in fp32.
LOGIT_BYTES = 4
#: Bytes per activation element: fp16/bf16 compute.
ACTIVATION_BYTES = 2


@dataclass(frozen=True, slots=True)
class Part:
    """One term of the breakdown.

    Attributes
    ----------
    key : str
        ``"weights"``, ``"kv_cache"``, ``"activations"`` or ``"overhead"``.
    bytes : int
        Exact bytes (per GPU when TP/PP > 1).
    formula : str
        The formula in symbols.
    substituted : str
        The same formula with the inputs' values in place of the symbols.
    assumptions : tuple of str
        Constants the figure rests on that a user may want to change or calibrate.
    """

    key: str
    label: str
    bytes: int
    formula: str
    substituted: str
    assumptions: tuple[str, ...] = ()

    def explain(self, unit: Unit = Unit.GIB) -> str:
        """Show the work: ``label = formula = substituted = N bytes (X GiB)``."""
        text = f"{self.label} = {self.formula}\n  = {self.substituted}\n  = {self.bytes:,} bytes ({format_bytes(self.bytes, unit, 4)})"
        for note in self.assumptions:
            text += f"\n  assumption: {note}"
        return text


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The result of :func:`estimate`: four parts and their total, per GPU.

    ``extras`` carries engine-specific figures (for example vLLM's RoPE cache or
    llama.cpp's compute buffer) by name, in bytes.
    """

    weights: Part
    kv_cache: Part
    activations: Part
    overhead: Part
    kv_bytes_per_token: int
    params: int
    active_params: int | None
    gpus: int
    engine: Engine
    warnings: tuple[str, ...] = ()
    extras: dict[str, int] = field(default_factory=dict)

    @property
    def parts(self) -> tuple[Part, Part, Part, Part]:
        """The four parts in display order."""
        return (self.weights, self.kv_cache, self.activations, self.overhead)

    @property
    def total_bytes(self) -> int:
        """Sum of the four parts, bytes per GPU."""
        return sum(p.bytes for p in self.parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with exact integer bytes under SPEC §8's key names."""
        return {
            "weights_bytes": self.weights.bytes,
            "kv_cache_bytes": self.kv_cache.bytes,
            "activation_bytes": self.activations.bytes,
            "overhead_bytes": self.overhead.bytes,
            "total_bytes": self.total_bytes,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "params": self.params,
            "active_params": self.active_params,
            "gpus": self.gpus,
            "engine": self.engine.value,
            "formulas": {p.key: {"formula": p.formula, "substituted": p.substituted,
                                 "assumptions": list(p.assumptions)} for p in self.parts},
            "warnings": list(self.warnings),
            "extras": dict(self.extras),
        }


# --------------------------------------------------------------------- weights
def _fmt_bits(bits: Fraction) -> str:
    return f"{float(bits):g}"


def weight_groups(model: ModelSpec, spec: WeightSpec) -> list[tuple[str, int, Fraction]]:
    """Split the parameters into groups that share a bit width.

    Returns
    -------
    list of (name, params, bits_per_weight)
        When the architecture is known: ``linear`` (attention, MLP, experts at the
        quantized width), ``embeddings`` (embedding + untied lm_head), ``norms`` and
        ``router`` (16-bit when the format is quantized). When only the total is
        known: one group ``all`` at the format's width. If ``model.params`` is given
        as well as the shape, the linear group absorbs the difference so that the
        groups add up to ``params`` exactly.
    """
    bits = spec.bits_per_weight
    try:
        counts = count_params(model)
    except Exception:  # noqa: BLE001 - shape incomplete: fall back to the total
        return [("all", total_params(model), bits)]
    keep16 = Fraction(16)
    if not spec.format.quantized:
        return [("all", total_params(model), bits)]
    # gpt-oss MXFP4 quantizes only the experts: embeddings and lm_head stay 16-bit
    embed_bits = keep16 if spec.keeps_embeddings or spec.experts_only else bits
    small_bits = keep16
    groups: list[tuple[str, int, Fraction]] = []
    if spec.experts_only:
        dense = counts.attention + counts.mlp
        groups += [("experts", counts.routed_experts, bits), ("attention+dense MLP", dense, keep16)]
    else:
        groups.append(("linear", counts.attention + counts.mlp + counts.routed_experts, bits))
    groups.append(("embeddings", counts.embedding + counts.lm_head, embed_bits))
    small = counts.norms + counts.router + counts.other + counts.expert_biases
    groups.append(("norms+router", small, small_bits))
    if model.params is not None and model.params != counts.total:
        name, n, b = groups[0]
        groups[0] = (name, n + model.params - counts.total, b)
    return _merge_equal_bits(groups)


def _merge_equal_bits(groups: list[tuple[str, int, Fraction]]) -> list[tuple[str, int, Fraction]]:
    """Join groups that share a bit width (``linear`` and quantized ``embeddings``, say)."""
    merged: dict[Fraction, tuple[str, int, Fraction]] = {}
    for name, n, bits in groups:
        if n == 0:
            continue
        if bits in merged:
            old_name, old_n, _ = merged[bits]
            merged[bits] = (f"{old_name}+{name}", old_n + n, bits)
        else:
            merged[bits] = (name, n, bits)
    return list(merged.values())


def weights_part(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> Part:
    """Weight memory per GPU: ``sum(params_g * bits_g / 8) / (TP * PP)``.

    Uses the checkpoint's exact byte size (``model.checkpoint_bytes``) when the
    weights keep the checkpoint's own format.

    Returns
    -------
    Part
        ``key="weights"``; bytes rounded up once per group, then divided evenly
        (rounded up) over ``tensor_parallel_size * pipeline_parallel_size`` GPUs.
    """
    shards = runtime.tensor_parallel_size * runtime.pipeline_parallel_size
    if model.checkpoint_bytes is not None and model.checkpoint_format == spec.storage_key():
        total = model.checkpoint_bytes
        formula = "checkpoint bytes / (TP * PP)"
        subst = f"{total:,} / ({runtime.tensor_parallel_size} * {runtime.pipeline_parallel_size})"
        return Part("weights", "Weights", ceil_bytes(Fraction(total, shards)), formula, subst,
                    ("exact size from the checkpoint's index (total_size)",))
    groups = weight_groups(model, spec)
    total = sum(ceil_bytes(Fraction(n) * b / 8) for _, n, b in groups)
    if len(groups) == 1:
        formula = "params * bits_per_weight / 8"
        subst = f"{groups[0][1]:,} * {_fmt_bits(groups[0][2])} / 8"
    else:
        formula = " + ".join(f"{name} params * {_fmt_bits(b)} / 8" for name, _, b in groups)
        subst = " + ".join(f"{n:,} * {_fmt_bits(b)} / 8" for _, n, b in groups)
    if shards > 1:
        formula = f"({formula}) / (TP * PP)"
        subst = f"({subst}) / ({runtime.tensor_parallel_size} * {runtime.pipeline_parallel_size})"
    notes = []
    if not spec.format.exact:
        notes.append(f"{spec.format.label} is a mixed file type: {_fmt_bits(spec.format.bits)} bits "
                     "per weight is approximate; import the .gguf for the exact size")
    if spec.group_size is not None:
        notes.append(f"group quantization: {spec.format.bits} + ({spec.scale_bits} + {spec.zero_bits}) / "
                     f"{spec.group_size} = {_fmt_bits(spec.bits_per_weight)} bits per weight")
    return Part("weights", "Weights", ceil_bytes(Fraction(total, shards)), formula, subst, tuple(notes))


# -------------------------------------------------------------------- KV cache
def kv_heads_per_gpu(model: ModelSpec, runtime: Runtime) -> int:
    """KV heads each GPU holds: ``max(1, num_key_value_heads // TP)``.

    Heads are replicated when TP exceeds them (vLLM ``get_num_kv_heads``).
    """
    return max(1, model.num_key_value_heads // runtime.tensor_parallel_size)


def kv_row_elements(model: ModelSpec, runtime: Runtime) -> tuple[int, int]:
    """Elements cached per token per layer per GPU, as ``(k, v)``.

    Standard attention: ``kv_heads_per_gpu * head_dim`` each. MLA latent:
    ``kv_lora_rank + qk_rope_head_dim`` in one row and no V (replicated over TP,
    as vLLM and SGLang store it). MLA expanded: per head ``qk_nope + qk_rope`` for K
    and ``v_head_dim`` for V.
    """
    if model.is_mla:
        if runtime.mla_cache is MlaCache.LATENT:
            return model.kv_lora_rank + (model.qk_rope_head_dim or 0), 0
        heads = max(1, (model.num_attention_heads or 1) // runtime.tensor_parallel_size)
        nope, rope = model.qk_nope_head_dim or 0, model.qk_rope_head_dim or 0
        return heads * (nope + rope), heads * (model.v_head_dim or nope)
    width = kv_heads_per_gpu(model, runtime) * model.resolved_head_dim
    return width, width


def kv_bytes_per_token_per_layer(model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime) -> int:
    """Bytes one token takes in one layer's KV cache on one GPU.

    ``2 * kv_heads * head_dim * e`` for standard attention (``e`` = bytes per element;
    ggml block types ``q8_0`` = 34/32 and ``q4_0`` = 18/32 bytes per element, each row
    rounded up to whole bytes); ``(kv_lora_rank + qk_rope_head_dim) * e`` for MLA.
    """
    k, v = kv_row_elements(model, runtime)
    e = kv_dtype.bytes_per_element
    return ceil_bytes(k * e) + ceil_bytes(v * e)


def _gpu_layers(model: ModelSpec, runtime: Runtime) -> list[str]:
    """Layer types of the pipeline stage that holds the most layers (the first one)."""
    types = list(model.resolved_layer_types())
    per_stage = math.ceil(len(types) / runtime.pipeline_parallel_size)
    stages = [types[i:i + per_stage] for i in range(0, len(types), per_stage)]
    return max(stages, key=lambda s: (len(s), s.count(FULL)))


def kv_bytes_per_token(model: ModelSpec, kv_dtype: KVDtype, runtime: Runtime) -> int:
    """KV bytes per token over all layers of one GPU, no window cap.

    ``2 * layers * kv_heads * head_dim * e``: 7B MHA (32 x 32 x 128, fp16) gives
    524,288 bytes = 512 KiB per token; 70B GQA-8 (80 x 8 x 128) 327,680 = 320 KiB.
    """
    return len(_gpu_layers(model, runtime)) * kv_bytes_per_token_per_layer(model, kv_dtype, runtime)


def _round_block(tokens: int, block: int | None) -> int:
    return tokens if block is None else -(-tokens // block) * block


def shared_prefix_tokens(workload: Workload, runtime: Runtime) -> int:
    """Tokens of the common prefix stored once: its whole blocks (all of it when unpaged)."""
    prefix = min(runtime.shared_prefix_tokens, workload.context_tokens)
    block = runtime.block_size
    return prefix if block is None else (prefix // block) * block


def cached_tokens(model: ModelSpec, workload: Workload, runtime: Runtime) -> dict[str, int]:
    """Tokens each kind of layer caches over all sequences.

    Returns
    -------
    dict
        ``{"full_attention": n, "sliding_attention": m}``. Full layers cache
        ``batch * ceil_block(context) - (batch - 1) * shared`` where ``shared`` is the
        whole blocks of the common prefix (:func:`shared_prefix_tokens`); sliding layers
        cache ``batch * ceil_block(min(context, sliding_window))`` when the engine exploits
        the window (the prefix is not shared there).
    """
    block, ctx, batch = runtime.block_size, workload.context_tokens, workload.batch
    full = batch * _round_block(ctx, block) - (batch - 1) * shared_prefix_tokens(workload, runtime)
    if model.sliding_window and runtime.sliding_window_exploited:
        sliding = batch * _round_block(min(ctx, model.sliding_window), block)
    else:
        sliding = full
    return {"full_attention": full, "sliding_attention": sliding}


def kv_cache_part(model: ModelSpec, workload: Workload, runtime: Runtime) -> Part:
    """KV-cache memory per GPU.

    ``kv_bytes = sum over layers of per_token_per_layer * tokens_cached(layer)``
    (SPEC §3.3), with ``per_token_per_layer`` from :func:`kv_bytes_per_token_per_layer`
    and ``tokens_cached`` from :func:`cached_tokens`.
    """
    per_layer = kv_bytes_per_token_per_layer(model, workload.kv_dtype, runtime)
    layers = _gpu_layers(model, runtime)
    tokens = cached_tokens(model, workload, runtime)
    n_full = layers.count(FULL)
    n_slide = len(layers) - n_full
    total = per_layer * (n_full * tokens["full_attention"] + n_slide * tokens["sliding_attention"])
    k, v = kv_row_elements(model, runtime)
    e = workload.kv_dtype.bytes_per_element
    if model.is_mla and not v:
        row = "(kv_lora_rank + qk_rope_head_dim) * e"
        row_s = f"({model.kv_lora_rank} + {model.qk_rope_head_dim}) * {_fmt_e(e)}"
    elif model.is_mla:
        row = "heads * (qk_nope + qk_rope + v_head_dim) * e"
        row_s = f"({k} + {v}) * {_fmt_e(e)}"
    else:
        row = "2 * kv_heads * head_dim * e"
        row_s = f"2 * {kv_heads_per_gpu(model, runtime)} * {model.resolved_head_dim} * {_fmt_e(e)}"
    token_text = _token_text(workload, runtime)
    if n_slide:
        formula = (f"{row} * (full_layers * tokens_full + sliding_layers * tokens_sliding)")
        subst = (f"{row_s} * ({n_full} * {tokens['full_attention']:,} + {n_slide} * "
                 f"{tokens['sliding_attention']:,})")
    else:
        formula = f"{row} * layers * {token_text[0]}"
        subst = f"{row_s} * {n_full} * {token_text[1]}"
    notes = []
    if model.is_mla:
        notes.append("MLA cache is the compressed latent (vLLM/SGLang layout), replicated on every TP rank"
                     if not v else "MLA cache expanded to per-head K and V (older llama.cpp layout)")
    if n_slide:
        notes.append(f"{n_slide} sliding-window layers cache at most {model.sliding_window} tokens per sequence")
    return Part("kv_cache", "KV cache", total, formula, subst, tuple(notes))


def _fmt_e(e: Fraction) -> str:
    return str(e) if e.denominator != 1 else str(e.numerator)


def _token_text(workload: Workload, runtime: Runtime) -> tuple[str, str]:
    """Symbolic and substituted text of the cached-token count of full layers."""
    ctx, batch, block = workload.context_tokens, workload.batch, runtime.block_size
    paged = block is not None and ctx % block != 0
    sym = "ceil_block(context)" if paged else "context"
    val = f"{_round_block(ctx, block):,}" if paged else f"{ctx:,}"
    shared = shared_prefix_tokens(workload, runtime)
    if shared and batch > 1:
        return (f"(batch * {sym} - (batch - 1) * shared_prefix)",
                f"({batch} * {val} - {batch - 1} * {shared:,})")
    return f"{sym} * batch", f"{val} * {batch}"


# ----------------------------------------------------------------- activations
def activation_part(model: ModelSpec, workload: Workload, runtime: Runtime) -> Part:
    """Prefill activation peak per GPU (SPEC §3.4).

    ``tokens_in_flight * (hidden_size + intermediate_size) * 2 * live_buffers`` plus the
    logits ``positions * vocab_size * 4``; ``tokens_in_flight = batch * prompt_len`` or the
    chunk size with chunked prefill; ``positions`` = one per sequence (last position)
    unless ``all_logits``. Zero when no prompt length is given.

    Notes
    -----
    ``live_buffers`` (default 4) is the source article's assumption: how many buffers of
    width ``hidden + intermediate`` are alive at the peak depends on kernel fusion and the
    allocator, and must be calibrated by measurement.
    """
    if workload.prompt_len is None:
        return Part("activations", "Activations", 0, "0 (no prefill modelled)",
                    "0 (give a prompt length to model the prefill peak)")
    hidden = model.hidden_size or 0
    inter = model.intermediate_size or ((model.moe_intermediate_size or 0) * max(1, model.num_experts_per_tok))
    if workload.chunk_tokens is not None:
        in_flight = min(workload.chunk_tokens, workload.batch * workload.prompt_len)
        flight_sym, flight_val = "min(chunk, batch * prompt_len)", f"{in_flight:,}"
    else:
        in_flight = workload.batch * workload.prompt_len
        flight_sym, flight_val = "batch * prompt_len", f"{workload.batch} * {workload.prompt_len:,}"
    body = in_flight * (hidden + inter) * ACTIVATION_BYTES * workload.live_buffers
    positions = in_flight if workload.all_logits else min(workload.batch, in_flight)
    vocab = model.vocab_size or 0
    logits = positions * vocab * LOGIT_BYTES
    formula = f"{flight_sym} * (hidden + intermediate) * 2 * live_buffers + logit_positions * vocab * 4"
    subst = (f"{flight_val} * ({hidden} + {inter}) * 2 * {workload.live_buffers} + "
             f"{positions:,} * {vocab} * 4")
    notes = (f"live_buffers = {workload.live_buffers} is an assumption; calibrate it by measurement",)
    return Part("activations", "Activations", body + logits, formula, subst, notes)


# -------------------------------------------------------------------- overhead
def overhead_part(weights: Part, kv: Part, act: Part, runtime: Runtime) -> Part:
    """Framework overhead: CUDA context, workspaces, allocator slack (SPEC §3.5).

    Multiplier form: ``overhead = (w + kv + act) * (factor - 1) + fixed`` so that
    ``total = (w + kv + act) * factor + fixed`` (defaults 1.15 and 1 GiB). Workspace form:
    ``overhead = w * fraction`` (default 0.05). Rounded up to whole bytes.
    """
    base = weights.bytes + kv.bytes + act.bytes
    if runtime.overhead is OverheadForm.WORKSPACE:
        frac = runtime.workspace_fraction
        return Part("overhead", "Overhead (workspace)", ceil_bytes(weights.bytes * Fraction(frac)),
                    "weights * workspace_fraction", f"{weights.bytes:,} * {float(frac):g}")
    factor = Fraction(runtime.overhead_factor)
    fixed = runtime.fixed_overhead_bytes
    extra = ceil_bytes(base * (factor - 1)) + fixed
    return Part("overhead", "Overhead (multiplier)", extra,
                "(weights + kv + activations) * (factor - 1) + fixed",
                f"{base:,} * ({float(factor):g} - 1) + {fixed:,}",
                (f"factor {float(factor):g} covers allocator fragmentation; fixed "
                 f"{fixed / GIB:g} GiB covers the CUDA context and workspaces",))


# -------------------------------------------------------------------- estimate
def estimate(model: ModelSpec, weights: WeightSpec, workload: Workload,
             runtime: Runtime | None = None) -> Breakdown:
    """Forward estimate: the memory one GPU needs for this model and traffic.

    Parameters
    ----------
    model : ModelSpec
        Architecture (validated here).
    weights : WeightSpec
        Weight storage format.
    workload : Workload
        Context, concurrency, prompt, KV dtype.
    runtime : Runtime, optional
        Engine knobs; defaults to :class:`Runtime()` (formula profile).

    Returns
    -------
    Breakdown
        Exact bytes per GPU for weights, KV cache, activations and overhead, each with
        its formula.

    Raises
    ------
    InputError
        Any invalid field, named (``num_key_value_heads``, ``context_tokens``, ...).
    """
    from vramdesk.core.engines import profile_for

    runtime = runtime or Runtime()
    validate_inputs(model, weights, workload, runtime)
    return profile_for(runtime.engine).estimate(model, weights, workload, runtime)


def validate_inputs(model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime) -> None:
    """Validate the four inputs and their combination.

    Raises
    ------
    InputError
        The first invalid field, e.g. ``tensor_parallel_size`` not dividing the KV heads.
    """
    from vramdesk.core.errors import InputError

    model.validate()
    weights.validate()
    workload.validate()
    runtime.validate()
    tp = runtime.tensor_parallel_size
    kv, heads = model.num_key_value_heads, model.num_attention_heads
    if tp > 1 and heads and heads % tp:
        raise InputError("tensor_parallel_size", f"must divide num_attention_heads ({heads})", "divisor",
                         {"heads": heads})
    if tp > 1 and not model.is_mla and kv % tp and tp % kv:
        raise InputError("tensor_parallel_size",
                         f"must divide num_key_value_heads ({kv}) or be a multiple of it", "divisor")
    if runtime.shared_prefix_tokens > workload.context_tokens:
        raise InputError("shared_prefix_tokens", f"must not exceed context_tokens ({workload.context_tokens})",
                         "too_large", {"max": workload.context_tokens})
    if runtime.pipeline_parallel_size > model.num_hidden_layers:
        raise InputError("pipeline_parallel_size",
                         f"must not exceed num_hidden_layers ({model.num_hidden_layers})", "too_large")


def formula_estimate(model: ModelSpec, weights: WeightSpec, workload: Workload,
                     runtime: Runtime) -> Breakdown:
    """The neutral profile of the source documents (inputs already validated)."""
    w = weights_part(model, weights, runtime)
    kv = kv_cache_part(model, workload, runtime)
    act = activation_part(model, workload, runtime)
    over = overhead_part(w, kv, act, runtime)
    return Breakdown(
        weights=w, kv_cache=kv, activations=act, overhead=over,
        kv_bytes_per_token=kv_bytes_per_token(model, workload.kv_dtype, runtime),
        params=total_params(model), active_params=_active_params(model),
        gpus=runtime.tensor_parallel_size * runtime.pipeline_parallel_size,
        engine=runtime.engine, warnings=tuple(estimate_warnings(model, weights, workload)),
    )


def _active_params(model: ModelSpec) -> int | None:
    if not model.is_moe:
        return None
    try:
        return count_params(model).active
    except Exception:  # noqa: BLE001 - shape incomplete
        return None


def estimate_warnings(model: ModelSpec, weights: WeightSpec, workload: Workload) -> list[str]:
    """Plain-language warnings that do not stop the estimate."""
    out = []
    limit = model.max_position_embeddings
    if limit and workload.context_tokens > limit:
        out.append(f"context_tokens {workload.context_tokens:,} exceeds max_position_embeddings "
                   f"{limit:,}: computed anyway (rope scaling may allow it)")
    if not weights.format.exact:
        out.append(f"{weights.format.label} is a mixed llama.cpp file type: weight bytes are approximate")
    if workload.chunk_tokens is not None and workload.prompt_len is None:
        out.append("chunk_tokens has no effect without a prompt length (no prefill is modelled)")
    if weights.format is WeightFormat.FP32:
        out.append("fp32 weights: most engines load in 16 bits (set bf16 if you will)")
    return out

