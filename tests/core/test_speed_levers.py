"""What the advisor's levers cost or gain in speed (core/speed_levers.py), by hand.

Llama-3.1-8B bf16 (config.json), 64 x 8,192 tokens, formula profile (llama.cpp's constants:
0.95 of the bandwidth + 3.5 ms a step, compute 0.4 x M / (M + 32) of the peak), H100 SXM
(datasheet 3,350 GB/s, dense fp16 989.4 TFLOPS). A step reads W = 15,009,849,344 bytes of
weights (tests/core/terms/test_speed.py) + 64 sequences' KV.
"""

from __future__ import annotations

import pytest

from vramdesk.core import Runtime, Workload, solve
from vramdesk.core.speed_levers import lever_speeds
from vramdesk.core.store.bundled import bundled_model, find_gpu
from vramdesk.core.units import GIB

W = 15_009_849_344
BW = 0.95 * 3350e9
# compute: 64 x (2 x 7,504,924,672 + 524,288 x 8,192) = 1,235,508,264,960 FLOPs at
# 0.4 x 64 / 96 x 989.4e12 = 263.84e12 FLOP/s -> 4.683 ms: below the memory time, both cases
FLOPS = 64 * (15_009_849_344 + 524_288 * 8192)
COMPUTE_S = FLOPS / (0.4 * 64 / 96 * 989.4e12)


def test_fp8_kv_halves_the_kv_read_and_the_total_rises():
    # bf16 KV: 64 x 131,072 x 8,192 = 68,719,476,736 B; step 3.5 ms + (W + KV) / BW
    #   = 3.5 + 83,729,326,080 / 3.1825e12 = 3.5 + 26.3093 ms = 29.8093 ms -> 64 / it = 2,147.0
    # fp8 KV: 34,359,738,368 B; 3.5 + 49,369,587,712 / 3.1825e12 = 3.5 + 15.5128 = 19.0128 ms
    #   -> 3,366.1 tokens/s in all (+56.8 %); attention FLOPs are unchanged (same elements)
    before = 64 / (0.0035 + max((W + 68_719_476_736) / BW, COMPUTE_S))
    after = 64 / (0.0035 + max((W + 34_359_738_368) / BW, COMPUTE_S))
    assert before == pytest.approx(2147.0, abs=0.1) and after == pytest.approx(3366.1, abs=0.1)
    m = bundled_model("llama-3.1-8b")
    wl = Workload(context_tokens=8192, batch=64)
    r = solve(m.model, m.weights, wl, Runtime(), 80 * GIB)
    levers = {
        lv.lever: lv
        for lv in lever_speeds(m.model, m.weights, wl, Runtime(), r.advice, find_gpu("H100 80GB"))
    }
    fp8 = levers["kv_dtype"]
    assert fp8.before_tokens_per_s == pytest.approx(before, rel=1e-9)
    assert fp8.after_tokens_per_s == pytest.approx(after, rel=1e-9)
    assert fp8.line().startswith("Store the KV cache in fp8: 2,147.0 -> 3,366.1 tokens/s in all")
    # a concurrency cap runs fewer sequences: N / (3.5 ms + (W + N GiB) / BW), less in all
    cap = levers["batch"]
    n = cap.sequences_after
    capped = n / (
        0.0035 + max((W + n * GIB) / BW, n * (FLOPS / 64) / (0.4 * n / (n + 32) * 989.4e12))
    )
    assert cap.after_tokens_per_s == pytest.approx(capped, rel=1e-9)
    assert cap.after_tokens_per_s < cap.before_tokens_per_s


def test_no_speed_facts_no_lever_speeds():
    m = bundled_model("llama-3.1-8b")
    wl = Workload(context_tokens=8192, batch=64)
    r = solve(m.model, m.weights, wl, Runtime(), 80 * GIB)
    assert (
        lever_speeds(m.model, m.weights, wl, Runtime(), r.advice, find_gpu("Generic 80 GiB")) == []
    )
