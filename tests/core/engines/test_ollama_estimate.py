"""Ollama's own estimate by release (core/engines/ollama_estimate.py, llm/memory.go)."""

from __future__ import annotations

import re
from pathlib import Path

from vramdesk.core import Engine, Runtime, Workload
from vramdesk.core.engines.llamacpp.offload import weight_split
from vramdesk.core.engines.ollama import OllamaProfile
from vramdesk.core.engines.ollama_estimate import (
    estimate_gpu_layers,
    estimator_rule,
    graph_sizes,
    kv_per_layer,
)
from vramdesk.core.model.formats import KVDtype
from vramdesk.core.model.spec import FULL, SLIDING, ModelSpec
from vramdesk.core.store.bundled import find_model

GIB, MIB = 2**30, 2**20
LOG = Path(__file__).parents[2] / "data" / "engine-logs" / "ollama-0.6.5-gemma3-12b-estimate.txt"


def _rt(version: str) -> Runtime:
    return Runtime(engine=Engine.OLLAMA, engine_version=version, block_size=None)


def test_the_rule_by_release():
    g = find_model("gemma-3-27b-it").model
    assert estimator_rule(g, _rt("0.6.2")) == "every_layer"
    assert estimator_rule(g, _rt("0.6.3")) == "gemma3_window"
    assert estimator_rule(g, _rt("0.11.10")) == "gemma3_window"
    assert estimator_rule(g, _rt("0.11.11")) is None  # the engine's own layout
    llama = find_model("llama-3.1-8b").model
    assert estimator_rule(llama, _rt("0.20.0")) == "every_layer"  # GraphSize until 0.30
    assert estimator_rule(llama, _rt("0.30.0")) is None


def test_gemma3_27b_kv_and_graph_by_hand():
    # fs/ggml/ggml.go GraphSize, Gemma-3 27B (62 layers, 16 KV heads, key/value length 128),
    # num_ctx 8,192, one slot, f16, batch min(8,192, 512) = 512:
    # every layer (0.6.2): 8,192 * (128 + 128) * 16 * 2 = 67,108,864 B per layer, 62 layers
    #   = 4,160,749,568 B
    # 0.6.3+: layers i with (i + 1) % 6 != 0 (52 of 62) at 1 * 1,024 + 512 = 1,536 tokens:
    #   1,536 * 8,192 = 12,582,912 B; 10 * 67,108,864 + 52 * 12,582,912 = 1,325,400,064 B
    g = find_model("gemma-3-27b-it").model
    old = kv_per_layer(g, KVDtype.FP16, 8192, 512, 1, "every_layer")
    new = kv_per_layer(g, KVDtype.FP16, 8192, 512, 1, "gemma3_window")
    assert sum(old) == 4_160_749_568
    assert sum(new) == 1_325_400_064
    assert new[5] == 67_108_864 and new[0] == 12_582_912
    # gemma graph (E 5,376, V 262,208, H 32, K 128, b 512, c 8,192):
    # full = max(4*512*267,584, 4*512*(2 + 8,192 + 262,144 + 10,752 + 8,192)) = 592,449,536
    # partial = max(11,010,048 + 1,409,630,208 * 105 // 128 + 537,001,984, ...) = 1,704,349,312
    assert graph_sizes(g, 8192, 512, sum(new)) == (1_704_349_312, 592_449_536)


def test_old_estimator_offloads_fewer_layers_on_a_24_gib_gpu():
    # llm/memory.go EstimateGPULayers, one GPU of 24 GiB free, no OLLAMA_GPU_OVERHEAD:
    # every layer equal under 0.6.2 (blk + 67,108,864 B = L); layers are added while
    # free > 457 MiB + L (blk.0 held first) + n*L + graph + L, graph = max(partial, full)
    # = 1,704,349,312, so n = floor((free - 457 MiB - graph - 1) / L) - 1 when that is < 62.
    gm = find_model("gemma-3-27b-it")
    g, w = gm.model, gm.weights
    wl = Workload(context_tokens=8192)
    blk = weight_split(g, w, _rt("0.6.2"))["layers"] // 62
    layer = blk + 67_108_864
    free = 24 * GIB
    n = (free - 457 * MIB - 1_704_349_312 - 1) // layer - 1
    old = estimate_gpu_layers(g, w, wl, _rt("0.6.2"), free)
    assert old.layers_offload == n < 62 and old.layers_model == 63
    # partial: 457 MiB + (n + 1) * L + the partial graph (not every layer fits)
    assert old.required_partial_bytes == 457 * MIB + (n + 1) * layer + 1_704_349_312
    new = estimate_gpu_layers(g, w, wl, _rt("0.6.5"), free)
    assert new.layers_offload > old.layers_offload
    assert new.kv_bytes == 1_325_400_064


def test_the_profile_shows_the_estimate_and_the_allocation():
    gm = find_model("gemma-3-27b-it")
    p = OllamaProfile()
    rt = _rt("0.6.2")
    f, said = p.ollama_figures(gm.model, gm.weights, Workload(8192), rt, 24 * GIB)
    real = p.estimate(
        gm.model, gm.weights, Workload(8192), rt.replace(n_gpu_layers=f["ollama_layers_offload"])
    )
    assert f["ollama_allocated_bytes"] == real.total_bytes != f["ollama_estimate_partial_bytes"]
    assert said.startswith("Ollama 0.6.2 estimates ") and "of 63 layers" in said
    fig = p.figures(gm.model, gm.weights, Workload(8192), rt, gpu_total_bytes=24 * GIB)
    assert fig["ollama_layers_offload"] == f["ollama_layers_offload"]
    assert p.ollama_figures(gm.model, gm.weights, Workload(8192), _rt("0.12.0"), 24 * GIB) == (
        {},
        None,
    )


def test_the_public_0_6_5_log_kv_figure():
    # ollama/ollama#10341 (Ollama 0.6.5, gemma3:12b): memory.required.kv="608.0 MiB" at the
    # default num_ctx 2,048, one slot. Gemma-3 12B: 48 layers, 8 KV heads, head dim 256,
    # window 1,024: 8 full * 2,048 * 512 * 8 * 2 = 134,217,728 and 40 sliding * (1,024 + 512)
    # * 8,192 = 503,316,480 -> 637,534,208 B = 608.0 MiB (0.6.2's rule: 48 * 16,777,216
    # = 805,306,368 B = 768.0 MiB).
    text = LOG.read_text()
    printed = float(re.search(r'memory\.required\.kv="([\d.]+) MiB"', text).group(1))
    types = tuple(FULL if (i + 1) % 6 == 0 else SLIDING for i in range(48))
    g12 = ModelSpec(
        name="gemma-3-12b",
        num_hidden_layers=48,
        num_key_value_heads=8,
        head_dim=256,
        hidden_size=3840,
        num_attention_heads=16,
        sliding_window=1024,
        layer_types=types,
    )
    new = sum(kv_per_layer(g12, KVDtype.FP16, 2048, 512, 1, "gemma3_window"))
    old = sum(kv_per_layer(g12, KVDtype.FP16, 2048, 512, 1, "every_layer"))
    assert round(new / MIB, 1) == printed == 608.0
    assert old / MIB == 768.0
