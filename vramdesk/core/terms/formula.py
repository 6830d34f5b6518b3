"""The neutral profile's terms: weights, activations, overhead (SPEC §3).

Every term is exact integer bytes together with its formula, once symbolic and once with
the user's values substituted, so that each figure can be checked by hand. These are the
source documents' formulas; :mod:`vramdesk.core.engines` profiles build on them, and
:func:`vramdesk.core.estimate.estimate` dispatches to the profiles. This module imports no
profile, so the engines depend on it and never on :mod:`vramdesk.core.estimate`.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from vramdesk.core._memo import memo
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.gguf_recipes import recipe_groups
from vramdesk.core.model.runtime import OverheadForm, Runtime
from vramdesk.core.model.spec import ModelSpec, count_params, ffn_width, total_params
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.kv_cache import kv_bytes_per_token, kv_cache_part, kv_cost_by_kind
from vramdesk.core.terms.state import state_part
from vramdesk.core.units import GIB, ceil_bytes, ceil_div

#: Bytes per logit: engines compute logits in fp32.
LOGIT_BYTES = 4
#: Bytes per activation element: fp16/bf16 compute.
ACTIVATION_BYTES = 2
#: Bytes per recurrent-state element in the neutral profile: the 16-bit model dtype.
STATE_BYTES = Fraction(2)


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
    except InputError:  # shape incomplete (count_params names the field): use the total
        return [("all", total_params(model), bits)]
    keep16 = Fraction(16)
    if not spec.format.quantized:
        return [("all", total_params(model), bits)]
    if spec.format.is_gguf and not spec.experts_only and spec.embeddings_unquantized is None:
        recipe = recipe_groups(model, spec.format.label)
        if recipe is not None:  # a llama.cpp file type: its tensor types, as llama-quantize picks
            return recipe
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
    return _weights_part(model, spec, runtime.tensor_parallel_size, runtime.pipeline_parallel_size)


@memo
def _weights_part(model: ModelSpec, spec: WeightSpec, tp: int, pp: int) -> Part:
    """:func:`weights_part` on ``tp * pp`` GPUs; it depends only on the model and the format."""
    runtime = Runtime(tensor_parallel_size=tp, pipeline_parallel_size=pp)
    shards = runtime.tensor_parallel_size * runtime.pipeline_parallel_size
    if model.checkpoint_bytes is not None and model.checkpoint_format == spec.storage_key():
        total = model.checkpoint_bytes
        formula = "checkpoint bytes / (TP * PP)"
        subst = f"{total:,} / ({runtime.tensor_parallel_size} * {runtime.pipeline_parallel_size})"
        return Part(
            "weights",
            "Weights",
            ceil_bytes(Fraction(total, shards)),
            formula,
            subst,
            ("exact size from the checkpoint's index (total_size)",),
        )
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
    if spec.format.is_gguf and groups[0][0] not in ("all", "linear"):
        notes.append(
            f"{spec.format.label}: the tensor types llama-quantize picks for this file type "
            "(src/llama-quant.cpp); 1-D tensors F32"
        )
    elif not spec.format.exact:
        notes.append(
            f"{spec.format.label} is a mixed file type: {_fmt_bits(spec.format.bits)} bits "
            "per weight is approximate; import the .gguf for the exact size"
        )
    if spec.effective_group_size is not None:
        notes.append(
            f"group quantization: {spec.format.bits} + ({spec.scale_bits} + {spec.zero_bits}) / "
            f"{spec.effective_group_size} = {_fmt_bits(spec.bits_per_weight)} bits per weight"
        )
    if spec.keeps_embeddings:  # only ever true of a quantized format
        notes.append("embeddings and output head kept 16-bit, as real checkpoints store them")
    return Part(
        "weights", "Weights", ceil_bytes(Fraction(total, shards)), formula, subst, tuple(notes)
    )


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
        return Part(
            "activations",
            "Activations",
            0,
            "0 (no prefill modelled)",
            "0 (give a prompt length to model the prefill peak)",
        )
    hidden = model.hidden_size or 0
    inter = ffn_width(model)
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
    formula = (
        f"{flight_sym} * (hidden + intermediate) * 2 * live_buffers + logit_positions * vocab * 4"
    )
    subst = (
        f"{flight_val} * ({hidden} + {inter}) * 2 * {workload.live_buffers} + "
        f"{positions:,} * {vocab} * 4"
    )
    notes = (
        f"live_buffers = {workload.live_buffers} is an assumption; calibrate it by measurement",
    )
    return Part("activations", "Activations", body + logits, formula, subst, notes)


def activation_bytes(model: ModelSpec, workload: Workload, batch: int | None = None) -> int:
    """The bytes of :func:`activation_part`, without its formula text (the solver's need).

    The same integers: ``in_flight * (hidden + intermediate) * 2 * live_buffers +
    positions * vocab * 4``; 0 without a prompt length. ``batch`` replaces the workload's.
    """
    if workload.prompt_len is None:
        return 0
    batch = workload.batch if batch is None else batch
    hidden, inter = model.hidden_size or 0, ffn_width(model)
    if workload.chunk_tokens is not None:
        in_flight = min(workload.chunk_tokens, batch * workload.prompt_len)
    else:
        in_flight = batch * workload.prompt_len
    body = in_flight * (hidden + inter) * ACTIVATION_BYTES * workload.live_buffers
    positions = in_flight if workload.all_logits else min(batch, in_flight)
    return body + positions * (model.vocab_size or 0) * LOGIT_BYTES


# -------------------------------------------------------------------- overhead
def overhead_part(
    weights: Part, kv: Part, act: Part, runtime: Runtime, state_bytes: int = 0
) -> Part:
    """Framework overhead: CUDA context, workspaces, allocator slack (SPEC §3.5).

    Multiplier form: ``overhead = (w + kv + act) * (factor - 1) + fixed`` so that
    ``total = (w + kv + act) * factor + fixed`` (defaults 1.15 and 1 GiB). Workspace form:
    ``overhead = w * fraction`` (default 0.05). Rounded up to whole bytes.
    """
    base = weights.bytes + kv.bytes + act.bytes + state_bytes
    if runtime.overhead is OverheadForm.WORKSPACE:
        frac = runtime.workspace_fraction
        return Part(
            "overhead",
            "Overhead (workspace)",
            ceil_bytes(weights.bytes * Fraction(frac)),
            "weights * workspace_fraction",
            f"{weights.bytes:,} * {float(frac):g}",
        )
    factor_minus_one, factor_text = _factor_terms(runtime.overhead_factor)
    fixed = runtime.fixed_overhead_bytes
    # ceil(base * (factor - 1)) in integers: the same bytes as through a Fraction, faster
    extra = ceil_div(base * factor_minus_one.numerator, factor_minus_one.denominator) + fixed
    return Part(
        "overhead",
        "Overhead (multiplier)",
        extra,
        "(weights + kv + activations) * (factor - 1) + fixed"
        if not state_bytes
        else "(weights + kv + state + activations) * (factor - 1) + fixed",
        f"{base:,} * ({factor_text} - 1) + {fixed:,}",
        (
            f"factor {factor_text} covers allocator fragmentation; fixed "
            f"{fixed / GIB:g} GiB covers the CUDA context and workspaces",
        ),
    )


@functools.lru_cache(maxsize=64, typed=True)
def _factor_terms(factor: float | Fraction) -> tuple[Fraction, str]:
    """``(Fraction(factor) - 1, factor as text)`` of an overhead factor (few values recur)."""
    exact = Fraction(factor)
    return exact - 1, f"{float(exact):g}"


def formula_estimate(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
) -> Breakdown:
    """The neutral profile of the source documents (inputs already validated)."""
    w = weights_part(model, weights, runtime)
    kv = kv_cache_part(model, workload, runtime)
    act = activation_part(model, workload, runtime)
    state = state_part(
        model,
        workload.batch,
        runtime,
        STATE_BYTES,
        STATE_BYTES,
        "conv and SSM state in the 16-bit model dtype (vLLM mamba_cache_dtype / "
        "mamba_ssm_cache_dtype auto)",
    )
    over = overhead_part(w, kv, act, runtime, state.bytes if state else 0)
    return Breakdown(
        weights=w,
        kv_cache=kv,
        activations=act,
        overhead=over,
        kv_bytes_per_token=kv_bytes_per_token(model, workload.kv_dtype, runtime),
        params=total_params(model),
        active_params=_active_params(model),
        gpus=runtime.tensor_parallel_size * runtime.pipeline_parallel_size,
        engine=runtime.engine,
        warnings=tuple(estimate_warnings(model, weights, workload)),
        state=state,
        kv_by_kind=tuple(kv_cost_by_kind(model, workload.kv_dtype, runtime)),
        live_tokens=workload.live_tokens,
    )


def _active_params(model: ModelSpec) -> int | None:
    if not model.is_moe:
        return None
    try:
        return count_params(model).active
    except InputError:  # shape incomplete (count_params names the field)
        return None


def estimate_warnings(model: ModelSpec, weights: WeightSpec, workload: Workload) -> list[str]:
    """Plain-language warnings that do not stop the estimate."""
    out = []
    limit = model.max_position_embeddings
    if limit and workload.context_tokens > limit:
        out.append(
            f"context_tokens {workload.context_tokens:,} exceeds max_position_embeddings "
            f"{limit:,}: computed anyway (rope scaling may allow it)"
        )
    if not weights.format.exact:
        out.append(
            f"{weights.format.label} is a mixed llama.cpp file type: weight bytes are approximate"
        )
    if workload.chunk_tokens is not None and workload.prompt_len is None:
        out.append("chunk_tokens has no effect without a prompt length (no prefill is modelled)")
    if weights.format is WeightFormat.FP32:
        out.append("fp32 weights: most engines load in 16 bits (set bf16 if you will)")
    return out
