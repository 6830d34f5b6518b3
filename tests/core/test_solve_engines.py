"""The solver's "vLLM would print" lines follow the engine profile's own block accounting."""

from vramdesk.core import Engine, Runtime, Workload, solve
from vramdesk.core.bundled import find_gpu, find_model
from vramdesk.core.engines import profile_for


def test_vllm_lines_use_the_hybrid_allocator_for_sliding_window_models():
    # Gemma-2-2B alternates sliding and full layers: vLLM's hybrid allocator needs blocks in
    # both groups per request, so its logged concurrency is not tokens / max_model_len.
    p = find_model("gemma-2-2b")
    rt = Runtime(engine=Engine.VLLM)
    wl = Workload(context_tokens=8192)
    gpu = find_gpu("H100 80GB")
    r = solve(p.model, p.weights, wl, rt, gpu.capacity_for(Engine.VLLM))
    figures = profile_for(Engine.VLLM).block_figures(p.model, wl, rt, r.kv_cache_blocks)
    assert r.kv_cache_tokens == figures["kv_cache_tokens"]
    assert r.vllm_lines()[1].endswith(f"{float(figures['max_concurrency']):.2f}x")
    assert r.kv_cache_tokens / 8192 != float(figures["max_concurrency"])  # the two rules differ here


def test_formula_profile_keeps_tokens_over_context():
    p = find_model("llama-3.1-8b")
    r = solve(p.model, p.weights, Workload(context_tokens=8192), Runtime(), 80 * 2**30)
    assert r.vllm_lines()[1].endswith(f"{r.kv_cache_tokens / 8192:.2f}x")
