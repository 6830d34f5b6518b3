"""llama.cpp builds: reading ``engine_version`` and what a build number decides.

The flash-attention default (``common/arg.cpp``) and the MLA cache layout
(ggml-org/llama.cpp PR #12801 and PR #19067) follow the build.
"""

from __future__ import annotations

import re

from vramdesk.core.errors import InputError
from vramdesk.core.model.runtime import MlaCache, Runtime

#: First build whose ``-fa`` defaults to ``auto`` (on where the backend supports it), from
#: the flash-attention "auto" change of late August 2025; the exact build is an assumption.
FA_AUTO_SINCE_BUILD = 6325


#: First build with the MLA cache (PR #12801, merged 2025-04-15); the exact build number
#: is an assumption, read from the release dates around the merge.
MLA_CACHE_SINCE_BUILD = 5140


#: First build with the V-less MLA cache (PR #19067, merged 2026-01-24); the exact build
#: number is likewise an assumption: release tags b6451 (2025-09-13) and b7045 (2025-11-13)
#: run at about ten builds a day, which puts the merge near b7750.
MLA_VLESS_SINCE_BUILD = 7750


def mla_cache_for(runtime: Runtime) -> MlaCache:
    """How this llama.cpp build caches MLA: from ``engine_version`` (unknown: the newest).

    An explicit ``mla_cache`` other than the default latent wins (a log that says so).
    """
    if runtime.mla_cache is not MlaCache.LATENT:
        return runtime.mla_cache
    build = build_number(runtime.engine_version)
    if build is None or build >= MLA_VLESS_SINCE_BUILD:
        return MlaCache.LATENT
    if build >= MLA_CACHE_SINCE_BUILD:
        return MlaCache.LATENT_WITH_V
    return MlaCache.EXPANDED


def build_number(text: str | None) -> int | None:
    """Return the llama.cpp build in ``text`` (``"b6699"``, ``"6699 (abc1234)"``), or None."""
    found = re.search(r"\bb?(\d{3,6})\b", (text or "")[:100])
    return int(found[1]) if found else None


def check_build(text: str | None) -> None:
    """Refuse a llama.cpp version with no build number (flash-attention default depends on it).

    Raises
    ------
    InputError
        ``engine_version``: text without a build such as ``b6699`` (empty or None is the newest).
    """
    if text is None or not text.strip() or build_number(text) is not None:
        return
    raise InputError(
        "engine_version",
        f"cannot read a llama.cpp build from {text[:40]!r}: "
        "expected e.g. b6699 (the build number 'llama-server --version' prints)",
        "invalid",
    )
