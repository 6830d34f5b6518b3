"""GpuPanel: the real no-driver path, a fake NVML (tests/fake_nvml.py) and a slow query.

Figures of the fake (derivations in tests/core/local/test_nvml.py), GiB = 2**30:
  GPU 0: used 1394618425 B = 1.2989 GiB, total 24564 MiB = 23.988 GiB,
         free 24362602439 B = 22.689 GiB
  GPU 1: used 40528 MiB = 39.578 GiB, total 81559 MiB = 79.647 GiB, free 41031 MiB = 40.069 GiB
"""

from __future__ import annotations

import threading

import pynvml
import pytest
from PySide6.QtCore import QTimer

from tests.fake_nvml import FakeNvml, a100_mig, h100, rtx_4090, without_driver
from vramdesk.core.local.nvml import query_gpus
from vramdesk.core.units import Unit
from vramdesk.gui.panels.gpu import GpuPanel


@pytest.fixture
def make_panel(qtbot):
    panels = []

    def make(**kwargs):
        kwargs.setdefault("auto_refresh", False)
        panel = GpuPanel(**kwargs)
        qtbot.addWidget(panel)
        panels.append(panel)
        return panel

    yield make
    for panel in panels:
        assert panel.shutdown(5000)


@pytest.fixture
def fake(monkeypatch):
    fake = FakeNvml(monkeypatch, [rtx_4090(), h100()])
    yield fake
    if fake.gate is not None:
        fake.gate.set()  # never leave a worker blocked


def _rows(panel):
    return [(r.name.text(), r.bar.maximum(), r.bar.value(), r.figures.text()) for r in panel._rows]


def test_real_query_without_driver_shows_one_line(qtbot, make_panel, monkeypatch):
    without_driver(monkeypatch)  # the real binding's own error where no driver is installed
    panel = make_panel(refresh_on_start=False)
    with qtbot.waitSignal(panel.queryFailed, timeout=10000) as blocker:
        panel.refresh()
    message = (
        "No NVIDIA driver found: the NVML library (libnvidia-ml.so.1) is not installed. "
        "vramdesk works without a GPU; estimates are unaffected."
    )
    assert blocker.args == [message]
    assert panel.message_label.text() == message and not panel.message_label.isHidden()
    assert panel.snapshot() is None and _rows(panel) == []
    assert panel.refresh_button.isEnabled()


def test_two_gpus_rows_and_driver_line(qtbot, make_panel, fake):
    panel = make_panel(refresh_on_start=False)
    with qtbot.waitSignal(panel.gpusChanged, timeout=5000) as blocker:
        panel.refresh()
    assert blocker.args[0] is panel.snapshot()
    assert [g.free_bytes for g in panel.snapshot().gpus] == [24362602439, 43024121856]
    # bars in MiB: GPU 0 used 1394618425 / 2**20 = 1330.01 -> 1330 of 24564; GPU 1 40528 of 81559
    assert _rows(panel) == [
        ("0: NVIDIA GeForce RTX 4090", 24564, 1330, "1.30 GiB used of 23.99 GiB · 22.69 GiB free"),
        ("1: NVIDIA H100 80GB HBM3", 81559, 40528, "39.58 GiB used of 79.65 GiB · 40.07 GiB free"),
    ]
    assert panel.driver_label.text() == "Driver 550.54.15 · CUDA 12.4"
    assert panel.message_label.isHidden()
    # GB = 10**9: 1394618425 B = 1.39 GB, 25757220864 B = 25.76 GB, 24362602439 B = 24.36 GB
    panel.set_unit(Unit.GB)
    assert _rows(panel)[0][3] == "1.39 GB used of 25.76 GB · 24.36 GB free"


def test_gpu_lost_mid_query_clears_rows_and_says_which(qtbot, make_panel, fake):
    panel = make_panel(refresh_on_start=False)
    with qtbot.waitSignal(panel.gpusChanged, timeout=5000):
        panel.refresh()
    fake.fail("nvmlDeviceGetMemoryInfo", pynvml.NVML_ERROR_GPU_IS_LOST, gpu=1)
    seen = []
    panel.gpusChanged.connect(lambda snap: seen.append(("gpusChanged", snap)))
    with qtbot.waitSignal(panel.queryFailed, timeout=5000) as blocker:
        panel.refresh()
    message = "GPU 1 stopped answering while reading its memory (NVML: GPU is lost)."
    assert blocker.args == [message] and seen == [("gpusChanged", None)]
    assert panel.message_label.text() == message
    assert _rows(panel) == [] and panel.snapshot() is None and panel.driver_label.isHidden()


def test_unexpected_exception_is_shown_not_raised(qtbot, make_panel):
    def broken():
        raise RuntimeError("boom")

    panel = make_panel(query=broken, refresh_on_start=False)
    with qtbot.waitSignal(panel.queryFailed, timeout=5000) as blocker:
        panel.refresh()
    assert blocker.args == ["Could not read the GPUs: boom"]


def test_slow_query_keeps_event_loop_running_and_one_query_at_a_time(qtbot, make_panel, fake):
    fake.gate = threading.Event()
    started = []

    def query():
        started.append(threading.get_ident())
        return query_gpus()

    panel = make_panel(query=query, refresh_on_start=False)
    assert panel.refresh() is True
    ticks = []
    ticker = QTimer()
    ticker.timeout.connect(lambda: ticks.append(panel.is_querying()))
    ticker.start(10)
    qtbot.waitUntil(lambda: len(ticks) >= 10, timeout=5000)  # the GUI thread keeps turning
    ticker.stop()
    assert all(ticks) and panel.is_querying()
    assert panel.refresh() is False and not panel.refresh_button.isEnabled()
    assert len(started) == 1 and started[0] != threading.get_ident()
    with qtbot.waitSignal(panel.gpusChanged, timeout=5000) as blocker:
        fake.gate.set()
    assert [g.index for g in blocker.args[0].gpus] == [0, 1]
    assert not panel.is_querying() and panel.refresh_button.isEnabled()


def test_timer_ticks_skip_while_a_query_is_in_flight(qtbot, make_panel, fake):
    fake.gate = threading.Event()
    queries = []

    def query():
        queries.append(1)
        return query_gpus()

    panel = make_panel(query=query, refresh_on_start=False)
    ticks = []
    panel._timer.timeout.connect(lambda: ticks.append(1))
    panel.set_auto_refresh(True, 1000)
    assert panel.auto_refresh_enabled() and panel.auto_check.isChecked()
    assert panel.interval_spin.value() == 1
    qtbot.waitUntil(lambda: len(ticks) >= 2, timeout=5000)
    assert len(queries) == 1  # the second tick found the first query still blocked
    with qtbot.waitSignal(panel.gpusChanged, timeout=5000):
        fake.gate.set()
    panel.auto_check.setChecked(False)
    assert not panel.auto_refresh_enabled()


def test_refresh_button_and_start_query(qtbot, make_panel, fake):
    queries = []

    def query():
        queries.append(1)
        return query_gpus()

    panel = make_panel(query=query)  # refresh_on_start=True
    qtbot.waitUntil(lambda: panel.snapshot() is not None, timeout=5000)
    with qtbot.waitSignal(panel.gpusChanged, timeout=5000):
        panel.refresh_button.click()
    assert len(queries) == 2


def test_shutdown_drops_a_late_result(qtbot, make_panel, fake):
    fake.gate = threading.Event()
    panel = make_panel(refresh_on_start=False)
    panel.set_auto_refresh(True, 2000)
    panel.refresh()
    # closing never waits on the driver: the worker stops waiting for the blocked nvmlInit
    # (query_gpus' cancel event) and returns at once (issue 12 item 8)
    assert panel.shutdown(2000) is True
    assert not panel.auto_refresh_enabled()
    with qtbot.assertNotEmitted(panel.gpusChanged, wait=300):
        fake.gate.set()
    assert panel.snapshot() is None


def test_row_tooltip_lists_mig_instances_and_processes(qtbot, make_panel, monkeypatch):
    FakeNvml(monkeypatch, [a100_mig(), h100()])
    panel = make_panel(refresh_on_start=False)
    with qtbot.waitSignal(panel.gpusChanged, timeout=5000):
        panel.refresh()
    # MIG 3g.40gb: 40192 MiB = 39.25 GiB, free 39168 MiB = 38.25 GiB
    assert panel._rows[0].bar.toolTip().splitlines() == [
        "GPU-a100",
        "MIG 0: 38.25 GiB free of 39.25 GiB",
        "MIG 1: 38.25 GiB free of 39.25 GiB",
        "MIG is enabled: 2 instance(s); an engine sees one instance, not the whole GPU.",
    ]
    # pid 5000: 30000 MiB = 29.30 GiB; pid 5001: no memory figure and no name
    assert panel._rows[1].name.toolTip().splitlines() == [
        "GPU-h100bbbb-0000-0000-0000-000000000000",
        "PID 5000 (python5000): 29.30 GiB",
        "PID 5001: memory not reported",
    ]


def test_hung_driver_is_reported_and_refresh_comes_back(qtbot, make_panel, fake, monkeypatch):
    # issue 12 item 8: a driver that never answers used to leave the panel blank with
    # Refresh disabled for ever
    from vramdesk.core.local import nvml

    monkeypatch.setenv(nvml.TIMEOUT_ENV, "0.3")
    fake.gate = threading.Event()
    panel = make_panel(refresh_on_start=False)
    with qtbot.waitSignal(panel.queryFailed, timeout=5000) as failed:
        panel.refresh()
    assert "the driver did not answer within 0.3 s" in failed.args[0]
    assert panel.refresh_button.isEnabled() and not panel.is_querying()
    assert panel.message_label.text() == failed.args[0]
    fake.gate.set()
    nvml._ROUND[0].join(timeout=10)


def test_nonsense_figures_show_a_message_not_a_crash(qtbot, make_panel, monkeypatch):
    from tests.fake_nvml import MIB, FakeGpu

    FakeNvml(monkeypatch, [rtx_4090(), FakeGpu("bad", 1000 * MIB, 0, 2000 * MIB)])
    panel = make_panel(refresh_on_start=False)
    for _ in range(3):  # every refresh: the same message, never an exception
        with qtbot.waitSignal(panel.queryFailed, timeout=5000) as failed:
            panel.refresh()
        assert "GPU 1" in failed.args[0] and "cannot be true" in failed.args[0]
    assert panel._rows == []


def test_rows_clamp_figures_a_progress_bar_cannot_hold(qtbot, make_panel):
    from vramdesk.core.local.gpu_info import GpuInfo, NvmlSnapshot

    huge = GpuInfo(0, "huge", "", total_bytes=2**62, used_bytes=2**62, free_bytes=0)
    snapshot = NvmlSnapshot("1", "1", None, (huge,))
    panel = make_panel(refresh_on_start=False, query=lambda: snapshot)
    with qtbot.waitSignal(panel.gpusChanged, timeout=5000):
        panel.refresh()
    # 2**62 B = 2**42 MiB does not fit a C int: the bar is clamped, not an OverflowError
    assert panel._rows[0].bar.maximum() == 2**31 - 1 == panel._rows[0].bar.value()
