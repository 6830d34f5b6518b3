"""A small paint with Qt's GUI thread pool on and off (issue 24, ``serial_raster``).

    .venv/bin/python tests/benchmarks/bench_paint.py [--paints N]

Each side in its own child interpreter (Qt reads ``QT_NO_GUI_THREADPOOL`` once a process),
offscreen: a Fusion ``QScrollBar`` of 14 x 259 px (the size of the solver tab's advice
table's, at 1366 x 768), rendered ``N`` times into an image, its value moved each time so
that every render paints. Printed: the median of five batches per side, in milliseconds a
paint, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def child(paints: int) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication, QScrollBar

    app = QApplication(["vramdesk-bench"])
    bar = QScrollBar(Qt.Orientation.Vertical)
    bar.resize(14, 259)
    bar.setRange(0, 100)
    bar.setPageStep(50)
    bar.show()
    app.processEvents()
    image = QImage(14, 259, QImage.Format.Format_ARGB32_Premultiplied)
    batches = []
    for _ in range(5):
        t0 = time.perf_counter()
        for i in range(paints):
            bar.setValue(i % 3)
            bar.render(image, QPoint())
        batches.append((time.perf_counter() - t0) * 1000 / paints)
    return {"ms": statistics.median(batches)}


def run(serial: bool, paints: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "QT_NO_GUI_THREADPOOL"}
    if serial:
        env["QT_NO_GUI_THREADPOOL"] = "1"  # what vramdesk.gui.app.serial_raster sets
    r = subprocess.run(
        [sys.executable, __file__, "--child", str(paints)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(r.stdout.splitlines()[-1])["ms"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paints", type=int, default=400)
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.child:
        print(json.dumps(child(opts.child)))
        return 0
    print(f"load average {os.getloadavg()[0]:.2f}")
    pool, serial = run(False, opts.paints), run(True, opts.paints)
    print(f"scroll bar 14 x 259, pool on : {pool:.3f} ms a paint")
    print(f"scroll bar 14 x 259, pool off: {serial:.3f} ms a paint ({pool / serial:.1f}x faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
