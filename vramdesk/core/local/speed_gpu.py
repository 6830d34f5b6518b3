"""The speed facts of a local GPU: its catalog entry, else NVML's memory bandwidth (issue 25).

NVML names a card ``NVIDIA GeForce RTX 4090`` or ``NVIDIA H100 80GB HBM3``; the catalog
``RTX 4090`` and ``H100 80GB``. :func:`catalog_match` takes the catalog GPU whose name (case
and punctuation ignored) is the longest found inside NVML's and whose memory is within 3 % of
NVML's total. A GPU outside the catalog gets NVML's bandwidth
(:func:`vramdesk.core.local.gpu_info.nvml_bandwidth_gb_s`) and no peak: NVML reports none,
so :func:`vramdesk.core.speed.speed` says that the peak is the missing fact.
"""

from __future__ import annotations

import re
from typing import Any

from vramdesk.core.local.gpu_info import GpuInfo
from vramdesk.core.units import MIB

#: The catalog memory may differ from NVML's total by this share (ECC, driver reserve).
MEMORY_TOLERANCE = 0.03


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def catalog_match(info: GpuInfo, catalog: tuple[Any, ...]) -> Any | None:
    """The catalog ``GpuSpec`` this NVML GPU is, or None (see the module docstring)."""
    name = _norm(info.name)
    found = [
        g
        for g in catalog
        if _norm(g.name)
        and _norm(g.name) in name
        and abs(g.memory_mib * MIB - info.total_bytes) <= MEMORY_TOLERANCE * info.total_bytes
    ]
    return max(found, key=lambda g: len(_norm(g.name)), default=None)


def local_speed_gpu(info: GpuInfo) -> Any:
    """A ``GpuSpec`` with the speed facts known for ``info``: the catalog's, else NVML's.

    Outside the catalog: ``memory_bandwidth_gb_s`` from NVML's memory clock and bus width
    (None when the driver reports neither) and no ``peak_tflops``.
    """
    # on first use: the catalog loads only when a local GPU's speed is asked for
    from vramdesk.core.store.bundled import GpuSpec, gpu_catalog

    match = catalog_match(info, gpu_catalog())
    if match is not None:
        return match
    bandwidth = info.memory_bandwidth_gb_s
    source = (
        f"NVML: 2 x {info.memory_clock_mhz:,} MHz x {info.memory_bus_width_bits:,} bit / 8"
        if bandwidth
        else ""
    )
    return GpuSpec(
        name=f"{info.name} (local GPU {info.index})",
        memory_mib=info.total_bytes // MIB,
        vendor="NVIDIA",
        source="NVML",
        memory_bandwidth_gb_s=bandwidth,
        peak_tflops=(),
        speed_source=source,
    )
