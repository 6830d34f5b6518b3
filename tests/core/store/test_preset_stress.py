"""The preset store under competing writers and SIGKILL mid-save (issue 12 item 11).

Short runs here (fixed counts); tests/benchmarks/bench_presets.py runs the long ones and
prints the figures.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest

from vramdesk.core.store.presets import PresetStore


def _writer(directory: str, mark: str, count: int, start, out) -> None:
    store = PresetStore(Path(directory), lock_timeout_s=10.0)
    start.wait(30)
    failures, worst = 0, 0.0
    for i in range(count):
        t = time.monotonic()
        try:
            saved = store.save(f"{mark}{i}", "workload", {"workload": {"batch": i + 1}})
            if i % 3 == 0:
                saved = store.rename(saved.slug, f"{mark}{i}r")
            if i % 5 == 0:
                store.delete(saved.slug)
        except Exception:  # noqa: BLE001 - counted and reported
            failures += 1
        worst = max(worst, time.monotonic() - t)
    out.put((mark, failures, worst))


def test_four_competing_writers_lose_nothing_and_never_time_out(config_dir):
    directory = config_dir / "presets"
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    n = 30
    procs = [ctx.Process(target=_writer, args=(str(directory), m, n, start, out)) for m in "abcd"]
    for p in procs:
        p.start()
    start.set()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    assert [f for _, f, _ in results] == [0, 0, 0, 0], results
    store = PresetStore(directory)
    expected = {f"{m}{i}r" if i % 3 == 0 else f"{m}{i}" for m in "abcd" for i in range(n) if i % 5}
    assert {p.name for p in store.list()} == expected and store.problems == []
    assert [p.name for p in directory.iterdir() if p.name.endswith(".tmp")] == []
    assert list((directory / ".lock.queue").iterdir()) == []


def _save_forever(directory: str, saved) -> None:
    store = PresetStore(Path(directory))
    i = 0
    while True:
        i += 1
        store.save(f"k{i % 7}", "workload", {"workload": {"batch": i % 100 + 1}})
        if i == 1:  # the handshake: start-up is over and one save is whole on disk
            saved.send(True)
            saved.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_kill_mid_save_loses_nothing_and_strays_are_cleaned(config_dir):
    directory = config_dir / "presets"
    ctx = multiprocessing.get_context("spawn")
    rng = random.Random(12)
    kills = 0
    for _ in range(12):
        saved, child_end = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_save_forever, args=(str(directory), child_end))
        p.start()
        child_end.close()  # the child holds the only writing end: its death is EOF here
        # Wait for the child's first whole save, however long a loaded machine takes to start
        # a spawned interpreter (a fixed sleep killed it during start-up there, before any
        # save); the deadline only ends a child that never saves.
        assert multiprocessing.connection.wait([saved], timeout=120), "no save within 120 s"
        try:
            saved.recv()
        except EOFError:
            p.join(10)
            pytest.fail(f"the saver died before its first save (exit status {p.exitcode})")
        # then more saves: where in a save the kill lands is left to chance (any point will do)
        time.sleep(rng.random() * 0.2)
        os.kill(p.pid, signal.SIGKILL)
        p.join(10)
        kills += p.exitcode == -signal.SIGKILL
    assert kills == 12
    # every file that exists is whole: nothing set aside, at most the 7 names
    store = PresetStore(directory)
    names = {p.name for p in store.list()}
    assert store.problems == [] and names <= {f"k{i}" for i in range(7)} and names
    # nor by a later saver's scan: a file a kill tore is moved aside by the next one to read it
    assert [p.name for p in directory.iterdir() if ".corrupt-" in p.name] == []
    # strays of killed saves: age them past the 60 s threshold, then a new store removes them
    temps = [p for p in directory.iterdir() if p.name.endswith(".tmp")]
    for t in temps:
        os.utime(t, (time.time() - 3600, time.time() - 3600))
    fresh = PresetStore(directory)
    assert fresh.removed_temps == len(temps)
    assert [p.name for p in directory.iterdir() if p.name.endswith(".tmp")] == []
    # tickets of killed waiters are gone too
    assert [t for t in (directory / ".lock.queue").iterdir() if not t.name.endswith(".new")] == []
