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
    # model_runner.py profile_max_num_token: rest = post_free - pre_free * (1 - 0.88), with
    # pre_free = total - 512 MiB (CUDA context, TP 1) and post_free = pre_free - weights:
    # pre_free = 85,899,345,920 - 536,870,912 = 85,362,475,008 B
    # pool = floor(85,362,475,008 * 0.88) - 16,094,076,928 = 75,118,978,007 - 16,094,076,928
    #      = 59,024,901,079 B; tokens = 59,024,901,079 // 131,072 (8B, 32 layers fp16) = 450,324
    # (the device total instead of pre_free would give 453,925)
    from vramdesk.core.engines.sglang import SglangProfile

    rt = Runtime(engine=Engine.SGLANG)
    wl = Workload(context_tokens=4096)
    total = 80 * GIB
    fig = SglangProfile().figures(llama8.model, llama8.weights, wl, rt, gpu_total_bytes=total)
    assert fig["weights_bytes"] == 16_094_076_928
    assert fig["kv_cache_tokens"] == 450_324
    assert isinstance(fig["kv_cache_tokens"], int)
    # K and V halves: 64 KiB each per token
    assert fig["kv_cache_bytes_k"] == fig["kv_cache_bytes_v"] == fig["kv_cache_tokens"] * 65_536


def test_sglang_pool_loses_the_distributed_buffers_by_release(llama8):
    # init_torch_distributed (model_runner.py) allocates NCCL / custom all-reduce buffers
    # before pre_model_load_memory: 64 MiB in the 0.4 releases (2025-05 TP4 log: 0.575 GiB in
    # use - 512 MiB context), 2.01 GiB from 0.5 (sgl-project/sglang#11716, TP8).
    # TP2 Llama-8B: weights per GPU (embeddings padded per shard) 8,063,815,680 B on an
    # 80 GiB GPU at 0.88:
    # 0.4: pre_free = 85,899,345,920 - 536,870,912 - 67,108,864 = 85,295,366,144
    #      pool = floor(85,295,366,144 * 0.88) - 8,063,815,680 = 75,059,922,206 - 8,063,815,680
    #           = 66,996,106,526 -> // 65,536 B per token (8 KV heads / 2 per GPU) = 1,022,279
    # 0.5: buffers floor(2.01 * 2^30) = 2,158,221,066 B
    #      pre_free = 85,899,345,920 - 536,870,912 - 2,158,221,066 = 83,204,253,942
    #      pool = floor(83,204,253,942 * 0.88) - 8,063,815,680 = 73,219,743,468 - 8,063,815,680
    #           = 65,155,927,788 -> // 65,536 = 994,200
    from vramdesk.core.engines.sglang import SglangProfile, in_use_before_load

    wl = Workload(context_tokens=4096)
    old = Runtime(engine=Engine.SGLANG, tensor_parallel_size=2, engine_version="0.4.6.post1")
    new = old.replace(engine_version="0.5.3")
    assert in_use_before_load(old) == 536_870_912 + 67_108_864
    assert in_use_before_load(new) == 536_870_912 + 2_158_221_066
    p = SglangProfile()
    f_old = p.figures(llama8.model, llama8.weights, wl, old, gpu_total_bytes=80 * GIB)
    f_new = p.figures(llama8.model, llama8.weights, wl, new, gpu_total_bytes=80 * GIB)
    assert f_old["weights_bytes"] == 8_063_815_680
    assert (f_old["kv_cache_tokens"], f_new["kv_cache_tokens"]) == (1_022_279, 994_200)
    # the solver says what is in use before profiling
    said = "2,570 MiB (CUDA context, NCCL and all-reduce buffers) in use"
    assert any(said in n for n in p.solve_notes(llama8.model, new))


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
