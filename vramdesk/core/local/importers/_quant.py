"""The checkpoint's own weight format, from ``quantization_config`` and ``torch_dtype``.

Sources
-------
* GPTQ (``quant_method: gptq``): int ``bits`` per weight plus an fp16 scale per
  ``group_size`` weights, and a zero point unless ``sym`` (AutoGPTQ / transformers
  ``GPTQConfig``). AWQ (``quant_method: awq``): the same layout, ``zero_point`` true by default.
* fp8 block quantization (DeepSeek-V3 ``weight_block_size [128, 128]``): one float32
  ``weight_scale_inv`` per 128 x 128 block = 16,384 weights, no zero point.
* MXFP4 (gpt-oss): only the routed experts are quantized; ``modules_to_not_convert``
  keeps attention, router, embeddings and lm_head in bf16.
* bitsandbytes: ``load_in_4bit`` with ``bnb_4bit_quant_type`` nf4/fp4 (4 bits + absmax
  per 64) or ``load_in_8bit`` (LLM.int8, 8 bits).
* compressed-tensors (``quant_method: compressed-tensors``): ``config_groups.*.weights``
  ``num_bits`` / ``type`` / ``strategy`` / ``group_size``, applied to the modules of
  ``targets`` (``"Linear"``: every linear layer, lm_head included) except ``ignore``.
* ModelOpt (``quant_method: modelopt``, flat or under ``quantization``; or the
  ``hf_quant_config.json`` beside config.json, as vLLM ``modelopt.py`` reads it):
  ``quant_algo`` FP8 (one fp32 scale per tensor) or NVFP4 (E2M1 + an E4M3 scale per 16 =
  4.5 bits; the per-tensor fp32 scales are a few bytes), except ``exclude_modules``/``ignore``.
* fbgemm_fp8: fp8 weights with one fp32 scale per output channel.

Mixed precision: ``modules_to_not_convert`` (fp8, fbgemm_fp8, AWQ, GPTQ),
``llm_int8_skip_modules`` (bitsandbytes), ``ignore`` / ``exclude_modules`` become
``WeightSpec.unquantized_modules`` and are matched against the model's modules
(:mod:`vramdesk.core.model.modules`); a list vramdesk cannot map is refused with the
pattern and the field named, never sized as if every layer were quantized. transformers keeps
lm_head 16-bit under fp8 / fbgemm_fp8 (and vLLM's ``ParallelLMHead`` is never quantized by
them); AWQ and GPTQ quantize the decoder layers only; bitsandbytes and compressed-tensors keep
lm_head only when their list names it (``get_modules_to_not_convert``: an explicit
``llm_int8_skip_modules`` replaces transformers' default).
"""

from __future__ import annotations

from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.modules import kept_params
from vramdesk.core.model.spec import ModelSpec

_DTYPES = {
    "float32": WeightFormat.FP32,
    "float16": WeightFormat.FP16,
    "bfloat16": WeightFormat.BF16,
    "float": WeightFormat.FP32,
    "half": WeightFormat.FP16,
}

#: fp8 block scales: one float32 per block.
FP8_SCALE_BITS = 32


def weights_from_config(
    cfg: dict[str, Any], model_type: str, model: ModelSpec | None = None
) -> tuple[WeightSpec, list[str]]:
    """Read the checkpoint's :class:`WeightSpec` and notes on how it was read.

    With ``model``, a not-quantized list is matched against its modules at once
    (:func:`kept_params`), so a list that cannot be mapped is refused on import.

    Raises
    ------
    InputError
        ``quantization_config``: a method or bit width vramdesk cannot size;
        ``modules_to_not_convert`` / ``ignore`` / ``exclude_modules`` /
        ``llm_int8_skip_modules``: an entry that is not text, names part of a module, or
        matches no module of the model.
    """
    quant = cfg.get("quantization_config")
    if isinstance(quant, dict) and quant:
        spec, notes = _from_quant(quant)
        field = _list_field(quant)
        if model is not None and spec.unquantized_modules is not None:
            quantized, kept = kept_params(model, spec.unquantized_modules, field)
            notes.append(
                f"{field}: {kept:,} linear parameters stored 16-bit, {quantized:,} "
                f"at {spec.format.label}"
            )
        return spec, notes
    return _from_dtype(cfg.get("torch_dtype", cfg.get("dtype")), model_type)


#: The config key holding the not-quantized list, by method.
_LIST_FIELDS = ("modules_to_not_convert", "llm_int8_skip_modules", "ignore", "exclude_modules")


def _list_field(q: dict[str, Any]) -> str:
    body = q.get("quantization") if isinstance(q.get("quantization"), dict) else q
    return next((k for k in _LIST_FIELDS if k in body), "quantization_config")


def _patterns(q: dict[str, Any], field: str, *always: str) -> tuple[str, ...] | None:
    """The not-quantized list of ``field`` (plus ``always``), or None when absent or empty.

    Raises
    ------
    InputError
        ``field``: not a list of strings (at most 100,000 entries of 500 characters).
    """
    value = q.get(field)
    if value is None or value == []:
        return None
    if (
        not isinstance(value, list)
        or len(value) > 100_000
        or not all(isinstance(v, str) and 0 < len(v) <= 500 for v in value)
    ):
        raise InputError(field, "must be a list of module names", "not_list")
    return tuple(dict.fromkeys([*value, *always]))


def _from_dtype(dtype: Any, model_type: str) -> tuple[WeightSpec, list[str]]:
    if dtype is None:
        return WeightSpec(WeightFormat.BF16), ["torch_dtype absent: checkpoint assumed bf16"]
    fmt = _DTYPES.get(str(dtype).removeprefix("torch."))
    if fmt is None:
        raise InputError("torch_dtype", f"unknown dtype {dtype!r}", "unknown_choice")
    notes = []
    if fmt is WeightFormat.FP32:
        notes.append(
            f"torch_dtype float32: the {model_type or 'model'} checkpoint is stored in "
            "fp32 (4 bytes per weight); engines usually load it as bf16"
        )
    return WeightSpec(fmt), notes


def _from_quant(q: dict[str, Any]) -> tuple[WeightSpec, list[str]]:
    method = str(q.get("quant_method", "")).lower()
    if method in ("gptq", "awq"):
        spec, notes = _group_int(q, method)
        head = () if q.get("lm_head") is True else ("lm_head",)
        return _with_plan(spec, notes, _patterns(q, "modules_to_not_convert", *head))
    if method == "fp8":
        spec, notes = _fp8(q)
        return _with_plan(spec, notes, _patterns(q, "modules_to_not_convert", "lm_head"))
    if method == "fbgemm_fp8":
        return _with_plan(
            WeightSpec(WeightFormat.FP8, embeddings_unquantized=True),
            ["quantization_config fbgemm_fp8: fp8 weights, one fp32 scale per output channel"],
            _patterns(q, "modules_to_not_convert", "lm_head"),
        )
    if method == "modelopt" or isinstance(q.get("producer"), dict):
        return _modelopt(q)
    if method == "mxfp4":
        return (
            WeightSpec(WeightFormat.MXFP4, experts_only=True),
            ["quantization_config mxfp4: routed experts MXFP4 (4.25 bits), the rest bf16"],
        )
    if method == "bitsandbytes" or q.get("load_in_4bit") or q.get("load_in_8bit"):
        spec, notes = _bnb(q)
        return _with_plan(spec, notes, _patterns(q, "llm_int8_skip_modules"))
    if method == "compressed-tensors":
        return _compressed(q)
    raise InputError(
        "quantization_config",
        f"quant_method {method or '(none)'!r} is not supported; choose the weight format by hand",
        "unsupported",
        {"value": method},
    )


def _int_format(bits: Any) -> WeightFormat:
    fmt = {4: WeightFormat.INT4, 8: WeightFormat.INT8}.get(bits)
    if fmt is None:
        raise InputError(
            "quantization_config",
            f"{bits}-bit integer weights are not supported (4 or 8)",
            "unsupported",
            {"value": bits},
        )
    return fmt


def _group_int(q: dict[str, Any], method: str) -> tuple[WeightSpec, list[str]]:
    bits = q.get("bits", q.get("w_bit", 4))
    group = q.get("group_size", q.get("q_group_size", 128))
    sym = q.get("sym") if method == "gptq" else not q.get("zero_point", True)
    zero = 0 if sym else 16
    notes = [f"quantization_config {method}: int{bits}, embeddings and lm_head kept 16-bit"]
    if not isinstance(group, int) or group <= 0:
        notes.append(
            f"group_size {group}: one scale per output channel, counted as no group overhead"
        )
        return WeightSpec(_int_format(bits), embeddings_unquantized=True), notes
    if sym is None:
        zero = 16
        notes.append("sym not given: a 16-bit zero point per group assumed")
    notes.append(f"group {group}: fp16 scale + {zero}-bit zero per group")
    return WeightSpec(
        _int_format(bits),
        group_size=group,
        scale_bits=16,
        zero_bits=zero,
        embeddings_unquantized=True,
    ), notes


def _fp8(q: dict[str, Any]) -> tuple[WeightSpec, list[str]]:
    block = q.get("weight_block_size")
    if (
        isinstance(block, list)
        and len(block) == 2
        and all(isinstance(b, int) and b > 0 for b in block)
    ):
        group = block[0] * block[1]
        return (
            WeightSpec(
                WeightFormat.FP8,
                group_size=group,
                scale_bits=FP8_SCALE_BITS,
                zero_bits=0,
                embeddings_unquantized=True,
            ),
            [
                f"quantization_config fp8: {block[0]}x{block[1]} blocks, one float32 scale each "
                "(torch_dtype is not the storage format)"
            ],
        )
    return (
        WeightSpec(WeightFormat.FP8, embeddings_unquantized=True),
        ["quantization_config fp8: per-tensor/channel scales ignored"],
    )


def _bnb(q: dict[str, Any]) -> tuple[WeightSpec, list[str]]:
    if q.get("load_in_8bit"):
        return (
            WeightSpec(WeightFormat.INT8, embeddings_unquantized=True),
            ["bitsandbytes LLM.int8: 8-bit linear weights, embeddings and lm_head 16-bit"],
        )
    kind = str(q.get("bnb_4bit_quant_type", "fp4")).lower()
    if q.get("bnb_4bit_use_double_quant"):
        return (
            WeightSpec(WeightFormat.NF4_DQ, embeddings_unquantized=True),
            [
                f"bitsandbytes 4-bit ({kind}) with double quantization: 4 bits + 8-bit absmax "
                "per 64 + fp32 constant per 256 blocks (4.127 bits)"
            ],
        )
    return (
        WeightSpec(WeightFormat.NF4, embeddings_unquantized=True),
        [
            f"bitsandbytes 4-bit ({kind}): 4 bits + fp32 absmax per 64 = 4.5 bits (nf4 layout; "
            "fp4 stores the same)"
        ],
    )


def _compressed(q: dict[str, Any]) -> tuple[WeightSpec, list[str]]:
    """compressed-tensors: one weight scheme over ``targets`` ``["Linear"]``, minus ``ignore``.

    Raises
    ------
    InputError
        ``config_groups``: groups with different weight schemes, or ``targets`` other than
        ``Linear`` (a per-module selection vramdesk does not map); ``ignore``: see
        :func:`_patterns`.
    """
    groups = q.get("config_groups") or {}
    groups = groups if isinstance(groups, dict) else {}
    schemes = [g for g in groups.values() if isinstance(g, dict)]
    first = schemes[0] if schemes else {}
    for g in schemes:
        targets = g.get("targets", ["Linear"])
        if targets != ["Linear"]:
            raise InputError(
                "config_groups",
                f"targets {str(targets)[:80]} select modules by name; vramdesk sizes "
                "compressed-tensors checkpoints whose groups target every Linear",
                "unsupported",
            )
        if g.get("weights") != first.get("weights"):
            raise InputError(
                "config_groups",
                "groups store weights in different schemes; vramdesk sizes one scheme",
                "unsupported",
            )
    spec, notes = _compressed_scheme(first.get("weights"))
    return spec.replace(unquantized_modules=_patterns(q, "ignore") or ()), notes


def _compressed_scheme(w: Any) -> tuple[WeightSpec, list[str]]:
    w = w if isinstance(w, dict) else {}
    bits, kind = w.get("num_bits"), str(w.get("type", "int")).lower()
    if kind == "float" and bits == 8:
        return (
            WeightSpec(WeightFormat.FP8, embeddings_unquantized=True),
            ["compressed-tensors: fp8 weights"],
        )
    fmt = _int_format(bits)
    group = w.get("group_size") if w.get("strategy") == "group" else None
    notes = [f"compressed-tensors: int{bits} weights ({w.get('strategy', 'channel')} scales)"]
    if isinstance(group, int) and group > 0:
        zero = 0 if w.get("symmetric", True) else 16
        return WeightSpec(
            fmt, group_size=group, scale_bits=16, zero_bits=zero, embeddings_unquantized=True
        ), notes
    return WeightSpec(fmt, embeddings_unquantized=True), notes


def _with_plan(
    spec: WeightSpec, notes: list[str], patterns: tuple[str, ...] | None
) -> tuple[WeightSpec, list[str]]:
    if patterns is None:
        return spec, notes
    return spec.replace(unquantized_modules=patterns), notes


#: ModelOpt ``quant_algo`` -> the stored weight format.
_MODELOPT = {
    "FP8": (WeightFormat.FP8, "fp8 weights, one fp32 scale per tensor"),
    "NVFP4": (
        WeightFormat.NVFP4,
        "NVFP4: E2M1 weights with an E4M3 scale per 16 = 4.5 bits (fp32 per-tensor scales "
        "not counted: a few bytes per tensor)",
    ),
}


def _modelopt(q: dict[str, Any]) -> tuple[WeightSpec, list[str]]:
    """ModelOpt, flat (config.json) or nested under ``quantization`` (hf_quant_config.json).

    Raises
    ------
    InputError
        ``quantization_config``: a ``quant_algo`` other than FP8 or NVFP4 (MIXED_PRECISION
        sizes each layer in its own format, which vramdesk does not read).
    """
    body = q.get("quantization") if isinstance(q.get("quantization"), dict) else q
    algo = str(body.get("quant_algo", "")).upper()
    if algo not in _MODELOPT:
        raise InputError(
            "quantization_config",
            f"ModelOpt quant_algo {algo or '(none)'!r} is not supported (FP8 or NVFP4); "
            "choose the weight format by hand",
            "unsupported",
            {"value": algo},
        )
    fmt, what = _MODELOPT[algo]
    field = "exclude_modules" if "exclude_modules" in body else "ignore"
    patterns = _patterns(body, field) or ()
    spec = WeightSpec(fmt, group_size=0, embeddings_unquantized=True)
    return spec.replace(unquantized_modules=patterns), [f"quantization_config modelopt: {what}"]
