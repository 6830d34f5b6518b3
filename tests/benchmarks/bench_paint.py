"""Two paints of issue 24, each against its baseline in the same run.

    .venv/bin/python tests/benchmarks/bench_paint.py [--paints N]

1. A small paint with Qt's GUI thread pool on and off (``serial_raster``). Each side in its
   own child interpreter (Qt reads ``QT_NO_GUI_THREADPOOL`` once a process), offscreen: a
   Fusion ``QScrollBar`` of 14 x 259 px (the size of the solver tab's advice table's, at
   1366 x 768), rendered ``N`` times into an image, its value moved each time so that every
   render paints.
2. A redraw of the breakdown chart's y axis with pyqtgraph's three tick levels and with the
   chart's two (``BreakdownChart``: ``maxTickLevel=1``), interleaved batch by batch in one
   serial child: a 450 x 269 px plot (the chart's at 1366 x 768) with the chart's grid, axes
   (``still_axes``) and a 0-40 range; each paint first makes the axis draw again, as an edit
   that moves the chart's top a step does.

Printed: the median of five batches per side, in milliseconds a paint, and their ratio.
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


def axis_child(paints: int) -> dict:
    """Milliseconds a repaint of the plot whose y axis draws again, three levels and two."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # PySide6 before pyqtgraph (pyqtgraph uses the binding already imported), as the window
    # imports them
    # isort: off
    from PySide6.QtWidgets import QApplication
    import pyqtgraph as pg
    # isort: on

    from vramdesk.gui.chart.plotting import still_axes

    app = QApplication(["vramdesk-bench"])
    plot = pg.PlotWidget(enableMenu=False, background="w")
    plot.resize(450, 269)
    plot.showGrid(y=True, alpha=0.25)
    still_axes(plot)
    plot.setXRange(-0.4, 2.0, padding=0)
    plot.setYRange(0, 40, padding=0)
    plot.show()
    app.processEvents()
    axis, viewport = plot.getAxis("left"), plot.viewport()
    batches: dict[int, list[float]] = {2: [], 1: []}
    for _ in range(5):
        for level, times in batches.items():
            axis.setStyle(maxTickLevel=level, maxTextLevel=level)
            t0 = time.perf_counter()
            for _ in range(paints):
                axis.picture = None
                axis.update()
                viewport.repaint()
            times.append((time.perf_counter() - t0) * 1000 / paints)
    return {"three": statistics.median(batches[2]), "two": statistics.median(batches[1])}


def run(serial: bool, paints: int, axis: bool = False) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "QT_NO_GUI_THREADPOOL"}
    if serial:
        env["QT_NO_GUI_THREADPOOL"] = "1"  # what vramdesk.gui.app.serial_raster sets
    r = subprocess.run(
        [sys.executable, __file__, "--axis-child" if axis else "--child", str(paints)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(r.stdout.splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paints", type=int, default=400)
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--axis-child", type=int, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.child:
        print(json.dumps(child(opts.child)))
        return 0
    if opts.axis_child:
        print(json.dumps(axis_child(opts.axis_child)))
        return 0
    print(f"load average {os.getloadavg()[0]:.2f}")
    pool, serial = run(False, opts.paints)["ms"], run(True, opts.paints)["ms"]
    print(f"scroll bar 14 x 259, pool on : {pool:.3f} ms a paint")
    print(f"scroll bar 14 x 259, pool off: {serial:.3f} ms a paint ({pool / serial:.1f}x faster)")
    axis = run(True, max(1, opts.paints // 4), axis=True)
    three, two = axis["three"], axis["two"]
    print(f"breakdown y axis drawn again, three tick levels: {three:.3f} ms a paint")
    print(
        f"breakdown y axis drawn again, two tick levels  : {two:.3f} ms a paint "
        f"({three / two:.2f}x faster)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
