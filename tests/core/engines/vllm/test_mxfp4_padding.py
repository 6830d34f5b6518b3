"""vLLM's MXFP4 experts padded to the MoE kernel's tiles (issue 21.5).

Hand derivation for gpt-oss-20b (H = I = 2880, 32 experts x 24 layers = 768), following
vllm/model_executor/layers/quantization/mxfp4.py ``Mxfp4MoEMethod.create_weights``: per expert
w13 [2*I_pad, H_pad/2] uint8 + scales [2*I_pad, H_pad/32] uint8 + bias [2*I_pad],
w2 [H_pad, I_pad/2] + scales [H_pad, I_pad/32] + bias [H_pad].

* checkpoint (no padding, bf16 bias): 5760*1440 + 5760*90 + 5760*2 + 2880*1440 + 2880*90
  + 2880*2 = 8,294,400 + 518,400 + 11,520 + 4,147,200 + 259,200 + 5,760 = 13,236,480
* triton (I 64 -> 2880, H as is, bias float32): 8,294,400 + 518,400 + 23,040 + 4,147,200
  + 259,200 + 11,520 = 13,253,760
* marlin (I 128 -> 2944, H 256 -> 3072, bf16 bias): 5888*1536 + 5888*96 + 5888*2
  + 3072*1472 + 3072*92 + 3072*2 = 9,043,968 + 565,248 + 11,776 + 4,521,984 + 282,624
  + 6,144 = 14,431,744
* flashinfer-trtllm (256 / 256 -> 3072 / 3072, float32 bias): 6144*1536 + 6144*96
  + 6144*4 + 3072*1536 + 3072*96 + 3072*4 = 9,437,184 + 589,824 + 24,576 + 4,718,592
  + 294,912 + 12,288 = 15,077,376
* flashinfer-cutlass (128 / 128 -> 2944 / 2944, bf16 bias): 5888*1472 + 5888*92 + 5888*2
  + 2944*1472 + 2944*92 + 2944*2 = 8,667,136 + 541,696 + 11,776 + 4,333,568 + 270,848
  + 5,888 = 13,830,912
"""

from __future__ import annotations

import pytest

from vramdesk.core import InputError, Runtime, Workload, estimate
from vramdesk.core.engines.vllm import mxfp4
from vramdesk.core.model.runtime import Engine
from vramdesk.core.store.bundled import find_model

GIB = 1 << 30


def _preset(name):
    preset = find_model(name)
    return preset.model, preset.weights


@pytest.mark.parametrize(
    ("backend", "per_expert"),
    [
        ("triton", 13_253_760),
        ("marlin", 14_431_744),
        ("flashinfer-trtllm", 15_077_376),
        ("flashinfer-cutlass", 13_830_912),
    ],
)
def test_gpt_oss_20b_expert_bytes_per_backend(backend, per_expert):
    model, _ = _preset("gpt-oss-20b")
    padded, stored, _, _ = mxfp4.experts_part(model, backend, 1, 1)
    assert stored == 768 * 13_236_480
    assert padded == 768 * per_expert


def test_gpt_oss_120b_tp2_triton_pads_the_half_intermediate():
    # I/TP = 1440 -> round_up(1440, 64) = 1472, H 2880: w13 2944*1440 + 2944*90 + 2944*4
    # = 4,239,360 + 264,960 + 11,776; w2 2880*736 + 2880*46 + 2880*4 = 2,119,680 + 132,480
    # + 11,520; 6,779,776 per expert x 36 layers x 128 experts = 31,241,207,808 per GPU
    model, _ = _preset("gpt-oss-120b")
    assert mxfp4.experts_part(model, "triton", 2, 1)[0] == 31_241_207_808


def _weights(name, **runtime):
    model, weights = _preset(name)
    rt = Runtime(engine=Engine.VLLM, **runtime)
    return estimate(model, weights, Workload(context_tokens=8192, batch=1), rt).weights.bytes


def test_a100_log_model_loading_took():
    # vLLM on an A100 (SM80: Marlin), gpt-oss-20b: "Model loading took 13.72 GiB"
    # (https://myoceane.fr/index.php/ai-vllm-a100-gemma-4/, 2026-04-18). Marlin's padding adds
    # 768 * (14,431,744 - 13,236,480) = 917,962,752 bytes (0.85 GiB) to the checkpoint's
    # experts; without it the estimate is 12.83 GiB (6.5 % under).
    marlin = _weights("gpt-oss-20b", mxfp4_backend="marlin")
    assert abs(marlin / GIB - 13.72) < 0.05
    triton = _weights("gpt-oss-20b", mxfp4_backend="triton")
    assert marlin - triton == 768 * (14_431_744 - 13_253_760)


def test_default_backend_by_release():
    assert mxfp4.default_backend("0.10.1")[0] == "triton"
    assert mxfp4.default_backend("0.11.0")[0] == "marlin"  # no triton_kernels in the wheel
    assert mxfp4.default_backend("0.12.0")[0] == "triton"
    assert mxfp4.default_backend(None)[0] == "triton"
    assert _weights("gpt-oss-20b", engine_version="0.11.0") == _weights(
        "gpt-oss-20b", mxfp4_backend="marlin"
    )


def test_marlin_is_refused_before_it_existed():
    model, weights = _preset("gpt-oss-20b")
    rt = Runtime(engine=Engine.VLLM, engine_version="0.10.1", mxfp4_backend="marlin")
    with pytest.raises(InputError) as err:
        estimate(model, weights, Workload(context_tokens=8192, batch=1), rt)
    assert err.value.field == "mxfp4_backend"
