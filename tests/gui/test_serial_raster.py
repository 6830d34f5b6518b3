"""The window paints on its own thread: Qt's GUI thread pool is switched off (issue 24).

Qt 6 hands a large enough fill to ``qtGuiThreadPool`` and waits for it; for the window's
small shapes the hand-off cost more than the fill (:func:`vramdesk.gui.app.serial_raster`).
Each check runs in a fresh interpreter: Qt reads the switch once per process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vramdesk.gui import app as app_module

ROOT = Path(__file__).resolve().parents[2]

#: Paints one 2,000 x 2,000 fill (2,000 spans: the pool takes any of 96 or more) and prints
#: how many threads the process had before and after (Linux: /proc/self/task).
FILL = """
import os, sys
sys.path.insert(0, {root!r})
if {serial}:
    from vramdesk.gui.app import serial_raster
    serial_raster()
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
app = QGuiApplication(["fill"])
before = len(os.listdir("/proc/self/task"))
image = QImage(2000, 2000, QImage.Format.Format_ARGB32_Premultiplied)
painter = QPainter(image)
painter.fillRect(0, 0, 2000, 2000, QColor(10, 20, 30, 128))
painter.end()
print(before, len(os.listdir("/proc/self/task")), os.environ.get("QT_NO_GUI_THREADPOOL"))
"""


def _threads(serial: bool) -> tuple[int, int, str]:
    env = {k: v for k, v in os.environ.items() if k != app_module.SERIAL_RASTER_ENV}
    env["QT_QPA_PLATFORM"] = "offscreen"
    out = subprocess.run(
        [sys.executable, "-c", FILL.format(root=str(ROOT), serial=serial)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    ).stdout.split()
    return int(out[0]), int(out[1]), out[2]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_a_large_fill_starts_no_painting_threads_once_serial():
    before, after, value = _threads(serial=True)
    assert value == "1"
    assert after == before  # painted on this thread


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_without_the_switch_qt_starts_its_painting_threads():
    # the control: what the switch prevents happens here (if Qt ever stops threading fills,
    # this fails and the switch can go)
    before, after, value = _threads(serial=False)
    assert value == "None"
    assert after > before


def test_serial_raster_keeps_a_value_the_user_set(monkeypatch):
    monkeypatch.setenv(app_module.SERIAL_RASTER_ENV, "yes")
    app_module.serial_raster()
    assert os.environ[app_module.SERIAL_RASTER_ENV] == "yes"
    monkeypatch.delenv(app_module.SERIAL_RASTER_ENV)
    app_module.serial_raster()
    assert os.environ[app_module.SERIAL_RASTER_ENV] == "1"


def test_the_window_entry_switches_the_pool_off_before_qt_starts(monkeypatch):
    # main() turns it on before _open_and_run makes the QApplication
    seen = []
    monkeypatch.delenv(app_module.SERIAL_RASTER_ENV, raising=False)
    monkeypatch.setattr(
        app_module,
        "_open_and_run",
        lambda argv: seen.append(os.environ.get(app_module.SERIAL_RASTER_ENV)) or 0,
    )
    assert app_module.main([]) == 0
    assert seen == ["1"]
