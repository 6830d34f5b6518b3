"""What a keystroke must repaint, with nothing recomputed: the floor under issue 24's target.

    .venv/bin/python tests/benchmarks/bench_floor.py [--edits N] [--only SCENE ...] [--json FILE]

The scenes, windows, keys, bare baseline and idle test of ``bench_keystroke.py`` (each scene
in its own child at 1366 x 768). Per edit, three things timed, interleaved:

edit    the real last keystroke into the context field, until the window is idle (as
        ``bench_keystroke.py`` times it). While it runs, every ``Paint`` event any widget
        of the window receives is recorded: the widget and the region it was asked to paint.
replay  the same regions of the same widgets marked dirty again (``QWidget.update(region)``),
        with no text, figure or item changed, until the window is idle: one window paint
        of everything the edit painted. Nothing is computed, laid out or re-measured, an
        axis replays the picture it cached, and what the edit painted in two or three
        frames is painted in one; so this is a lower bound on any edit's cost with these
        widgets on the screen, however fast the computing behind them becomes.
bare    the bare window's keystroke (``bench_keystroke.py``'s baseline).

Printed per scene: the three medians, replay / bare (the floor, as a ratio) and edit / bare
(what ``bench_keystroke.py`` reports), the widgets an edit painted (distinct widgets with a
``Paint`` event; median) and the area they cover in the window (pixels of the union of their
regions, median, against the bare window's). A benchmark: it asserts nothing; exit 0, 2 on a bad
argument, 1 when a child fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_keystroke, run as a script
import bench_keystroke as keystroke  # noqa: E402


class PaintLog:
    """Records ``(widget, region)`` of each ``Paint`` event under ``top`` while ``on``."""

    def __init__(self, app, top) -> None:
        from PySide6.QtCore import QEvent, QObject
        from PySide6.QtGui import QRegion

        log = self
        self.on = False
        self.events: list[tuple[object, QRegion]] = []
        self.top = top
        paint = QEvent.Type.Paint

        class _Filter(QObject):
            def eventFilter(self, obj, event):  # noqa: N802 - Qt override
                if log.on and event.type() == paint and obj.window() is top:
                    log.events.append((obj, QRegion(event.region())))
                return False

        self._filter = _Filter()
        app.installEventFilter(self._filter)

    def take(self) -> list:
        events, self.events = self.events, []
        return events

    def area(self, events) -> int:
        """Pixels of the union of ``events``' regions, in the window's coordinates."""
        from PySide6.QtGui import QRegion

        union = QRegion()
        for widget, region in events:
            union = union.united(region.translated(widget.mapTo(self.top, widget.rect().topLeft())))
        return sum(r.width() * r.height() for r in union)


def child(scene: str, n_edits: int) -> dict:
    from PySide6.QtTest import QTest

    o = keystroke.open_scene(scene)
    app, busy, context = o.app, o.busy, o.context
    log = PaintLog(app, o.window)
    bare_log = PaintLog(app, o.bare)
    edit_ms, replay_ms, bare_ms, widgets, area, bare_area = [], [], [], [], [], []
    for i in range(n_edits + 3):  # the first three warm up (not counted)
        text = keystroke.CONTEXTS[i % len(keystroke.CONTEXTS)]
        keystroke.type_prefix(context, text[:-1])
        keystroke.settle(app, busy)
        log.on = True
        t0 = time.perf_counter()
        QTest.keyClick(context, text[-1])
        keystroke.settle(app, busy)
        dt = (time.perf_counter() - t0) * 1000
        log.on = False
        painted = log.take()

        t0 = time.perf_counter()
        for widget, region in painted:
            widget.update(region)
        keystroke.settle(app, busy)
        rt = (time.perf_counter() - t0) * 1000

        word = keystroke.BARE_WORDS[i % len(keystroke.BARE_WORDS)]
        keystroke.type_prefix(o.bare_edit, word[:-1])
        keystroke.settle(app)
        bare_log.on = True
        t0 = time.perf_counter()
        QTest.keyClick(o.bare_edit, word[-1])
        keystroke.settle(app)
        bt = (time.perf_counter() - t0) * 1000
        bare_log.on = False
        bare_painted = bare_log.take()
        if i < 3:
            continue
        edit_ms.append(dt)
        replay_ms.append(rt)
        bare_ms.append(bt)
        widgets.append(len({id(w) for w, _ in painted}))
        area.append(log.area(painted))
        bare_area.append(bare_log.area(bare_painted))
    o.window.close()
    o.bare.close()
    med = statistics.median
    return {
        "scene": scene,
        "edits": n_edits,
        "edit": med(edit_ms),
        "replay": med(replay_ms),
        "bare": med(bare_ms),
        "widgets": med(widgets),
        "area": med(area),
        "bare_area": med(bare_area),
        "window_area": o.window.width() * o.window.height(),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--edits", type=int, default=40, help="timed keystrokes per scene (>= 1)")
    ap.add_argument("--only", nargs="+", choices=keystroke.SCENES)
    ap.add_argument("--json", help="also write the raw figures to this file")
    opts = ap.parse_args()
    if opts.edits < 1:
        ap.error("--edits: at least one timed keystroke is needed")
    if opts.child:
        scene, n = opts.child
        print(json.dumps(child(scene, int(n))), flush=True)
        return 0
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}", flush=True)
    print(
        f"{'scene':<10} {'edit ms':>8} {'replay ms':>10} {'bare ms':>8} {'replay/bare':>12} "
        f"{'edit/bare':>10} {'widgets':>8} {'area px (bare)':>22}"
    )
    results = {}
    for scene in opts.only or keystroke.SCENES:
        r = results[scene] = keystroke.run_scene(scene, opts.edits, script=__file__)
        print(
            f"{scene:<10} {r['edit']:>8.2f} {r['replay']:>10.2f} {r['bare']:>8.2f} "
            f"{r['replay'] / r['bare']:>11.2f}x {r['edit'] / r['bare']:>9.2f}x "
            f"{r['widgets']:>8g} {r['area']:>12,.0f} ({r['bare_area']:,.0f})",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
