"""The engine profile interface: what every engine answers, and the parts they share."""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction
from typing import NamedTuple

from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import KVDtype, WeightSpec
from vramdesk.core.model.inputs import validate_inputs
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import CHUNKED, ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part

#: KV cache types of the paged engines: vLLM ``kv_cache_dtype`` ``auto`` (the model's 16- or
#: 32-bit dtype), ``bfloat16``, ``fp8``, ``fp8_e4m3``, ``fp8_e5m2`` (``vllm/config/cache.py``
#: ``CacheDType``, 0.6-0.11; 0.6.4 has auto and the fp8 types), SGLang ``auto``, ``fp8_e4m3``,
#: ``fp8_e5m2`` (``server_args.py``). Neither has int8 or the llama.cpp block types.
PAGED_KV_DTYPES = (KVDtype.FP16, KVDtype.BF16, KVDtype.FP32, KVDtype.FP8)


def check_kv_dtype(
    engine_name: str,
    kv_dtype: KVDtype,
    allowed: tuple[KVDtype, ...] = PAGED_KV_DTYPES,
    field: str = "kv_dtype",
) -> None:
    """Refuse a KV cache type the engine cannot store.

    Raises
    ------
    InputError
        ``field`` (``kv_dtype``, or llama.cpp's ``cache_type_k``/``cache_type_v``): e.g.
        "vLLM has no q4_0 KV cache; use fp16, bf16, fp32 or fp8".
    """
    if kv_dtype in allowed:
        return
    ggml = kv_dtype.bytes_per_element.denominator > 1  # q8_0, q4_0, ...: ggml block types
    engine_ggml = any(d.bytes_per_element.denominator > 1 for d in allowed)
    hint = (
        " (a llama.cpp cache type: use --engine llama.cpp or ollama)"
        if ggml and not engine_ggml
        else ""
    )
    labels = [d.label for d in allowed]
    raise InputError(
        field,
        f"{engine_name} has no {kv_dtype.label} KV cache; use "
        f"{', '.join(labels[:-1])} or {labels[-1]}{hint}",
        "unsupported",
        {"allowed": labels},
    )


class BudgetCheck(NamedTuple):
    """Need, usable memory, KV-cache bytes and weights bytes per GPU (see ``budget_check_at``)."""

    need: int
    usable: int
    kv: int
    weights: int


class EngineProfile:
    """Interface of an engine profile.

    Subclasses set ``engine`` and override :meth:`estimate` and :meth:`reserved_bytes`.

    ``shards_heads`` is False for engines without tensor parallelism (llama.cpp, Ollama).

    ``budgets_from_cuda_total`` is True for engines whose KV budget is a fraction of the
    total CUDA reports (``torch.cuda.mem_get_info``), which is 0.3-2 % below nvidia-smi's
    ``memory.total``: a catalog GPU then gives them its ``cuda_total_mib``
    (:meth:`vramdesk.core.store.bundled.GpuSpec.capacity_for`).
    """

    engine: Engine = Engine.FORMULA
    budgets_from_cuda_total: bool = False
    #: Whether the engine sizes its pool from the free memory it finds at start-up (SGLang's
    #: ``pre_model_load_memory``), so that ``--gpu local`` budgets the least free GPU.
    budgets_from_free_memory: bool = False
    #: Whether ``tensor_parallel_size`` shards heads (the solver's "add GPUs" lever); False
    #: for llama.cpp and Ollama, which split whole layers across GPUs.
    shards_heads: bool = True
    #: The smallest KV cache type the engine stores, the solver's "smaller KV cache" lever.
    compact_kv_dtype: KVDtype = KVDtype.FP8
    #: Whether :meth:`kv_capacity`'s concurrency is what the engine itself logs (vLLM's
    #: "Maximum concurrency"); otherwise the solver's own fractional answer is shown.
    logs_concurrency: bool = False

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Return the breakdown per GPU (inputs already validated)."""
        raise NotImplementedError

    def validate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> None:
        """Refuse inputs this engine cannot run; called by every profile's :meth:`estimate`.

        Raises
        ------
        InputError
            ``engine_version``: see :meth:`check_engine_version`.
        """
        self.check_engine_version(runtime.engine_version)

    def check_engine_version(self, version: str | None) -> None:
        """Refuse a version the profile cannot read (profiles whose accounting depends on it).

        The base profile's accounting does not depend on the version, so it accepts any
        text; :meth:`version_warnings` notes one that is not a release number.
        """

    def version_warnings(self, version: str | None) -> tuple[str, ...]:
        """Return a warning when ``version`` has no digit at all (it cannot name a release)."""
        if not version or not version.strip() or re.search(r"\d", version):
            return ()
        return (
            f"engine_version {version[:40]!r} is not a release number; the "
            f"{self.engine.value} accounting does not depend on it",
        )

    def usable_bytes(self, breakdown: Breakdown, capacity_bytes: int, runtime: Runtime) -> int:
        """Bytes per GPU left for KV cache and activations on a GPU of ``capacity_bytes``.

        Formula profile: ``floor(capacity * gpu_memory_utilization) - reserved - weights``
        (SPEC §4), ``reserved`` from :meth:`reserved_bytes`.
        """
        cap = math.floor(capacity_bytes * Fraction(runtime.gpu_memory_utilization))
        return cap - self.reserved_bytes(breakdown, runtime) - breakdown.weights.bytes

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Overhead the solver sets aside besides weights, KV and activations."""
        raise NotImplementedError

    def need_at(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> int:
        """:meth:`need_bytes` of the estimate of these inputs (the solver's every verdict).

        Profiles whose need has a shorter exact path than a whole estimate override it.

        Raises
        ------
        InputError
            The inputs are refused, as by :meth:`estimate`.
        """
        validate_inputs(model, weights, workload, runtime)  # as estimate() does first
        return self.need_bytes(self.estimate(model, weights, workload, runtime))

    def need_at_point(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        batch: int,
        context: int,
    ) -> int:
        """:meth:`need_at` of the inputs :meth:`at_point` gives for ``batch`` x ``context``."""
        wl, rt = self.at_point(workload, runtime, batch, context)
        return self.need_at(model, weights, wl, rt)

    def budget_check_at(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        capacity_bytes: int,
    ) -> BudgetCheck:
        """The integers a verdict reads, for the estimate of these inputs on one GPU.

        ``need`` is :meth:`need_bytes`, ``usable`` :meth:`usable_bytes` on a GPU of
        ``capacity_bytes``, ``kv`` and ``weights`` the KV-cache and weights parts' bytes,
        all of :func:`~vramdesk.core.estimate.estimate` of the inputs. This general path
        builds that estimate; profiles with a shorter exact path override it (the solver's
        fit advisor asks for several such verdicts per solve).

        Raises
        ------
        InputError
            The inputs are refused, as by :meth:`estimate`.
        """
        validate_inputs(model, weights, workload, runtime)  # as estimate() does first
        b = self.estimate(model, weights, workload, runtime)
        return BudgetCheck(
            self.need_bytes(b),
            self.usable_bytes(b, capacity_bytes, runtime),
            b.kv_cache.bytes,
            b.weights.bytes,
        )

    def need_bytes(self, breakdown: Breakdown) -> int:
        """Bytes per GPU that must fit in :meth:`usable_bytes`: what grows with the traffic.

        KV cache (per token), recurrent state (per sequence, never per token) and activations.
        The solver's every verdict compares this with the usable memory; engines whose
        activations live outside the budget (SGLang's static pool) override it.
        """
        return breakdown.kv_cache.bytes + breakdown.state_bytes + breakdown.activations.bytes

    def at_point(
        self, workload: Workload, runtime: Runtime, batch: int, context: int
    ) -> tuple[Workload, Runtime]:
        """The inputs for ``batch`` concurrent sequences of ``context`` tokens each.

        The solver varies these two; engines whose concurrency is a runtime knob
        (llama.cpp's ``-np`` slots) move that knob with the batch.
        """
        return workload.replace(batch=batch, context_tokens=context), runtime

    def solve_notes(self, model: ModelSpec, runtime: Runtime) -> tuple[str, ...]:
        """Notes the solver shows for this engine and model (how its figures are counted)."""
        if model.sliding_window:
            return (
                "sliding-window layers: KV cache size in tokens counts every layer at full "
                "context; max concurrency and max context are solved exactly",
            )
        if CHUNKED in model.resolved_layer_types():
            return (
                "chunked local-attention layers: KV cache size in tokens counts every layer at "
                "full context; max concurrency and max context are solved exactly",
            )
        return ()

    def context_breaks(self, workload: Workload, runtime: Runtime) -> tuple[int, ...]:
        """Context lengths after which the need may drop (the engine changes a setting).

        Between two breaks the need grows with context; the solver searches each segment.
        None by default; vLLM V0 turns chunked prefill on above 32K tokens.
        """
        return ()

    def kv_capacity(
        self,
        breakdown: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        kv_budget_bytes: int,
    ) -> tuple[int, int | None, Fraction]:
        """What the engine would log for a KV budget: ``(tokens, blocks, concurrency)``.

        Default: whole ``block_size`` blocks of ``kv_bytes_per_token`` bytes (every layer at
        full context), and concurrency ``tokens / context_tokens``. Engines with their own
        allocator (vLLM's hybrid sliding-window groups) override it.
        """
        block = runtime.block_size
        unit = breakdown.kv_bytes_per_token * (block or 1)
        blocks = max(0, kv_budget_bytes // unit) if unit else 0
        tokens = blocks * (block or 1)
        return tokens, (blocks if block else None), Fraction(tokens, workload.context_tokens)

    def figures(
        self,
        model: ModelSpec,
        weights: WeightSpec,
        workload: Workload,
        runtime: Runtime,
        *,
        gpu_total_bytes: int | None = None,
        counts: dict[str, int] | None = None,
    ) -> dict[str, int | Fraction]:
        """Predict the figures the engine prints at start-up (inputs already validated).

        The one recipe of every profile: :meth:`estimate`, then the figures read off the
        breakdown (:meth:`breakdown_figures`), then those that follow from a KV budget
        (:meth:`capacity_figures`), which may overwrite a breakdown figure.

        Parameters
        ----------
        gpu_total_bytes : int, optional
            The total the engine sees on one GPU (bytes); needed for budget-derived figures.
        counts : dict, optional
            Measured counts to build on (``kv_cache_tokens``, ``num_gpu_blocks``).

        Returns
        -------
        dict
            Field name (ENGINE-CASES.md names: ``weights_bytes``, ``kv_cache_bytes``, ...) to
            bytes (int), counts (int) or factors (Fraction). Figures that cannot be predicted
            from the inputs are absent.
        """
        b = self.estimate(model, weights, workload, runtime)
        out = self.breakdown_figures(b, model, workload, runtime)
        out.update(
            self.capacity_figures(b, model, workload, runtime, counts or {}, gpu_total_bytes)
        )
        return out

    def breakdown_figures(
        self, b: Breakdown, model: ModelSpec, workload: Workload, runtime: Runtime
    ) -> dict[str, int | Fraction]:
        """Figures read off the breakdown: the four parts' bytes, the total, the extras."""
        return {
            "weights_bytes": b.weights.bytes,
            "kv_cache_bytes": b.kv_cache.bytes,
            "activation_peak_bytes": b.activations.bytes,
            "peak_bytes": b.total_bytes,
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
        """Figures that follow from a KV budget (given ``kv_cache_bytes``): :meth:`kv_capacity`.

        ``gpu_total_bytes`` is not used by the neutral profile (it predicts no budget).
        """
        given = counts.get("kv_cache_bytes")
        if given is None:
            return {}
        tokens, blocks, concurrency = self.kv_capacity(b, model, workload, runtime, given)
        out: dict[str, int | Fraction] = {"kv_cache_tokens": tokens, "max_concurrency": concurrency}
        if blocks is not None:
            out["num_gpu_blocks"] = blocks
        return out


def with_parts(
    base: Breakdown,
    *,
    weights: Part | None = None,
    kv_cache: Part | None = None,
    activations: Part | None = None,
    overhead: Part | None = None,
    extras: dict[str, int] | None = None,
    warnings: tuple[str, ...] = (),
) -> Breakdown:
    """Return ``base`` with some parts replaced, ``extras`` merged, ``warnings`` appended."""
    return dataclasses.replace(
        base,
        weights=weights or base.weights,
        kv_cache=kv_cache or base.kv_cache,
        activations=activations or base.activations,
        overhead=overhead or base.overhead,
        extras={**base.extras, **(extras or {})},
        warnings=base.warnings + tuple(warnings),
    )


def measured_part(key: str, label: str, value: int, source: str) -> Part:
    """Build a part from a measurement (a start-up log) instead of a formula."""
    return Part(
        key,
        label,
        value,
        f"measured ({source})",
        f"{value:,} bytes as printed",
        ("measured figure: it replaces vramdesk's model of this term",),
    )
