"""A seeded random user: key presses and clicks over every widget of the window (issue 22).

Real QTest events only (``keyClick``, ``mouseClick``, ``mouseDClick``, press/move/release
drags on the charts), on widgets picked at random among those shown and enabled, while the
fake NVML (``VRAMDESK_FAKE_NVML``, a JSON file rewritten here) changes between GPUs, sizes
and errors. Buttons that only open a file or name dialog are left out (a random name typed
into a save dialog would write files); a dialog or menu opened all the same is closed by a
timer, and counted. A 10 ms heartbeat measures the event loop: the longest gap between two
beats in wall time, and in the GUI thread's own CPU time (what the window itself spent;
another process on a loaded machine does not count there); and the longest collector pass.

Used by tests/gui/test_monkey.py (a short seeded run in the suite) and
tests/benchmarks/bench_monkey.py (a long run that prints the figures).
"""

from __future__ import annotations

import gc
import json
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QLineEdit,
    QMenuBar,
    QTabBar,
    QWidget,
)

from tests.gui.mouse import drag_item

#: Buttons that open a file, name or confirmation dialog (by object name or text).
DIALOG_BUTTONS = frozenset(
    {
        "import_button",
        "Delete",
        "Save model…",
        "Save workload…",
        "Save scenario…",
        "Rename…",
        "Import file…",
        "Export file…",
        "Add folder…",
    }
)
#: Keys typed: digits and the characters of numbers, letters, editing and moving keys.
KEYS = (
    [getattr(Qt.Key, f"Key_{d}") for d in "0123456789"]
    + [Qt.Key.Key_Period, Qt.Key.Key_Comma, Qt.Key.Key_Minus, Qt.Key.Key_E, Qt.Key.Key_K]
    + [Qt.Key.Key_G, Qt.Key.Key_I, Qt.Key.Key_B, Qt.Key.Key_Space]
    + [Qt.Key.Key_Backspace, Qt.Key.Key_Delete, Qt.Key.Key_Up, Qt.Key.Key_Down]
    + [Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End]
    + [Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Tab, Qt.Key.Key_Backtab]
    + [Qt.Key.Key_Return, Qt.Key.Key_Escape]
)


def gpu_file(rng: random.Random) -> dict:
    """A random snapshot in the debug hook's format: none, one or two GPUs, used <= total."""
    gpus = []
    for index in range(rng.choice((0, 1, 1, 2))):
        total = rng.choice((8192, 24564, 81559, 143771)) * 2**20
        used = rng.randrange(0, total, 2**20)
        gpus.append(
            {
                "index": index,
                "name": rng.choice(("NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3")),
                "uuid": f"GPU-fake-{index}",
                "total_bytes": total,
                "used_bytes": used,
                "free_bytes": total - used,
            }
        )
    return {"driver_version": "550.54", "nvml_version": "12.550", "gpus": gpus}


@dataclass
class Stats:
    """What a run did and measured."""

    actions: dict[str, int] = field(default_factory=dict)
    events: int = 0
    dialogs_closed: int = 0
    nvml_changes: int = 0
    beats: int = 0
    max_gap_s: float = 0.0
    max_cpu_gap_s: float = 0.0
    max_gc_pause_s: float = 0.0


class Monkey:
    """Drive ``window`` at random from ``seed``; the fake NVML file is ``nvml_file``."""

    def __init__(self, window: QWidget, seed: int, nvml_file: Path) -> None:
        self.window, self.rng, self.nvml_file = window, random.Random(seed), nvml_file
        self.stats = Stats()
        self._last = (time.perf_counter(), time.thread_time())
        self.heartbeat = QTimer()
        self.heartbeat.setInterval(10)
        self.heartbeat.timeout.connect(self._beat)
        self.closer = QTimer()
        self.closer.setInterval(20)
        self.closer.timeout.connect(self._close_dialogs)
        self.change_nvml()

    # ------------------------------------------------------------- measuring
    def _beat(self) -> None:
        now = (time.perf_counter(), time.thread_time())
        s = self.stats
        s.beats += 1
        s.max_gap_s = max(s.max_gap_s, now[0] - self._last[0])
        s.max_cpu_gap_s = max(s.max_cpu_gap_s, now[1] - self._last[1])
        self._last = now

    def _close_dialogs(self) -> None:
        for widget in (QApplication.activePopupWidget(), QApplication.activeModalWidget()):
            if widget is not None and widget is not self.window:
                widget.close()
                self.stats.dialogs_closed += 1

    # --------------------------------------------------------------- driving
    def change_nvml(self) -> None:
        """Rewrite the fake NVML (or make it fail) and ask the GPU panel to refresh."""
        rng = self.rng
        if rng.random() < 0.2:
            os.environ["VRAMDESK_FAKE_NVML"] = rng.choice(("error:gpu_lost", "error:no_driver"))
        else:
            self.nvml_file.write_text(json.dumps(gpu_file(rng)))
            os.environ["VRAMDESK_FAKE_NVML"] = str(self.nvml_file)
        panel = getattr(self.window, "_gpu_panel", None)
        if panel is not None:
            panel.refresh()
        self.stats.nvml_changes += 1

    def targets(self) -> list[QWidget]:
        """The widgets a person could click or type into now."""
        out = []
        for w in self.window.findChildren(QWidget):
            if not (w.isVisible() and w.isEnabled()) or w.window() is not self.window:
                continue
            if (
                isinstance(w, QMenuBar)
                or isinstance(w.parent(), QDockWidget)
                and (w.objectName().startswith("qt_dockwidget_"))
            ):
                continue
            if isinstance(w, QAbstractButton):
                if w.objectName() in DIALOG_BUTTONS or w.text() in DIALOG_BUTTONS:
                    continue
                if w.objectName().startswith("qt_dockwidget_"):
                    continue
                out.append(w)
            elif isinstance(w, QLineEdit | QAbstractSpinBox | QComboBox | QTabBar):
                out.append(w)
            elif isinstance(w, QAbstractItemView | pg.PlotWidget):
                out.append(w)
        return out

    def _gc(self, phase: str, _info: dict) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            pause = time.perf_counter() - self._gc_start
            self.stats.max_gc_pause_s = max(self.stats.max_gc_pause_s, pause)

    def run(self, actions: int, qtbot) -> Stats:
        """Do ``actions`` random actions, the event loop run after each; returns the figures."""
        self.heartbeat.start()
        self.closer.start()
        gc.callbacks.append(self._gc)
        try:
            for i in range(actions):
                if i % 150 == 149:
                    self.change_nvml()
                self.act()
                qtbot.wait(1)  # let timers, queued signals and workers' results run
        finally:
            gc.callbacks.remove(self._gc)
            self.heartbeat.stop()
            self.closer.stop()
        return self.stats

    def act(self) -> None:
        """One random action on one random widget."""
        rng, widgets = self.rng, self.targets()
        if not widgets:
            return
        w = rng.choice(widgets)
        kind = rng.choices(("keys", "click", "double", "drag"), (6, 4, 1, 1))[0]
        if isinstance(w, QAbstractButton) and kind != "keys":
            kind = "click"
        view = w.viewport() if isinstance(w, QAbstractItemView | pg.PlotWidget) else w
        point = QPoint(rng.randrange(max(1, view.width())), rng.randrange(max(1, view.height())))
        if kind == "keys":
            w.setFocus(Qt.FocusReason.MouseFocusReason)
            focused = QApplication.focusWidget() or w
            for _ in range(rng.randrange(1, 6)):
                key = rng.choice(KEYS)
                mod = Qt.KeyboardModifier.NoModifier
                if rng.random() < 0.05:
                    key, mod = (
                        rng.choice((Qt.Key.Key_A, Qt.Key.Key_Z)),
                        Qt.KeyboardModifier.ControlModifier,
                    )
                QTest.keyClick(focused, key, mod)
                self.stats.events += 1
        elif kind == "click":
            QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        elif kind == "double":
            QTest.mouseDClick(
                view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point
            )
        elif isinstance(w, pg.PlotWidget):
            item = w.getPlotItem().legend if rng.random() < 0.5 else w.getPlotItem().vb
            if item is not None:
                drag_item(w, item, (rng.randrange(-200, 200), rng.randrange(-150, 150)), 5)
        else:
            QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        self.stats.actions[kind] = self.stats.actions.get(kind, 0) + 1
        self.stats.events += kind != "keys"
