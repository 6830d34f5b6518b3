"""Guard against the PySide6 release that loses references to None/True (6.12.0 on Python 3.11).

Under that release every ``Signal.emit`` and every ``QComboBox.currentData()`` returning None
drops a reference it never took; after a few thousand edits CPython aborts with
"Fatal Python error: bool_dealloc". pyproject.toml excludes it; this test runs the same
pattern in a child process so that a bad Qt binding fails here instead of crashing a user.
"""

import subprocess
import sys

SCRIPT = """
import sys
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QComboBox
app = QApplication([])
class Emitter(QObject):
    changed = Signal(object)
e = Emitter()
e.changed.connect(lambda value: None)
before_true, before_none = sys.getrefcount(True), sys.getrefcount(None)
for _ in range(5000):
    e.changed.emit(1)
combo = QComboBox()
combo.addItem("x", None)
for _ in range(5000):
    combo.currentData()
print(sys.getrefcount(True) - before_true, sys.getrefcount(None) - before_none)
"""


def test_signal_emission_keeps_singleton_refcounts():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lost_true, lost_none = (int(x) for x in proc.stdout.split())
    assert lost_true > -100 and lost_none > -100, (lost_true, lost_none)
