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
  ``num_bits`` / ``type`` / ``strategy`` / ``group_size``.
"""

from __future__ import annotations

from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightFormat, WeightSpec

_DTYPES = {
    "float32": WeightFormat.FP32,
    "float16": WeightFormat.FP16,
    "bfloat16": WeightFormat.BF16,
    "float": WeightFormat.FP32,
    "half": WeightFormat.FP16,
}

#: fp8 block scales: one float32 per block.
FP8_SCALE_BITS = 32


def weights_from_config(cfg: dict[str, Any], model_type: str) -> tuple[WeightSpec, list[str]]:
    """Read the checkpoint's :class:`WeightSpec` and notes on how it was read.

    Raises
    ------
    InputError
        ``quantization_config``: a method or bit width vramdesk cannot size.
    """
    quant = cfg.get("quantization_config")
    if isinstance(quant, dict) and quant:
        return _from_quant(quant)
    return _from_dtype(cfg.get("torch_dtype", cfg.get("dtype")), model_type)


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
        return _group_int(q, method)
    if method == "fp8":
        return _fp8(q)
    if method == "mxfp4":
        return (
            WeightSpec(WeightFormat.MXFP4, experts_only=True),
            ["quantization_config mxfp4: routed experts MXFP4 (4.25 bits), the rest bf16"],
        )
    if method == "bitsandbytes" or q.get("load_in_4bit") or q.get("load_in_8bit"):
        return _bnb(q)
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
    groups = q.get("config_groups") or {}
    first = next(iter(groups.values()), {}) if isinstance(groups, dict) else {}
    w = first.get("weights") if isinstance(first, dict) else None
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
