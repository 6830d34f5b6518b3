"""Ceilings and expected figures against published measurements (tests/data, with URLs).

The ceiling is an upper bound: no published figure may exceed it. The expected figure is a
fitted model: each measurement must fall within a loose band of it (0.5x-2x), and the
llama.cpp measurements' geometric mean within 0.8-1.25; the exact spread is what
``tests/benchmarks/bench_speed.py`` prints (it is reported, not asserted as a timing).
"""

from __future__ import annotations

import math
import statistics

import pytest

from tests.speed_cases import evaluate, measurements

CASES = measurements()
BAND = (0.5, 2.0)


def test_the_collection_covers_what_the_issue_asks():
    # at least 15 measurements; single-stream decode on at least 6 GPUs; prefill; batched
    assert len(CASES) >= 15
    decode_gpus = {c["gpu"] for c in CASES if c["kind"] == "decode" and c["batch"] == 1}
    assert len(decode_gpus) >= 6
    assert any(c["kind"] == "prefill" for c in CASES)
    assert any(c["kind"] == "batched" and c["batch"] > 1 for c in CASES)
    assert all(c["url"].startswith("https://") and c["source"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_ceiling_never_below_a_measurement(case):
    e = evaluate(case)
    assert e.measured <= e.ceiling, (e.measured, e.ceiling)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_expected_within_the_band(case):
    e = evaluate(case)
    assert BAND[0] <= e.ratio <= BAND[1], e.ratio
    assert e.expected <= e.ceiling


def test_llama_cpp_fit_is_centred():
    logs = [math.log(evaluate(c).ratio) for c in CASES if c["engine"] == "llama.cpp"]
    assert 0.8 <= math.exp(statistics.fmean(logs)) <= 1.25
