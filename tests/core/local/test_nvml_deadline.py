"""Issue 12 item 8: every NVML round has a deadline; nonsense figures are refused or dropped.

The stand-in driver is tests/fake_nvml.py (pynvml's own functions replaced): its ``gate``
makes ``nvmlInit`` block (a hung driver) or answer late (a slow one); its GPUs can report
figures no driver can truthfully report. The CLI case runs a child interpreter whose
``pynvml`` module hangs in ``nvmlInit`` for an hour.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pynvml
import pytest

from tests.fake_nvml import MIB, FakeGpu, FakeNvml, h100, rtx_4090
from vramdesk.core.local import nvml
from vramdesk.core.local.gpu_info import GpuQueryError
from vramdesk.core.local.nvml import query_gpus


@pytest.fixture
def fake(monkeypatch):
    fake = FakeNvml(monkeypatch, [rtx_4090(), h100()])
    yield fake
    if fake.gate is not None:
        fake.gate.set()
    _wait_round_over()


def _wait_round_over():
    if nvml._ROUND is not None:
        nvml._ROUND[0].join(timeout=10)
        assert not nvml._ROUND[0].is_alive()


def test_hung_driver_is_given_up_after_the_deadline(fake):
    fake.gate = threading.Event()  # nvmlInit blocks until set
    start = time.monotonic()
    with pytest.raises(GpuQueryError) as err:
        query_gpus(timeout_s=0.3)
    took = time.monotonic() - start
    assert err.value.kind == "timeout" and "the driver did not answer within 0.3 s" in str(
        err.value
    )
    assert 0.3 <= took < 2.0
    # while that round is still stuck, a new query fails at once instead of piling up
    start = time.monotonic()
    with pytest.raises(GpuQueryError, match="has still not answered a query started"):
        query_gpus(timeout_s=5)
    assert time.monotonic() - start < 0.5
    fake.gate.set()
    _wait_round_over()
    assert len(query_gpus(timeout_s=5).gpus) == 2  # the driver answers again: all is well


def test_slow_driver_within_the_deadline_answers(fake):
    fake.gate = threading.Event()
    threading.Timer(0.2, fake.gate.set).start()
    snapshot = query_gpus(timeout_s=5)
    assert [g.name for g in snapshot.gpus] == ["NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3"]


def test_cancel_stops_waiting_at_once(fake):
    fake.gate = threading.Event()
    cancel = threading.Event()
    threading.Timer(0.1, cancel.set).start()
    start = time.monotonic()
    with pytest.raises(GpuQueryError, match="cancelled"):
        query_gpus(timeout_s=30, cancel=cancel)
    assert time.monotonic() - start < 1.0


def test_timeout_from_the_environment(fake, monkeypatch):
    fake.gate = threading.Event()
    monkeypatch.setenv(nvml.TIMEOUT_ENV, "0.2")
    with pytest.raises(GpuQueryError, match="within 0.2 s"):
        query_gpus()
    fake.gate.set()
    _wait_round_over()
    for bad in ("0", "nan", "1e400", "x"):
        monkeypatch.setenv(nvml.TIMEOUT_ENV, bad)
        with pytest.raises(GpuQueryError, match="from 0.1 to 600"):
            query_gpus()


@pytest.mark.parametrize(
    "gpu,words",
    [
        # allocated beyond the total: free would be negative
        (FakeGpu("used>total", 1000 * MIB, 0, 2000 * MIB), "bytes free of a"),
        # 2**64 - 1: an unsigned overflow read as a size
        (FakeGpu("overflow", 2**64 - 1, 0, 0), "total memory 18446744073709551615"),
        (FakeGpu("zero", 0, 0, 0), "total memory 0"),
        # reserved more than total - free
        (FakeGpu("reserved", 1000 * MIB, 2000 * MIB, -1500 * MIB), "reserved"),
    ],
    ids=["used-above-total", "2^64-1", "zero-total", "reserved-above-total"],
)
def test_nonsense_memory_figures_are_refused_naming_the_gpu(monkeypatch, gpu, words):
    FakeNvml(monkeypatch, [rtx_4090(), gpu])
    with pytest.raises(GpuQueryError) as err:
        query_gpus(timeout_s=5)
    assert err.value.kind == "nonsense" and "GPU 1" in str(err.value) and words in str(err.value)
    assert "\n" not in str(err.value)


def test_two_billion_devices_are_refused_before_any_loop(monkeypatch):
    fake = FakeNvml(monkeypatch, [rtx_4090()])
    monkeypatch.setattr(pynvml, "nvmlDeviceGetCount", lambda: 2**31)
    start = time.monotonic()
    with pytest.raises(GpuQueryError, match="2147483648 GPUs"):
        query_gpus(timeout_s=5)
    assert time.monotonic() - start < 1.0
    assert "nvmlDeviceGetHandleByIndex" not in fake.calls


def test_nonsense_process_figures_become_not_reported(monkeypatch):
    gpu = rtx_4090()
    gpu.processes = [(1, 2**64 - 1), (2, -5), (3, 1000 * MIB)] + [(9, 1)] * 10_000
    FakeNvml(monkeypatch, [gpu])
    g = query_gpus(timeout_s=30).gpus[0]
    assert [p.used_bytes for p in g.processes[:3]] == [None, None, 1000 * MIB]
    assert len(g.processes) == nvml.MAX_PROCESSES  # 10,003 listed, 4,096 kept
    assert g.used_bytes + g.free_bytes == g.total_bytes


def test_fake_file_with_used_above_total_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "fake.json"
    path.write_text(
        '{"driver_version": "1", "nvml_version": "1", "gpus": [{"index": 0, "name": "x",'
        ' "total_bytes": 100, "used_bytes": 500, "free_bytes": 200}]}'
    )
    monkeypatch.setenv(nvml.FAKE_ENV, str(path))
    with pytest.raises(GpuQueryError, match="used_bytes \\+ free_bytes exceeds total_bytes"):
        query_gpus(timeout_s=5)


_HUNG_PYNVML = """
import time
class NVMLError(Exception):
    value = 999
def nvmlInit():
    time.sleep(3600)
def __getattr__(name):
    if name.startswith("NVML_"):
        return 10_000
    raise AttributeError(name)
"""


@pytest.mark.parametrize(
    "argv", [["gpus"], ["solve", "--preset", "qwen2.5-0.5b", "--context", "1024", "--gpu", "local"]]
)
def test_cli_with_a_hung_driver_exits_with_one_line(tmp_path, argv):
    (tmp_path / "pynvml.py").write_text(_HUNG_PYNVML)
    env = {
        "PYTHONPATH": f"{tmp_path}",
        nvml.TIMEOUT_ENV: "0.5",
        "VRAMDESK_CONFIG_DIR": str(tmp_path / "cfg"),
        "PATH": "/usr/bin:/bin",
    }
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "vramdesk", *argv],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    took = time.monotonic() - start
    lines = proc.stderr.splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert "the driver did not answer within 0.5 s" in lines[0]
    assert took < 10  # the process exits although the NVML thread is still asleep
