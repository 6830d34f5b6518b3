"""The pynvml side of :func:`vramdesk.core.local.nvml.query_gpus`: one init-query-shutdown round.

Required calls (name, UUID, memory) turn any NVML error into a
:class:`~vramdesk.core.local.gpu_info.GpuQueryError`; optional ones (processes, MIG, process
names, versions) tolerate NOT_SUPPORTED / NO_PERMISSION / NOT_FOUND / FUNCTION_NOT_FOUND
and record a note instead. "GPU is lost" is never tolerated. No pynvml exception escapes.
Semantics of each call: NVML API reference, docs.nvidia.com/deploy/nvml-api.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vramdesk.core.local.gpu_info import (
    ERROR_MESSAGES,
    KIND_BY_CODE_NAME,
    MAX_GPUS,
    MAX_MIG_INSTANCES,
    MAX_PROCESSES,
    GpuInfo,
    GpuProcess,
    GpuQueryError,
    MigInstance,
    NvmlSnapshot,
)

# Refusals an optional call may meet without failing the query.
# (ARGUMENT_VERSION_MISMATCH: a driver without the v2 memory struct; the v1 call follows.)
_TOLERATED = (
    "NVML_ERROR_NOT_SUPPORTED",
    "NVML_ERROR_NO_PERMISSION",
    "NVML_ERROR_NOT_FOUND",
    "NVML_ERROR_FUNCTION_NOT_FOUND",
    "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
)
MIG_UNLISTED = "MIG is enabled; its instances could not be listed, only the parent is shown."
# A MIG parent gives its aggregate memory "only if the caller has appropriate privileges"
# (NVML reference, nvmlDeviceGetMemoryInfo): a user or a container gets NO_PERMISSION there
# while every MIG device answers, so the parent's figures are its instances' sum.
MIG_SUMMED = (
    "The driver shows the whole GPU's memory only to an administrator: these figures are "
    "the sum of its {count} instance(s)."
)
MIG_REFUSED = (
    "GPU {index} is in MIG mode: the driver shows the whole GPU's memory only to an "
    "administrator, and none of its MIG instances could be read."
)


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class NvmlQuery:
    """One init-query-shutdown round against the pynvml module ``nv``."""

    def __init__(self, nv: Any) -> None:
        self.nv = nv
        self.tolerated = {getattr(nv, n) for n in _TOLERATED if hasattr(nv, n)}

    def run(self) -> NvmlSnapshot:
        nv = self.nv
        try:
            nv.nvmlInit()
        except nv.NVMLError as err:
            raise self.error(err) from None
        try:
            return self.snapshot()
        except (GpuQueryError, MemoryError):
            raise
        except Exception as err:  # a binding or driver oddity: still one plain message
            message = f"{ERROR_MESSAGES['unknown']} ({type(err).__name__}: {err})"
            raise GpuQueryError("unknown", message) from err
        finally:
            try:
                nv.nvmlShutdown()
            except nv.NVMLError:
                pass  # the snapshot (or the first error) matters more than a failed shutdown

    def error(self, err: Exception, gpu: int | None = None, what: str = "") -> GpuQueryError:
        code = getattr(err, "value", None)
        kind = next(
            (k for n, k in KIND_BY_CODE_NAME.items() if getattr(self.nv, n, None) == code),
            "unknown",
        )
        base = ERROR_MESSAGES[kind]
        if gpu is not None:
            base = (
                f"GPU {gpu} stopped answering while reading its {what} (NVML: {err})."
                if kind == "gpu_lost"
                else f"GPU {gpu}, reading its {what}: {base} (NVML: {err})"
            )
        elif kind == "unknown":
            base = f"{base} (NVML: {err})"
        return GpuQueryError(kind, base, gpu)

    def call(self, gpu: int | None, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        """Call a required NVML function; any NVML error becomes a GpuQueryError."""
        try:
            return fn(*args)
        except self.nv.NVMLError as err:
            raise self.error(err, gpu, what) from None

    def optional(self, gpu: int | None, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        """Call an optional NVML function: a tolerated refusal returns the error, not raise."""
        try:
            return fn(*args)
        except self.nv.NVMLError as err:
            if getattr(err, "value", None) in self.tolerated:
                return err
            raise self.error(err, gpu, what) from None

    def snapshot(self) -> NvmlSnapshot:
        nv = self.nv
        driver = _text(self.call(None, "driver version", nv.nvmlSystemGetDriverVersion))
        nvml = self.optional(None, "NVML version", nv.nvmlSystemGetNVMLVersion)
        cuda = self.optional(None, "CUDA version", nv.nvmlSystemGetCudaDriverVersion)
        count = self.call(None, "device count", nv.nvmlDeviceGetCount)
        if count == 0:
            raise GpuQueryError("no_gpu")
        if not isinstance(count, int) or not 0 < count <= MAX_GPUS:  # before any loop over it
            raise GpuQueryError("nonsense", f"NVML: {count!r} GPUs. {ERROR_MESSAGES['nonsense']}")
        return NvmlSnapshot(
            driver_version=driver,
            nvml_version="" if isinstance(nvml, Exception) else _text(nvml),
            cuda_driver_version=None if isinstance(cuda, Exception) else int(cuda),
            gpus=tuple(self.gpu(i) for i in range(count)),
        )

    def gpu(self, i: int) -> GpuInfo:
        nv = self.nv
        handle = self.call(i, "handle", nv.nvmlDeviceGetHandleByIndex, i)
        mig_mode, mig_note, instances = self.mig(i, handle)
        total, free, reserved, summed = self.whole_memory(i, handle, mig_mode, instances)
        processes, note = self.processes(i, handle)
        clock, width = self.memory_interface(i, handle)
        return GpuInfo(
            index=i,
            name=_text(self.call(i, "name", nv.nvmlDeviceGetName, handle)),
            uuid=_text(self.call(i, "UUID", nv.nvmlDeviceGetUUID, handle)),
            total_bytes=total,
            used_bytes=total - free,
            free_bytes=free,
            reserved_bytes=reserved,
            mig_mode=mig_mode,
            mig_note=" ".join(n for n in (mig_note, summed) if n) or None,
            mig_instances=instances,
            processes=processes,
            processes_note=note,
            memory_clock_mhz=clock,
            memory_bus_width_bits=width,
        )

    def memory_interface(self, i: int, handle: Any) -> tuple[int | None, int | None]:
        """Max memory clock (MHz) and bus width (bits): None where the driver gives none.

        ``nvmlDeviceGetMemoryBusWidth`` came with the R530 drivers (and pynvml 11.5.3): an
        older binding lacks the function, an older driver answers FUNCTION_NOT_FOUND.
        """
        nv = self.nv
        clock = self.optional(
            i, "memory clock", nv.nvmlDeviceGetMaxClockInfo, handle, nv.NVML_CLOCK_MEM
        )
        width_fn = getattr(nv, "nvmlDeviceGetMemoryBusWidth", None)
        width = None if width_fn is None else self.optional(i, "memory bus width", width_fn, handle)

        def plain(value: Any) -> int | None:
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1 << 20
            return value if ok else None

        return plain(clock), plain(width)

    def whole_memory(
        self, i: int, handle: Any, mig_mode: bool | None, instances: tuple[MigInstance, ...]
    ) -> tuple[int, int, int | None, str | None]:
        """``(total, free, reserved, note)`` of GPU ``i``: its own, or a MIG parent's instances.

        A MIG parent that refuses its memory (NO_PERMISSION) is given the sum of its
        instances, with a note saying so; with no instance read it is an error that says
        why. Any other refusal is the error :meth:`memory` raises.
        """
        try:
            return (*self.memory(i, handle), None)
        except GpuQueryError as err:
            if not mig_mode or err.kind != "no_permission":
                raise
            if not instances:
                raise GpuQueryError("no_permission", MIG_REFUSED.format(index=i), i) from None
        total = sum(m.total_bytes for m in instances)
        free = sum(m.free_bytes for m in instances)
        return total, free, None, MIG_SUMMED.format(count=len(instances))

    def memory(self, i: int | None, handle: Any) -> tuple[int, int, int | None]:
        """Return ``(total, free, reserved)`` bytes: v2 where it exists, else v1 (reserved None)."""
        nv = self.nv
        version = getattr(nv, "nvmlMemory_v2", None)
        if version is not None:
            mem = self.optional(i, "memory", nv.nvmlDeviceGetMemoryInfo, handle, version)
            if not isinstance(mem, Exception):
                return int(mem.total), int(mem.free), int(mem.reserved)
        mem = self.call(i, "memory", nv.nvmlDeviceGetMemoryInfo, handle)
        return int(mem.total), int(mem.free), None

    def mig(self, i: int, handle: Any) -> tuple[bool | None, str | None, tuple[MigInstance, ...]]:
        nv = self.nv
        mode = self.optional(i, "MIG mode", nv.nvmlDeviceGetMigMode, handle)
        if isinstance(mode, Exception):
            return None, None, ()
        if mode[0] != nv.NVML_DEVICE_MIG_ENABLE:
            return False, None, ()
        count = self.optional(i, "MIG devices", nv.nvmlDeviceGetMaxMigDeviceCount, handle)
        if isinstance(count, Exception):
            return True, MIG_UNLISTED, ()
        count = min(int(count), MAX_MIG_INSTANCES)
        instances = tuple(m for m in (self.mig_instance(i, handle, k) for k in range(count)) if m)
        note = (
            (
                f"MIG is enabled: {len(instances)} instance(s); an engine sees one instance, "
                "not the whole GPU."
            )
            if instances
            else "MIG is enabled with no instance created."
        )
        return True, note, instances

    def mig_instance(self, i: int, handle: Any, k: int) -> MigInstance | None:
        nv = self.nv
        mig = self.optional(i, f"MIG device {k}", nv.nvmlDeviceGetMigDeviceHandleByIndex, handle, k)
        if isinstance(mig, Exception):
            return None  # NOT_FOUND: an empty slot
        total, free, _ = self.memory(i, mig)
        uuid = _text(self.call(i, f"MIG device {k} UUID", nv.nvmlDeviceGetUUID, mig))
        return MigInstance(k, uuid, total, total - free, free)

    def processes(self, i: int, handle: Any) -> tuple[tuple[GpuProcess, ...], str | None]:
        nv = self.nv
        procs = self.optional(i, "processes", nv.nvmlDeviceGetComputeRunningProcesses, handle)
        if isinstance(procs, Exception):
            return (), f"The driver would not list the processes ({procs})."
        return tuple(self.process(p) for p in list(procs)[:MAX_PROCESSES]), None

    def process(self, p: Any) -> GpuProcess:
        used = getattr(p, "usedGpuMemory", None)
        name = self.optional(None, "process name", self.nv.nvmlSystemGetProcessName, p.pid)
        return GpuProcess(
            int(p.pid),
            None if used is None else int(used),
            None if isinstance(name, Exception) else _text(name),
        )
