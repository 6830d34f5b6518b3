"""GUI test fixtures: a main-window factory that fails on leaked top-level widgets (napari's
``make_napari_viewer`` / ``strict_qt``), and NVML answers that never touch a real driver."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from vramdesk.core.local.gpu_info import GpuInfo, GpuQueryError, NvmlSnapshot
from vramdesk.core.units import MIB


def no_driver():
    """An NVML query as on a machine without an NVIDIA driver."""
    raise GpuQueryError("no_driver")


def one_gpu_snapshot(total_mib: int = 24564, used_mib: int = 1330) -> NvmlSnapshot:
    """A snapshot of one GPU: nvidia-smi style MiB figures, used + free = total."""
    total, used = total_mib * MIB, used_mib * MIB
    gpu = GpuInfo(
        index=0,
        name="NVIDIA GeForce RTX 4090",
        uuid="GPU-fake-0",
        total_bytes=total,
        used_bytes=used,
        free_bytes=total - used,
    )
    return NvmlSnapshot(
        driver_version="550.54", nvml_version="12.550", cuda_driver_version=12040, gpus=(gpu,)
    )


def _top_level() -> set[int]:
    return {id(w) for w in QApplication.topLevelWidgets()}


@pytest.fixture
def make_main_window(qtbot, request):
    """Factory: ``make_main_window(gpu_query=..., show=False, size=None) -> MainWindow``.

    Each window has its own settings file; ``show`` shows it and waits until it is exposed,
    ``size`` (width, height) resizes it first.

    Windows are registered with qtbot (closed and deleted after the test), their GPU
    workers shut down, and any top-level widget left behind fails the test.
    """
    from vramdesk.gui.main_window import MainWindow
    from vramdesk.gui.settings import open_settings

    before = _top_level()

    def make(gpu_query=no_driver, show=False, size=None):
        window = MainWindow(open_settings(), gpu_query=gpu_query)
        # qtbot closes and deletes the window after the test, first stopping its GPU worker
        qtbot.addWidget(window, before_close_func=_stop_gpu_worker)
        if size is not None:  # (width, height): a laptop's 1366 x 768, say
            window.resize(*size)
        if show:
            window.show()
            qtbot.waitExposed(window)
        return window

    yield make
    # qtbot has closed the windows and asked Qt to delete them: do it now, then look for leftovers
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()
    leaked = [
        w
        for w in QApplication.topLevelWidgets()
        if shiboken6.isValid(w) and id(w) not in before and w.isVisible()
    ]
    assert not leaked, f"leaked top-level widgets: {leaked}"


def _stop_gpu_worker(window):
    if window.gpu_panel is not None:
        assert window.gpu_panel.shutdown(5000)


@pytest.fixture
def solved(qtbot):
    """``solved(window)``: wait until the window's reverse solve is done and shown.

    The window solves off its GUI thread (vramdesk/gui/solving.py): after an edit the
    breakdown is shown at once, the solve when its worker returns.
    """

    def wait(window, timeout: int = 10_000) -> None:
        controller = getattr(window, "controller", window)
        qtbot.waitUntil(lambda: not controller.solver.busy(), timeout=timeout)

    return wait
