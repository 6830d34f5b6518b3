"""The speed chart's figures (core/speed_chart.py): concurrencies, the compute knee, the limit.

Hand derivations from the model's config.json and the GPU's datasheet (the same shapes as
tests/core/terms/test_speed.py).
"""

from __future__ import annotations

import pytest

from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.solver import solve
from vramdesk.core.speed import SpeedUnavailable
from vramdesk.core.speed_chart import MAX_REACH, chart_batches, speed_chart
from vramdesk.core.store.bundled import bundled_model, find_gpu
from vramdesk.core.units import GIB

BF16 = WeightSpec(WeightFormat.BF16)


def test_chart_batches_pass_through_the_limit_and_the_workload():
    # limit 222: reach 4 * 222 = 888; powers of two up to 512, then 222, 223 (the first that
    # does not fit), 888 and the workload's 16
    assert chart_batches(222, 16) == [1, 2, 4, 8, 16, 32, 64, 128, 222, 223, 256, 512, 888]
    # nothing fits (0) or not solved yet (None): 64 at least, no limit point
    assert chart_batches(0, 3) == [1, 2, 3, 4, 8, 16, 32, 64]
    assert chart_batches(None, 1) == [1, 2, 4, 8, 16, 32, 64]
    # a huge limit is capped
    assert chart_batches(100_000, 1)[-1] == MAX_REACH


def test_the_compute_knee_of_8b_at_256_tokens_on_h100():
    # Llama-3.1-8B bf16 (config.json): weights read per step W = 15,009,849,344 bytes (the
    # input embedding not read); KV per sequence 131,072 B/token * 256 = 33,554,432 bytes.
    # FLOPs per sequence: 2 * (8,030,261,248 - 525,336,576) = 15,009,849,344 for the weights
    # + attention 2 * (32 / 8) * 65,536 elements/token * 256 = 134,217,728 -> 15,144,067,072.
    # H100 SXM datasheet: 3,350 GB/s, dense fp16 989.4 TFLOPS.
    #   memory time  (W + B * 33,554,432) / 3.35e12     compute time  B * 15,144,067,072 / 989.4e12
    # compute >= memory when B * (15.30631 us - 10.01625 us) >= W / 3.35e12 = 4,480.55 us
    #   B >= 4,480.55 / 5.29006 = 846.98 -> 847 (at 846: memory 12,954.3 us > compute 12,949.1;
    #   at 847: memory 12,964.3 us < compute 12,964.4)
    model = bundled_model("llama-3.1-8b").model
    wl = Workload(context_tokens=256, batch=16)
    chart = speed_chart(model, BF16, wl, Runtime(), find_gpu("H100 80GB"), 1783)
    assert chart.compute_bound_from == 847
    by_batch = {p.batch: p for p in chart.points}
    assert by_batch[512].bound == "memory bandwidth" and by_batch[1024].bound == "compute"
    # at 1,024 the ceiling is compute: 1,024 / (1,024 * 15,144,067,072 / 989.4e12) = 65,332.3
    assert by_batch[1024].aggregate_ceiling_tokens_per_s == pytest.approx(
        989.4e12 / 15_144_067_072, rel=1e-9
    )
    assert chart.memory_limit == 1783 and chart.current == 16 and chart.context == 256
    assert any("256-token context" in a for a in chart.assumptions)


def test_long_context_stays_bandwidth_bound():
    # at 8,192 tokens a sequence reads 1,073,741,824 bytes of KV per step (320.5 us at
    # 3.35 TB/s) against 2 * 7,504,924,672 + 524,288 * 8,192 = 19,304,816,640 FLOPs (19.5 us):
    # memory time grows faster than compute time with every sequence, so no knee
    model = bundled_model("llama-3.1-8b").model
    chart = speed_chart(model, BF16, Workload(8192, 1), Runtime(), find_gpu("H100 80GB"), 60)
    assert chart.compute_bound_from is None
    assert {p.bound for p in chart.points} == {"memory bandwidth"}


def test_the_limit_is_the_solvers_and_a_gpu_without_facts_says_so():
    model = bundled_model("llama-3.1-8b").model
    wl = Workload(context_tokens=8192, batch=4)
    r = solve(model, BF16, wl, Runtime(), 80 * GIB)
    chart = speed_chart(model, BF16, wl, Runtime(), find_gpu("H100 80GB"), r.max_concurrency)
    # test_advisor.py: 24 GiB holds 5 sequences of 8,192 tokens; 80 GiB holds more
    assert chart.memory_limit == r.max_concurrency > 5
    assert r.max_concurrency in [p.batch for p in chart.points]
    d = chart.to_dict()
    assert d["memory_limit_concurrency"] == r.max_concurrency
    assert d["points"][0]["concurrency"] == 1 and d["assumptions"]
    missing = speed_chart(model, BF16, wl, Runtime(), find_gpu("Generic 80 GiB"), 5)
    assert isinstance(missing, SpeedUnavailable)
