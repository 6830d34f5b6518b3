"""The RAM of this machine: the host memory that llama.cpp's offloaded weights and KV cache use.

``os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")`` (POSIX; Linux and macOS); None
where the system does not say (Windows has no ``sysconf``). ``VRAMDESK_FAKE_HOST_RAM`` (bytes,
or ``none``) stands in for the machine, as ``VRAMDESK_FAKE_NVML`` does for the GPUs: the CLI
corpus pins its output with it.
"""

from __future__ import annotations

import os

#: The debug hook: a byte count, or ``none`` for a machine that does not say.
FAKE_ENV = "VRAMDESK_FAKE_HOST_RAM"


def host_ram_bytes() -> int | None:
    """Physical RAM of this machine in bytes, or None when unknown (or the hook says none)."""
    fake = os.environ.get(FAKE_ENV)
    if fake is not None:
        text = fake.strip().lower()
        return int(text) if text.isdigit() else None
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        return None
    return pages * size if pages > 0 and size > 0 else None
