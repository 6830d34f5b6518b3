"""The neutral profile of the source documents: their formulas, no engine's mechanics.

:func:`formula_estimate` adds the engine-neutral terms (weights, KV cache, recurrent state,
activations, overhead); every engine profile builds on it.
"""

from __future__ import annotations

import math
from fractions import Fraction

from vramdesk.core.engines.base import BudgetCheck, EngineProfile, with_parts
from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_int
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.inputs import validate_inputs
from vramdesk.core.model.runtime import Engine, OverheadForm, Runtime
from vramdesk.core.model.spec import ModelSpec, count_params, total_params
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.activations import activation_bytes, activation_part
from vramdesk.core.terms.breakdown import Breakdown
from vramdesk.core.terms.kv_cache import (
    cached_tokens_at,
    kv_bytes_per_token,
    kv_cache_part,
    kv_cost_by_kind,
    kv_cost_per_kind,
)
from vramdesk.core.terms.overhead import overhead_part
from vramdesk.core.terms.state import state_bytes_per_sequence, state_layers, state_part
from vramdesk.core.terms.weights import weights_part

#: Bytes per recurrent-state element in the neutral profile: the 16-bit model dtype.
STATE_BYTES = Fraction(2)


def formula_estimate(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
) -> Breakdown:
    """The neutral profile of the source documents (inputs already validated)."""
    w = weights_part(model, weights, runtime)
    kv = kv_cache_part(model, workload, runtime)
    act = activation_part(model, workload, runtime)
    state = state_part(
        model,
        workload.batch,
        runtime,
        STATE_BYTES,
        STATE_BYTES,
        "conv and SSM state in the 16-bit model dtype (vLLM mamba_cache_dtype / "
        "mamba_ssm_cache_dtype auto)",
    )
    over = overhead_part(w, kv, act, runtime, state.bytes if state else 0)
    return Breakdown(
        weights=w,
        kv_cache=kv,
        activations=act,
        overhead=over,
        kv_bytes_per_token=kv_bytes_per_token(model, workload.kv_dtype, runtime),
        params=total_params(model),
        active_params=_active_params(model),
        gpus=runtime.world_size(),
        engine=runtime.engine,
        warnings=tuple(estimate_warnings(model, weights, workload)),
        state=state,
        kv_by_kind=tuple(kv_cost_by_kind(model, workload.kv_dtype, runtime)),
        live_tokens=workload.live_tokens,
    )


def _active_params(model: ModelSpec) -> int | None:
    if not model.is_moe:
        return None
    try:
        return count_params(model).active
    except InputError:  # shape incomplete (count_params names the field)
        return None


def estimate_warnings(model: ModelSpec, weights: WeightSpec, workload: Workload) -> list[str]:
    """Plain-language warnings that do not stop the estimate."""
    out = []
    limit = model.max_position_embeddings
    if limit and workload.context_tokens > limit:
        out.append(
            f"context_tokens {workload.context_tokens:,} exceeds max_position_embeddings "
            f"{limit:,}: computed anyway (rope scaling may allow it)"
        )
    if not weights.format.exact:
        out.append(
            f"{weights.format.label} is a mixed llama.cpp file type: weight bytes are approximate"
        )
    if workload.chunk_tokens is not None and workload.prompt_len is None:
        out.append("chunk_tokens has no effect without a prompt length (no prefill is modelled)")
    if weights.format is WeightFormat.FP32:
        out.append("fp32 weights: most engines load in 16 bits (set bf16 if you will)")
    return out


class FormulaProfile(EngineProfile):
    """The source documents' formulas (SPEC §3), the default profile.

    The solver reserves the fixed overhead (multiplier form, 1 GiB by default) or the
    workspace (workspace form, ``weights * fraction``); the multiplier's factor is not
    applied in reverse: ``gpu_memory_utilization`` plays its part, as in the source
    article's ``max_concurrent``.
    """

    engine = Engine.FORMULA

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Return :func:`vramdesk.core.engines.formula.formula_estimate` after :meth:`validate`.

        Engine profiles build on this (``super().estimate``), so their checks run here too.
        """
        self.validate(model, weights, workload, runtime)
        base = formula_estimate(model, weights, workload, runtime)
        warnings = self.version_warnings(runtime.engine_version)
        return with_parts(base, warnings=warnings) if warnings else base

    def need_at(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> int:
        """KV cache + recurrent state + activations, the integers of :meth:`estimate`.

        The neutral profile's need without building the breakdown's formula texts: the KV
        bytes from the memoised per-group costs and :func:`cached_tokens`, the state and
        the activations from the same functions the parts use. Subclasses (engines) that
        change the estimate take the general path. The inputs are validated as by
        :meth:`estimate`.
        """
        if type(self) is not FormulaProfile:
            return super().need_at(model, weights, workload, runtime)

        validate_inputs(model, weights, workload, runtime)
        return self._formula_need(
            model, weights, workload, runtime, workload.batch, workload.context_tokens
        )

    def need_at_point(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        batch: int,
        context: int,
    ) -> int:
        """:meth:`need_at` at ``batch`` x ``context`` without building that Workload.

        The point's inputs differ from the given ones only in the context and the batch: the
        given inputs are validated (memoised), then the two numbers. Any point where that
        would not be the same check (a prompt or shared prefix longer than the context, given
        inputs that are refused) takes the general path, which refuses it exactly as the
        estimate does.
        """
        general = (
            type(self) is not FormulaProfile
            or (workload.prompt_len or 0) > context
            or runtime.shared_prefix_tokens > context
        )
        if not general:
            try:
                validate_inputs(model, weights, workload, runtime)
            except InputError:
                general = True
        if general:
            return super().need_at_point(model, weights, workload, runtime, batch, context)
        check_int("context_tokens", context)
        check_int("batch", batch)
        return self._formula_need(model, weights, workload, runtime, batch, context)

    def budget_check_at(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        capacity_bytes: int,
    ) -> BudgetCheck:
        """:meth:`EngineProfile.budget_check_at` without building the breakdown.

        The neutral profile in the multiplier form: the need and the KV bytes as in
        :meth:`need_at`, the weights from the memoised weights part, and the usable memory
        ``floor(capacity * gpu_memory_utilization) - fixed_overhead - weights``, exactly
        :meth:`usable_bytes` (the multiplier form reserves the fixed overhead only). Engines
        and the workspace form (whose reserve is the overhead part) take the general path.
        """
        if type(self) is not FormulaProfile or runtime.overhead is OverheadForm.WORKSPACE:
            return super().budget_check_at(model, weights, workload, runtime, capacity_bytes)

        validate_inputs(model, weights, workload, runtime)
        batch, context = workload.batch, workload.context_tokens
        kv, rest = self._formula_terms(model, weights, workload, runtime, batch, context)
        w = weights_part(model, weights, runtime).bytes
        cap = math.floor(capacity_bytes * Fraction(runtime.gpu_memory_utilization))
        return BudgetCheck(kv + rest, cap - runtime.fixed_overhead_bytes - w, kv, w)

    def _formula_need(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        batch: int,
        context: int,
    ) -> int:
        """KV + state + activations of validated inputs at ``batch`` x ``context``."""
        kv, rest = self._formula_terms(model, weights, workload, runtime, batch, context)
        return kv + rest

    def _formula_terms(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        batch: int,
        context: int,
    ) -> tuple[int, int]:
        """``(KV bytes, state + activation bytes)`` of validated inputs at a point."""
        self.validate(model, weights, workload, runtime)
        weights_part(model, weights, runtime)  # memoised; refuses what the estimate refuses
        tokens = cached_tokens_at(model, runtime, context, batch)
        per_kind = kv_cost_per_kind(model, workload.kv_dtype, runtime)
        kv = sum(b * tokens[kind] for kind, b in per_kind)
        state = 0
        if state_layers(model, runtime):
            per_seq = state_bytes_per_sequence(model, runtime, STATE_BYTES, STATE_BYTES)
            state = per_seq * batch
        return kv, state + activation_bytes(model, workload, batch)

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Return the fixed overhead (multiplier form) or the workspace (workspace form)."""
        if runtime.overhead is OverheadForm.WORKSPACE:
            return breakdown.overhead.bytes
        return runtime.fixed_overhead_bytes
