"""The profile interface and the neutral formula profile."""

from __future__ import annotations

import math
from fractions import Fraction

from vramdesk.core.estimate import Breakdown, formula_estimate
from vramdesk.core.formats import WeightSpec
from vramdesk.core.model import ModelSpec
from vramdesk.core.runtime import Engine, OverheadForm, Runtime
from vramdesk.core.workload import Workload


class EngineProfile:
    """Interface of an engine profile.

    Subclasses set ``engine`` and override :meth:`estimate` and :meth:`reserved_bytes`.
    """

    engine: Engine = Engine.FORMULA

    def estimate(self, model: ModelSpec, weights: WeightSpec, workload: Workload,
                 runtime: Runtime) -> Breakdown:
        """Return the breakdown per GPU (inputs already validated)."""
        raise NotImplementedError

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


class FormulaProfile(EngineProfile):
    """The source documents' formulas (SPEC §3), the default profile.

    The solver reserves the fixed overhead (multiplier form, 1 GiB by default) or the
    workspace (workspace form, ``weights * fraction``); the multiplier's factor is not
    applied in reverse: ``gpu_memory_utilization`` plays its part, as in the source
    article's ``max_concurrent``.
    """

    engine = Engine.FORMULA

    def estimate(self, model: ModelSpec, weights: WeightSpec, workload: Workload,
                 runtime: Runtime) -> Breakdown:
        """Return :func:`vramdesk.core.estimate.formula_estimate`."""
        return formula_estimate(model, weights, workload, runtime)

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Fixed overhead (multiplier form) or the workspace (workspace form)."""
        if runtime.overhead is OverheadForm.WORKSPACE:
            return breakdown.overhead.bytes
        return runtime.fixed_overhead_bytes
