"""Hand-derived figures for the bugs issue 13 planted and the suite did not catch.

Each test names the planted bug it catches and derives its expected value by hand in a
comment, from the model's published shape (config.json) and the engine's own rule; none
compares the core with itself. Every one was checked by planting the bug again: the test
fails with it and passes without it.
"""

from __future__ import annotations

import json
from fractions import Fraction

from vramdesk.cli import main
from vramdesk.core import (
    GIB,
    Engine,
    KVDtype,
    ModelSpec,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
    estimate,
    solve,
)
from vramdesk.core.engines.vllm import VllmProfile
from vramdesk.core.model.spec import FULL, SLIDING
from vramdesk.core.store.bundled import find_model
from vramdesk.core.terms.kv_cache import kv_bytes_per_token

# Llama-3.1-8B (config.json): 32 layers, 8 KV heads, head_dim 4096 / 32 = 128, hidden 4096,
# intermediate 14,336, vocab 128,256, 8,030,261,248 parameters.
LLAMA8 = find_model("llama-3.1-8b")


# ------------------------------------------------------------ TP replication floor
def test_kv_heads_are_replicated_when_tp_exceeds_them(capsys):
    # bug: kv_heads // TP without max(1, .): 8 // 16 = 0 heads, a 0-byte KV cache.
    # vLLM get_num_kv_heads: max(1, 8 // 16) = 1 head per rank ->
    # 2 * 1 * 128 * 2 B * 32 layers * 8,192 tokens = 134,217,728 B (128 MiB)
    code = main(
        ["estimate", "--preset", "llama-3.1-8b", "--tp", "16", "--context", "8192", "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kv_cache_bytes"] == 134_217_728
    assert out["kv_bytes_per_token"] == 2 * 1 * 128 * 2 * 32 == 16_384


def test_smallest_tp_is_not_sixteen_for_a_free_kv_cache():
    # With the floor, TP 16 holds the same 128 MiB of KV per GPU as TP 8 (one head each),
    # so a workload that fits no TP below 16 on account of its KV cannot be rescued by 16
    # "for nothing": 8B bf16 weights 16,060,522,496 B; at 8 GiB per GPU and context 131,072 x 4
    # the KV per GPU at TP 8 and TP 16 is 2 * 1 * 128 * 2 * 32 * 131,072 * 4 = 8 GiB on its own
    # (over the 8 * 0.9 - 1 = 6.2 GiB usable), so no TP fits.
    wl = Workload(context_tokens=131_072, batch=4)
    r = solve(LLAMA8.model, LLAMA8.weights, wl, Runtime(), 8 * GIB)
    assert r.min_gpus is None
    b16 = estimate(LLAMA8.model, LLAMA8.weights, wl, Runtime(tensor_parallel_size=16))
    assert b16.kv_cache.bytes == 2 * 1 * 128 * 2 * 32 * 131_072 * 4 == 8 * GIB


# ----------------------------------------------------------- MLA latent under vLLM
def test_mla_latent_is_replicated_on_every_rank_under_vllm():
    # bug: the latent divided by TP (576 // 8 = 72 elements), 8x too small.
    # DeepSeek-V3: 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements per token
    # per layer, bf16 2 B -> 1,152 B; 61 layers -> 70,272 B per token on EVERY rank.
    # 8,192 tokens = 512 blocks of 16 -> 70,272 * 8,192 = 575,668,224 B per GPU at TP 8.
    ds = find_model("deepseek-v3")
    rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=8)
    b = estimate(ds.model, ds.weights, Workload(context_tokens=8192, kv_dtype=KVDtype.BF16), rt)
    assert b.kv_bytes_per_token == 70_272
    assert b.kv_cache.bytes == 575_668_224


# ------------------------------------------------------------- pipeline parallelism
def test_weights_are_divided_by_pipeline_parallel_size():
    # bug: weights not divided by PP (4x too big at PP 4).
    # 8,030,261,248 params * 2 B (bf16) = 16,060,522,496 B; / (TP 1 * PP 4) = 4,015,130,624 B
    b = estimate(
        LLAMA8.model,
        WeightSpec(WeightFormat.BF16),
        Workload(context_tokens=4096),
        Runtime(pipeline_parallel_size=4),
    )
    assert b.weights.bytes == 4_015_130_624


def test_bytes_per_token_count_one_pipeline_stage():
    # bug: every layer counted on each GPU (KV tokens halved at PP 2).
    # PP 2: a stage holds ceil(32 / 2) = 16 layers -> 2 * 8 * 128 * 2 B * 16 = 65,536 B per
    # token (PP 1: 131,072). KV at 8,192 tokens: 65,536 * 8,192 = 536,870,912 B.
    rt = Runtime(pipeline_parallel_size=2)
    assert kv_bytes_per_token(LLAMA8.model, KVDtype.FP16, rt) == 65_536
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(context_tokens=8192), rt)
    assert b.kv_cache.bytes == 536_870_912
    # and the token capacity doubles: on 80 GiB (85,899,345,920 B), usable per GPU
    # floor(85,899,345,920 * 0.9) = 77,309,411,328 - 1 GiB fixed - weights / 2
    # (8,030,261,248 B) = 68,205,408,256 B for KV; / (65,536 B * 16) = 65,045.3 blocks ->
    # 65,045 blocks * 16 = 1,040,720 tokens.
    r = solve(LLAMA8.model, LLAMA8.weights, Workload(context_tokens=8192), rt, 80 * GIB)
    assert r.kv_cache_tokens == 1_040_720


def test_a_stage_of_an_uneven_split_holds_ceil_layers():
    # 32 layers over PP 3: stages of 11, 11, 10 layers; the first (largest) is sized:
    # 2 * 8 * 128 * 2 B * 11 = 45,056 B per token.
    rt = Runtime(pipeline_parallel_size=3)
    assert kv_bytes_per_token(LLAMA8.model, KVDtype.FP16, rt) == 45_056


# ---------------------------------------------------- sliding window before blocks
def test_sliding_window_is_capped_before_block_rounding():
    # bug: min(ceil_block(context), window) instead of ceil_block(min(context, window)).
    # Phi-3-mini-4k: 32 layers, 32 KV heads, head_dim 3072 / 32 = 96, window 2,047 (every
    # layer sliding). Per token 2 * 32 * 96 * 2 B * 32 = 393,216 B. Context 4,096, block 16:
    # each sequence keeps ceil16(min(4,096, 2,047)) = 2,048 tokens (not min(4,096, 2,047)
    # = 2,047) -> 393,216 * 2,048 = 805,306,368 B.
    phi = find_model("phi-3-mini-4k-instruct")
    rt = Runtime(block_size=16, sliding_window_exploited=True)
    b = estimate(phi.model, phi.weights, Workload(context_tokens=4096), rt)
    assert b.kv_cache.bytes == 805_306_368


# --------------------------------------------------------------- shared prefix blocks
def test_partial_last_block_of_a_shared_prefix_is_not_shared():
    # bug: all 100 prefix tokens shared, though only whole blocks are (vLLM prefix caching
    # hashes full blocks). Block 16: 100 -> 6 whole blocks = 96 tokens shared.
    # 4 sequences of 1,000 tokens: 4 * ceil16(1,000) = 4 * 1,008 = 4,032 - 3 * 96 = 3,744
    # tokens; 131,072 B each (Llama-3.1-8B fp16) -> 490,733,568 B.
    rt = Runtime(block_size=16, shared_prefix_tokens=100)
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(context_tokens=1000, batch=4), rt)
    assert b.kv_cache.bytes == 490_733_568


# --------------------------------------------------------------- overhead multiplier
def test_overhead_multiplier_covers_activations_too():
    # bug: (weights + kv) * 0.15 without activations (725,391,360 B short here).
    # weights 8,030,261,248 * 2 = 16,060,522,496
    # kv      131,072 * 8,192 * 8 = 8,589,934,592
    # act     8 * 4,096 * (4,096 + 14,336) * 2 * 4 = 4,831,838,208 + logits 8 * 128,256 * 4
    #         = 4,104,192 -> 4,835,942,400 (0.15 of it: 725,391,360)
    # sum 29,486,399,488 * 0.15 = 4,422,959,923.2 -> 4,422,959,924 + 1 GiB 1,073,741,824
    #     = 5,496,701,748
    wl = Workload(context_tokens=8192, batch=8, prompt_len=4096)
    b = estimate(LLAMA8.model, LLAMA8.weights, wl, Runtime())
    assert b.activations.bytes == 4_835_942_400
    assert b.overhead.bytes == 5_496_701_748


# --------------------------------------------------------------------------- solver
def test_exact_concurrency_has_the_shared_prefix_intercept():
    # bug: the fraction through the origin (usable / slope) or with a wrong intercept.
    # 80 GiB formula profile: usable = floor(85,899,345,920 * 0.9) - 1 GiB - 16,060,522,496
    #   = 60,175,147,008 B. Context 8,192 with a 4,096-token shared prefix (whole blocks):
    #   need(n) = 131,072 * (n * 8,192 - (n - 1) * 4,096) = 536,870,912 * (n + 1)
    #   -> n + 1 = 60,175,147,008 / 536,870,912 = 112 + 45,604,864 / 2**29 = 112 + 5,567 / 65,536
    #   -> n = 111 + 5,567/65,536 (through the origin it would be 112.08...)
    rt = Runtime(shared_prefix_tokens=4096)
    r = solve(LLAMA8.model, LLAMA8.weights, Workload(context_tokens=8192), rt, 80 * GIB)
    assert r.usable_bytes == 60_175_147_008
    assert r.max_concurrency == 111
    assert r.max_concurrency_exact == 111 + Fraction(5567, 65536)


def test_solver_confirms_downward_when_the_guess_overshoots():
    # bug: the downward search removed (the guess taken as the answer when it does not fit).
    # A need of 1 GiB per sequence and a 37 GiB budget: the answer is 37 whatever the guess;
    # from a guess of 10,000 the search must go down, ask 37 and 38, and stop at 37.
    from vramdesk.core.solve.solver import largest_fitting

    asked = []

    def fits(n):
        asked.append(n)
        return n * GIB <= 37 * GIB

    assert largest_fitting(fits, 1, 2**24, 10_000) == 37
    assert 10_000 in asked and 37 in asked and 38 in asked


# -------------------------------------------------------------------- vLLM allocator
MISTRAL = find_model("mistral-7b-v0.1")


def test_vllm_sliding_blocks_per_request_are_window_minus_one_plus_t():
    # bug: window + T instead of window - 1 + T (kv_cache_utils.py SlidingWindowSpec:
    # cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block) + 1).
    # Mistral-7B-v0.1: 32 layers, all sliding, window 4,096. T = 8,193, max_model_len 32,768:
    # min(4,095 + 8,193, 32,768) = 12,288 -> 12,288 / 16 = 768 + 1 = 769 blocks per request
    # (window + T = 12,289 would give 769 + 1 = 770). 7,690 blocks -> concurrency 10 exactly.
    assert MISTRAL.model.sliding_window == 4096
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0", max_num_batched_tokens=8193)
    fig = VllmProfile().block_figures(MISTRAL.model, Workload(context_tokens=32_768), rt, 7690)
    assert fig["max_concurrency"] == 10


def test_vllm_logged_tokens_round_blocks_per_group_first():
    # bug: blocks * block // groups instead of blocks // groups * block.
    # 2 full + 2 sliding layers -> 2 groups of 2; 1,001 blocks: 1,001 // 2 = 500 * 16 = 8,000
    # tokens logged (1,001 * 16 // 2 = 8,008 with the bug). Version 0.11 (< 0.20, which logs
    # int(concurrency * max_model_len) instead).
    model = ModelSpec(
        num_hidden_layers=4,
        num_key_value_heads=8,
        head_dim=64,
        sliding_window=128,
        layer_types=(SLIDING, FULL) * 2,
    )
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0")
    fig = VllmProfile().block_figures(model, Workload(context_tokens=4096), rt, 1001)
    assert fig["kv_cache_tokens"] == 8000
