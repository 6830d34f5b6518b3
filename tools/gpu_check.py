#!/usr/bin/env python3
"""Check vramdesk's GPU figures against the NVIDIA driver (issue 26); a developer tool.

One file past the house's 400 lines on purpose: it is copied alone to a GPU machine that has
no checkout, so it imports nothing of the repository but the installed vramdesk.

Run it on a machine with an NVIDIA driver, with the Python that has vramdesk installed::

    python tools/gpu_check.py [--tolerance-mib 32] [--alloc-mib 1024] [--alloc-gpu 0]

For every GPU it compares ``vramdesk gpus --json`` with ``nvidia-smi --query-gpu`` and
with ``pynvml`` called directly (index, name, UUID, memory); checks that ``vramdesk solve
--gpu local`` budgets the driver's free memory with the formula engine and its total with
``--engine vllm``; opens the window offscreen with the real driver and reads the GPU panel
and the chart's local-free line; and, where torch or cupy reaches the GPU, allocates and
frees a known amount and checks that vramdesk's free figure follows. It prints one line
per check, ``PASS name: detail``, ``FAIL name: detail`` or ``SKIP name: reason``, then
``N passed, N failed, N skipped``, and exits 0 only when nothing failed. Every reading
runs in a child process with a timeout, and the whole run stops after
:data:`RUN_LIMIT_S` seconds. ``VRAMDESK_FAKE_NVML`` is removed from the children's
environment: the point is the real driver.

Tolerance
---------
A GPU's total memory never changes: pynvml's total must equal vramdesk's to the byte and
nvidia-smi's (whole MiB) within :data:`ROUNDING_MIB`. Free and used memory move whenever
any process on the GPU allocates (a desktop compositor, a browser), and the readings are
taken one after another, a second or so apart; they must agree within ``--tolerance-mib``
(default :data:`DRIFT_MIB`, 32 MiB), plus :data:`ROUNDING_MIB` against nvidia-smi. On an
idle server they agree to the MiB; on a busy desktop raise the tolerance.

Which "used"
------------
vramdesk reports ``used = total - free`` (the driver's reserved memory plus what processes
allocated), as NVML's v1 memory call does. nvidia-smi on drivers with the v2 memory API
reports ``memory.used`` without the reserved part. Against nvidia-smi, either reading
passes: vramdesk's used, or its used less its ``reserved_bytes``.

The comparison functions (``compare_*``, ``check_*``, ``parse_*``) take parsed data and
are tested without a GPU in ``tests/tools/test_gpu_check.py``.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MIB = 2**20
GIB = 2**30
#: Default tolerance for free and used memory between two reads, MiB (module docstring).
DRIFT_MIB = 32
#: nvidia-smi prints whole MiB.
ROUNDING_MIB = 1
#: The whole run, seconds: under the two minutes the issue allows, with room to print.
RUN_LIMIT_S = 110.0
#: The prefix of the one line of JSON a child process prints.
JSON_MARK = "GPU_CHECK_JSON "
SMI_FIELDS = "index,name,uuid,memory.total,memory.used,memory.free,driver_version"
SMI_ARGV = ("nvidia-smi", f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits")
FAKE_ENV = "VRAMDESK_FAKE_NVML"
SOLVE_ARGV = ("solve", "--preset", "llama-3.1-8b", "--context", "8192", "--gpu", "local", "--json")
#: The per-GPU comparisons, one line each per GPU (``gpu0-smi-identity``, ...).
GPU_CHECKS = ("smi-identity", "smi-memory", "pynvml-identity", "pynvml-memory")
FIGURES_RE = re.compile(r"([\d,]+\.\d+) GiB used of ([\d,]+\.\d+) GiB · ([\d,]+\.\d+) GiB free")


# ------------------------------------------------------------------ results


@dataclass(frozen=True)
class Result:
    """One check's outcome: ``status`` is ``"PASS"``, ``"FAIL"`` or ``"SKIP"``."""

    status: str
    name: str
    detail: str

    def line(self) -> str:
        """``"PASS name: detail"``."""
        return f"{self.status} {self.name}: {self.detail}"


def verdict(name: str, problems: list[str], detail: str) -> Result:
    """PASS with ``detail`` when ``problems`` is empty, else FAIL naming them."""
    if problems:
        return Result("FAIL", name, "; ".join(problems))
    return Result("PASS", name, detail)


def summary(results: list[Result]) -> str:
    """``"N passed, N failed, N skipped"``."""
    count = {s: sum(r.status == s for r in results) for s in ("PASS", "FAIL", "SKIP")}
    return f"{count['PASS']} passed, {count['FAIL']} failed, {count['SKIP']} skipped"


def exit_status(results: list[Result]) -> int:
    """0 when nothing failed (and something was checked), else 1."""
    ok = results and not any(r.status == "FAIL" for r in results)
    return 0 if ok else 1


# ------------------------------------------------------------------ parsed readings


@dataclass(frozen=True)
class SmiGpu:
    """One row of nvidia-smi's CSV; memory in whole MiB, ``None`` where it says ``[N/A]``."""

    index: int
    name: str
    uuid: str
    total_mib: int | None
    used_mib: int | None
    free_mib: int | None
    driver_version: str


@dataclass(frozen=True)
class MigReading:
    """One MIG instance as pynvml answers directly; bytes."""

    index: int
    total_bytes: int
    free_bytes: int


@dataclass(frozen=True)
class NvmlReading:
    """One GPU as pynvml answers directly; bytes, ``None`` with ``memory_error`` when refused."""

    index: int
    name: str
    uuid: str
    total_bytes: int | None = None
    free_bytes: int | None = None
    reserved_bytes: int | None = None
    memory_error: str | None = None
    mig_enabled: bool | None = None
    instances: tuple[MigReading, ...] = ()


@dataclass(frozen=True)
class GpuRef:
    """The driver's figures for one GPU, from pynvml (exact) or nvidia-smi (``slack_bytes``)."""

    index: int
    name: str
    total_bytes: int
    free_bytes: int
    source: str
    slack_bytes: int = 0


def parse_smi_csv(text: str) -> list[SmiGpu]:
    """Rows of ``nvidia-smi --query-gpu=<SMI_FIELDS> --format=csv,noheader,nounits``.

    Raises
    ------
    ValueError
        A row without the seven fields or with a non-numeric index.
    """
    rows = csv.reader(io.StringIO(text), skipinitialspace=True)
    return [_smi_row([c.strip() for c in row]) for row in rows if any(c.strip() for c in row)]


def _smi_row(row: list[str]) -> SmiGpu:
    if len(row) < 7:
        raise ValueError(f"expected 7 fields, got {len(row)}: {','.join(row)!r}")
    name = ",".join(row[1:-5])  # a name holding a comma comes back split
    uuid, total, used, free, driver = row[-5:]
    return SmiGpu(int(row[0]), name, uuid, _mib(total), _mib(used), _mib(free), driver)


def _mib(text: str) -> int | None:
    return int(text) if text.isdigit() else None  # "[N/A]", "[Insufficient Permissions]"


def parse_vramdesk_json(text: str) -> dict[str, Any]:
    """The snapshot ``vramdesk gpus --json`` printed.

    Raises
    ------
    ValueError
        Not JSON, no ``gpus`` list, or the ``{"error": ...}`` vramdesk prints when no GPU
        can be read (its message is the error's).
    """
    data = json.loads(text)
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        error = data["error"]
        raise ValueError(f"{error.get('kind')}: {error.get('message')}")
    if not isinstance(data, dict) or not isinstance(data.get("gpus"), list):
        raise ValueError("no 'gpus' list in the output")
    return data


def nvml_readings(data: dict[str, Any]) -> tuple[str, list[NvmlReading]]:
    """``(driver_version, readings)`` from the pynvml child's JSON (see ``_child_pynvml``)."""
    fields = NvmlReading.__dataclass_fields__
    gpus = [
        NvmlReading(
            **{k: v for k, v in g.items() if k in fields and k != "instances"},
            instances=tuple(MigReading(**m) for m in g.get("instances", ())),
        )
        for g in data["gpus"]
    ]
    return str(data["driver_version"]), gpus


def reference(index: int, readings: list[NvmlReading], smi: list[SmiGpu]) -> GpuRef | None:
    """The driver's figures for GPU ``index``: pynvml's where it read them, else nvidia-smi's."""
    for r in readings:
        if r.index == index and r.total_bytes is not None and r.free_bytes is not None:
            return GpuRef(index, r.name, r.total_bytes, r.free_bytes, "pynvml")
    for s in smi:
        if s.index == index and s.total_mib is not None and s.free_mib is not None:
            slack = ROUNDING_MIB * MIB
            return GpuRef(index, s.name, s.total_mib * MIB, s.free_mib * MIB, "nvidia-smi", slack)
    return None


def budget_reference(index: int, readings: list[NvmlReading], smi: list[SmiGpu]) -> GpuRef | None:
    """The driver's figures a ``--gpu local:index`` budget must match.

    Those of the whole GPU (:func:`reference`), except on a MIG-enabled GPU whose instances
    pynvml read: the instance with the most free memory (the lowest index among equals),
    named ``"<name> MIG k"`` as vramdesk's budget label names it.
    """
    reading = next((r for r in readings if r.index == index), None)
    if reading is None or not reading.mig_enabled or not reading.instances:
        return reference(index, readings, smi)
    best = max(reading.instances, key=lambda m: (m.free_bytes, -m.index))
    name = f"{reading.name} MIG {best.index}"
    return GpuRef(index, name, best.total_bytes, best.free_bytes, f"pynvml MIG {best.index}")


# ------------------------------------------------------------------ comparisons


def mib_text(n_bytes: float) -> str:
    """``"23,234 MiB"``."""
    return f"{n_bytes / MIB:,.0f} MiB"


def near(what: str, ours: int, theirs: int, tolerance_bytes: int) -> str | None:
    """``None`` when ``|ours - theirs| <= tolerance_bytes``, else a phrase saying by how much."""
    diff = ours - theirs
    if abs(diff) <= tolerance_bytes:
        return None
    return (
        f"{what} {mib_text(ours)} vs {mib_text(theirs)} (off by {diff / MIB:+,.1f} MiB, "
        f"tolerance {tolerance_bytes / MIB:g} MiB)"
    )


def compare_driver(snapshot: dict[str, Any], driver: str, count: int, source: str) -> Result:
    """Compare vramdesk's driver version and GPU count with ``source``'s."""
    ours, n = snapshot["driver_version"], len(snapshot["gpus"])
    problems = [f"driver {ours!r} vs {driver!r}"] if ours != driver else []
    problems += [f"{n} GPU(s) vs {count}"] if n != count else []
    return verdict(f"{source}-driver", problems, f"driver {driver}, {count} GPU(s), as vramdesk")


def compare_identity(gpu: dict[str, Any], name: str, uuid: str, source: str) -> Result:
    """Compare vramdesk's name and UUID of one GPU with ``source``'s (same index)."""
    check = f"gpu{gpu['index']}-{source}-identity"
    problems = [
        f"{what} {ours!r} vs {theirs!r}"
        for what, ours, theirs in (("name", gpu["name"], name), ("UUID", gpu["uuid"], uuid))
        if ours != theirs
    ]
    return verdict(check, problems, f"index {gpu['index']}, {name}, {uuid}")


def compare_smi_identity(gpu: dict[str, Any], smi: list[SmiGpu]) -> Result:
    """Index, name and UUID of one vramdesk GPU against nvidia-smi's row of that index."""
    row = next((s for s in smi if s.index == gpu["index"]), None)
    if row is None:
        return Result("FAIL", f"gpu{gpu['index']}-smi-identity", "nvidia-smi has no such index")
    return compare_identity(gpu, row.name, row.uuid, "smi")


def compare_nvml_identity(gpu: dict[str, Any], readings: list[NvmlReading]) -> Result:
    """Index, name and UUID of one vramdesk GPU against pynvml's device of that index."""
    reading = next((r for r in readings if r.index == gpu["index"]), None)
    if reading is None:
        return Result("FAIL", f"gpu{gpu['index']}-pynvml-identity", "pynvml has no such index")
    return compare_identity(gpu, reading.name, reading.uuid, "pynvml")


def used_problem(gpu: dict[str, Any], theirs: int, tolerance_bytes: int) -> str | None:
    """Compare vramdesk's used with another's: as is, or less its reserved (module docstring)."""
    ours, reserved = gpu["used_bytes"], gpu.get("reserved_bytes")
    readings = [ours] + ([ours - reserved] if reserved is not None else [])
    if any(near("used", r, theirs, tolerance_bytes) is None for r in readings):
        return None
    return near("used", ours, theirs, tolerance_bytes)


def compare_smi_memory(gpu: dict[str, Any], smi: list[SmiGpu], tolerance_mib: float) -> Result:
    """Total (within rounding), free and used (within the tolerance) against nvidia-smi."""
    check = f"gpu{gpu['index']}-smi-memory"
    row = next((s for s in smi if s.index == gpu["index"]), None)
    if row is None:
        return Result("FAIL", check, "nvidia-smi has no such index")
    if None in (row.total_mib, row.used_mib, row.free_mib):
        return Result("SKIP", check, "nvidia-smi does not show this GPU's memory ([N/A])")
    tolerance = round((tolerance_mib + ROUNDING_MIB) * MIB)
    problems = [
        near("total", gpu["total_bytes"], row.total_mib * MIB, ROUNDING_MIB * MIB),
        near("free", gpu["free_bytes"], row.free_mib * MIB, tolerance),
        used_problem(gpu, row.used_mib * MIB, tolerance),
    ]
    detail = (
        f"total {mib_text(gpu['total_bytes'])}, free {mib_text(gpu['free_bytes'])}, used "
        f"{mib_text(gpu['used_bytes'])} (nvidia-smi {row.total_mib:,} / {row.free_mib:,} / "
        f"{row.used_mib:,} MiB)"
    )
    return verdict(check, [p for p in problems if p], detail)


def compare_nvml_memory(
    gpu: dict[str, Any], readings: list[NvmlReading], tolerance_mib: float
) -> Result:
    """Total (to the byte), free, used and reserved (within the tolerance) against pynvml."""
    check = f"gpu{gpu['index']}-pynvml-memory"
    r = next((r for r in readings if r.index == gpu["index"]), None)
    if r is None:
        return Result("FAIL", check, "pynvml has no such index")
    if r.total_bytes is None or r.free_bytes is None:
        return Result("SKIP", check, f"pynvml could not read this GPU's memory: {r.memory_error}")
    tolerance = round(tolerance_mib * MIB)
    problems = [
        near("total", gpu["total_bytes"], r.total_bytes, 0),
        near("free", gpu["free_bytes"], r.free_bytes, tolerance),
        near("used", gpu["used_bytes"], r.total_bytes - r.free_bytes, tolerance),
        reserved_problem(gpu.get("reserved_bytes"), r.reserved_bytes, tolerance),
    ]
    detail = (
        f"total {gpu['total_bytes']:,} B, free {mib_text(gpu['free_bytes'])} "
        f"(pynvml {mib_text(r.free_bytes)}), reserved "
        + ("not reported" if r.reserved_bytes is None else mib_text(r.reserved_bytes))
    )
    return verdict(check, [p for p in problems if p], detail)


def reserved_problem(ours: int | None, theirs: int | None, tolerance_bytes: int) -> str | None:
    """The reserved memory of the v2 call: both report it (and agree), or neither does."""
    if ours is None and theirs is None:
        return None
    if ours is None or theirs is None:
        return f"reserved {ours!r} vs {theirs!r} (one side used the v2 memory call, one not)"
    return near("reserved", ours, theirs, tolerance_bytes)


def compare_gpu(
    gpu: dict[str, Any], smi: list[SmiGpu] | None, readings: list[NvmlReading] | None, tol: float
) -> list[Result]:
    """The four per-GPU checks (:data:`GPU_CHECKS`); a source not read gives SKIP lines."""
    i = gpu["index"]
    if smi is None:
        out = [Result("SKIP", f"gpu{i}-{c}", "nvidia-smi was not read") for c in GPU_CHECKS[:2]]
    else:
        out = [compare_smi_identity(gpu, smi), compare_smi_memory(gpu, smi, tol)]
    if readings is None:
        return out + [Result("SKIP", f"gpu{i}-{c}", "pynvml was not read") for c in GPU_CHECKS[2:]]
    return out + [compare_nvml_identity(gpu, readings), compare_nvml_memory(gpu, readings, tol)]


def check_solve_budget(
    name: str, solve: dict[str, Any], ref: GpuRef, which: str, tolerance_mib: float
) -> Result:
    """``solve --gpu local --json`` budgets GPU ``ref.index``'s free (or total) memory.

    ``capacity_bytes`` is the budget; ``budget`` its label, ``"local GPU 0 <name>: ..
    free now (...)"`` or ``".. total (...)"``. Free moves between reads (the tolerance);
    the total does not (only nvidia-smi's rounding, ``ref.slack_bytes``).
    """
    capacity, label = solve["capacity_bytes"], str(solve["budget"])
    if which == "free":
        want, tolerance, words = ref.free_bytes, round(tolerance_mib * MIB), "free now"
    else:
        want, tolerance, words = ref.total_bytes, 0, "total"
    problem = near(f"budget ({which})", capacity, want, tolerance + ref.slack_bytes)
    problems = [problem] if problem else []
    if not label.startswith(f"local GPU {ref.index} {ref.name}:") or words not in label:
        problems.append(f"budget label {label!r} does not say GPU {ref.index}'s {words}")
    detail = f"capacity {capacity:,} B = GPU {ref.index} {which} ({ref.source} {want:,} B)"
    return verdict(name, problems, detail)


def _gib_near(what: str, shown_gib: float, want_bytes: int, tolerance_bytes: int) -> str | None:
    # the panel shows two decimals: 0.005 GiB of rounding on top of the tolerance
    return near(what, round(shown_gib * GIB), want_bytes, tolerance_bytes + GIB // 200)


def panel_row_problems(row: dict[str, Any], ref: GpuRef, tolerance_mib: float) -> list[str]:
    """One GPU row of the panel (name, bar, ``"x GiB used of y GiB · z GiB free"``) vs ``ref``."""
    tolerance = round(tolerance_mib * MIB) + ref.slack_bytes
    used = ref.total_bytes - ref.free_bytes
    want_name = f"{ref.index}: {ref.name}"
    problems = [f"row name {row['name']!r} vs {want_name!r}"] if row["name"] != want_name else []
    problems += [
        p
        for p in (
            near("bar maximum", row["bar_max"] * MIB, ref.total_bytes, MIB + ref.slack_bytes),
            near("bar value", row["bar_value"] * MIB, used, tolerance + MIB),
        )
        if p
    ]
    match = FIGURES_RE.fullmatch(row["figures"])
    if match is None:
        return problems + [f"figures {row['figures']!r} are not 'x GiB used of y GiB · z GiB free'"]
    shown = [float(g.replace(",", "")) for g in match.groups()]
    wanted = [("used", used, tolerance), ("total", ref.total_bytes, ref.slack_bytes)]
    wanted.append(("free", ref.free_bytes, tolerance))
    pairs = zip(shown, wanted, strict=True)
    return problems + [p for s, (w, b, t) in pairs if (p := _gib_near(w, s, b, t))]


def check_panel(window: dict[str, Any], refs: list[GpuRef], tolerance_mib: float) -> Result:
    """The GPU panel shows every GPU with the driver's figures, and no error line."""
    if window.get("message"):
        return Result("FAIL", "gui-panel", f"the panel says: {window['message']}")
    rows = window["rows"]
    if len(rows) != len(refs):
        return Result("FAIL", "gui-panel", f"{len(rows)} row(s) for {len(refs)} GPU(s)")
    problems = [
        f"GPU {ref.index}: {p}"
        for row, ref in zip(rows, refs, strict=True)
        for p in panel_row_problems(row, ref, tolerance_mib)
    ]
    shown = " | ".join(f"{r['name']}: {r['figures']}" for r in rows)
    return verdict("gui-panel", problems, shown)


def check_free_line(window: dict[str, Any], ref: GpuRef, tolerance_mib: float) -> Result:
    """The chart's local-free line is shown at GPU ``ref.index``'s free memory (GiB axis)."""
    line = window["free_line"]
    if not line["visible"]:
        return Result("FAIL", "gui-free-line", f"no local-free line (target {window['target']})")
    tolerance = round(tolerance_mib * MIB) + ref.slack_bytes
    problems = [
        p
        for p in (
            near("line", round(line["value_gib"] * GIB), ref.free_bytes, tolerance),
            near("controller's local free", window["local_free_bytes"], ref.free_bytes, tolerance),
        )
        if p
    ]
    detail = f"at {line['value_gib']:.3f} GiB = GPU {ref.index} free ({ref.source})"
    return verdict("gui-free-line", problems, detail)


def check_alloc(data: dict[str, Any], tolerance_mib: float) -> Result:
    """Check that vramdesk's free figure drops by the allocation and comes back when freed.

    ``data``: ``bytes`` allocated, vramdesk's free ``before``, ``during`` and ``after``.
    """
    n, before, during, after = (data[k] for k in ("bytes", "before", "during", "after"))
    tolerance = round(tolerance_mib * MIB)
    problems = [
        p
        for p in (
            near("drop on allocating", before - during, n, tolerance),
            near("return on freeing", after - during, n, tolerance),
        )
        if p
    ]
    detail = (
        f"{data['package']}: {mib_text(n)} allocated; free {mib_text(before)} -> "
        f"{mib_text(during)} -> {mib_text(after)}"
    )
    return verdict("alloc-free-follows", problems, detail)


# ------------------------------------------------------------------ running children


@dataclass(frozen=True)
class Ran:
    """A child process's exit status and output; ``problem`` when it could not run or finish."""

    code: int | None
    out: str = ""
    err: str = ""
    problem: str | None = None

    def why(self) -> str:
        """One line on what went wrong: the problem, or the status and last line of stderr."""
        if self.problem:
            return self.problem
        lines = [ln for ln in self.err.strip().splitlines() if ln.strip()]
        return f"exit status {self.code}" + (f": {lines[-1]}" if lines else "")


@dataclass
class Context:
    """What the steps share: the deadline, options, the children's environment, the readings."""

    tolerance_mib: float
    alloc_mib: int
    alloc_gpu: int
    cuda_python: str
    env: dict[str, str]
    deadline: float
    snapshot: dict[str, Any] | None = None
    smi: list[SmiGpu] | None = None
    readings: list[NvmlReading] | None = None
    nvml_driver: str = ""
    notes: list[str] = field(default_factory=list)

    def left_s(self) -> float:
        """Seconds left of the whole run."""
        return self.deadline - time.monotonic()

    def run(self, argv: list[str], limit_s: float, env: dict[str, str] | None = None) -> Ran:
        """Run ``argv`` for at most ``limit_s`` seconds (and never past the deadline)."""
        timeout = min(limit_s, self.left_s())
        if timeout < 1:
            return Ran(None, problem="no time left of the run's two minutes")
        return run_child(argv, timeout, env or self.env)

    def vramdesk(self, *args: str, limit_s: float = 20) -> Ran:
        """``vramdesk ARGS`` (``python -m vramdesk`` of this interpreter)."""
        return self.run([sys.executable, "-m", "vramdesk", *args], limit_s)

    def gpus(self) -> list[dict[str, Any]]:
        """The GPUs vramdesk read (empty when it read none)."""
        return self.snapshot["gpus"] if self.snapshot else []

    def no_reference(self, what: str) -> str:
        """Why a check that compares with the driver's figures of ``what`` is skipped."""
        if self.snapshot is None:
            return "vramdesk read no GPU"
        return f"neither pynvml nor nvidia-smi read the memory of {what}"

    def refs(self) -> list[GpuRef] | None:
        """The driver's figures of every vramdesk GPU, or None when one cannot be had."""
        refs = [reference(g["index"], self.readings or [], self.smi or []) for g in self.gpus()]
        known = [r for r in refs if r is not None]
        return known if len(known) == len(refs) else None


def run_child(argv: list[str], timeout_s: float, env: dict[str, str]) -> Ran:
    """Run ``argv`` with a timeout; never raises (a missing program is a ``problem``).

    The child runs in its own session; on timeout its whole process group is killed and
    waited for at most two seconds more (a child stuck in a hung driver may not die).
    """
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            env=env,
            start_new_session=True,
        )
    except FileNotFoundError:
        return Ran(None, problem=f"{argv[0]} not found")
    except OSError as err:
        return Ran(None, problem=f"{argv[0]} could not run: {err}")
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return Ran(None, problem=f"{Path(argv[0]).name} did not finish within {timeout_s:.0f} s")
    return Ran(proc.returncode, out, err)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the child's own group: it and what it started
        proc.communicate(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        pass  # stuck in the kernel: left behind rather than waited for


def child_json(ran: Ran) -> dict[str, Any]:
    """The JSON line a child printed after :data:`JSON_MARK`.

    Raises
    ------
    ValueError
        No such line (the child failed: :meth:`Ran.why`).
    """
    for line in reversed(ran.out.splitlines()):
        if line.startswith(JSON_MARK):
            return json.loads(line[len(JSON_MARK) :])
    raise ValueError(ran.why())


def child_env(config_dir: str) -> dict[str, str]:
    """Return os.environ without the fake-NVML hook, with a fresh vramdesk config dir."""
    env = {k: v for k, v in os.environ.items() if k != FAKE_ENV}
    env["VRAMDESK_CONFIG_DIR"] = config_dir
    return env


def this_tool(child: str, *args: str) -> list[str]:
    """The argv that runs this file as the child ``child``."""
    return [sys.executable, str(Path(__file__).resolve()), "--child", child, *args]


# ------------------------------------------------------------------ steps


def step_vramdesk(ctx: Context) -> Iterator[Result]:
    """Read ``vramdesk gpus --json``."""
    ran = ctx.vramdesk("gpus", "--json", limit_s=20)
    if ran.problem or not ran.out.strip():
        yield Result("FAIL", "vramdesk-gpus", ran.why())
        return
    try:
        ctx.snapshot = parse_vramdesk_json(ran.out)
    except ValueError as err:
        yield Result("FAIL", "vramdesk-gpus", f"vramdesk gpus --json: {err}")
        return
    names = ", ".join(f"{g['index']}: {g['name']}" for g in ctx.gpus())
    note = "".join(f"; {n}" for n in ctx.notes)
    yield Result("PASS", "vramdesk-gpus", f"{len(ctx.gpus())} GPU(s) ({names}){note}")


def step_smi(ctx: Context) -> Iterator[Result]:
    """Read nvidia-smi's CSV."""
    ran = ctx.run(list(SMI_ARGV), 15)
    if ran.code != 0:
        said = next((ln.strip() for ln in ran.out.splitlines() if ln.strip()), "")
        yield Result("FAIL", "nvidia-smi", ran.why() + (f" ({said})" if said else ""))
        return
    try:
        ctx.smi = parse_smi_csv(ran.out)
    except ValueError as err:
        yield Result("FAIL", "nvidia-smi", f"unreadable output: {err}")
        return
    yield Result("PASS", "nvidia-smi", f"{len(ctx.smi)} GPU(s), driver {_smi_driver(ctx.smi)}")


def _smi_driver(smi: list[SmiGpu]) -> str:
    return smi[0].driver_version if smi else "?"


def step_pynvml(ctx: Context) -> Iterator[Result]:
    """Read every GPU through pynvml directly, in a child process."""
    try:
        data = child_json(ctx.run(this_tool("pynvml"), 15))
        if "error" in data:
            raise ValueError(data["error"])
        ctx.nvml_driver, ctx.readings = nvml_readings(data)
    except ValueError as err:
        yield Result("FAIL", "pynvml", str(err))
        return
    yield Result("PASS", "pynvml", f"{len(ctx.readings)} GPU(s), driver {ctx.nvml_driver}")


def step_compare(ctx: Context) -> Iterator[Result]:
    """Driver, GPU count and every GPU against nvidia-smi and pynvml."""
    if ctx.snapshot is None:
        for name in ("smi-driver", "pynvml-driver", *(f"gpu-{c}" for c in GPU_CHECKS)):
            yield Result("SKIP", name, "vramdesk read no GPU")
        return
    if ctx.smi is None:
        yield Result("SKIP", "smi-driver", "nvidia-smi was not read")
    else:
        yield compare_driver(ctx.snapshot, _smi_driver(ctx.smi), len(ctx.smi), "smi")
    if ctx.readings is None:
        yield Result("SKIP", "pynvml-driver", "pynvml was not read")
    else:
        yield compare_driver(ctx.snapshot, ctx.nvml_driver, len(ctx.readings), "pynvml")
    for gpu in ctx.gpus():
        yield from compare_gpu(gpu, ctx.smi, ctx.readings, ctx.tolerance_mib)


def step_solve(ctx: Context) -> Iterator[Result]:
    """``solve --gpu local``: formula engine on free memory, vLLM on the total."""
    ref = budget_reference(0, ctx.readings or [], ctx.smi or []) if ctx.snapshot else None
    for name, which, extra in (
        ("solve-formula-free", "free", ()),
        ("solve-vllm-total", "total", ("--engine", "vllm")),
    ):
        if ref is None:
            yield Result("SKIP", name, ctx.no_reference("GPU 0"))
            continue
        ran = ctx.vramdesk(*SOLVE_ARGV, *extra)
        try:
            yield check_solve_budget(name, json.loads(ran.out), ref, which, ctx.tolerance_mib)
        except ValueError:
            yield Result("FAIL", name, f"vramdesk {' '.join((*SOLVE_ARGV, *extra))}: {ran.why()}")


def step_window(ctx: Context) -> Iterator[Result]:
    """Open the window offscreen with the real driver; read the GPU panel and the chart."""
    refs = ctx.refs()
    line_ref = budget_reference(0, ctx.readings or [], ctx.smi or [])
    if not ctx.gpus() or refs is None or line_ref is None:
        for name in ("gui-panel", "gui-free-line"):
            yield Result("SKIP", name, ctx.no_reference("every GPU"))
        return
    env = {**ctx.env, "QT_QPA_PLATFORM": "offscreen"}
    try:
        window = child_json(ctx.run(this_tool("window"), 50, env))
    except ValueError as err:
        for name in ("gui-panel", "gui-free-line"):
            yield Result("FAIL", name, f"the window child failed: {err}")
        return
    yield check_panel(window, refs, ctx.tolerance_mib)
    yield check_free_line(window, line_ref, ctx.tolerance_mib)


def step_alloc(ctx: Context) -> Iterator[Result]:
    """Allocate and free ``alloc_mib`` on one GPU (torch or cupy); vramdesk's free follows."""
    gpu = next((g for g in ctx.gpus() if g["index"] == ctx.alloc_gpu), None)
    reason = alloc_skip_reason(gpu, ctx.alloc_mib)
    if reason:
        yield Result("SKIP", "alloc-free-follows", reason)
        return
    env = {**ctx.env, "CUDA_VISIBLE_DEVICES": gpu["uuid"], "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    vramdesk = json.dumps([sys.executable, "-m", "vramdesk"])
    args = (
        "--index",
        str(gpu["index"]),
        "--bytes",
        str(ctx.alloc_mib * MIB),
        "--vramdesk",
        vramdesk,
    )
    argv = [ctx.cuda_python, *this_tool("alloc", *args)[1:]]
    try:
        data = child_json(ctx.run(argv, 50, env))
    except ValueError as err:
        yield Result("FAIL", "alloc-free-follows", f"the allocation child failed: {err}")
        return
    if "skip" in data or "error" in data:
        yield Result(
            "SKIP" if "skip" in data else "FAIL",
            "alloc-free-follows",
            data.get("skip") or data["error"],
        )
        return
    yield check_alloc(data, ctx.tolerance_mib)


def alloc_skip_reason(gpu: dict[str, Any] | None, alloc_mib: int) -> str | None:
    """Why the allocation check cannot run on ``gpu`` (None: it can)."""
    if gpu is None:
        return "vramdesk read no such GPU"
    if gpu.get("mig_mode"):
        return f"GPU {gpu['index']} is in MIG mode: CUDA sees its instances, not the GPU"
    if gpu["free_bytes"] < 2 * alloc_mib * MIB:
        return f"GPU {gpu['index']} has less than 2 x {alloc_mib} MiB free"
    return None


STEPS: tuple[Callable[[Context], Iterator[Result]], ...] = (
    step_vramdesk,
    step_smi,
    step_pynvml,
    step_compare,
    step_solve,
    step_window,
    step_alloc,
)


def safely(step: Callable[[Context], Iterator[Result]], ctx: Context) -> Iterator[Result]:
    """The step's results; an unexpected error is one FAIL line, never a traceback."""
    try:
        yield from step(ctx)
    except Exception as err:  # noqa: BLE001 - the tool reports, it does not crash
        name = step.__name__.removeprefix("step_")
        yield Result("FAIL", name, f"unexpected {type(err).__name__}: {err}")


# ------------------------------------------------------------------ children


def emit(data: dict[str, Any]) -> int:
    """Print ``data`` as the child's one JSON line; exit status 0."""
    print(JSON_MARK + json.dumps(data), flush=True)
    return 0


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _child_pynvml(_args: argparse.Namespace) -> int:
    """Read every GPU through pynvml itself: name, UUID, memory (v2, else v1), MIG mode."""
    try:
        import pynvml as nv
    except ImportError as err:
        return emit({"error": f"pynvml is not importable ({err})"})
    try:
        nv.nvmlInit()
    except nv.NVMLError as err:
        return emit({"error": f"nvmlInit: {err}"})
    try:
        driver = _text(nv.nvmlSystemGetDriverVersion())
        gpus = [_pynvml_gpu(nv, i) for i in range(nv.nvmlDeviceGetCount())]
        return emit({"driver_version": driver, "gpus": gpus})
    except nv.NVMLError as err:
        return emit({"error": f"NVML: {err}"})
    finally:
        nv.nvmlShutdown()


def _pynvml_gpu(nv: Any, index: int) -> dict[str, Any]:
    handle = nv.nvmlDeviceGetHandleByIndex(index)
    gpu = {
        "index": index,
        "name": _text(nv.nvmlDeviceGetName(handle)),
        "uuid": _text(nv.nvmlDeviceGetUUID(handle)),
    }
    try:
        gpu["mig_enabled"] = nv.nvmlDeviceGetMigMode(handle)[0] == nv.NVML_DEVICE_MIG_ENABLE
    except nv.NVMLError:
        gpu["mig_enabled"] = None
    if gpu["mig_enabled"]:
        gpu["instances"] = _pynvml_instances(nv, handle)
    return {**gpu, **_pynvml_memory(nv, handle)}


def _pynvml_instances(nv: Any, handle: Any) -> list[dict[str, int]]:
    try:
        slots = nv.nvmlDeviceGetMaxMigDeviceCount(handle)
    except nv.NVMLError:
        return []
    instances = []
    for k in range(slots):
        try:
            memory = nv.nvmlDeviceGetMemoryInfo(nv.nvmlDeviceGetMigDeviceHandleByIndex(handle, k))
        except nv.NVMLError:
            continue  # an empty slot
        instances.append({"index": k, "total_bytes": memory.total, "free_bytes": memory.free})
    return instances


def _pynvml_memory(nv: Any, handle: Any) -> dict[str, Any]:
    try:
        m = nv.nvmlDeviceGetMemoryInfo(handle, nv.nvmlMemory_v2)
        return {"total_bytes": m.total, "free_bytes": m.free, "reserved_bytes": m.reserved}
    except (nv.NVMLError, AttributeError):
        pass  # a driver (or binding) without the v2 call
    try:
        m = nv.nvmlDeviceGetMemoryInfo(handle)
        return {"total_bytes": m.total, "free_bytes": m.free}
    except nv.NVMLError as err:
        return {"memory_error": str(err)}


def _child_window(_args: argparse.Namespace) -> int:
    """Open vramdesk's window (offscreen), wait for the GPU panel's query, report what it shows."""
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    from vramdesk.core.units import Unit
    from vramdesk.gui.app import WindowHost

    host = WindowHost(app)
    host.install_language("en")
    painted: list[bool] = []
    host.first_paint_hooks.append(lambda: painted.append(True))
    host.open_window()
    window = host.window
    window.controller.set_unit(Unit.GIB)
    panel = window.gpu_panel
    done = _spin(app, lambda: painted and not panel.is_querying() and _panel_done(panel), 40)
    window.chart.redraw()
    app.processEvents()
    data = _window_report(window, panel)
    if not done:
        data["message"] = "the window's GPU query did not answer within 40 s"
    panel.shutdown(2000)
    window.close()
    return emit(data)


def _panel_done(panel: Any) -> bool:
    return panel.snapshot() is not None or bool(panel.message_label.text())


def _spin(app: Any, done: Callable[[], Any], limit_s: float) -> bool:
    end = time.monotonic() + limit_s
    while not done():
        if time.monotonic() >= end:
            return False
        app.processEvents()
        time.sleep(0.02)
    return True


def _window_report(window: Any, panel: Any) -> dict[str, Any]:
    rows = [
        {
            "name": r.name.text(),
            "bar_max": r.bar.maximum(),
            "bar_value": r.bar.value(),
            "figures": r.figures.text(),
        }
        for r in panel._rows  # the panel's own row widgets, as tests/gui reads them
    ]
    line = window.chart.free_line
    return {
        "rows": rows,
        "message": panel.message_label.text() if panel.snapshot() is None else "",
        "free_line": {"visible": line.isVisible(), "value_gib": float(line.value())},
        "local_free_bytes": window.controller.local_free_bytes(),
        "target": window.controller.target.key(),
    }


class _TorchMemory:
    """Device memory through torch (device 0: CUDA_VISIBLE_DEVICES names the GPU)."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.name = f"torch {torch.__version__}"
        self.block: Any = None

    def allocate(self, n_bytes: int) -> None:
        self.block = self.torch.empty(n_bytes, dtype=self.torch.uint8, device="cuda")
        self.block.fill_(1)
        self.torch.cuda.synchronize()

    def release(self) -> None:
        self.block = None
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()


class _CupyMemory:
    """Device memory through cupy (device 0)."""

    def __init__(self, cupy: Any) -> None:
        self.cupy = cupy
        self.name = f"cupy {cupy.__version__}"
        self.block: Any = None

    def allocate(self, n_bytes: int) -> None:
        self.block = self.cupy.empty(n_bytes, dtype=self.cupy.uint8)
        self.block.fill(1)
        self.cupy.cuda.Device().synchronize()

    def release(self) -> None:
        self.block = None
        self.cupy.cuda.Device().synchronize()
        self.cupy.get_default_memory_pool().free_all_blocks()


def _cuda_memory() -> tuple[Any, str | None]:
    """``(memory, None)`` for torch or cupy on a GPU, else ``(None, why not)``."""
    if importlib.util.find_spec("torch") is not None:
        import torch

        if torch.version.cuda is None:
            return None, f"torch {torch.__version__} is a CPU-only build"
        return _TorchMemory(torch), None
    if importlib.util.find_spec("cupy") is not None:
        import cupy

        return _CupyMemory(cupy), None
    return None, "no CUDA package (torch or cupy) importable"


def _child_alloc(args: argparse.Namespace) -> int:
    """Allocate ``--bytes`` on device 0 and free it; vramdesk's free of ``--index`` each time."""
    memory, why = _cuda_memory()
    if memory is None:
        return emit({"skip": why})
    try:
        memory.allocate(MIB)  # the CUDA context and the fill kernel, before the first reading
        memory.release()
        data = {"package": memory.name, "bytes": args.bytes, "before": _free_now(args)}
        memory.allocate(args.bytes)
        data["during"] = _free_now(args)
        memory.release()
        data["after"] = _free_now(args)
    except Exception as err:  # noqa: BLE001 - a CUDA error is the check's answer
        return emit({"error": f"{memory.name}: {type(err).__name__}: {err}"})
    return emit(data)


def _free_now(args: argparse.Namespace) -> int:
    argv = [*json.loads(args.vramdesk), "gpus", "--json"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    gpus = parse_vramdesk_json(proc.stdout)["gpus"]
    return next(g["free_bytes"] for g in gpus if g["index"] == args.index)


CHILDREN: dict[str, Callable[[argparse.Namespace], int]] = {
    "pynvml": _child_pynvml,
    "window": _child_window,
    "alloc": _child_alloc,
}


# ------------------------------------------------------------------ main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (``--child`` and its options are this tool's own, for its children)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--tolerance-mib",
        type=float,
        default=DRIFT_MIB,
        help=f"how far free and used memory may move between two reads (default {DRIFT_MIB})",
    )
    p.add_argument("--alloc-mib", type=int, default=1024, help="MiB to allocate (default 1024)")
    p.add_argument("--alloc-gpu", type=int, default=0, help="NVML index to allocate on")
    p.add_argument(
        "--cuda-python",
        default=sys.executable,
        help="the Python with torch or cupy for the allocation (default: this one)",
    )
    p.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    p.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--bytes", type=int, default=GIB, help=argparse.SUPPRESS)
    p.add_argument("--vramdesk", default="[]", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def run_checks(ctx: Context, out: Callable[[str], None] = print) -> list[Result]:
    """Run every step, printing each result's line as it comes; return them all."""
    results = []
    for step in STEPS:
        for result in safely(step, ctx):
            out(result.line())
            results.append(result)
    return results


def main(argv: list[str] | None = None) -> int:
    """Run the checks (or one child); exit status 0 only when nothing failed."""
    args = parse_args(argv)
    if args.child:
        return CHILDREN[args.child](args)
    with tempfile.TemporaryDirectory(prefix="vramdesk-gpu-check-") as config_dir:
        ctx = Context(
            tolerance_mib=args.tolerance_mib,
            alloc_mib=args.alloc_mib,
            alloc_gpu=args.alloc_gpu,
            cuda_python=args.cuda_python,
            env=child_env(config_dir),
            deadline=time.monotonic() + RUN_LIMIT_S,
        )
        if os.environ.get(FAKE_ENV):
            ctx.notes.append(f"{FAKE_ENV} ignored: the children read the real driver")
        results = run_checks(ctx, lambda line: print(line, flush=True))
    print(summary(results), flush=True)
    return exit_status(results)


if __name__ == "__main__":
    raise SystemExit(main())
