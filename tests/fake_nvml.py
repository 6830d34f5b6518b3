"""A fake NVML at the pynvml boundary, for tests and nothing else.

:class:`FakeNvml` replaces, with ``monkeypatch``, exactly the ``pynvml`` functions that
:mod:`vramdesk.core.local.nvml` calls. Errors are the binding's own: ``pynvml.NVMLError(code)``
builds the real subclass (``NVMLError_GpuIsLost`` for ``NVML_ERROR_GPU_IS_LOST``), so the
code under test sees what a real driver would raise.

Typical use::

    fake = FakeNvml(monkeypatch, [rtx_4090(), h100()])
    fake.fail("nvmlDeviceGetMemoryInfo", pynvml.NVML_ERROR_GPU_IS_LOST, gpu=1)
    fake.gate = threading.Event()   # nvmlInit blocks until fake.gate.set()
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import SimpleNamespace

import pynvml

MIB = 2**20


@dataclass
class FakeGpu:
    """One fake device. Memory in bytes: ``total = reserved + allocated + free`` (NVML v2)."""

    name: str
    total_bytes: int
    reserved_bytes: int
    allocated_bytes: int
    uuid: str = "GPU-00000000-0000-0000-0000-000000000000"
    mig_mode: int | None = None  # None: the call raises NotSupported (no MIG)
    mig_slots: list[FakeGpu | None] = field(default_factory=list)  # None: an empty slot
    processes: list[tuple[int, int | None]] = field(default_factory=list)
    processes_error: int | None = None  # NVML code raised by the process query
    # NVML code raised by both memory calls (v1 and v2): a MIG parent read without
    # administrator rights, or inside a container, answers NVML_ERROR_NO_PERMISSION
    memory_error: int | None = None
    # nvmlDeviceGetMaxClockInfo(NVML_CLOCK_MEM) and nvmlDeviceGetMemoryBusWidth; None: the
    # call raises NotSupported
    memory_clock_mhz: int | None = None
    memory_bus_width_bits: int | None = None

    @property
    def free_bytes(self) -> int:
        return self.total_bytes - self.reserved_bytes - self.allocated_bytes


# Fixed inputs of the fake (not reference data): totals as nvidia-smi prints memory.total
# for these cards (24564 MiB, 81559 MiB; SPEC §2), the rest chosen for the tests.
def rtx_4090() -> FakeGpu:
    """24564 MiB total, 330 MiB reserved, 1000 MiB + 12345 B allocated, one process."""
    return FakeGpu(
        "NVIDIA GeForce RTX 4090",
        24564 * MIB,
        330 * MIB,
        1000 * MIB + 12345,
        uuid="GPU-4090aaaa-0000-0000-0000-000000000000",
        processes=[(4242, 1000 * MIB + 12345)],
    )


def h100() -> FakeGpu:
    """81559 MiB total, 528 MiB reserved, 40000 MiB allocated, two processes."""
    return FakeGpu(
        "NVIDIA H100 80GB HBM3",
        81559 * MIB,
        528 * MIB,
        40000 * MIB,
        uuid="GPU-h100bbbb-0000-0000-0000-000000000000",
        processes=[(5000, 30000 * MIB), (5001, None)],
    )


def a100_mig() -> FakeGpu:
    """An A100 80GB in MIG mode: two 3g.40gb instances in 7 slots (5 empty)."""
    inst = [FakeGpu("MIG 3g.40gb", 40192 * MIB, 0, 1024 * MIB, uuid=f"MIG-{k}") for k in range(2)]
    return FakeGpu(
        "NVIDIA A100 80GB PCIe",
        81920 * MIB,
        0,
        2048 * MIB,
        uuid="GPU-a100",
        mig_mode=pynvml.NVML_DEVICE_MIG_ENABLE,
        mig_slots=[*inst, *[None] * 5],
    )


class FakeNvml:
    """Install a fake NVML with ``gpus`` into ``pynvml`` for the rest of the test."""

    driver_version = "550.54.15"
    nvml_version = "12.550.54.15"
    cuda_driver_version = 12040

    def __init__(self, monkeypatch, gpus: list[FakeGpu], *, memory_v2: bool = True) -> None:
        self.gpus = gpus
        self.memory_v2 = memory_v2
        self.calls: list[str] = []
        self.errors: dict[tuple[str, int | None], int] = {}
        self.gate: threading.Event | None = None
        self.initialized = 0
        for name in _PATCHED:
            monkeypatch.setattr(pynvml, name, getattr(self, name))

    def fail(self, function: str, code: int, gpu: int | None = None) -> None:
        """Make ``function`` raise ``pynvml.NVMLError(code)``; only for device ``gpu`` if given."""
        self.errors[(function, gpu)] = code

    def _enter(self, function: str, gpu: int | None = None) -> None:
        self.calls.append(function)
        for key in ((function, None), (function, gpu)):
            if key in self.errors:
                raise pynvml.NVMLError(self.errors[key])
        if function != "nvmlInit" and function != "nvmlShutdown" and self.initialized <= 0:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_UNINITIALIZED)

    def nvmlInit(self) -> None:
        if self.gate is not None:
            self.gate.wait(timeout=30)
        self._enter("nvmlInit")
        self.initialized += 1

    def nvmlShutdown(self) -> None:
        self._enter("nvmlShutdown")
        self.initialized -= 1

    def nvmlSystemGetDriverVersion(self) -> str:
        self._enter("nvmlSystemGetDriverVersion")
        return self.driver_version

    def nvmlSystemGetNVMLVersion(self) -> str:
        self._enter("nvmlSystemGetNVMLVersion")
        return self.nvml_version

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._enter("nvmlSystemGetCudaDriverVersion")
        return self.cuda_driver_version

    def nvmlDeviceGetCount(self) -> int:
        self._enter("nvmlDeviceGetCount")
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int):
        self._enter("nvmlDeviceGetHandleByIndex", index)
        return (self.gpus[index], index)

    def nvmlDeviceGetName(self, handle) -> str:
        self._enter("nvmlDeviceGetName", handle[1])
        return handle[0].name

    def nvmlDeviceGetUUID(self, handle) -> str:
        self._enter("nvmlDeviceGetUUID", handle[1])
        return handle[0].uuid

    def nvmlDeviceGetMemoryInfo(self, handle, version=None):
        self._enter("nvmlDeviceGetMemoryInfo", handle[1])
        gpu = handle[0]
        if gpu.memory_error is not None:
            raise pynvml.NVMLError(gpu.memory_error)
        if version:
            if not self.memory_v2:
                raise pynvml.NVMLError(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
            return SimpleNamespace(
                version=version,
                total=gpu.total_bytes,
                reserved=gpu.reserved_bytes,
                free=gpu.free_bytes,
                used=gpu.allocated_bytes,
            )
        # v1: used = reserved + allocated (NVML API reference, nvmlMemory_t)
        return SimpleNamespace(
            total=gpu.total_bytes,
            free=gpu.free_bytes,
            used=gpu.reserved_bytes + gpu.allocated_bytes,
        )

    def nvmlDeviceGetComputeRunningProcesses(self, handle):
        self._enter("nvmlDeviceGetComputeRunningProcesses", handle[1])
        if handle[0].processes_error is not None:
            raise pynvml.NVMLError(handle[0].processes_error)
        return [SimpleNamespace(pid=pid, usedGpuMemory=used) for pid, used in handle[0].processes]

    def nvmlSystemGetProcessName(self, pid: int) -> str:
        self._enter("nvmlSystemGetProcessName")
        if pid == 5001:  # a process of another user
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NO_PERMISSION)
        return f"python{pid}"

    def nvmlDeviceGetMaxClockInfo(self, handle, clock_type: int) -> int:
        self._enter("nvmlDeviceGetMaxClockInfo", handle[1])
        assert clock_type == pynvml.NVML_CLOCK_MEM  # the only clock vramdesk reads
        if handle[0].memory_clock_mhz is None:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return handle[0].memory_clock_mhz

    def nvmlDeviceGetMemoryBusWidth(self, handle) -> int:
        self._enter("nvmlDeviceGetMemoryBusWidth", handle[1])
        if handle[0].memory_bus_width_bits is None:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return handle[0].memory_bus_width_bits

    def nvmlDeviceGetMigMode(self, handle):
        self._enter("nvmlDeviceGetMigMode", handle[1])
        if handle[0].mig_mode is None:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return [handle[0].mig_mode, handle[0].mig_mode]

    def nvmlDeviceGetMaxMigDeviceCount(self, handle) -> int:
        self._enter("nvmlDeviceGetMaxMigDeviceCount", handle[1])
        return len(handle[0].mig_slots)

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle, k: int):
        self._enter("nvmlDeviceGetMigDeviceHandleByIndex", handle[1])
        slot = handle[0].mig_slots[k]
        if slot is None:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_FOUND)
        return (slot, handle[1])


_PATCHED = [
    name for name, value in vars(FakeNvml).items() if name.startswith("nvml") and callable(value)
]


def driver_installed() -> bool:
    """Whether this machine can load the real NVML library (an NVIDIA driver is installed)."""
    import ctypes

    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


def _raise_library_not_found(*_args, **_kwargs):
    raise pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)


def without_driver(monkeypatch) -> None:
    """Make ``nvmlInit`` fail as the real binding does on a machine without a driver.

    pynvml's ``_LoadNvmlLibrary`` raises ``NVMLError(NVML_ERROR_LIBRARY_NOT_FOUND)`` when
    ``libnvidia-ml.so.1`` cannot be loaded; on a machine without a driver nothing is patched
    and the real binding raises it itself, so the no-driver tests run everywhere.
    """
    if driver_installed():
        monkeypatch.setattr(pynvml, "nvmlInit", _raise_library_not_found)
        monkeypatch.setattr(pynvml, "nvmlInitWithFlags", _raise_library_not_found)


#: A ``sitecustomize`` that does :func:`without_driver` in a child process.
SITECUSTOMIZE_WITHOUT_DRIVER = """\
import pynvml


def _raise_library_not_found(*_args, **_kwargs):
    raise pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)


pynvml.nvmlInit = pynvml.nvmlInitWithFlags = _raise_library_not_found
"""


def env_without_driver(tmp_path) -> dict[str, str]:
    """Environment entries that make a child Python see no driver (where one is installed)."""
    if not driver_installed():
        return {}
    import os

    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE_WITHOUT_DRIVER, encoding="utf-8")
    path = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": str(tmp_path) + (os.pathsep + path if path else "")}
