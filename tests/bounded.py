"""Run one CLI command line in a fresh interpreter and measure its time and peak memory growth.

The child imports the CLI and the importers first, resets its peak RSS to the current
RSS (``/proc/self/clear_refs``; ``ru_maxrss`` would include the parent's peak, inherited
through fork), runs ``vramdesk.cli.main(argv)`` with stdout/stderr captured, then reads the
peak (``VmHWM``): the growth is what the command itself needed at its worst.
An uncaught exception (a traceback) makes the child fail, and :func:`run_cli_bounded`
reports it as such, so a test can never mistake a crash for a refusal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

_CHILD = r"""
import contextlib, io, json, resource, sys, time
import vramdesk.cli, vramdesk.core.model.scenario  # warm: not measured
import vramdesk.core.local.importers, vramdesk.core.local.importers._gguf
import vramdesk.core.store.presets, vramdesk.core.calibrate.validate
argv = json.loads(sys.argv[1])


def status(field):  # KiB, from /proc (Linux); None elsewhere
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None


try:  # reset the peak to the current RSS ("5" to clear_refs, Linux >= 4.0)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    before = status("VmRSS")
except OSError:
    before = None
if before is None:  # ru_maxrss: also counts a parent's peak inherited through fork
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out, err = io.StringIO(), io.StringIO()
start = time.perf_counter()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    rc = vramdesk.cli.main(argv)
seconds = time.perf_counter() - start
after = status("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rc": rc, "seconds": seconds, "rss_growth_kib": after - before,
                  "stdout": out.getvalue(), "stderr": err.getvalue()}))
"""


@dataclass
class Bounded:
    """Exit status, captured output, wall seconds and peak RSS growth (MiB) of one command."""

    rc: int
    stdout: str
    stderr: str
    seconds: float
    rss_growth_mib: float


def run_cli_bounded(argv: list[str], *, timeout: float = 60, env: dict | None = None) -> Bounded:
    """Run ``vramdesk argv`` in a child interpreter; fail loudly on a traceback or a hang."""
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=root,
        env={**os.environ, **(env or {})},
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        raise AssertionError(f"the child crashed (status {proc.returncode}):\n{proc.stderr}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return Bounded(
        data["rc"], data["stdout"], data["stderr"], data["seconds"], data["rss_growth_kib"] / 1024
    )


def assert_one_line_refusal(result: Bounded, *needles: str) -> str:
    """Exit 2 with exactly one line on stderr containing every ``needle``; return the line."""
    lines = result.stderr.splitlines()
    assert result.rc == 2, (result.rc, result.stderr)
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert "Traceback" not in result.stderr
    return lines[0]
