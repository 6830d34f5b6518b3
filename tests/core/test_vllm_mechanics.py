"""vLLM mechanisms of issue 10: V0's automatic chunked prefill, one concurrency answer."""

from __future__ import annotations

from vramdesk.core import Engine, KVDtype, Runtime, Workload, estimate, solve
from vramdesk.core.bundled import find_gpu, find_model
from vramdesk.core.engines.vllm import batched_tokens, v0_auto_chunked_prefill

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
