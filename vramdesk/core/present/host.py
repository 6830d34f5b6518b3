"""Host RAM of a llama.cpp / Ollama estimate, against this machine's RAM (issue 27.4).

The one view the CLI table (:func:`vramdesk.core.present.report.host_lines`) and the window's
breakdown read: the weights and KV cache that llama.cpp keeps in host memory (the input
embedding, layers past ``-ngl``, experts kept by ``--n-cpu-moe`` / ``--cpu-moe``), from the
breakdown's extras (:class:`~vramdesk.core.engines.llamacpp.profile.LlamaCppProfile`), and
whether they fit the machine's RAM (:func:`vramdesk.core.local.host_memory.host_ram_bytes`).
Not counted: llama.cpp's host compute buffer (``CUDA_Host compute buffer``, tens of MiB in
the published logs) and the operating system's own use of the RAM.
"""

from __future__ import annotations

from dataclasses import dataclass

from vramdesk.core.estimate import Breakdown
from vramdesk.core.local.host_memory import host_ram_bytes


@dataclass(frozen=True, slots=True)
class HostRam:
    """Bytes in host RAM and this machine's RAM.

    Attributes
    ----------
    total_bytes : int
        ``weights_bytes + kv_bytes``.
    weights_bytes, kv_bytes, experts_bytes : int
        Weights kept on the host (of which routed experts), KV cache of host layers.
    machine_bytes : int or None
        This machine's physical RAM; None when the system does not say.
    """

    total_bytes: int
    weights_bytes: int
    kv_bytes: int
    experts_bytes: int
    machine_bytes: int | None

    @property
    def fits(self) -> bool | None:
        """Whether ``total_bytes`` is within the machine's RAM (None: RAM unknown)."""
        return None if self.machine_bytes is None else self.total_bytes <= self.machine_bytes


def host_ram(b: Breakdown) -> HostRam | None:
    """The host RAM of breakdown ``b``; None for engines that keep everything on the GPU."""
    if "host_bytes" not in b.extras:
        return None
    return HostRam(
        b.extras["host_bytes"],
        b.extras["weights_bytes_host"],
        b.extras["kv_cache_bytes_host"],
        b.extras.get("experts_bytes_host", 0),
        host_ram_bytes(),
    )
