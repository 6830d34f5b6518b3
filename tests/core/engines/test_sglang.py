"""SGLang's accounting (core/engines/sglang.py): the static token pool and the MLA cache."""

from __future__ import annotations

from vramdesk.core import (
    Engine,
    Runtime,
    Workload,
)
from vramdesk.core.store.bundled import find_model

GIB = 2**30


def test_sglang_pool_tokens_from_the_gpu_total_are_whole(llama8):
    # pool = floor(total * 0.88) - weights; tokens = pool // 131,072 (8B, 32 layers fp16)
    from vramdesk.core.engines.sglang import SglangProfile

    rt = Runtime(engine=Engine.SGLANG)
    wl = Workload(context_tokens=4096)
    total = 80 * GIB
    fig = SglangProfile().figures(llama8.model, llama8.weights, wl, rt, gpu_total_bytes=total)
    pool = (total * 88) // 100 - fig["weights_bytes"]
    assert fig["kv_cache_tokens"] == pool // 131_072
    assert isinstance(fig["kv_cache_tokens"], int)
    # K and V halves: 64 KiB each per token
    assert fig["kv_cache_bytes_k"] == fig["kv_cache_bytes_v"] == fig["kv_cache_tokens"] * 65_536


def test_sglang_mla_cache_is_all_k():
    # DeepSeek-V3 under SGLang: the latent (512 + 64) * 2 B = 1,152 B per layer in the K
    # buffer, no V: 1,000 tokens * 61 layers * 1,152 = 70,272,000 B
    from vramdesk.core.engines.sglang import SglangProfile

    ds = find_model("deepseek-v3")
    rt = Runtime(engine=Engine.SGLANG, tensor_parallel_size=8)
    fig = SglangProfile().figures(
        ds.model, ds.weights, Workload(4096), rt, counts={"kv_cache_tokens": 1000}
    )
    assert (fig["kv_cache_bytes_k"], fig["kv_cache_bytes_v"]) == (70_272_000, 0)


def test_sglang_pool_from_a_given_size_and_from_a_gpu_too_small(llama8):
    from vramdesk.core.engines.sglang import SglangProfile

    rt = Runtime(engine=Engine.SGLANG)
    wl = Workload(4096)
    # 1,000,000,000 B // 131,072 = 7,629 tokens (whole)
    fig = SglangProfile().figures(
        llama8.model, llama8.weights, wl, rt, counts={"kv_cache_bytes": 10**9}
    )
    assert fig["kv_cache_tokens"] == 7_629
    # a 4 GiB GPU: floor(4 GiB * 0.88) < 16 GB of weights -> no tokens
    fig = SglangProfile().figures(llama8.model, llama8.weights, wl, rt, gpu_total_bytes=4 * GIB)
    assert fig["kv_cache_tokens"] == 0
