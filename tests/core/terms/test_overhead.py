"""The overhead term (core/terms/overhead.py): the multiplier form covers every part."""

from __future__ import annotations

from vramdesk.core import (
    Runtime,
    Workload,
    estimate,
)

# Llama-3.1-8B (config.json): 32 layers, 8 KV heads, head_dim 4096 / 32 = 128, hidden 4096,
# intermediate 14,336, vocab 128,256, 8,030,261,248 parameters.


def test_overhead_multiplier_covers_activations_too(llama8):
    # bug: (weights + kv) * 0.15 without activations (725,391,360 B short here).
    # weights 8,030,261,248 * 2 = 16,060,522,496
    # kv      131,072 * 8,192 * 8 = 8,589,934,592
    # act     8 * 4,096 * (4,096 + 14,336) * 2 * 4 = 4,831,838,208 + logits 8 * 128,256 * 4
    #         = 4,104,192 -> 4,835,942,400 (0.15 of it: 725,391,360)
    # sum 29,486,399,488 * 0.15 = 4,422,959,923.2 -> 4,422,959,924 + 1 GiB 1,073,741,824
    #     = 5,496,701,748
    wl = Workload(context_tokens=8192, batch=8, prompt_len=4096)
    b = estimate(llama8.model, llama8.weights, wl, Runtime())
    assert b.activations.bytes == 4_835_942_400
    assert b.overhead.bytes == 5_496_701_748
