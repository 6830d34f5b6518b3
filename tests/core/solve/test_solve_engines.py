"""The solver's "vLLM would print" lines follow the engine profile's own block accounting."""

import math
from fractions import Fraction

from vramdesk.core import Engine, Runtime, Workload, solve
from vramdesk.core.store.bundled import find_gpu, find_model


def test_vllm_lines_use_the_hybrid_allocator_for_sliding_window_models():
    # Gemma-2-2B alternates sliding (window 4,096) and full layers, 13 of each: vLLM's hybrid
    # allocator makes 2 groups of 13 layers, and its logged concurrency is blocks over the
    # blocks one request needs in both groups, not tokens / max_model_len.
    p = find_model("gemma-2-2b")
    rt = Runtime(engine=Engine.VLLM)
    wl = Workload(context_tokens=8192)
    gpu = find_gpu("H100 80GB")
    cap = gpu.capacity_for(Engine.VLLM)
    r = solve(p.model, p.weights, wl, rt, cap)
    b = r.breakdown
    # budget (gpu_worker.py): floor(cuda total * util) - weights - activation peak - non-torch,
    # util 0.9 as this Runtime() is given (the CLI passes the release's own default)
    budget = math.floor(cap * Fraction(9, 10)) - b.weights.bytes - b.activations.bytes
    budget -= b.overhead.bytes
    # one block over one group: 16 tokens * (2 * 4 KV heads * 256 * 2 B = 4,096 B) * 13 layers
    # = 851,968 B
    assert r.kv_cache_blocks == budget // 851_968
    # one 8,192-token request: full 8,192 / 16 = 512 blocks; sliding cdiv(min(4,095 + 8,192
    # batched tokens, 8,192), 16) + 1 = 513 -> 1,025 blocks
    assert r.logged_concurrency == Fraction(r.kv_cache_blocks, 1025)
    # the newest releases log int(concurrency * max_model_len) tokens
    assert r.kv_cache_tokens == r.kv_cache_blocks * 8192 // 1025
    assert r.vllm_lines()[1].endswith(f"{r.kv_cache_blocks / 1025:.2f}x")
    # and here, on an H100 80GB: 72,268 blocks -> 70.51x (tokens / 8,192 would say 70.50x)
    assert r.vllm_lines()[1].endswith("70.51x")


def test_formula_profile_keeps_tokens_over_context():
    p = find_model("llama-3.1-8b")
    r = solve(p.model, p.weights, Workload(context_tokens=8192), Runtime(), 80 * 2**30)
    assert r.vllm_lines()[1].endswith(f"{r.kv_cache_tokens / 8192:.2f}x")
