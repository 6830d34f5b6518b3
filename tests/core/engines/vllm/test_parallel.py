"""vLLM data, expert and decode-context parallelism, per GPU (issue 21 item 2).

Sources followed (read in vllm-project/vllm):

* ``vllm/model_executor/layers/fused_moe/config.py`` ``FusedMoEParallelConfig.make``: the MoE
  layers flatten TP across DP (``flatten_tp_size = dp * tp``); without EP every rank holds a
  ``1 / (tp * dp)`` slice of every expert, with EP ``ep_size = tp * dp`` whole experts, ``E //
  ep`` per rank plus one on the first ``E % ep`` (``determine_expert_map``).
* ``vllm/v1/kv_cache_interface.py`` ``FullAttentionSpec.max_memory_usage_bytes``: under DCP a
  request keeps ``cdiv(max_model_len, dcp)`` tokens per rank; ``vllm/v1/core/kv_cache_utils.py``
  ``_report_kv_cache_config`` multiplies the logged tokens by ``dcp``.
* ``vllm/config/parallel.py``: DCP reuses the TP ranks (``tp % dcp == 0``).

Figures: Qwen3-30B-A3B (bf16, 48 layers, 128 experts of 3 x 2048 x 768, 4 KV heads of 128)
and DeepSeek-V3 (MLA latent 512 + 64, 61 layers; 58 MoE layers of 256 experts of 3 x 7168 x
2048, fp8 with 128 x 128 block scales: 4097 / 512 bits per weight).
"""

from __future__ import annotations

import pytest

from vramdesk.core import InputError, Runtime, Workload, estimate
from vramdesk.core.engines.vllm.profile import VllmProfile
from vramdesk.core.model.runtime import Engine
from vramdesk.core.store.bundled import find_model

#: Qwen3-30B-A3B routed experts: 48 layers x 128 experts x 3 x 2048 x 768 = 28,991,029,248
#: params, bf16: 57,982,058,496 bytes; one expert over all layers 452,984,832 bytes.
QWEN_ROUTED = 48 * 128 * 3 * 2048 * 768 * 2
#: RoPE cos/sin cache on each GPU: 40,960 positions x 128 x 2 bytes.
QWEN_ROPE = 40_960 * 128 * 2
#: Whole Qwen3-30B-A3B in bf16: 30,532,122,624 params x 2 (vocabulary 151,936 pads to itself).
QWEN_BODY = 30_532_122_624 * 2
#: DeepSeek-V3 MLA latent per token: (512 + 64) x 2 bytes x 61 layers.
DSV3_LATENT = (512 + 64) * 2 * 61


def _preset(name):
    preset = find_model(name)
    return preset.model, preset.weights


def _estimate(name, context=8192, batch=1, **runtime):
    model, weights = _preset(name)
    rt = Runtime(engine=Engine.VLLM, **runtime)
    return estimate(model, weights, Workload(context_tokens=context, batch=batch), rt)


def test_qwen3_moe_dp2_keeps_attention_whole_and_halves_the_experts():
    # TP=1 DP=2: rest (QWEN_BODY - QWEN_ROUTED = 3,082,186,752) on each rank, experts / 2
    # = 28,991,029,248, + rope 10,485,760 = 32,083,701,760; EP at DP=2 holds 64 whole
    # experts of 128: the same bytes
    want = (QWEN_BODY - QWEN_ROUTED) + QWEN_ROUTED // 2 + QWEN_ROPE
    assert want == 32_083_701_760
    assert _estimate("qwen3-30b-a3b", data_parallel_size=2).weights.bytes == want
    both = _estimate("qwen3-30b-a3b", data_parallel_size=2, enable_expert_parallel=True)
    assert both.weights.bytes == want
    # TP=2 alone: everything halves, 61,064,245,248 / 2 + rope = 30,542,608,384
    assert _estimate("qwen3-30b-a3b", tensor_parallel_size=2).weights.bytes == 30_542_608_384


def test_expert_parallel_puts_ceil_e_over_ranks_whole_experts_on_the_fullest_rank():
    # DP=3 with EP: ceil(128 / 3) = 43 experts of 452,984,832 bytes = 19,478,347,776;
    # without EP a third of each, 57,982,058,496 / 3 = 19,327,352,832 (150,994,944 less)
    rest = QWEN_BODY - QWEN_ROUTED
    ep = _estimate("qwen3-30b-a3b", data_parallel_size=3, enable_expert_parallel=True)
    assert ep.weights.bytes == rest + 43 * 452_984_832 + QWEN_ROPE
    sliced = _estimate("qwen3-30b-a3b", data_parallel_size=3)
    assert sliced.weights.bytes == rest + 19_327_352_832 + QWEN_ROPE
    assert ep.weights.bytes - sliced.weights.bytes == 150_994_944


def test_deepseek_v3_dp8_ep_replicates_all_but_the_experts():
    # routed experts 58 x 256 x 3 x 7168 x 2048 = 653,908,770,816 params at 4097/512 bits:
    # 653,908,770,816 * 4097 / 4096 = 654,068,416,512 bytes; DP=8 EP holds 32 of 256 whole
    # experts = 81,758,552,064 bytes and all the rest: W(TP1) - 654,068,416,512 + 81,758,552,064
    whole = _estimate("deepseek-v3").weights.bytes
    dp8 = _estimate("deepseek-v3", data_parallel_size=8, enable_expert_parallel=True)
    assert dp8.weights.bytes == whole - 654_068_416_512 + 81_758_552_064
    assert dp8.gpus == 8


def test_qwen3_moe_kv_per_rank_under_dp():
    # 48 layers x 4 KV heads x 128 x 2 (K, V) x 2 bytes = 98,304 bytes per token; batch 8
    # over DP=2 is 4 sequences per rank: 4 x 4096 x 98,304 = 1,610,612,736 (paged blocks of 16
    # divide 4096); TP=2 DP=2 halves the heads: 805,306,368, on 4 GPUs
    b = _estimate("qwen3-30b-a3b", context=4096, batch=8, data_parallel_size=2)
    assert b.kv_cache.bytes == 4 * 4096 * 98_304 == 1_610_612_736
    b = _estimate(
        "qwen3-30b-a3b", context=4096, batch=8, data_parallel_size=2, tensor_parallel_size=2
    )
    assert (b.kv_cache.bytes, b.gpus) == (805_306_368, 4)
    # an odd batch: ceil(7 / 2) = 4 sequences on the fullest rank
    odd = _estimate("qwen3-30b-a3b", context=4096, batch=7, data_parallel_size=2)
    assert odd.kv_cache.bytes == 1_610_612_736


def test_deepseek_v3_latent_is_replicated_over_tp_split_by_dp_and_by_dcp():
    # TP=8: every rank holds the whole latent, 64 x 8192 x 70,272 = 36,842,766,336 bytes;
    # DP=8 (+EP): 8 sequences per rank, 8 x 8192 x 70,272 = 4,605,345,792; TP=8 DCP=8: every
    # sequence keeps cdiv(8192, 8) = 1,024 tokens = 64 blocks of 16 on each rank, 64 x 64 x 16
    # x 70,272 = 4,605,345,792 with the weights of TP=8
    tp8 = _estimate("deepseek-v3", batch=64, tensor_parallel_size=8)
    assert tp8.kv_cache.bytes == 64 * 8192 * DSV3_LATENT == 36_842_766_336
    dp8 = _estimate("deepseek-v3", batch=64, data_parallel_size=8, enable_expert_parallel=True)
    assert dp8.kv_cache.bytes == 8 * 8192 * DSV3_LATENT == 4_605_345_792
    dcp = _estimate("deepseek-v3", batch=64, tensor_parallel_size=8, decode_context_parallel_size=8)
    assert dcp.kv_cache.bytes == 64 * 64 * 16 * DSV3_LATENT == 4_605_345_792
    assert (dcp.weights.bytes, dcp.gpus) == (tp8.weights.bytes, 8)


def test_dcp_rounds_each_ranks_share_up_to_whole_blocks():
    # 8,193 tokens over DCP=8: cdiv(8193, 8) = 1,025 tokens -> cdiv(1025, 16) = 65 blocks
    # (one token past 64 whole blocks per rank)
    b = _estimate("deepseek-v3", context=8193, batch=2, tensor_parallel_size=8,
                  decode_context_parallel_size=8)  # fmt: skip
    assert b.kv_cache.bytes == 2 * 65 * 16 * DSV3_LATENT


def test_dcp_multiplies_the_logged_tokens():
    # 1,000 blocks of 16 on a rank stand for 1,000 x 16 x 8 = 128,000 tokens (the log's
    # "Multiplying the GPU KV cache size by the dcp_world_size 8"); a request of 8,192 tokens
    # needs cdiv(cdiv(8192, 8), 16) = 64 blocks: concurrency 1,000 / 64 = 15.625
    model, _ = _preset("deepseek-v3")
    rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=8, decode_context_parallel_size=8)
    f = VllmProfile().block_figures(model, Workload(context_tokens=8192, batch=1), rt, 1000)
    assert f["kv_cache_tokens"] == 128_000
    assert f["max_concurrency"] == 15.625


DCP = "decode_context_parallel_size"


@pytest.mark.parametrize(
    ("runtime", "field"),
    [
        ({"tensor_parallel_size": 8, DCP: 3}, DCP),  # 3 does not divide TP 8
        ({DCP: 2, "tensor_parallel_size": 2, "engine_version": "0.6.4"}, DCP),  # V0
        ({"data_parallel_size": 0}, "data_parallel_size"),
    ],
)
def test_refusals_name_the_field(runtime, field):
    with pytest.raises(InputError) as e:
        _estimate("deepseek-v3", **runtime)
    assert e.value.field == field


def test_dcp_on_a_sliding_window_model_is_refused():
    model, weights = _preset("gpt-oss-20b")
    rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=2, decode_context_parallel_size=2)
    with pytest.raises(InputError) as e:
        estimate(model, weights, Workload(context_tokens=8192, batch=1), rt)
    assert e.value.field == "decode_context_parallel_size"


def test_the_formula_profile_has_no_data_parallelism():
    model, weights = _preset("qwen3-30b-a3b")
    with pytest.raises(InputError) as e:
        estimate(
            model, weights, Workload(context_tokens=8192, batch=1), Runtime(data_parallel_size=2)
        )
    assert e.value.field == "data_parallel_size"
