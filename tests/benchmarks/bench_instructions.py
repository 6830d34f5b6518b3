"""Instructions per keystroke under callgrind: a figure the machine's load does not move.

    .venv/bin/python tests/benchmarks/bench_instructions.py [--edits N] [--only SCENE ...]

The keystrokes of ``bench_keystroke.py`` (the same scenes, windows, keys and idle test; issue
24), counted in instructions instead of milliseconds. Each scene runs in a child interpreter
under ``valgrind --tool=callgrind --instr-atstart=no``: nothing is counted while the window
starts, builds and settles, or while the untimed digits are typed; the child turns counting
on around each timed last key and off once the window is idle again
(``callgrind_control -i on|off``), and valgrind's total is read from its report. The
window's ``N`` edits and the bare window's ``N`` (the baseline of ``bench_keystroke.py``)
are counted in two children, each with both windows open (a dump taken while counting is
off holds nothing, so one process cannot part them). Every thread is counted (the solve
runs on the pool's).

Printed per scene: the window's and the bare window's instructions a keystroke (millions)
and their ratio. About 1.5 minutes a scene at the default 10 edits (valgrind runs the
counted parts some 50 times slower). Two runs of the same code agreed within 0.8 % on the
solver, Fits and Compare tabs, within 4-8 % on KV growth, Speed and the GPU panel (the idle
test's polling while a solve runs is counted, and the GPU panel's 2 s refresh lands in some
counted keys); a wall-clock ratio on this shared machine moved by up to 17 % between runs.
Instructions are not time: a cache miss or a wait on another thread costs no instruction, so
this complements the timed benchmark and does not replace it.

Needs valgrind (``apt-get install valgrind``); exit status 2 without it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_keystroke, run as a script
import bench_keystroke as keystroke  # noqa: E402

ROOT = keystroke.ROOT


def _callgrind(*args: str) -> None:
    subprocess.run(["callgrind_control", *args, str(os.getpid())], capture_output=True, check=True)


def child(scene: str, n_edits: int, side: str) -> dict:
    from PySide6.QtTest import QTest

    o = keystroke.open_scene(scene)  # both windows, whichever side is counted
    if side == "window":
        field, texts, busy = o.context, keystroke.CONTEXTS, o.busy
    else:
        field, texts, busy = o.bare_edit, keystroke.BARE_WORDS, lambda: False
    for i in range(n_edits + 3):  # the first three warm up (not counted)
        text = texts[i % len(texts)]
        keystroke.type_prefix(field, text[:-1])
        keystroke.settle(o.app, busy)
        if i >= 3:
            _callgrind("-i", "on")
        QTest.keyClick(field, text[-1])
        keystroke.settle(o.app, busy)
        if i >= 3:
            _callgrind("-i", "off")
    o.window.close()
    o.bare.close()
    return {"scene": scene, "side": side, "edits": n_edits}


def _count(scene: str, n_edits: int, side: str) -> int:
    """Instructions of ``side``'s counted keystrokes (valgrind's ``Collected :`` total)."""
    env = dict(os.environ)
    if env.get("QT_QPA_PLATFORM", "offscreen").startswith("offscreen"):
        env["QT_QPA_PLATFORM"] = keystroke.laptop_screen()
    env["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="vd-bench-")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(ROOT)) if p)
    out = Path(tempfile.mkdtemp(prefix="vd-callgrind-"))
    args = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out / 'cg.out'}",
        sys.executable,
        __file__,
        "--child",
        scene,
        str(n_edits),
        side,
    ]
    r = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT)
    shutil.rmtree(out, ignore_errors=True)
    found = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode or found is None:
        raise RuntimeError(f"{scene} ({side}): child failed\n{r.stderr[-3000:]}")
    return int(found.group(1))


def run_scene(scene: str, n_edits: int) -> dict:
    window, bare = (_count(scene, n_edits, side) / n_edits for side in ("window", "bare"))
    return {"scene": scene, "window": window, "bare": bare}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--edits", type=int, default=10, help="counted keystrokes per scene")
    ap.add_argument("--only", nargs="+", choices=keystroke.SCENES)
    ap.add_argument("--json", help="also write the figures to this file")
    opts = ap.parse_args()
    if opts.child:
        scene, n, side = opts.child
        print(json.dumps(child(scene, int(n), side)), flush=True)
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    print(f"{'scene':<10} {'window M instr/key':>19} {'bare M instr/key':>17} {'ratio':>7}")
    results = {}
    for scene in opts.only or keystroke.SCENES:
        r = run_scene(scene, opts.edits)
        results[scene] = r
        print(
            f"{scene:<10} {r['window'] / 1e6:>19.2f} {r['bare'] / 1e6:>17.2f} "
            f"{r['window'] / r['bare']:>6.2f}x",
            flush=True,
        )
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
