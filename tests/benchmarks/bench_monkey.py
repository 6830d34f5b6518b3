"""A long seeded random session of the window (issue 22 item 8): figures, not a test.

    .venv/bin/python tests/benchmarks/bench_monkey.py [--actions 20000] [--seed 22] [--seeds 3]

Each seed runs in a fresh child interpreter under the offscreen platform with a throw-away
config folder, through tests/gui/monkey.py (the suite's test_monkey.py is the short form):
real key presses and clicks over every widget, the fake NVML changing. Prints, per seed,
the events sent, the dialogs closed, the longest event-loop gap (wall and GUI-thread CPU),
the RSS growth after a warm-up, the Qt warnings and the tracebacks seen (both should be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import gc, json, os, sys, traceback
sys.path.insert(0, sys.argv[3])
from pathlib import Path
from PySide6.QtCore import qInstallMessageHandler, QtMsgType
from PySide6.QtWidgets import QApplication
app = QApplication([])
warnings, errors = [], []
IGNORED = ("propagateSizeHints", "does not support raise", "grabbing the keyboard",
           "not accepted by receiving widget")
def handler(kind, _ctx, text):
    if kind != QtMsgType.QtDebugMsg and kind != QtMsgType.QtInfoMsg and not any(
        i in text for i in IGNORED):
        warnings.append(text)
qInstallMessageHandler(handler)
sys.excepthook = lambda t, v, tb: errors.append("".join(traceback.format_exception(t, v, tb)))
from tests.gui.monkey import Monkey
from vramdesk.gui.main_window import MainWindow
from vramdesk.gui.settings import open_settings

class Bot:  # the two qtbot calls the monkey makes
    @staticmethod
    def wait(ms):
        from PySide6.QtTest import QTest
        QTest.qWait(ms)

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20

actions, seed = int(sys.argv[1]), int(sys.argv[2])
window = MainWindow(open_settings(), gpu_query=None)
window.show()
monkey = Monkey(window, seed, Path(os.environ["VRAMDESK_CONFIG_DIR"]) / "gpus.json")
monkey.run(min(500, actions // 10), Bot)
gc.collect()
before = rss()
stats = monkey.run(actions, Bot)
gc.collect()
window.close()
print(json.dumps({"seed": seed, "actions": actions, "events": stats.events,
    "dialogs_closed": stats.dialogs_closed, "nvml_changes": stats.nvml_changes,
    "max_gap_ms": round(stats.max_gap_s * 1000, 1),
    "max_cpu_gap_ms": round(stats.max_cpu_gap_s * 1000, 1),
    "max_gc_pause_ms": round(stats.max_gc_pause_s * 1000, 1),
    "rss_growth_mib": round(rss() - before, 1), "rss_mib": round(rss(), 1),
    "qt_warnings": len(warnings), "tracebacks": len(errors),
    "first_warning": warnings[:1], "first_traceback": errors[:1]}))
"""


def run_seed(actions: int, seed: int) -> dict:
    """One child run; its JSON line as a dict."""
    with tempfile.TemporaryDirectory() as config:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", VRAMDESK_CONFIG_DIR=config)
        for var in ("HF_HUB_CACHE", "OLLAMA_MODELS", "VRAMDESK_LMSTUDIO_MODELS", "LLAMA_CACHE"):
            env[var] = str(Path(config) / "none")  # no real local model store is read
        env["VRAMDESK_MODEL_DIRS"] = ""
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(actions), str(seed), str(ROOT)],
            capture_output=True,
            text=True,
            env=env,
            cwd=config,
            check=False,
        )
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"seed": seed, "exit": out.returncode, "stderr": out.stderr[-2000:]}
    return json.loads(lines[-1])


def main() -> None:
    """Run the seeds and print one JSON line per seed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args()
    for seed in range(args.seed, args.seed + args.seeds):
        print(json.dumps(run_seed(args.actions, seed)), flush=True)


if __name__ == "__main__":
    main()
