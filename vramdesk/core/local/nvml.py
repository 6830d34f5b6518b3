"""The local GPUs through NVML (SPEC §6), with no Qt.

:func:`query_gpus` loads NVIDIA's own binding (``nvidia-ml-py``, module ``pynvml``)
inside the call, runs ``nvmlInit``, reads every device and always runs
``nvmlShutdown``; it returns a frozen :class:`NvmlSnapshot` or raises one error
type, :class:`GpuQueryError`, whose ``kind`` says what went wrong and whose message
a user understands. No pynvml exception ever escapes.

Which memory numbers
--------------------
``nvmlDeviceGetMemoryInfo_v2`` (driver R510+) splits memory four ways:
``total = reserved + used + free``, where *reserved* is what the driver and firmware
set aside and *used* is what processes allocated. The v1 call reports
``used = reserved + allocated``. vramdesk reports ``free_bytes`` (identical in both,
and the only number an engine can still allocate: it is the budget), ``total_bytes``
(the framebuffer, as in ``nvidia-smi -q`` "Total") and ``used_bytes = total - free``
(reserved + allocated, as v1 and the ``nvidia-smi`` table show it), so that
``used + free == total`` and a bar adds up. ``reserved_bytes`` is given separately
when v2 answers and is ``None`` otherwise.

Debug hook (screenshots, demos)
-------------------------------
Set the environment variable ``VRAMDESK_FAKE_NVML``:

* ``VRAMDESK_FAKE_NVML=/path/to/gpus.json`` makes :func:`query_gpus` return the
  snapshot that JSON file describes, with the field names of :func:`snapshot_to_dict`
  (its output is valid input; nested ``processes``/``mig_instances`` may be omitted);
* ``VRAMDESK_FAKE_NVML=error:<kind>`` raises :class:`GpuQueryError` of that kind
  (one of :data:`ERROR_KINDS`), e.g. ``error:gpu_lost``.

pynvml is never loaded while the hook is set. The file is untrusted input: at most
1 MiB, plain JSON, every field type-checked; a bad file raises ``GpuQueryError``
of kind ``"unknown"`` whose message names the variable.
"""

from __future__ import annotations

import dataclasses
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from vramdesk.core.local.gpu_info import (
    ERROR_MESSAGES,
    FAKE_ENV,
    MAX_GPU_BYTES,
    MAX_GPUS,
    MAX_MIG_INSTANCES,
    MAX_PROCESSES,
    GpuQueryError,
    NvmlSnapshot,
)
from vramdesk.core.printable import printable
from vramdesk.core.units import Unit, format_bytes

#: Seconds a whole NVML round (init, every device, shutdown) may take before it is given up.
#: nvidia-smi answers in well under a second on a healthy machine; a first ``nvmlInit``
#: without the persistence daemon can take a few seconds on a multi-GPU server.
NVML_TIMEOUT_S = 10.0


def query_gpus(
    *, timeout_s: float | None = None, cancel: threading.Event | None = None
) -> NvmlSnapshot:
    """Read every local NVIDIA GPU through NVML, giving up after ``timeout_s`` seconds.

    The NVML round runs on a daemon thread; this call waits for it at most ``timeout_s``
    (and returns at once when ``cancel`` is set), so a hung driver can neither block the
    caller for ever nor keep the process alive at exit. While a round that timed out is
    still stuck in the driver, a new call fails at once instead of starting another.

    Parameters
    ----------
    timeout_s : float, optional
        The deadline of the whole round, seconds: ``VRAMDESK_NVML_TIMEOUT_S`` when set (a
        number from 0.1 to 600), else :data:`NVML_TIMEOUT_S`.
    cancel : threading.Event, optional
        Set it to stop waiting (a window closing): the call raises ``GpuQueryError``.

    Returns
    -------
    NvmlSnapshot
        Driver versions and one :class:`GpuInfo` per device (bytes, exact int), checked by
        :func:`checked_snapshot`.

    Raises
    ------
    GpuQueryError
        ``kind`` ``"no_driver"``, ``"driver_not_loaded"``, ``"no_permission"``, ``"no_gpu"``
        (zero devices), ``"gpu_lost"`` (a GPU stopped answering; the message names it),
        ``"not_supported"``, ``"no_binding"``, ``"driver_mismatch"``, ``"timeout"`` ("the
        driver did not answer within N s"), ``"nonsense"`` (figures that cannot be true)
        or ``"unknown"``.

    Notes
    -----
    The NVML calls and their semantics are those of the NVML API reference
    (docs.nvidia.com/deploy/nvml-api): ``nvmlDeviceGetMemoryInfo_v2``,
    ``nvmlDeviceGetComputeRunningProcesses``, ``nvmlDeviceGetMigMode``,
    ``nvmlDeviceGetMaxMigDeviceCount``, ``nvmlDeviceGetMigDeviceHandleByIndex``.
    ``VRAMDESK_FAKE_NVML`` replaces the whole query (module docstring); it runs under the
    same deadline (the path could be a FIFO nobody writes to).
    """
    if timeout_s is None:
        timeout_s = _timeout_from_env()
    return checked_snapshot(_with_deadline(_query_once, timeout_s, cancel))


#: The environment variable that sets the NVML deadline, seconds.
TIMEOUT_ENV = "VRAMDESK_NVML_TIMEOUT_S"


def _timeout_from_env() -> float:
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return NVML_TIMEOUT_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.1 <= value <= 600:  # also refuses nan
        raise GpuQueryError(
            "unknown", f"{TIMEOUT_ENV} must be a number of seconds from 0.1 to 600, got {text!r}"
        )
    return value


def _query_once() -> NvmlSnapshot:
    fake = os.environ.get(FAKE_ENV)
    if fake:
        # on first use: NVML is loaded only when a GPU is queried
        from vramdesk.core.local._nvml_fake import fake_snapshot

        return fake_snapshot(fake)
    try:
        # on first use: NVML is loaded only when a GPU is queried
        import pynvml
    except ImportError:
        raise GpuQueryError("no_binding") from None
    # on first use: NVML is loaded only when a GPU is queried
    from vramdesk.core.local._nvml_query import NvmlQuery

    return NvmlQuery(pynvml).run()


_ROUND_LOCK = threading.Lock()


#: The NVML round in progress (its thread and start time), or None.
_ROUND: tuple[threading.Thread, float] | None = None


def _late(timeout_s: float) -> GpuQueryError:
    return GpuQueryError(
        "timeout",
        f"NVML: the driver did not answer within {timeout_s:g} s (a hung driver or a GPU in "
        "a bad state). vramdesk works without a GPU; estimates are unaffected.",
    )


def _with_deadline(
    fn: Callable[[], NvmlSnapshot], timeout_s: float, cancel: threading.Event | None
) -> NvmlSnapshot:
    global _ROUND
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # noqa: BLE001 - handed to the waiting caller
            box["error"] = err
        finally:
            done.set()

    with _ROUND_LOCK:
        if _ROUND is not None and _ROUND[0].is_alive():
            waited = time.monotonic() - _ROUND[1]
            raise GpuQueryError(
                "timeout",
                f"NVML: the driver has still not answered a query started {waited:.0f} s ago. "
                "vramdesk works without a GPU; estimates are unaffected.",
            )
        thread = threading.Thread(target=target, name="vramdesk-nvml", daemon=True)
        _ROUND = (thread, time.monotonic())
        thread.start()
    deadline = time.monotonic() + timeout_s
    while not done.wait(min(0.05, max(0.0, deadline - time.monotonic()))):
        if cancel is not None and cancel.is_set():
            raise GpuQueryError("unknown", "The GPU query was cancelled.")
        if time.monotonic() >= deadline:
            raise _late(timeout_s)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _nonsense(where: str, detail: str) -> GpuQueryError:
    return GpuQueryError("nonsense", f"{where}: {detail}. {ERROR_MESSAGES['nonsense']}")


def _check_memory(where: str, total: Any, free: Any, reserved: Any = None) -> None:
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (total, free))
    if not ints or not 0 < total <= MAX_GPU_BYTES:
        raise _nonsense(where, f"total memory {total!r} bytes")
    if not 0 <= free <= total:
        raise _nonsense(where, f"{free:,} bytes free of a {total:,}-byte total")
    if reserved is not None and (
        not isinstance(reserved, int)
        or isinstance(reserved, bool)
        or not 0 <= reserved <= total - free
    ):
        raise _nonsense(where, f"{reserved!r} bytes reserved with {free:,} of {total:,} free")


def checked_snapshot(snapshot: NvmlSnapshot) -> NvmlSnapshot:
    """Refuse figures no driver can truthfully report; drop the ones that are only details.

    Every GPU (and MIG instance) must have ``0 < total <= 1 PiB`` and ``0 <= free <=
    total`` (and ``reserved <= total - free``); ``used`` is recomputed as ``total - free``
    (the module docstring's definition). A process figure outside ``0 .. total`` becomes
    "not reported"; at most :data:`MAX_PROCESSES` processes and :data:`MAX_MIG_INSTANCES`
    instances are kept, and a CUDA version that is not a plausible integer is dropped.

    Raises
    ------
    GpuQueryError
        ``kind`` ``"nonsense"``: more than :data:`MAX_GPUS` GPUs, or memory figures that
        cannot be true; the message names the GPU and the figures.
    """
    if len(snapshot.gpus) > MAX_GPUS:
        raise _nonsense("NVML", f"{len(snapshot.gpus):,} GPUs")
    gpus = []
    for gpu in snapshot.gpus:
        where = f"GPU {gpu.index}"
        _check_memory(where, gpu.total_bytes, gpu.free_bytes, gpu.reserved_bytes)
        instances = []
        for m in gpu.mig_instances[:MAX_MIG_INSTANCES]:
            _check_memory(f"{where} MIG {m.index}", m.total_bytes, m.free_bytes)
            instances.append(dataclasses.replace(m, used_bytes=m.total_bytes - m.free_bytes))
        processes = tuple(
            p
            if p.used_bytes is None or 0 <= p.used_bytes <= gpu.total_bytes
            else dataclasses.replace(p, used_bytes=None)
            for p in gpu.processes[:MAX_PROCESSES]
        )
        gpus.append(
            dataclasses.replace(
                gpu,
                name=gpu.name[:256],
                used_bytes=gpu.total_bytes - gpu.free_bytes,
                mig_instances=tuple(instances),
                processes=processes,
            )
        )
    cuda = snapshot.cuda_driver_version
    if not isinstance(cuda, int) or isinstance(cuda, bool) or not 0 < cuda < 1_000_000:
        cuda = None
    return dataclasses.replace(snapshot, cuda_driver_version=cuda, gpus=tuple(gpus))


def cuda_version_text(cuda_driver_version: int | None) -> str:
    """``"12.4"`` for NVML's ``12040`` (major * 1000 + minor * 10); ``""`` for ``None``.

    Source: NVML API reference, ``nvmlSystemGetCudaDriverVersion`` and the
    ``NVML_CUDA_DRIVER_VERSION_MAJOR/MINOR`` macros of ``nvml.h``.
    """
    if not cuda_driver_version:
        return ""
    return f"{cuda_driver_version // 1000}.{cuda_driver_version % 1000 // 10}"


def snapshot_to_dict(snapshot: NvmlSnapshot) -> dict[str, Any]:
    """Return the snapshot as JSON data, exact integer bytes (also the debug hook's format)."""
    return asdict(snapshot)


def gpus_text(snapshot: NvmlSnapshot) -> str:
    """``vramdesk gpus``: a driver line, then one line per GPU (MiB and GiB), then notes."""
    cuda = cuda_version_text(snapshot.cuda_driver_version)
    lines = [
        f"Driver {printable(snapshot.driver_version)}"
        + (f", CUDA {cuda}" if cuda else "")
        + (f", NVML {printable(snapshot.nvml_version)}" if snapshot.nvml_version else "")
    ]
    for g in snapshot.gpus:
        lines.append(
            f"GPU {g.index}: {printable(g.name)}  "
            + _mib_gib("total", g.total_bytes)
            + "  "
            + _mib_gib("used", g.used_bytes)
            + "  "
            + _mib_gib("free", g.free_bytes)
        )
        lines += [
            f"  MIG {m.index}: "
            + _mib_gib("total", m.total_bytes)
            + "  "
            + _mib_gib("free", m.free_bytes)
            for m in g.mig_instances
        ]
        lines += [f"  {printable(note)}" for note in (g.mig_note, g.processes_note) if note]
    return "\n".join(lines)


def _mib_gib(label: str, n_bytes: int) -> str:
    return f"{label} {format_bytes(n_bytes, Unit.MIB, 0)} ({format_bytes(n_bytes)})"
