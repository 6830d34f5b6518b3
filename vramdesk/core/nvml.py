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

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Literal

from vramdesk.core.errors import InputError, VramdeskError
from vramdesk.core.units import Unit, format_bytes

#: The environment variable of the debug hook (see the module docstring).
FAKE_ENV = "VRAMDESK_FAKE_NVML"

#: Every ``GpuQueryError.kind``, each with the message a user reads.
ERROR_MESSAGES: dict[str, str] = {
    "no_binding": "The NVIDIA binding (the nvidia-ml-py package, module pynvml) is not installed. "
    "vramdesk works without a GPU; estimates are unaffected.",
    "no_driver": "No NVIDIA driver found: the NVML library (libnvidia-ml.so.1) is not installed. "
    "vramdesk works without a GPU; estimates are unaffected.",
    "driver_not_loaded": "The NVIDIA driver is installed but not loaded (is the kernel module "
    "running?). vramdesk works without a GPU; estimates are unaffected.",
    "driver_mismatch": "The NVIDIA driver and its NVML library differ in version (a driver update "
    "without a reboot?). Reboot or reload the driver to read the GPUs.",
    "no_permission": "Permission denied reading the NVIDIA GPUs (check access to /dev/nvidia*).",
    "no_gpu": "The NVIDIA driver is loaded but reports no GPU.",
    "gpu_lost": "A GPU stopped answering (NVML: GPU is lost or needs a reset).",
    "not_supported": "This GPU or driver does not report memory through NVML.",
    "unknown": "NVML failed with an unexpected error.",
}

#: The error kinds, in a stable order.
ERROR_KINDS: tuple[str, ...] = tuple(ERROR_MESSAGES)

# NVML return-code names (pynvml constants) -> kind. Codes not listed are "unknown".
KIND_BY_CODE_NAME = {
    "NVML_ERROR_LIBRARY_NOT_FOUND": "no_driver",
    "NVML_ERROR_FUNCTION_NOT_FOUND": "no_driver",
    "NVML_ERROR_DRIVER_NOT_LOADED": "driver_not_loaded",
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": "driver_mismatch",
    "NVML_ERROR_NO_PERMISSION": "no_permission",
    "NVML_ERROR_GPU_NOT_FOUND": "no_gpu",
    "NVML_ERROR_GPU_IS_LOST": "gpu_lost",
    "NVML_ERROR_RESET_REQUIRED": "gpu_lost",
    "NVML_ERROR_TIMEOUT": "gpu_lost",
    "NVML_ERROR_NOT_SUPPORTED": "not_supported",
}


class GpuQueryError(VramdeskError):
    """The local GPUs could not be read.

    Parameters
    ----------
    kind : str
        One of :data:`ERROR_KINDS` (``"no_driver"``, ``"gpu_lost"``, ...).
    message : str, optional
        The one-line message for the user; defaults to ``ERROR_MESSAGES[kind]``.
    gpu_index : int, optional
        The GPU that failed, when the failure was mid-query.
    """

    def __init__(self, kind: str, message: str | None = None, gpu_index: int | None = None) -> None:
        self.kind = kind if kind in ERROR_MESSAGES else "unknown"
        self.gpu_index = gpu_index
        super().__init__(message or ERROR_MESSAGES[self.kind])

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": ..., "message": ...}`` for JSON output."""
        return {"kind": self.kind, "message": str(self)}


@dataclass(frozen=True, slots=True)
class GpuProcess:
    """A compute process on a GPU: ``used_bytes`` is ``None`` where NVML cannot tell (WDDM)."""

    pid: int
    used_bytes: int | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class MigInstance:
    """One MIG device of a MIG-enabled GPU, with its own memory (bytes, exact int)."""

    index: int
    uuid: str
    total_bytes: int
    used_bytes: int
    free_bytes: int


@dataclass(frozen=True, slots=True)
class GpuInfo:
    """One GPU as NVML reports it; memory in bytes, exact int (see the module docstring).

    ``mig_mode`` is ``None`` when the GPU has no MIG support; ``processes_note`` says why
    ``processes`` is empty when the driver would not list them.
    """

    index: int
    name: str
    uuid: str
    total_bytes: int
    used_bytes: int
    free_bytes: int
    reserved_bytes: int | None = None
    mig_mode: bool | None = None
    mig_note: str | None = None
    mig_instances: tuple[MigInstance, ...] = ()
    processes: tuple[GpuProcess, ...] = ()
    processes_note: str | None = None


@dataclass(frozen=True, slots=True)
class NvmlSnapshot:
    """Every local GPU at one moment, with the driver's versions.

    ``cuda_driver_version`` is NVML's integer (``12040`` = CUDA 12.4), ``None`` if unknown.
    """

    driver_version: str
    nvml_version: str
    cuda_driver_version: int | None
    gpus: tuple[GpuInfo, ...]


@dataclass(frozen=True, slots=True)
class FitVerdict:
    """Whether an estimate fits in the memory available now.

    ``margin_bytes`` is ``available - needed``: the spare bytes, negative when short.
    """

    fits: bool
    margin_bytes: int
    text: str


def query_gpus() -> NvmlSnapshot:
    """Read every local NVIDIA GPU through NVML.

    Returns
    -------
    NvmlSnapshot
        Driver versions and one :class:`GpuInfo` per device (bytes, exact int).

    Raises
    ------
    GpuQueryError
        ``kind`` ``"no_driver"``, ``"driver_not_loaded"``, ``"no_permission"``, ``"no_gpu"``
        (zero devices), ``"gpu_lost"`` (a GPU stopped answering; the message names it),
        ``"not_supported"``, ``"no_binding"``, ``"driver_mismatch"`` or ``"unknown"``.

    Notes
    -----
    The NVML calls and their semantics are those of the NVML API reference
    (docs.nvidia.com/deploy/nvml-api): ``nvmlDeviceGetMemoryInfo_v2``,
    ``nvmlDeviceGetComputeRunningProcesses``, ``nvmlDeviceGetMigMode``,
    ``nvmlDeviceGetMaxMigDeviceCount``, ``nvmlDeviceGetMigDeviceHandleByIndex``.
    ``VRAMDESK_FAKE_NVML`` replaces the whole query (module docstring).
    """
    fake = os.environ.get(FAKE_ENV)
    if fake:
        from vramdesk.core._nvml_fake import fake_snapshot

        return fake_snapshot(fake)
    try:
        import pynvml
    except ImportError:
        raise GpuQueryError("no_binding") from None
    from vramdesk.core._nvml_query import NvmlQuery

    return NvmlQuery(pynvml).run()


def cuda_version_text(cuda_driver_version: int | None) -> str:
    """``"12.4"`` for NVML's ``12040`` (major * 1000 + minor * 10); ``""`` for ``None``.

    Source: NVML API reference, ``nvmlSystemGetCudaDriverVersion`` and the
    ``NVML_CUDA_DRIVER_VERSION_MAJOR/MINOR`` macros of ``nvml.h``.
    """
    if not cuda_driver_version:
        return ""
    return f"{cuda_driver_version // 1000}.{cuda_driver_version % 1000 // 10}"


def _chosen(snapshot: NvmlSnapshot, indices: Sequence[int]) -> list[GpuInfo]:
    by_index = {g.index: g for g in snapshot.gpus}
    if not indices:
        raise InputError("gpu", "choose at least one local GPU", "empty")
    for i in indices:
        if i not in by_index:
            have = ", ".join(str(k) for k in sorted(by_index)) or "none"
            raise InputError(
                "gpu",
                f"no local GPU {i} (GPUs present: {have})",
                "unknown_choice",
                {"index": i, "present": sorted(by_index)},
            )
    return [by_index[i] for i in indices]


def _memory_of(gpu: GpuInfo, which: Literal["free", "total"]) -> int:
    if which not in ("free", "total"):
        raise InputError("gpu", f"which must be 'free' or 'total', got {which!r}", "unknown_choice")
    return gpu.free_bytes if which == "free" else gpu.total_bytes


def local_budget_bytes(
    snapshot: NvmlSnapshot, indices: Sequence[int], which: Literal["free", "total"] = "free"
) -> int:
    """Return the free (or total) memory summed over the chosen local GPUs.

    Parameters
    ----------
    snapshot : NvmlSnapshot
        From :func:`query_gpus`.
    indices : sequence of int
        NVML indices of the GPUs (as ``nvidia-smi`` numbers them).
    which : {"free", "total"}
        ``free``: what an engine could allocate right now; ``total``: the framebuffer.

    Returns
    -------
    int
        Bytes, exact.

    Raises
    ------
    InputError
        Field ``"gpu"``: an index that is not present, no index, or a bad ``which``.

    Notes
    -----
    With tensor parallelism (TP > 1) the per-GPU estimate times TP is compared with this
    sum (:func:`fits_now`). The sum can hide one fuller GPU; the reverse solver, which
    works per GPU, uses :func:`local_per_gpu_bytes` (the smallest of the chosen GPUs).
    """
    return sum(_memory_of(g, which) for g in _chosen(snapshot, indices))


def local_per_gpu_bytes(
    snapshot: NvmlSnapshot, indices: Sequence[int], which: Literal["free", "total"] = "free"
) -> int:
    """Return the free (or total) memory of the tightest chosen GPU: a per-GPU budget.

    A TP group is limited by its fullest member, since every rank holds an equal shard.
    Parameters, units and errors as :func:`local_budget_bytes`.
    """
    return min(_memory_of(g, which) for g in _chosen(snapshot, indices))


def fits_now(total_bytes_needed: int, available_bytes: int) -> FitVerdict:
    """Whether ``total_bytes_needed`` fits in ``available_bytes`` (free memory now).

    Parameters
    ----------
    total_bytes_needed : int
        The estimate's total, bytes; with TP > 1 the per-GPU total times TP.
    available_bytes : int
        Free bytes now, e.g. :func:`local_budget_bytes` over the same GPUs.

    Returns
    -------
    FitVerdict
        ``fits`` when needed <= available; ``margin_bytes = available - needed``; ``text``
        like "Fits in the 21.30 GiB free right now with 3.10 GiB to spare" or
        "Needs 2.40 GiB more than is free right now" (GiB = 2**30 bytes, 2 decimals).
    """
    margin = available_bytes - total_bytes_needed
    if margin >= 0:
        text = (
            f"Fits in the {format_bytes(available_bytes)} free right now with "
            f"{format_bytes(margin)} to spare"
        )
    else:
        text = f"Needs {format_bytes(-margin)} more than is free right now"
    return FitVerdict(margin >= 0, margin, text)


def snapshot_to_dict(snapshot: NvmlSnapshot) -> dict[str, Any]:
    """Return the snapshot as JSON data, exact integer bytes (also the debug hook's format)."""
    return asdict(snapshot)


def parse_local_gpu(text: str, tp: int = 1) -> tuple[int, ...] | None:
    """Return the GPU indices ``--gpu local[:I[,J...]]`` names; ``None`` if not ``local``.

    ``local`` alone means the first ``tp`` GPUs (0 .. tp-1: GPU 0 without tensor
    parallelism); ``local:1`` GPU 1; ``local:0,2`` GPUs 0 and 2.

    Raises
    ------
    InputError
        Field ``"gpu"``: indices that are not non-negative integers, repeated, or not
        ``tp`` of them (the solver sizes one GPU of a TP group of exactly ``tp`` GPUs).
    """
    head, sep, rest = text.strip().partition(":")
    if head.lower() != "local":
        return None
    if not sep:
        return tuple(range(max(1, tp)))
    parts = [p.strip() for p in rest.split(",")]
    if not all(p.isdigit() for p in parts) or len(set(parts)) != len(parts):
        raise InputError(
            "gpu",
            f"expected local, local:INDEX or local:I,J,... (got {text!r})",
            "invalid",
            {"value": text},
        )
    if len(parts) != max(1, tp):
        raise InputError(
            "gpu",
            f"--tp {max(1, tp)} needs {max(1, tp)} local GPU(s), {text!r} names {len(parts)}",
            "count",
            {"value": text, "tp": tp},
        )
    return tuple(int(p) for p in parts)


def local_gpu_budget(
    text: str, tp: int = 1, query: Callable[[], NvmlSnapshot] | None = None
) -> tuple[str, int] | None:
    """Return the budget ``(label, capacity_bytes)`` of ``--gpu local[:INDEX]``, or ``None``.

    The capacity is per GPU: the free memory of the tightest chosen GPU right now
    (:func:`local_per_gpu_bytes`), since the solver sizes one GPU of a TP group. The
    solver then applies ``gpu_memory_utilization`` to it, as SPEC §4 says.

    Parameters
    ----------
    text : str
        The ``--gpu`` value; anything but ``local...`` returns ``None``.
    tp : int
        Tensor-parallel size: ``local`` alone takes GPUs 0 .. tp-1.
    query : callable, optional
        Returns the snapshot; default :func:`query_gpus`.

    Raises
    ------
    GpuQueryError
        No GPU can be read (the CLI exits 1).
    InputError
        Field ``"gpu"``: a bad or absent index, or fewer local GPUs than ``tp`` (exit 2).
    """
    indices = parse_local_gpu(text, tp)
    if indices is None:
        return None
    snapshot = (query or query_gpus)()
    if len(snapshot.gpus) < len(indices) and ":" not in text:
        raise InputError(
            "gpu",
            f"--tp {tp} needs {tp} local GPUs; {len(snapshot.gpus)} present",
            "too_large",
            {"tp": tp, "present": len(snapshot.gpus)},
        )
    free = local_per_gpu_bytes(snapshot, indices, "free")
    names = ", ".join(f"GPU {g.index} {g.name}" for g in _chosen(snapshot, indices))
    least = "" if len(indices) == 1 else ", the least of these GPUs"
    mib = format_bytes(free, Unit.MIB, 0)
    return f"local {names}: {format_bytes(free)} free now ({mib}{least})", free


def engine_local_budget(
    text: str, tp: int, util: Fraction, query: Callable[[], NvmlSnapshot] | None = None
) -> tuple[str, int, str | None] | None:
    """``--gpu local[:INDEX]`` for engines that budget ``util * total`` (vLLM, SGLang).

    vLLM does not budget from the free memory: it asks for ``gpu_memory_utilization * total``
    and refuses to start when less than that is free (``vllm/v1/worker/gpu_worker.py``,
    "Free memory on device ... is less than desired GPU memory utilization"). So the
    capacity is the chosen GPUs' (smallest) total, and a warning says when one of them has
    less free memory than the engine will ask for.

    Returns
    -------
    tuple or None
        ``(label, total_bytes per GPU, warning or None)``; ``None`` if ``text`` is not ``local``.

    Raises
    ------
    GpuQueryError, InputError
        As :func:`local_gpu_budget`.
    """
    indices = parse_local_gpu(text, tp)
    if indices is None:
        return None
    snapshot = (query or query_gpus)()
    total = local_per_gpu_bytes(snapshot, indices, "total")
    chosen = _chosen(snapshot, indices)
    want = math.floor(total * Fraction(util))
    short = [g for g in chosen if g.free_bytes < want]
    names = ", ".join(f"GPU {g.index} {g.name}" for g in chosen)
    label = f"local {names}: {format_bytes(total)} total ({format_bytes(total, Unit.MIB, 0)})"
    warning = None
    if short:
        g = short[0]
        warning = (f"GPU {g.index} has {format_bytes(g.free_bytes)} free, less than "
                   f"gpu_memory_utilization {float(util):g} x {format_bytes(total)} = "
                   f"{format_bytes(want)}: "
                   "the engine would refuse to start (free the GPU or lower --util)")
    return label, total, warning


def gpus_text(snapshot: NvmlSnapshot) -> str:
    """``vramdesk gpus``: a driver line, then one line per GPU (MiB and GiB), then notes."""
    cuda = cuda_version_text(snapshot.cuda_driver_version)
    lines = [
        f"Driver {snapshot.driver_version}"
        + (f", CUDA {cuda}" if cuda else "")
        + (f", NVML {snapshot.nvml_version}" if snapshot.nvml_version else "")
    ]
    for g in snapshot.gpus:
        lines.append(
            f"GPU {g.index}: {g.name}  "
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
        lines += [f"  {note}" for note in (g.mig_note, g.processes_note) if note]
    return "\n".join(lines)


def _mib_gib(label: str, n_bytes: int) -> str:
    return f"{label} {format_bytes(n_bytes, Unit.MIB, 0)} ({format_bytes(n_bytes)})"
