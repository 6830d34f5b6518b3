"""Issue 22 item 2: the window's import never keeps the process alive, and Cancel stops it.

A child interpreter (offscreen Qt) starts an import whose read never returns, cancels it
from the progress dialog and quits. Before the fix the read ran on ``QThreadPool``, which
waits for its threads when the application ends: the child never exited (killed by the
timeout here). The read now runs on a daemon thread and the child exits at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

_CHILD = r"""
import threading, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QProgressDialog, QPushButton, QWidget
from vramdesk.gui.forms import model_form

app = QApplication([])
parent = QWidget()
stuck = threading.Event()


def never_returns():
    stuck.set()
    threading.Event().wait()  # a read on a hung mount: it never comes back


def cancel_when_shown():
    dialog = parent.findChild(QProgressDialog, "import_progress")
    if stuck.is_set() and dialog is not None and dialog.isVisible():
        dialog.findChild(QPushButton).click()  # its Cancel button
    else:
        QTimer.singleShot(20, cancel_when_shown)


QTimer.singleShot(0, cancel_when_shown)
outcome = model_form.read_off_thread(never_returns, parent, "Reading", "Cancel")
print("outcome", outcome, flush=True)
parent.deleteLater()
app.quit()
"""


def test_a_read_that_never_returns_neither_blocks_cancel_nor_the_exit():
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD],
        capture_output=True,
        text=True,
        timeout=20,
        cwd=root,
        env=env,
    )
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr
    assert "outcome None" in proc.stdout  # cancelled: no result
    assert seconds < 15, seconds


def test_cancel_stops_the_importer_at_its_next_step(tmp_path):
    # the monitor the window passes: once Cancel set it, the reader raises ImportCancelled
    import pytest

    from tests import gguf_files as g
    from vramdesk.core.errors import ImportCancelled
    from vramdesk.core.local.importers import Monitor, load_model

    path = tmp_path / "m.gguf"
    path.write_bytes(g.gguf(g.llama_kvs()))
    with pytest.raises(ImportCancelled):
        load_model(path, monitor=Monitor(cancelled=lambda: True))
