"""The smallest GPU count with data parallelism (issue 21 item 2).

DeepSeek-V3's MLA latent is replicated on every TP rank (vLLM ``MLAAttention``: one latent
row per token, no head split), so past the weights more TP does not shrink the KV cache per
GPU; data parallelism does, each DP rank holding ``ceil(batch / dp)`` sequences, and with
expert parallelism the routed experts still spread over all ``tp * dp`` GPUs (vLLM
``fused_moe/config.py`` ``FusedMoEParallelConfig.make``).
"""

from __future__ import annotations

from vramdesk.core import Runtime, Workload
from vramdesk.core.model.runtime import Engine
from vramdesk.core.solve.search import Layout
from vramdesk.core.solve.solver import min_gpus_text, solve
from vramdesk.core.store.bundled import find_gpu, find_model

#: DeepSeek-V3 latent per token: (512 + 64) x 2 bytes x 61 layers.
LATENT = (512 + 64) * 2 * 61


def _solve(engine, **runtime):
    preset = find_model("deepseek-v3")
    cap = find_gpu("H200").capacity_for(engine)
    wl = Workload(context_tokens=32_768, batch=64)
    return solve(preset.model, preset.weights, wl, Runtime(engine=engine, **runtime), cap), cap


def test_deepseek_v3_64_long_sequences_fit_only_with_data_parallelism():
    r, cap = _solve(Engine.VLLM)
    # TP alone: every rank holds 64 x 32,768 x 70,272 = 147,371,065,344 bytes of latent, more
    # than the 0.9 x 150,754,820,096 = 135,679,338,086 bytes vLLM may use: no TP size fits
    assert 64 * 32_768 * LATENT == 147_371_065_344 > cap * 9 // 10
    assert r.min_gpus is None
    # 4 GPUs: the experts alone are 654,068,416,512 / 4 = 163,517,104,128 bytes per GPU,
    # over the card.
    # 8 GPUs, DP 2 x TP 4: 32 sequences = 73,685,532,672 bytes of latent beside 81.76 GB of
    # experts and 17.1 GB / 4 of the rest: over 0.9 x 150.4 GB. DP 4 x TP 2: 16 sequences =
    # 36,842,766,336 bytes + 81.76 GB + 8.6 GB + activations: fits
    assert 654_068_416_512 // 4 > cap
    assert r.min_layout == Layout(gpus=8, tp=2, dp=4, expert_parallel=True)
    assert min_gpus_text(r, Engine.VLLM) == (
        "none up to 64; or 8 as TP 2 x DP 4 (with expert parallel)"
    )
    assert r.to_dict()["min_layout"] == {
        "gpus": 8, "tp": 2, "dp": 4, "expert_parallel": True, "dp_attention": False
    }  # fmt: skip


def test_the_layout_it_names_fits():
    r, _ = _solve(Engine.VLLM, tensor_parallel_size=2, data_parallel_size=4,
                  enable_expert_parallel=True)  # fmt: skip
    assert r.fits
    assert r.breakdown.gpus == 8
    # the DP ranks' concurrency adds up: 4 ranks x what one rank holds
    assert r.max_concurrency % 4 == 0 and r.max_concurrency >= 64


def test_a_dense_model_gets_no_layout():
    preset = find_model("qwen3-8b")
    cap = find_gpu("H200").capacity_for(Engine.VLLM)
    wl = Workload(context_tokens=131_072, batch=256)
    r = solve(preset.model, preset.weights, wl, Runtime(engine=Engine.VLLM), cap)
    assert r.min_layout is None
    assert "min_layout" not in r.to_dict()
