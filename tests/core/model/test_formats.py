"""Weight and KV formats against llama.cpp's own block table (the ``gguf`` package)."""

from __future__ import annotations

from fractions import Fraction

import gguf
import pytest

from vramdesk.core import (
    KVDtype,
    WeightFormat,
    WeightSpec,
    group_quant_bits,
)
from vramdesk.core.errors import InputError

EXACT_GGML = [f for f in WeightFormat if f.is_gguf and f.exact]


#: ggml types newer than the installed gguf package: ggml.h GGML_TYPE_Q2_0 (ggml-common.h
#: block_q2_0: QK2_0 = 64 elements, a half scale + 16 bytes)
NEWER_THAN_GGUF = {"Q2_0": (64, 18)}


def test_every_exact_ggml_format_is_a_ggml_type():
    names = {t.name for t in gguf.GGMLQuantizationType} | set(NEWER_THAN_GGUF)
    assert EXACT_GGML
    assert {f.label for f in EXACT_GGML} <= names


@pytest.mark.parametrize("fmt", EXACT_GGML, ids=lambda f: f.label)
def test_ggml_bits_agree_with_gguf_quant_sizes(fmt):
    if fmt.label in NEWER_THAN_GGUF:
        block, type_size = NEWER_THAN_GGUF[fmt.label]
    else:
        block, type_size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[fmt.label]]
    assert fmt.bits == Fraction(type_size * 8, block)


def test_mxfp4_agrees_with_gguf():
    block, type_size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType.MXFP4]
    assert WeightFormat.MXFP4.bits == Fraction(type_size * 8, block)


@pytest.mark.parametrize(
    "kv",
    [KVDtype.Q8_0, KVDtype.Q4_0, KVDtype.Q4_1, KVDtype.Q5_0, KVDtype.Q5_1, KVDtype.IQ4_NL],
    ids=lambda k: k.label,
)
def test_kv_block_types_agree_with_gguf(kv):
    block, type_size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[kv.label.upper()]]
    assert kv.bytes_per_element == Fraction(type_size, block)


def test_kv_q8_0_and_q4_0_bytes():
    # ggml-common.h: block_q8_0 = fp16 scale + 32 int8 = 34 bytes; block_q4_0 = fp16 + 16 bytes = 18
    assert KVDtype.Q8_0.bytes_per_element == Fraction(34, 32)
    assert KVDtype.Q4_0.bytes_per_element == Fraction(18, 32)


def test_group_quant_bits_int4_g128():
    # 4 + (16 + 16) / 128 = 4.25 bits: the sources' "about 0.53 bytes per parameter"
    assert group_quant_bits(4, 128) == Fraction(17, 4)
    assert group_quant_bits(4, 128) / 8 == Fraction(17, 32)


@pytest.mark.parametrize("name", ["F16", "BF16", "F32"])
def test_float_ggml_names_parse(name):
    block, type_size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[name]]
    assert WeightFormat.parse(name).bits == Fraction(type_size * 8, block)


def test_every_ggml_weight_type_parses_at_its_exact_block_size():
    # every quantized or float ggml type of llama.cpp's own table (the integer types I8-I64
    # and F64 are not weight formats): bits = 8 * bytes per block / elements per block
    skip = {"I8", "I16", "I32", "I64", "F64"}
    aliases = {"F32": "fp32", "F16": "fp16", "BF16": "bf16", "MXFP4": "mxfp4"}
    for qtype, (block, type_size) in gguf.GGML_QUANT_SIZES.items():
        if qtype.name in skip:
            continue
        fmt = WeightFormat.parse(aliases.get(qtype.name, qtype.name))
        assert fmt.bits == Fraction(type_size * 8, block), qtype.name


@pytest.mark.parametrize(
    "name",
    [
        "IQ3_M",
        "IQ1_S",
        "IQ1_M",
        "IQ2_XXS",
        "IQ2_XS",
        "IQ2_S",
        "IQ2_M",
        "IQ3_XXS",
        "IQ3_XS",
        "IQ3_S",
        "IQ4_XS",
        "IQ4_NL",
        "TQ1_0",
        "TQ2_0",
        "MXFP4",
    ],
)
def test_issue_formats_are_accepted(name):
    assert WeightFormat.parse(name).quantized


def test_unknown_kv_dtype_names_every_known_one():
    with pytest.raises(InputError) as err:
        KVDtype.parse("bogus")
    assert err.value.field == "kv_dtype"
    # vLLM's and llama.cpp's cache types, in the order the enum lists them
    assert str(err.value).endswith(
        "known: fp32, fp16, bf16, fp8, int8, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl"
    )


def test_ggml_type_label_shows_its_bits_per_weight():
    # Q8_0: 32 int8 weights + one fp16 scale = 34 bytes per 32 weights = 8.5 bits per weight
    assert WeightSpec(WeightFormat.parse("q8_0")).label() == "Q8_0 (8.5 bpw)"
    # int4 g128 with 16-bit scale and zero: 4 + 32 / 128 = 4.25
    assert WeightSpec(WeightFormat.INT4).label() == "int4 (g128, 4.25 bpw)"


def test_approximate_ggml_type_label():
    # Q4_K_M is a mix of tensor types: its bits per weight are approximate
    assert WeightSpec(WeightFormat.parse("Q4_K_M")).label() == "Q4_K_M (4.89 bpw) (approx.)"
