"""The vLLM profile: the parts of :mod:`vramdesk.core.engines.vllm` put together as vLLM does."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from vramdesk.core.engines.base import check_kv_dtype, measured_part, with_parts
from vramdesk.core.engines.formula import FormulaProfile
from vramdesk.core.engines.vllm.kv_cache_interface import (
    chunked_spec_in_use,
    mamba_page_bytes,
    mamba_state_dtypes,
    state_element_bytes,
)
from vramdesk.core.engines.vllm.kv_cache_utils import (
    _hybrid_runtime,
    blocks_per_request,
    hybrid_parts,
    kv_budget_bytes,
    kv_bytes_per_token_per_layer,
    kv_groups,
    layer_types_per_gpu,
)
from vramdesk.core.engines.vllm.mxfp4 import check_backend
from vramdesk.core.engines.vllm.parallel import check_dcp, dcp_kv_part, dp_note, rank_workload
from vramdesk.core.engines.vllm.profile_run import (
    V0_LONG_CONTEXT,
    activation_peak_part,
    non_torch_part,
    v0_auto_chunked_prefill,
)
from vramdesk.core.engines.vllm.version import (
    CHUNKED_SPEC_SINCE,
    KV_TOKENS_FROM_CONCURRENCY_SINCE,
    check_block_size,
    check_mamba_dtypes,
    check_version,
    parse_version,
)
from vramdesk.core.engines.vllm.weights import (
    auto_dtype,
    rope_cache_bytes,
    vllm_weights_part,
    vocab_padding_params,
)
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import DEFAULT_BLOCK_SIZE, Engine, Runtime
from vramdesk.core.model.spec import (
    CHUNKED,
    FULL,
    SLIDING,
    ModelSpec,
    chunks_as_full,
)
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.kv_cache import (
    shared_prefix_tokens,
)
from vramdesk.core.terms.state import state_part


class VllmProfile(FormulaProfile):
    """vLLM (V0 and V1): see the module docstring for the engine sources followed."""

    engine = Engine.VLLM
    logs_concurrency = True

    def check_engine_version(self, version: str | None) -> None:
        """Refuse a version :func:`parse_version` cannot read (:func:`check_version`)."""
        check_version(version)

    def validate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> None:
        """Check the version, the KV cache type (:func:`check_kv_dtype`) and the block size.

        Raises
        ------
        InputError
            ``engine_version``, ``kv_dtype`` or ``block_size`` (:func:`check_block_size`).
        """
        super().validate(model, weights, workload, runtime)
        check_kv_dtype("vLLM", workload.kv_dtype)
        check_block_size(runtime.block_size, runtime.engine_version)
        check_mamba_dtypes(
            runtime.mamba_cache_dtype, runtime.mamba_ssm_cache_dtype, runtime.engine_version
        )
        check_backend(runtime.mxfp4_backend, runtime.engine_version)
        check_dcp(model, runtime)

    #: ``requested_memory = torch.cuda.mem_get_info()[1] * gpu_memory_utilization`` (gpu_worker.py)
    budgets_from_cuda_total = True

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Weights as loaded, paged KV cache, profiled activation peak, non-torch memory.

        A float32 checkpoint is loaded in 16 bits (:func:`auto_dtype`). Chunked layers
        (Llama-4) keep the whole context where vLLM gives them no chunked spec
        (:func:`chunked_spec_in_use`: by release and with the hybrid manager off), and one
        chunk plus a step's tokens where it does (:meth:`reserved_kv_part`).
        """
        weights, dtype_notes = auto_dtype(weights, "vLLM")
        workload = rank_workload(workload, runtime)
        whole = CHUNKED in model.resolved_layer_types() and not chunked_spec_in_use(runtime)
        if whole:
            model = chunks_as_full(model)
            dtype_notes = (*dtype_notes, chunked_whole_note(runtime))
        base = super().estimate(model, weights, workload, runtime)
        w = vllm_weights_part(model, weights, runtime)
        act = activation_peak_part(model, workload, runtime)
        if runtime.profiled_peak_bytes is not None and runtime.activation_peak_bytes is None:
            act = measured_part(
                "activations",
                "Activation peak",
                runtime.profiled_peak_bytes - w.bytes,
                "V0 peak torch memory - weights",
            )
        hybrid = hybrid_parts(model, workload, runtime)
        if hybrid is not None:
            base = dataclasses.replace(base, kv_cache=hybrid[0], state=hybrid[1])
        elif base.state is not None:  # recurrent layers only: the state in vLLM's dtypes
            conv, ssm = mamba_state_dtypes(model, runtime)
            state = state_part(
                model,
                workload.batch,
                runtime,
                state_element_bytes(conv),
                state_element_bytes(ssm),
                f"conv state {conv}, SSM state {ssm} (vLLM mamba_cache_dtype / "
                "mamba_ssm_cache_dtype; auto = the 16-bit model dtype; mamba_utils.py)",
            )
            base = dataclasses.replace(base, state=state)
        extras = {
            "rope_cache_bytes": rope_cache_bytes(model),
            "vocab_padding_params": vocab_padding_params(model),
            "kv_block_bytes": self.block_bytes(model, workload, runtime),
        }
        # the chunk sets max_num_batched_tokens here, with or without a prompt length
        base = dataclasses.replace(
            base, warnings=tuple(n for n in base.warnings if not n.startswith("chunk_tokens"))
        )
        kv = None  # Mamba hybrids: hybrid_parts above; sliding windows: the reservation
        if hybrid is None:
            kv = self.reserved_kv_part(model, workload, runtime, extras["kv_block_bytes"])
        if runtime.decode_context_parallel_size > 1:
            kv = dcp_kv_part(model, workload, runtime, extras["kv_block_bytes"])
        if runtime.data_parallel_size > 1:
            dtype_notes = (*dtype_notes, dp_note(workload, runtime))
        return with_parts(
            base,
            weights=w,
            kv_cache=kv,
            activations=act,
            overhead=non_torch_part(runtime),
            extras=extras,
            warnings=dtype_notes,
        )

    @staticmethod
    def reserved_kv_part(
        model: ModelSpec, workload: Workload, runtime: Runtime, unit: int
    ) -> Part | None:
        """The KV cache as V1's hybrid allocator reserves it, for models with sliding layers.

        ``vllm/v1/core/kv_cache_utils.py`` (``get_max_concurrency_for_kv_cache_config``): a
        request of ``max_model_len`` tokens holds, in every KV group, the blocks its spec's
        ``max_memory_usage_bytes`` asks (full: ``cdiv(L, block)``; sliding: ``cdiv(min(window
        - 1 + max_num_batched_tokens, L), block) + 1``), each block ``unit`` bytes over the
        group's layers. So ``kv = unit * (batch * blocks_per_request - (batch - 1) * shared
        prefix blocks of the full groups)``: the forward estimate, the solver's max
        concurrency and the logged "Maximum concurrency" answer the same question.

        Chunked layers (Llama-4) with their own spec hold ``cdiv(min(chunk +
        max_num_batched_tokens, L), block)`` blocks per request
        (``ChunkedLocalAttentionSpec.max_memory_usage_bytes``).

        ``None`` (the formula's cache, identical for full attention) for V0, for models
        without sliding or chunked-spec layers, or when the window is not exploited.
        """
        types = layer_types_per_gpu(model, runtime)
        if (
            parse_version(runtime.engine_version)[0]
            or not {SLIDING, CHUNKED} & set(types)
            or not runtime.sliding_window_exploited
        ):
            return None
        _, groups = kv_groups(types)
        per_request = blocks_per_request(model, workload, runtime, groups)
        shared_blocks = shared_prefix_tokens(workload, runtime) // (
            runtime.block_size or DEFAULT_BLOCK_SIZE
        )
        full_groups = groups.get(FULL, 0)
        batch = workload.batch
        blocks = batch * per_request - (batch - 1) * shared_blocks * full_groups
        return Part(
            "kv_cache",
            "KV cache",
            unit * blocks,
            "block_bytes * (batch * blocks_per_request - (batch - 1) * shared_prefix_blocks)",
            f"{unit:,} * ({batch} * {per_request:,} - {batch - 1} * {shared_blocks * full_groups})",
            (
                "vLLM's hybrid allocator reserves, per request, blocks in every KV group; a "
                "chunked group holds one attention chunk plus max_num_batched_tokens "
                "(kv_cache_interface.py ChunkedLocalAttentionSpec)"
                if CHUNKED in types
                else "vLLM's hybrid allocator reserves, per request, blocks in every KV group; a "
                "sliding group holds the window plus max_num_batched_tokens (kv_cache_utils.py)",
            ),
        )

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Non-torch memory (and CUDA graphs where subtracted): the overhead part."""
        return breakdown.overhead.bytes

    def solve_notes(self, model: ModelSpec, runtime: Runtime) -> tuple[str, ...]:
        """V1 with sliding layers: the hybrid allocator's reservation; TP/PP: the least rank.

        ``vllm/v1/core/kv_cache_utils.py`` ``get_kv_cache_configs`` shrinks every rank's
        ``num_blocks`` to the smallest rank's, so the budget is one GPU's, the tightest.
        """
        ranks = runtime.world_size()
        least = (
            (
                f"{ranks} ranks: vLLM gives every rank the smallest rank's KV blocks "
                "(kv_cache_utils.py get_kv_cache_configs); the budget is the tightest GPU's",
            )
            if ranks > 1
            else ()
        )
        if CHUNKED in model.resolved_layer_types() and not model.sliding_window:
            if not chunked_spec_in_use(runtime):
                return (chunked_whole_note(runtime), *least)
            return (
                "chunked local-attention layers: vLLM's hybrid allocator reserves blocks per "
                "request in every KV group; the KV cache, max concurrency and the logged "
                "concurrency all follow it",
                *least,
            )
        if parse_version(runtime.engine_version)[0] or not model.sliding_window:
            return (*super().solve_notes(model, runtime), *least)
        return (
            "sliding-window layers: vLLM's hybrid allocator reserves blocks per request in every "
            "KV group; the KV cache, max concurrency and the logged concurrency all follow it",
            *least,
        )

    def context_breaks(self, workload: Workload, runtime: Runtime) -> tuple[int, ...]:
        """V0 turns chunked prefill on above 32,768 tokens: the profile run shrinks there."""
        probe = workload.replace(context_tokens=V0_LONG_CONTEXT + 1)
        return (V0_LONG_CONTEXT,) if v0_auto_chunked_prefill(probe, runtime) else ()

    def kv_capacity(
        self,
        breakdown: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        kv_budget_bytes: int,
    ) -> tuple[int, int | None, Fraction]:
        """Blocks, tokens and concurrency as vLLM logs them (:meth:`block_figures`)."""
        unit = breakdown.extras["kv_block_bytes"]
        blocks = max(0, kv_budget_bytes // unit) if unit else 0
        f = self.block_figures(model, workload, runtime, blocks)
        return int(f["kv_cache_tokens"]), blocks, Fraction(f["max_concurrency"])

    @staticmethod
    def block_bytes(model: ModelSpec, workload: Workload, runtime: Runtime) -> int:
        """Bytes of one block over one group: ``block_size * per_token_per_layer * group_size``.

        Hybrid models use the raised block size (:func:`hybrid_block_size`); a model without
        attention, one Mamba page per layer of the group.
        """
        size, _ = kv_groups(layer_types_per_gpu(model, runtime))
        runtime = _hybrid_runtime(model, workload, runtime)
        per_token = kv_bytes_per_token_per_layer(model, workload.kv_dtype, runtime)
        if not per_token:
            return mamba_page_bytes(model, runtime) * size
        return (runtime.block_size or DEFAULT_BLOCK_SIZE) * per_token * size

    def breakdown_figures(
        self, b: Breakdown, model: ModelSpec, workload: Workload, runtime: Runtime
    ) -> dict[str, int | Fraction]:
        """Weights, the profiler's terms (activation peak, non-torch) and the extras."""
        return {
            "weights_bytes": b.weights.bytes,
            "activation_peak_bytes": b.activations.bytes,
            "non_torch_bytes": runtime.non_torch_bytes
            if runtime.non_torch_bytes is not None
            else b.overhead.bytes,
            "peak_bytes": b.weights.bytes + b.activations.bytes,
            **b.extras,
        }

    def capacity_figures(
        self,
        b: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        counts: dict[str, int],
        gpu_total_bytes: int | None,
    ) -> dict[str, int | Fraction]:
        """KV budget, blocks, tokens and concurrency, from whichever of them is given.

        A given KV figure feeds every figure derived from it, in any direction
        (``kv_cache_utils.py``: ``num_blocks = budget // block_bytes``, tokens ``num_blocks //
        groups * block_size``): given ``num_gpu_blocks`` is used as is; given
        ``kv_cache_tokens`` gives ``tokens // block_size * groups`` blocks, ``block_size`` the
        hybrid block size for attention + Mamba models (:func:`hybrid_block_size`, as
        :meth:`block_figures` logs them); given
        ``kv_cache_bytes`` (or the budget from ``gpu_total_bytes``) gives ``bytes //
        block_bytes`` blocks. Block bytes use the KV heads one GPU holds (``max(1, kv_heads
        // TP)``). Without a budget, ``kv_cache_bytes`` is ``blocks * block_bytes``.
        """
        out: dict[str, int | Fraction] = {}
        unit = b.extras["kv_block_bytes"]
        _, groups = kv_groups(layer_types_per_gpu(model, runtime))
        budget = counts.get("kv_cache_bytes")
        if budget is None and gpu_total_bytes is not None:
            budget = out["kv_cache_bytes"] = kv_budget_bytes(gpu_total_bytes, b, runtime)
        blocks = counts.get("num_gpu_blocks")
        if blocks is None and counts.get("kv_cache_tokens") is not None:
            # a hybrid model's tokens are in blocks of the hybrid block size, not 16
            block = _hybrid_runtime(model, workload, runtime).block_size or DEFAULT_BLOCK_SIZE
            blocks = counts["kv_cache_tokens"] // block * sum(groups.values())
        if blocks is None and budget is not None:
            blocks = max(0, budget // unit) if unit else 0
        if blocks is not None and budget is None:
            out["kv_cache_bytes"] = blocks * unit
        if blocks is not None:
            out.update(self.block_figures(model, workload, runtime, blocks))
        return out

    def block_figures(
        self, model: ModelSpec, workload: Workload, runtime: Runtime, blocks: int
    ) -> dict[str, int | Fraction]:
        """Return ``num_gpu_blocks``, ``kv_cache_tokens`` and ``max_concurrency`` as logged.

        V1: concurrency is ``blocks`` over the blocks one request needs in every group; V0
        (``gpu_executor.py``): ``blocks * block_size / max_model_len``. The logged "GPU KV
        cache size" of V1 is ``blocks // groups * block_size`` before
        :data:`KV_TOKENS_FROM_CONCURRENCY_SINCE` and ``int(concurrency * max_model_len)`` from
        it (``kv_cache_utils.py``: the old rule undercounts hybrid models), following
        ``engine_version``. The two agree for one group of full-attention layers. With
        decode context parallelism the tokens are multiplied by ``dcp`` (each rank's block
        holds ``1 / dcp`` of the tokens it stands for: ``_report_kv_cache_config``) and a
        request needs ``cdiv(cdiv(L, dcp), block)`` blocks (:func:`blocks_per_request`).
        These are one DP rank's figures, as each engine core logs them.
        """
        _, groups = kv_groups(layer_types_per_gpu(model, runtime))
        runtime = _hybrid_runtime(model, workload, runtime)
        block = runtime.block_size or DEFAULT_BLOCK_SIZE
        is_v0, release = parse_version(runtime.engine_version)
        # "Multiplying the GPU KV cache size by the dcp_world_size" (_report_kv_cache_config)
        dcp = runtime.decode_context_parallel_size
        tokens = blocks // max(1, sum(groups.values())) * block * dcp
        if is_v0:
            concurrency = Fraction(blocks * block, workload.context_tokens)
        else:
            per_request = blocks_per_request(model, workload, runtime, groups)
            concurrency = Fraction(blocks, per_request) if per_request else Fraction(0)
            if release >= KV_TOKENS_FROM_CONCURRENCY_SINCE:
                tokens = math.floor(concurrency * workload.context_tokens)
        return {"num_gpu_blocks": blocks, "kv_cache_tokens": tokens, "max_concurrency": concurrency}


def chunked_whole_note(runtime: Runtime) -> str:
    """Why vLLM keeps chunked layers whole here (:func:`chunked_spec_in_use` false), in words."""
    is_v0, release = parse_version(runtime.engine_version)
    if is_v0 or release < CHUNKED_SPEC_SINCE:
        why = "this release has no chunked KV spec (ChunkedLocalAttentionSpec from 0.10.0)"
    elif not runtime.sliding_window_exploited:
        why = "the hybrid KV cache manager is off"
    else:
        why = (
            "0.10.1-0.13 turn the hybrid KV cache manager off for chunked attention unless "
            "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 (vllm/config, vllm/envs.py)"
        )
    return f"chunked local-attention layers cache the whole context as full attention: {why}"
