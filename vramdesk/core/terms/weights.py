"""The weights term: bytes of every tensor group at its bit width, per GPU (SPEC §3.2).

Engine-neutral: engines that load weights differently (vLLM's padding, llama.cpp's split)
start from :func:`weights_part` and :func:`weight_groups`.
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core._memo import memo
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.gguf_recipes import recipe_groups
from vramdesk.core.model.modules import kept_params
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec, ParamCount, count_params, total_params
from vramdesk.core.terms.breakdown import Part
from vramdesk.core.units import ceil_bytes


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
    if spec.unquantized_modules is not None and not spec.experts_only:
        return _planned_groups(model, spec, counts)
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


def _planned_groups(
    model: ModelSpec, spec: WeightSpec, counts: ParamCount
) -> list[tuple[str, int, Fraction]]:
    """Groups under the checkpoint's own not-quantized list (:func:`kept_params`).

    ``quantized``: the linear modules no pattern matches, at the format's width (plus any
    difference between ``model.params`` and the count, as in :func:`weight_groups`);
    ``16-bit``: the rest (matched modules, embeddings, norms, routers, biases, vision tower).
    """
    quantized, _ = kept_params(model, spec.unquantized_modules or (), "quantization_config")
    quantized += total_params(model) - counts.total
    rest = total_params(model) - quantized
    return _merge_equal_bits(
        [("quantized", quantized, spec.bits_per_weight), ("16-bit", rest, Fraction(16))]
    )


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
        formula, subst = "checkpoint bytes", f"{total:,}"
        if shards > 1:
            formula += " / (TP * PP)"
            subst += f" / ({runtime.tensor_parallel_size} * {runtime.pipeline_parallel_size})"
        return Part(
            "weights",
            "Weights",
            ceil_bytes(Fraction(total, shards)),
            formula,
            subst,
            (
                "exact size of the checkpoint's tensors (its index's total_size or its "
                "safetensors headers; multi-token-prediction tensors left out)",
            ),
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
    if spec.format.is_gguf and groups[0][0] not in ("all", "linear", "quantized", "16-bit"):
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
    if spec.unquantized_modules is not None and not spec.experts_only:
        kept = ", ".join(spec.unquantized_modules[:4]) or "none"
        more = len(spec.unquantized_modules) - 4
        notes.append(
            f"the checkpoint's not-quantized modules stay 16-bit ({kept}"
            + (f", and {more} more)" if more > 0 else ")")
        )
    elif spec.keeps_embeddings:  # only ever true of a quantized format
        notes.append("embeddings and output head kept 16-bit, as real checkpoints store them")
    return Part(
        "weights", "Weights", ceil_bytes(Fraction(total, shards)), formula, subst, tuple(notes)
    )
