"""vLLM releases: reading ``engine_version``, and the defaults and checks that follow it.

Sources: ``vllm/config/cache.py`` (``gpu_memory_utilization``, ``BlockSize``),
``vllm/v1/worker/gpu_worker.py`` (the CUDA-graph estimate in the budget).
"""

from __future__ import annotations

import re
from fractions import Fraction

from vramdesk.core.errors import InputError

#: The first release (V1) whose default ``gpu_memory_utilization`` is 0.92 and which subtracts
#: its CUDA-graph estimate from the budget, as read in ``vllm/config/cache.py`` and
#: ``gpu_worker.py`` of recent releases; the exact first release is an assumption.
RECENT_SINCE = (0, 14)


#: ``BlockSize = Literal[1, 8, 16, 32, 64, 128]`` of ``vllm/config/cache.py`` (0.10-0.11;
#: ``--block-size`` choices 8-128 in 0.6). Releases from :data:`RECENT_SINCE` (and unknown
#: versions) are not checked against a list: a multiple of 8 is required there, an
#: assumption rather than a value read in their source.
BLOCK_SIZES = (1, 8, 16, 32, 64, 128)


#: First release whose "GPU KV cache size" log is ``int(max_concurrency * max_model_len)``
#: rather than ``num_blocks // len(groups) * block_size`` (vllm-project/vllm#40691 reports the
#: old rule on 0.19.0); the exact release is an assumption.
KV_TOKENS_FROM_CONCURRENCY_SINCE = (0, 20)


#: First release with ``float16`` among the recurrent-state dtypes (``MambaDType``) and the
#: NemotronH config hook (``NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype``: the
#: config's ``mamba_ssm_cache_dtype``, else float16), vllm-project/vllm#29978 (merged
#: 2025-12); the release is an assumption. ``bfloat16`` is taken from it too (assumed).
MAMBA_FLOAT16_SINCE = (0, 13)


#: First release whose NemotronH hook defaults to float32 instead of float16
#: (vllm-project/vllm#39032, merged 2026-04: "Only float32 is known to have no accuracy
#: issues by default"); the release is an assumption.
NEMOTRON_H_FP32_SINCE = (0, 19)


#: First release that aligns the hybrid attention block to the MLA kernels (64 tokens) rather
#: than 16 (``vllm/model_executor/models/config.py`` ``HybridAttentionMambaModelConfig`` with
#: ``kernel_block_alignment_size``; 0.11.0's copy has 16 only); the release is an assumption.
HYBRID_MLA_ALIGN_SINCE = (0, 12)


#: First release whose hybrid alignment is ``max(backend's smallest kernel block,
#: block_size)`` (``vllm/platforms/interface.py`` ``_align_hybrid_block_size``, the backend's
#: ``get_supported_kernel_block_sizes``) rather than a fixed 16 (or 64); assumed equal to
#: :data:`RECENT_SINCE`.
HYBRID_ALIGN_BY_BACKEND_SINCE = RECENT_SINCE


#: First release with ``ChunkedLocalAttentionSpec`` (``vllm/v1/kv_cache_interface.py``,
#: vllm-project/vllm#19351): 0.10.0 has it, 0.9.2 gives Llama-4's chunked layers a
#: ``FullAttentionSpec`` (both releases' wheels read).
CHUNKED_SPEC_SINCE = (0, 10)


#: First release that turns the hybrid KV cache manager off for a model with
#: ``attention_chunk_size`` unless ``VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1``
#: (vllm-project/vllm#21761, "latency regression"): ``vllm/config/__init__.py``
#: ``VllmConfig.__post_init__`` and the variable's default ``"0"`` in ``vllm/envs.py``, read
#: in the 0.10.1 to 0.13.0 wheels (0.10.0 has no such variable and keeps the manager on).
CHUNKED_HYBRID_OFF_SINCE = (0, 10, 1)


#: First release whose ``VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE`` defaults to
#: ``"1"`` (``vllm/envs.py``: ``"0"`` in 0.13.0, ``"1"`` in 0.14.0 and every later wheel read,
#: up to 0.33.0), so the hybrid manager, and the chunked spec, are on by default again.
CHUNKED_HYBRID_ON_SINCE = (0, 14)


#: The V0/V1 engine marker ("V0 ~0.6.4", "0.7.2 (V1 engine)"); a ``v``/``V`` followed by a
#: release (``v0.11.0``, the GitHub tag style) is a tag prefix, not the marker.
ENGINE_MARKER = re.compile(r"\bV([01])\b(?!\.\d)", re.IGNORECASE)


def parse_version(text: str | None) -> tuple[bool, tuple[int, ...]]:
    """``(is_v0, release)`` from free text: ``"V0 ~0.6.4"``, ``"0.11.0"``, ``"0.7.2 (V1 engine)"``.

    The V1 engine is the default from 0.8.0; unknown versions are read as the newest. A tag
    prefix (``"v0.11.0"``, ``"V0.6.4"``) is not the engine marker (:data:`ENGINE_MARKER`).
    """
    text = (text or "")[:100]
    found = re.search(r"(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?", text)
    release = tuple(int(g) for g in found.groups() if g is not None) if found else (99,)
    marker = ENGINE_MARKER.search(text)
    if marker:
        return marker.group(1) == "0", release
    return release < (0, 8), release


def check_version(text: str | None) -> None:
    """Refuse an engine version :func:`parse_version` cannot read (it would be read as the newest).

    Accepted: empty or ``None`` (the newest release), text with a ``major.minor`` release
    (``"0.11.0"``, ``"V0 ~0.6.4"``, ``"0.8.3.dev172+g2b93162f"``) or a bare ``V0``/``V1`` tag.

    Raises
    ------
    InputError
        ``engine_version``: anything else (``"banana"``, ``"11"``).
    """
    if text is None or not text.strip():
        return
    head = text[:100]
    if re.search(r"\d{1,4}\.\d{1,4}", head) or ENGINE_MARKER.search(head):
        return
    raise InputError(
        "engine_version",
        f"cannot read a vLLM release from {head[:40]!r}: expected "
        "e.g. 0.11.0 (or 'V0 0.6.4'); the defaults, profile run and budget "
        "depend on it",
        "invalid",
    )


def default_gpu_memory_utilization(version: str | None) -> Fraction:
    """VLLM's default ``gpu_memory_utilization``: 0.9, 0.92 from :data:`RECENT_SINCE`."""
    return Fraction(92, 100) if parse_version(version)[1] >= RECENT_SINCE else Fraction(9, 10)


def subtracts_cuda_graphs(version: str | None) -> bool:
    """Whether the release subtracts CUDA-graph memory from the KV budget."""
    is_v0, release = parse_version(version)
    return not is_v0 and release >= RECENT_SINCE


def check_block_size(block_size: int | None, version: str | None) -> None:
    """Refuse a ``block_size`` vLLM does not accept (:data:`BLOCK_SIZES`).

    Raises
    ------
    InputError
        ``block_size``: not in :data:`BLOCK_SIZES` for releases before :data:`RECENT_SINCE`,
        not a multiple of 8 for later (or unknown) releases. ``None`` is vLLM's default, 16.
    """
    if block_size is None:
        return
    if parse_version(version)[1] < RECENT_SINCE:
        if block_size not in BLOCK_SIZES:
            raise InputError(
                "block_size",
                f"vLLM accepts {', '.join(map(str, BLOCK_SIZES))}, got {block_size}",
                "unsupported",
            )
    elif block_size % 8:
        raise InputError(
            "block_size", f"must be a multiple of 8 for vLLM, got {block_size}", "unsupported"
        )


def check_mamba_dtypes(
    mamba_cache_dtype: str | None, mamba_ssm_cache_dtype: str | None, version: str | None
) -> None:
    """Refuse a 16-bit recurrent-state dtype before :data:`MAMBA_FLOAT16_SINCE`.

    ``vllm/config/cache.py`` ``MambaDType`` was ``Literal["auto", "float32"]`` there.

    Raises
    ------
    InputError
        ``mamba_cache_dtype`` or ``mamba_ssm_cache_dtype``: float16 / bfloat16 on an older
        release.
    """
    if parse_version(version)[1] >= MAMBA_FLOAT16_SINCE:
        return
    for field, value in (
        ("mamba_cache_dtype", mamba_cache_dtype),
        ("mamba_ssm_cache_dtype", mamba_ssm_cache_dtype),
    ):
        if value in ("float16", "bfloat16"):
            raise InputError(
                field,
                f"vLLM {version} takes auto or float32 (float16 from 0.13), got {value}",
                "unsupported",
            )
