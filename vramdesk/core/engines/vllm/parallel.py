"""vLLM's data and decode context parallelism, per rank (``vllm/config/parallel.py``).

``data_parallel_size`` engine cores each serve ``ceil(batch / dp)`` of the sequences
(:func:`rank_workload`); ``decode_context_parallel_size`` ranks of a TP group split every
sequence's KV cache by token position (:func:`dcp_kv_part`); the routed experts' split over
``tp * dp`` is :func:`vramdesk.core.engines.vllm.weights.expert_shards`.
"""

from __future__ import annotations

from vramdesk.core.engines.vllm.kv_cache_utils import (
    blocks_per_request,
    kv_groups,
    layer_types_per_gpu,
)
from vramdesk.core.engines.vllm.version import parse_version
from vramdesk.core.errors import InputError
from vramdesk.core.model.runtime import DEFAULT_BLOCK_SIZE, Runtime
from vramdesk.core.model.spec import CHUNKED, FULL, RECURRENT, SLIDING, ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Part
from vramdesk.core.terms.kv_cache import shared_prefix_tokens


def rank_workload(workload: Workload, runtime: Runtime) -> Workload:
    """The workload one data-parallel rank serves: ``ceil(batch / data_parallel_size)``.

    vLLM's DP ranks are separate engine cores (``vllm/v1/engine/core.py``
    ``DPEngineCoreProc``), each with its own scheduler and KV cache; the front end spreads
    the requests over them, so the fullest holds ``ceil(batch / dp)``. Every figure per GPU
    (KV cache, the logged concurrency) is that rank's; the solver's max concurrency is then
    the deployment's (``dp`` times a rank's).
    """
    if runtime.data_parallel_size == 1:
        return workload
    return workload.replace(batch=runtime.ranks_batch(workload.batch))


def dp_note(workload: Workload, runtime: Runtime) -> str:
    """The data-parallel split in words (``workload`` is already one rank's)."""
    dp = runtime.data_parallel_size
    return (
        f"data parallel {dp}: each of the {dp} ranks (engine cores) holds the KV cache of "
        f"{workload.batch} of the sequences; figures per GPU are one rank's"
    )


def check_dcp(model: ModelSpec, runtime: Runtime) -> None:
    """Refuse decode context parallelism where its layout is not modelled.

    Raises
    ------
    InputError
        ``decode_context_parallel_size``: V0 (DCP is a V1 feature), or a model with
        sliding-window, chunked or recurrent layers (their DCP layouts are not modelled).
    """
    if runtime.decode_context_parallel_size == 1:
        return
    if parse_version(runtime.engine_version)[0]:
        raise InputError(
            "decode_context_parallel_size",
            "V0 has no decode context parallelism (a V1 feature)",
            "unsupported",
        )
    kinds = set(model.resolved_layer_types()) & {SLIDING, CHUNKED, RECURRENT}
    if kinds:
        raise InputError(
            "decode_context_parallel_size",
            f"only full-attention models are modelled with decode context parallelism, this "
            f"one has {', '.join(sorted(kinds))} layers",
            "unsupported",
        )


def dcp_kv_part(model: ModelSpec, workload: Workload, runtime: Runtime, unit: int) -> Part:
    """KV cache of one rank under decode context parallelism (full attention only).

    ``vllm/v1/kv_cache_interface.py`` ``FullAttentionSpec.max_memory_usage_bytes``: a
    request keeps ``cdiv(cdiv(L, dcp), block)`` blocks on each rank (its tokens interleaved
    over the ``dcp`` ranks of the TP group), each block ``unit`` bytes (the KV heads one
    rank holds; MLA's latent, replicated over TP without DCP, is split by token instead).
    The scheduler's block is ``block * dcp`` tokens (``v1/core/sched/scheduler.py``), so a
    shared prefix saves ``prefix // (block * dcp)`` blocks per extra request.
    ``kv = unit * (batch * blocks_per_request - (batch - 1) * shared_blocks)``, bytes.
    """
    dcp = runtime.decode_context_parallel_size
    block = runtime.block_size or DEFAULT_BLOCK_SIZE
    _, groups = kv_groups(layer_types_per_gpu(model, runtime))
    per_request = blocks_per_request(model, workload, runtime, groups)
    shared = shared_prefix_tokens(workload, runtime) // (block * dcp)
    batch = workload.batch
    blocks = batch * per_request - (batch - 1) * shared * groups.get(FULL, 0)
    return Part(
        "kv_cache",
        "KV cache",
        unit * blocks,
        "block_bytes * (batch * cdiv(cdiv(context, DCP), block) - (batch - 1) * shared_blocks)",
        f"{unit:,} * ({batch} * {per_request:,} - {batch - 1} * {shared})",
        (
            f"decode context parallel {dcp}: each rank of the TP group keeps 1/{dcp} of every "
            "sequence's tokens (vLLM kv_cache_interface.py max_memory_usage_bytes)",
        ),
    )
