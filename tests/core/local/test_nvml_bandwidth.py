"""The local GPU's memory bandwidth from NVML (clock x bus width) and its speed facts.

Against the fake at the pynvml boundary (tests/fake_nvml.py). The clocks are what nvidia-smi
prints under "Max Clocks / Memory" for these cards; the datasheet bandwidths beside them:
RTX 4090 10,501 MHz x 384 bit (1,008 GB/s), H100 SXM 2,619 MHz x 5,120 bit (3,350 GB/s).
"""

from __future__ import annotations

import dataclasses

import pynvml
import pytest

from tests.fake_nvml import FakeNvml, h100, rtx_4090
from vramdesk.core.estimate import estimate
from vramdesk.core.local.gpu_info import nvml_bandwidth_gb_s
from vramdesk.core.local.nvml import query_gpus
from vramdesk.core.local.speed_gpu import local_speed_gpu
from vramdesk.core.model.scenario import scenario_from_args
from vramdesk.core.speed import SpeedReport, SpeedUnavailable, speed_on


def _with_interface(gpu, clock, width, name=None):
    return dataclasses.replace(
        gpu, memory_clock_mhz=clock, memory_bus_width_bits=width, name=name or gpu.name
    )


def test_the_ddr_factor_against_the_datasheets():
    # NVML's memory clock is half the per-pin data rate (GDDR6X and HBM alike):
    # RTX 4090: 2 x 10,501e6 x 384 / 8 = 1,008,096,000,000 B/s -> 1,008.096 GB/s (1,008)
    assert nvml_bandwidth_gb_s(10_501, 384) == pytest.approx(1008.096)
    # H100 SXM: 2 x 2,619e6 x 5,120 / 8 = 3,352,320,000,000 B/s (datasheet 3,350)
    assert nvml_bandwidth_gb_s(2_619, 5_120) == pytest.approx(3352.32)


def test_query_reads_clock_and_bus_width(monkeypatch):
    FakeNvml(monkeypatch, [_with_interface(rtx_4090(), 10_501, 384), h100()])
    snap = query_gpus()
    g0, g1 = snap.gpus
    assert (g0.memory_clock_mhz, g0.memory_bus_width_bits) == (10_501, 384)
    assert g0.memory_bandwidth_gb_s == pytest.approx(1008.096)
    # the H100 fake answers NotSupported to both: no figure, and the query still succeeds
    assert (g1.memory_clock_mhz, g1.memory_bus_width_bits, g1.memory_bandwidth_gb_s) == (
        None,
        None,
        None,
    )


def test_a_refused_clock_is_tolerated(monkeypatch):
    fake = FakeNvml(monkeypatch, [_with_interface(rtx_4090(), 10_501, 384)])
    fake.fail("nvmlDeviceGetMaxClockInfo", pynvml.NVML_ERROR_NO_PERMISSION)
    (g,) = query_gpus().gpus
    assert g.memory_clock_mhz is None and g.memory_bandwidth_gb_s is None


def test_a_catalog_card_gets_the_catalogs_facts(monkeypatch):
    # "NVIDIA H100 80GB HBM3" with 81,559 MiB is the catalog's "H100 80GB"
    FakeNvml(monkeypatch, [_with_interface(h100(), 2_619, 5_120)])
    (g,) = query_gpus().gpus
    spec = local_speed_gpu(g)
    assert spec.name == "H100 80GB" and spec.memory_bandwidth_gb_s == 3350


def test_a_card_outside_the_catalog_gets_nvmls_bandwidth_and_names_the_missing_peak(
    monkeypatch,
):
    # a made-up card: 2 x 9,001 MHz x 256 bit / 8 = 576.064 GB/s
    card = _with_interface(rtx_4090(), 9_001, 256, name="NVIDIA Made-Up 9000")
    FakeNvml(monkeypatch, [card])
    (g,) = query_gpus().gpus
    spec = local_speed_gpu(g)
    assert spec.memory_bandwidth_gb_s == pytest.approx(576.064)
    assert spec.speed_source == "NVML: 2 x 9,001 MHz x 256 bit / 8"
    sc = scenario_from_args({"preset": "llama-3.1-8b", "context": 8192, "batch": 1})
    b = estimate(sc.model, sc.weights, sc.workload, sc.runtime)
    r = speed_on(sc, b, "local:0")
    assert isinstance(r, SpeedUnavailable)
    assert r.missing == ("peak TFLOPS for bf16 weights",)  # the bandwidth is not missing


def test_local_speed_on_a_catalog_card_is_the_catalogs(monkeypatch):
    FakeNvml(monkeypatch, [_with_interface(h100(), 2_619, 5_120)])
    sc = scenario_from_args({"preset": "llama-3.1-8b", "context": 8192, "batch": 1})
    b = estimate(sc.model, sc.weights, sc.workload, sc.runtime)
    local, catalog = speed_on(sc, b, "local"), speed_on(sc, b, "H100 80GB")
    assert isinstance(local, SpeedReport)
    assert local.decode_ceiling_tokens_per_s == catalog.decode_ceiling_tokens_per_s
