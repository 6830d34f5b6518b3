"""Budgets from the local GPUs, and whether an estimate fits in what is free now.

Which GPUs ``--gpu local[:I,J]`` names, and their free or total memory as an engine sees it
(a MIG instance, the least free of several GPUs). With TP the engines size every rank to the
smallest one (vLLM ``get_kv_cache_configs``, SGLang ``get_available_gpu_memory(distributed=True)``),
so a budget here is always one GPU's, the tightest; a catalog GPU stands for identical GPUs,
where the per-rank minimum is the GPU itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from vramdesk.core.errors import InputError
from vramdesk.core.local.gpu_info import (
    GpuInfo,
    MigInstance,
    NvmlSnapshot,
)
from vramdesk.core.local.nvml import query_gpus
from vramdesk.core.units import Unit, format_bytes


@dataclass(frozen=True, slots=True)
class FreeMemoryFit:
    """Whether an estimate fits in the memory available now.

    ``margin_bytes`` is ``available - needed``: the spare bytes, negative when short.
    """

    fits: bool
    margin_bytes: int
    text: str


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


def engine_instance(gpu: GpuInfo) -> MigInstance | None:
    """The MIG instance an engine on ``gpu`` could get at best; ``None`` outside MIG.

    A CUDA process sees one MIG instance, never the whole GPU (NVIDIA MIG user guide,
    "CUDA device enumeration"): on a MIG-enabled GPU with instances, the budget is the
    one with the most free memory (the lowest index among equals), which
    ``CUDA_VISIBLE_DEVICES=<its uuid>`` selects. A MIG GPU with no instance listed keeps
    the parent's figures (its note says why).
    """
    if not gpu.mig_mode or not gpu.mig_instances:
        return None
    return max(gpu.mig_instances, key=lambda m: (m.free_bytes, -m.index))


def _memory_of(gpu: GpuInfo, which: Literal["free", "total"]) -> int:
    if which not in ("free", "total"):
        raise InputError("gpu", f"which must be 'free' or 'total', got {which!r}", "unknown_choice")
    holder = engine_instance(gpu) or gpu
    return holder.free_bytes if which == "free" else holder.total_bytes


def _names(gpus: Sequence[GpuInfo]) -> str:
    """``"GPU 0 NVIDIA H100 80GB HBM3"``, with ``" MIG k"`` for the instance a budget uses."""
    return ", ".join(
        f"GPU {g.index} {g.name}" + (f" MIG {m.index}" if (m := engine_instance(g)) else "")
        for g in gpus
    )


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
        ``free``: what an engine could allocate right now; ``total``: the framebuffer. On a
        MIG-enabled GPU, those of the instance :func:`engine_instance` picks.

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


def fits_now(total_bytes_needed: int, available_bytes: int) -> FreeMemoryFit:
    """Whether ``total_bytes_needed`` fits in ``available_bytes`` (free memory now).

    Parameters
    ----------
    total_bytes_needed : int
        The estimate's total, bytes; with TP > 1 the per-GPU total times TP.
    available_bytes : int
        Free bytes now, e.g. :func:`local_budget_bytes` over the same GPUs.

    Returns
    -------
    FreeMemoryFit
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
    return FreeMemoryFit(margin >= 0, margin, text)


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
    found = _free_budget(text, tp, query)
    return None if found is None else found[:2]


def _free_budget(
    text: str, tp: int, query: Callable[[], NvmlSnapshot] | None
) -> tuple[str, int, list[GpuInfo]] | None:
    """``(label, least free bytes, chosen GPUs)`` of ``--gpu local...``, or None."""
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
    chosen = _chosen(snapshot, indices)
    least = "" if len(indices) == 1 else ", the least of these GPUs"
    mib = format_bytes(free, Unit.MIB, 0)
    return f"local {_names(chosen)}: {format_bytes(free)} free now ({mib}{least})", free, chosen


#: SGLang warns that "the memory capacity is unbalanced" when the smallest rank's free
#: memory is below this share of a rank's own (``model_runner.py`` ``init_torch_distributed``).
SGLANG_BALANCE = Fraction(9, 10)


def sglang_local_budget(
    text: str, tp: int, query: Callable[[], NvmlSnapshot] | None = None
) -> tuple[str, int, str | None] | None:
    """``--gpu local[:I,J]`` for SGLang: the least free memory of the chosen GPUs, per GPU.

    SGLang's pool is ``mem_fraction_static`` of ``pre_model_load_memory``, which
    ``init_torch_distributed`` (``model_runner.py``) reads with
    ``get_available_gpu_memory(distributed=True)``: the free memory, all-reduced to its
    minimum over the ranks. So with TP the smallest rank's free memory is every rank's budget
    (a GPU that also drives a display, or holds another process, sets it); a warning repeats
    SGLang's own when that minimum is below 0.9 of another rank's free memory.

    Returns
    -------
    tuple or None
        ``(label, least free bytes, warning or None)``; ``None`` if ``text`` is not ``local``.

    Raises
    ------
    GpuQueryError, InputError
        As :func:`local_gpu_budget`.
    """
    found = _free_budget(text, tp, query)
    if found is None:
        return None
    label, free, chosen = found
    fuller = [g for g in chosen if free < _memory_of(g, "free") * SGLANG_BALANCE]
    warning = None
    if fuller:
        g = fuller[0]
        warning = (
            f"the memory capacity is unbalanced: the least free GPU has {format_bytes(free)}, "
            f"GPU {g.index} {format_bytes(_memory_of(g, 'free'))}; SGLang sizes every rank's "
            "pool from the least (and warns so)"
        )
    return label, free, warning


def engine_local_budget(
    text: str, tp: int, util: Fraction, query: Callable[[], NvmlSnapshot] | None = None
) -> tuple[str, int, str | None] | None:
    """``--gpu local[:INDEX]`` for engines that budget ``util * total`` (vLLM, SGLang).

    vLLM does not budget from the free memory: it asks for ``gpu_memory_utilization * total``
    and refuses to start when less than that is free (``vllm/v1/worker/gpu_worker.py``,
    "Free memory on device ... is less than desired GPU memory utilization"). So the
    capacity is the chosen GPUs' total, and a warning says when one of them has less free
    memory than the engine will ask for. With TP/PP every rank profiles its own budget and
    ``vllm/v1/core/kv_cache_utils.py`` ``get_kv_cache_configs`` shrinks each rank's
    ``num_blocks`` to the smallest rank's (V0: the executor's ``determine_num_available_blocks``
    takes the minimum over the workers), so where the GPUs differ the budget is the smallest
    total of the chosen GPUs.

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
    short = [g for g in chosen if _memory_of(g, "free") < want]
    label = (
        f"local {_names(chosen)}: {format_bytes(total)} total ({format_bytes(total, Unit.MIB, 0)})"
    )
    warning = None
    if short:
        g = short[0]
        warning = (
            f"GPU {g.index} has {format_bytes(_memory_of(g, 'free'))} free, less than "
            f"gpu_memory_utilization {float(util):g} x {format_bytes(total)} = "
            f"{format_bytes(want)}: "
            "the engine would refuse to start (free the GPU or lower --util)"
        )
    return label, total, warning
