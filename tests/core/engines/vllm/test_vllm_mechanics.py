"""vLLM mechanisms of issue 10: V0's automatic chunked prefill, one concurrency answer."""

from __future__ import annotations

from vramdesk.core import Engine, KVDtype, Runtime, Workload, estimate, solve
from vramdesk.core.engines.vllm import batched_tokens, v0_auto_chunked_prefill
from vramdesk.core.store.bundled import find_gpu, find_model

LLAMA8 = find_model("llama-3.1-8b")
V064 = Runtime(engine=Engine.VLLM, engine_version="V0 0.6.4")


# ------------------------------------------------ 10.6 V0 automatic chunked prefill
def test_v0_turns_chunked_prefill_on_above_32k():
    # Llama-3.1-8B bf16 on an RTX 3090 (CUDA total 24,146 MiB = 25,318,916,096 B), util 0.9,
    # max_model_len 35,000, V0 0.6.4. 35,000 > 32,768, so arg_utils.py enables chunked
    # prefill with max_num_batched_tokens 512:
    #   requested   = floor(25,318,916,096 * 0.9)                      = 22,787,024,486
    #   weights     = 8,030,261,248 * 2 + 131,072 * 128 * 2 (RoPE)     = 16,094,076,928
    #   activations = ceil(1.6 * 512 * (4,096 + 2 * 14,336) * 2 + 256 * 128,256 * 4)
    #               = ceil(53,687,091.2 + 131,334,144)                 =    185,021,236
    #   non-torch   = 360 MiB                                          =    377,487,360
    #   KV budget   = 6,130,438,962 B (5.71 GiB; the engine logs about 5.8 GiB)
    #   blocks      = floor(6,130,438,962 / (16 * 131,072)) = 2,923 -> 46,768 tokens
    #   concurrency = 46,768 / 35,000 = 1.34x (the engine: about 1.36x)
    # Before, the profile run was 35,000 tokens: 2.34 GiB, 0.55x, "does not fit".
    wl = Workload(context_tokens=35_000, kv_dtype=KVDtype.BF16)
    gpu = find_gpu("RTX 3090").capacity_for(Engine.VLLM)
    assert gpu == 25_318_916_096
    assert v0_auto_chunked_prefill(wl, V064, LLAMA8.model)
    assert batched_tokens(wl, V064, LLAMA8.model) == 512
    r = solve(LLAMA8.model, LLAMA8.weights, wl, V064, gpu)
    assert r.breakdown.activations.bytes == 185_021_236
    assert r.kv_budget_bytes == 6_130_438_962
    assert (r.kv_cache_blocks, r.kv_cache_tokens) == (2_923, 46_768)
    assert r.vllm_lines()[1].endswith("1.34x")
    assert r.fits and r.max_concurrency == 1
    # typed --chunk 512 agrees; 32,768 tokens is not "> 32K": the full-length profile run
    chunk = solve(LLAMA8.model, LLAMA8.weights, wl.replace(chunk_tokens=512), V064, gpu)
    assert chunk.kv_budget_bytes == r.kv_budget_bytes
    assert batched_tokens(wl.replace(context_tokens=32_768), V064, LLAMA8.model) == 32_768


def test_v0_auto_chunking_needs_its_conditions():
    wl = Workload(context_tokens=35_000)
    assert not v0_auto_chunked_prefill(wl, Runtime(engine=Engine.VLLM))  # V1: always chunked
    assert not v0_auto_chunked_prefill(wl, V064.replace(max_num_batched_tokens=4096))
    assert not v0_auto_chunked_prefill(wl, V064.replace(shared_prefix_tokens=64))  # prefix cache
    gemma = find_model("gemma-2-2b").model  # sliding window: V0 keeps it off
    assert not v0_auto_chunked_prefill(wl, V064, gemma)
    # releases from 0.7 chunk 2048 tokens at a time
    later = V064.replace(engine_version="V0 0.8.5")
    assert batched_tokens(wl, later, LLAMA8.model) == 2048


def test_max_context_crosses_the_32k_break():
    # the need drops at 32,769 tokens (smaller profile run): max context is searched on both
    # sides. At 1 sequence on the RTX 3090 the long side holds 46,768 tokens (the budget's
    # whole blocks, derivation above), where the old search stopped at 26,208.
    wl = Workload(context_tokens=35_000, kv_dtype=KVDtype.BF16)
    gpu = find_gpu("RTX 3090").capacity_for(Engine.VLLM)
    r = solve(LLAMA8.model, LLAMA8.weights, wl, V064, gpu)
    assert r.max_context == 46_768
    at = estimate(LLAMA8.model, LLAMA8.weights, wl.replace(context_tokens=46_768), V064)
    assert at.kv_cache.bytes == 46_768 * 131_072  # 2,923 whole blocks of 16


# ------------------------------------------------- 10.7 one concurrency answer per engine
def test_vllm_hybrid_forward_kv_follows_the_allocator():
    # gpt-oss-20b on an H100 (vLLM, newest release), 8,192 tokens x 32: 12 sliding (window 128)
    # + 12 full layers, 8 KV heads x 64, fp16: 2 * 8 * 64 * 2 = 2,048 B per token per layer.
    #   block over a 12-layer group: 16 * 2,048 * 12 = 393,216 B
    #   per request: full cdiv(8,192, 16) = 512; sliding cdiv(min(127 + 8,192, 8,192), 16) + 1
    #                = 513 -> 1,025 blocks
    #   KV budget 55,202,635,033 B -> 140,387 blocks; 140,387 / 1,025 = 136.96x (logged)
    # so max concurrency is 136, where the window-capped forward estimate said 269; the
    # forward KV of 32 requests is 32 * 1,025 * 393,216 = 12,897,484,800 B.
    p = find_model("gpt-oss-20b")
    wl = Workload(context_tokens=8192, batch=32)
    rt = Runtime(engine=Engine.VLLM)
    r = solve(p.model, p.weights, wl, rt, find_gpu("H100 80GB").capacity_for(Engine.VLLM))
    assert r.kv_budget_bytes == 55_202_635_033
    assert r.kv_cache_blocks == 140_387
    assert r.vllm_lines()[1].endswith("136.96x")
    assert r.max_concurrency == 136
    assert r.breakdown.kv_cache.bytes == 12_897_484_800
    # the newest releases log int(concurrency * max_model_len) = floor(140,387 * 8,192 / 1,025)
    assert r.kv_cache_tokens == 1_122_000  # floor(1,150,050,304 / 1,025)
    # 0.11 logs num_blocks // groups * block = 140,387 // 2 * 16 = 1,123,088
    old = solve(p.model, p.weights, wl, rt.replace(engine_version="0.11.0"),
                find_gpu("H100 80GB").capacity_for(Engine.VLLM))  # fmt: skip
    assert old.kv_cache_tokens == 1_123_088
    assert old.max_concurrency == 136


def test_vllm_full_attention_models_keep_the_formula_cache():
    # one group of full layers: blocks per request cdiv(L, 16) -> the same bytes as
    # batch * ceil16(L) * per-token: Llama-3.1-8B bf16, 3 x 1,000 tokens = 3 * 1,008 * 131,072
    wl = Workload(context_tokens=1000, batch=3, kv_dtype=KVDtype.BF16)
    b = estimate(LLAMA8.model, LLAMA8.weights, wl, Runtime(engine=Engine.VLLM))
    assert b.kv_cache.bytes == 3 * 1008 * 131_072
