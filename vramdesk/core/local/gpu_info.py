"""What NVML reports of the local GPUs, as frozen data, and the one error type of a query.

Shared by :mod:`vramdesk.core.local.nvml` (the API), :mod:`._nvml_query` (the pynvml round)
and :mod:`._nvml_fake` (the ``VRAMDESK_FAKE_NVML`` hook), which import this module and never
each other: no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vramdesk.core.errors import VramdeskError

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
    "timeout": "NVML: the driver did not answer in time (a hung driver or a GPU in a bad "
    "state). vramdesk works without a GPU; estimates are unaffected.",
    "nonsense": "NVML reported memory figures that cannot be true (the driver may be in a bad "
    "state); they are not shown.",
}


#: Limits of what a driver can truthfully report: GPUs in one machine, bytes of one GPU
#: (1 PiB; the largest today have 192 GB), MIG instances (7 on A100/H100), processes listed.
MAX_GPUS = 1024


MAX_GPU_BYTES = 1 << 50


MAX_MIG_INSTANCES = 64


MAX_PROCESSES = 4096


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
    memory_clock_mhz: int | None = None
    memory_bus_width_bits: int | None = None

    @property
    def memory_bandwidth_gb_s(self) -> float | None:
        """Peak memory bandwidth from NVML's clock and bus width (:func:`nvml_bandwidth_gb_s`)."""
        if not self.memory_clock_mhz or not self.memory_bus_width_bits:
            return None
        return nvml_bandwidth_gb_s(self.memory_clock_mhz, self.memory_bus_width_bits)


@dataclass(frozen=True, slots=True)
class NvmlSnapshot:
    """Every local GPU at one moment, with the driver's versions.

    ``cuda_driver_version`` is NVML's integer (``12040`` = CUDA 12.4), ``None`` if unknown.
    """

    driver_version: str
    nvml_version: str
    cuda_driver_version: int | None
    gpus: tuple[GpuInfo, ...]


#: Transfers per memory-clock cycle as NVML reports the clock (``nvmlDeviceGetMaxClockInfo``
#: with ``NVML_CLOCK_MEM``): 2 for every memory type. NVML's memory clock is half the per-pin
#: data rate for GDDR5/5X/6/6X/7 and HBM alike, which the datasheets confirm: H100 SXM
#: (HBM3) 2,619 MHz x 5,120 bit -> 2 x 2,619e6 x 640 B = 3,352 GB/s (datasheet 3,350);
#: A100 80GB (HBM2e) 1,593 MHz x 5,120 -> 2,039 GB/s (2,039); RTX 4090 (GDDR6X, 21 Gbps)
#: 10,501 MHz x 384 -> 1,008 GB/s (1,008); RTX 3090 (GDDR6X, 19.5 Gbps) 9,751 MHz x 384 ->
#: 936 GB/s (936); Tesla V100 (HBM2) 877 MHz x 4,096 -> 898 GB/s (900). GDDR6X's PAM4 (two
#: bits a symbol) is already in NVML's figure: 10,501 MHz is 21 Gbps / 2, not a symbol rate.
NVML_TRANSFERS_PER_CLOCK = 2


def nvml_bandwidth_gb_s(memory_clock_mhz: int, bus_width_bits: int) -> float:
    """Peak memory bandwidth (GB/s, 10^9 B/s) from NVML's max memory clock and bus width.

    ``NVML_TRANSFERS_PER_CLOCK x clock (MHz) x 10^6 x bus width (bits) / 8 / 10^9``, the
    clock from ``nvmlDeviceGetMaxClockInfo(handle, NVML_CLOCK_MEM)`` and the width from
    ``nvmlDeviceGetMemoryBusWidth`` (NVML API reference, docs.nvidia.com/deploy/nvml-api).
    RTX 4090: 2 x 10,501 x 384 / 8,000 = 1,008.1 GB/s.
    """
    return NVML_TRANSFERS_PER_CLOCK * memory_clock_mhz * bus_width_bits / 8000
