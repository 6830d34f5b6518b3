"""llama.cpp file types of the current llama-quantize (issue 21, mechanism 7).

Sources read: ggml-org/llama.cpp ``src/llama-quant.cpp`` (``llama_ftype_get_default_type``,
``llama_tensor_get_type_impl``, ``tensor_type_fallback``), ``include/llama.h`` (``llama_ftype``
up to ``LLAMA_FTYPE_MOSTLY_Q2_0 = 41``), ``ggml/src/ggml-common.h`` (``block_q2_0``).
"""

from __future__ import annotations

import pytest

from vramdesk.core import Runtime, WeightFormat, WeightSpec, Workload, estimate
from vramdesk.core.errors import InputError
from vramdesk.core.model.gguf_recipes import recipe_groups
from vramdesk.core.store.bundled import find_model

GPT_OSS = find_model("gpt-oss-20b")
LLAMA8 = find_model("llama-3.1-8b")


def _weights(model, spec) -> int:
    return estimate(model, spec, Workload(context_tokens=4096), Runtime()).weights.bytes


def test_mxfp4_moe_is_experts_mxfp4_and_q8_0_elsewhere():
    # llama_tensor_get_type_impl, LLAMA_FTYPE_MOSTLY_MXFP4_MOE: output (and token_embd, whose
    # branch comes first) Q8_0; 3-D expert tensors MXFP4; every other 2-D tensor Q8_0.
    # gpt-oss-20b (hidden 2,880, 24 layers, 64 x 64 query heads, 8 KV heads, 32 experts of
    # width 2,880, vocab 201,088, untied):
    #   output + token_embd 2 * 201,088 * 2,880 = 1,158,266,880 Q8_0
    #   attention 24 * (2,880 * 4,096 * 2 + 2,880 * 512 * 2) = 637,009,920 Q8_0
    #   experts 24 * 32 * 3 * 2,880 * 2,880 = 19,110,297,600 MXFP4
    #   1-D and router: 20,914,757,184 - the above = 9,182,784 F32
    # bytes: 1,795,276,800 * 34 / 32 + 19,110,297,600 * 17 / 32 + 9,182,784 * 4
    #      = 1,907,481,600 + 10,152,345,600 + 36,731,136 = 12,096,558,336
    groups = {label: n for label, n, _ in recipe_groups(GPT_OSS.model, "MXFP4_MOE")}
    assert groups == {"Q8_0": 1_795_276_800, "mxfp4": 19_110_297_600, "F32": 9_182_784}
    spec = WeightSpec(WeightFormat.parse("gguf:MXFP4_MOE"))
    assert _weights(GPT_OSS.model, spec) == 12_096_558_336
    # a dense model under MXFP4_MOE: every 2-D tensor Q8_0 (no 3-D expert tensor)
    dense = {label for label, _, _ in recipe_groups(LLAMA8.model, "MXFP4_MOE")}
    assert dense == {"Q8_0", "F32"}


def test_mxfp4_has_one_meaning():
    # the preset's own mxfp4 (gpt-oss: experts only) and --weights mxfp4 size the same
    # tensors: experts 19,110,297,600 * 17 / 32 = 10,152,345,600 + the rest in 16 bits
    # (20,914,757,184 - 19,110,297,600) * 2 = 3,608,919,168 -> 13,761,264,768 B
    # (before: --weights mxfp4 quantized attention too, 12,825,372,192)
    assert GPT_OSS.weights.experts_only
    typed = WeightSpec(WeightFormat.parse("mxfp4"))
    assert typed == GPT_OSS.weights
    assert _weights(GPT_OSS.model, typed) == _weights(GPT_OSS.model, GPT_OSS.weights)
    assert _weights(GPT_OSS.model, typed) == 13_761_264_768
    # vLLM quantization/mxfp4.py quantizes FusedMoE layers only: a dense model is refused
    with pytest.raises(InputError) as e:
        _weights(LLAMA8.model, typed)
    assert e.value.field == "weights" and "MXFP4_MOE" in str(e.value)


def test_q2_0_file_type_follows_the_generic_rules():
    # LLAMA_FTYPE_MOSTLY_Q2_0 (default GGML_TYPE_Q2_0, 64 elements in 18 bytes, 2.25 bits):
    # output Q6_K (4,096 % 64 == 0, not Q8_0), token_embd Q4_K (its TQ1_0/TQ2_0/Q2_0 rule),
    # every other 2-D tensor Q2_0. Llama-3.1-8B:
    #   output 128,256 * 4,096 = 525,336,576 Q6_K -> 2,052,096 blocks * 210 = 430,940,160 B
    #   token_embd 525,336,576 Q4_K -> 2,052,096 * 144 = 295,501,824 B
    #   32 layers * (41,943,040 + 176,160,768) = 6,979,321,856 Q2_0 -> / 64 * 18 = 1,962,934,272
    #   norms 266,240 F32 -> 1,064,960 B;  total 2,690,441,216 B
    groups = {label: n for label, n, _ in recipe_groups(LLAMA8.model, "Q2_0")}
    assert groups == {
        "Q6_K": 525_336_576,
        "Q4_K": 525_336_576,
        "Q2_0": 6_979_321_856,
        "F32": 266_240,
    }
    assert _weights(LLAMA8.model, WeightSpec(WeightFormat.Q2_0)) == 2_690_441_216


def test_types_without_a_fallback_have_no_recipe():
    # tensor_type_fallback throws for NVFP4 / Q1_0 / MXFP4 ("no tensor type fallback is
    # defined"): gpt-oss's hidden size 2,880 is not a multiple of Q1_0's 128 (22.5 blocks),
    # so llama-quantize stops and there is no recipe; NVFP4's 64 divides it (45 blocks)
    assert recipe_groups(GPT_OSS.model, "Q1_0") is None
    assert recipe_groups(GPT_OSS.model, "NVFP4") is not None
