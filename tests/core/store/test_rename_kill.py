"""Issue 22 item 6: a kill during a preset rename never leaves both names.

A child process renames a preset with its file-system calls counted; at the chosen call it
tells the parent through a pipe and waits, and the parent SIGKILLs it there. Every call of
a rename is a kill point; a seeded random sample of them (bounded count) is killed, and the
next start must show exactly one of the two names with the preset's data intact.

Before the fix (new file written, then the old one unlinked, nothing journalled) a kill
between the two left both names.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import random
import signal
import sys
from pathlib import Path

import pytest

from vramdesk.core.store.presets import PresetStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

#: The calls a rename makes that change or flush the directory: each is a kill point.
_CALLS = ("replace", "unlink", "fsync", "rename")


def _rename_and_stop_at(directory: str, stop_at: int, report, hold) -> None:
    """Rename "Old" to "New", blocking at file-system call number ``stop_at`` (from 1)."""
    store = PresetStore(Path(directory))
    count = [0]

    def counted(name):
        real = getattr(os, name)

        def call(*args, **kwargs):
            count[0] += 1
            if count[0] == stop_at:
                report.send(("at", name))
                hold.recv()  # never answered: the parent kills us here
            return real(*args, **kwargs)

        return call

    for name in _CALLS:
        setattr(os, name, counted(name))
    store.rename("old", "New")
    report.send(("done", count[0]))


def _run_child(ctx, directory: Path, stop_at: int):
    report_r, report_w = ctx.Pipe(duplex=False)
    hold_r, hold_w = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_rename_and_stop_at, args=(str(directory), stop_at, report_w, hold_r))
    p.start()
    report_w.close()
    assert multiprocessing.connection.wait([report_r], timeout=120), "the child never reported"
    try:
        message = report_r.recv()
    except EOFError:
        p.join(10)
        pytest.fail(f"the child died before reporting (exit status {p.exitcode})")
    if message[0] == "at":
        os.kill(p.pid, signal.SIGKILL)
    p.join(30)
    hold_w.close()
    return message, p.exitcode


def _fresh(directory: Path) -> None:
    for entry in directory.iterdir() if directory.exists() else ():
        if entry.is_file():
            entry.unlink()
    PresetStore(directory).save("Old", "workload", {"workload": {"context_tokens": 4096}})


def test_a_kill_at_any_point_of_a_rename_leaves_exactly_one_name(config_dir):
    directory = config_dir / "presets"
    ctx = multiprocessing.get_context("spawn")
    # how many kill points a whole rename has (the child runs to the end when never stopped)
    _fresh(directory)
    (kind, calls), status = _run_child(ctx, directory, stop_at=10**9)
    assert (kind, status) == ("done", 0) and calls >= 4
    assert [p.name for p in PresetStore(directory).list()] == ["New"]
    points = random.Random(22).sample(range(1, calls + 1), min(calls, 8))
    outcomes = {}
    for point in sorted(points):
        _fresh(directory)
        (kind, name), status = _run_child(ctx, directory, stop_at=point)
        assert kind == "at" and status == -signal.SIGKILL, (point, kind, status)
        store = PresetStore(directory)  # the next start reconciles
        presets = store.list()
        assert len(presets) == 1, (point, name, [p.slug for p in presets])
        assert presets[0].name in ("Old", "New")
        assert presets[0].data == {"workload": {"context_tokens": 4096}}
        assert store.problems == []
        assert sorted(p.name for p in directory.glob("*.json")) == [f"{presets[0].slug}.json"]
        assert not (directory / ".rename-journal").exists()
        outcomes[point] = (name, presets[0].name)
    # both outcomes occur: early kills keep the old name, late ones the new
    assert {after for _, after in outcomes.values()} == {"Old", "New"}, outcomes


def test_a_scan_during_a_half_done_rename_shows_one_name(config_dir):
    # the state a kill after the new file and before the unlink leaves, read by another
    # window while a third holds the lock (so nobody can reconcile yet)
    import json

    directory = config_dir / "presets"
    _fresh(directory)
    holder = PresetStore(directory)
    doc = json.loads((directory / "old.json").read_text())
    with holder._lock:
        (directory / "new.json").write_text(json.dumps({**doc, "name": "New"}))
        (directory / ".rename-journal").write_text('{"from": "old.json", "to": "new.json"}')
        reader = PresetStore(directory, lock_timeout_s=0.5)
        assert reader.finished_rename is False  # the lock was taken
        assert [p.name for p in reader.list()] == ["New"]  # but the old name is hidden
        assert (directory / "old.json").exists()
    # the reader's next write takes the lock and finishes the rename first
    reader.save("Other", "workload", {"workload": {"batch": 2}})
    assert sorted(p.name for p in directory.glob("*.json")) == ["new.json", "other.json"]
    assert not (directory / ".rename-journal").exists()
