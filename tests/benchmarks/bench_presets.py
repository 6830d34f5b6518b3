"""Preset store under load: four competing writers, then SIGKILL mid-save (issue 12 item 11).

    .venv/bin/python tests/benchmarks/bench_presets.py [OPS_PER_WRITER] [KILLS]

Prints operations, failures and the slowest operation of four writers (save, rename,
delete), then for the kills: presets set aside as corrupt, stray temporary files left and
how many a new store removed. Defaults: 800 operations per writer (3,200 in all), 100 kills.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.core.store.test_preset_stress import _save_forever, _writer  # noqa: E402
from vramdesk.core.store.presets import PresetStore  # noqa: E402


def main() -> None:
    ops = int(sys.argv[1]) if len(sys.argv) > 1 else 800
    kills = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    ctx = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "presets"
        start, out = ctx.Event(), ctx.Queue()
        procs = [
            ctx.Process(target=_writer, args=(str(directory), m, ops, start, out)) for m in "abcd"
        ]
        for p in procs:
            p.start()
        t0 = time.monotonic()
        start.set()
        results = [out.get(timeout=3600) for _ in procs]
        for p in procs:
            p.join()
        took = time.monotonic() - t0
        failures = sum(f for _, f, _ in results)
        worst = max(w for _, _, w in results)
        store = PresetStore(directory)
        print(
            f"4 writers x {ops} operations = {4 * ops:,} in {took:.1f} s: {failures} failed, "
            f"slowest {worst:.2f} s; {len(store.list())} presets, problems {len(store.problems)}"
        )
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "presets"
        rng = random.Random(5)
        for _ in range(kills):
            p = ctx.Process(target=_save_forever, args=(str(directory),))
            p.start()
            time.sleep(0.3 + rng.random() * 0.3)
            os.kill(p.pid, signal.SIGKILL)
            p.join()
        store = PresetStore(directory)
        loaded, problems = len(store.list()), len(store.problems)
        temps = [t for t in directory.iterdir() if t.name.endswith(".tmp")]
        for t in temps:
            os.utime(t, (time.time() - 3600, time.time() - 3600))
        removed = PresetStore(directory).removed_temps
        left = [t for t in directory.iterdir() if t.name.endswith(".tmp")]
        print(
            f"{kills} SIGKILLs mid-save: {loaded} presets load, {problems} set aside; "
            f"{len(temps)} stray temporary files, {removed} removed by the next start, "
            f"{len(left)} left"
        )


if __name__ == "__main__":
    main()
