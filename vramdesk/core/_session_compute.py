"""How a scenario session builds and computes a state: fields applied, typed values tried.

A :class:`State` is what a session edits; :func:`apply_field` sets one field of it from a
widget's raw value. :class:`Evaluator` is the compute half of
:class:`vramdesk.core.session.ScenarioSession`: it calls the same core functions the window
always called (``validate_inputs``, ``estimate``, ``solve``) and adds no arithmetic of its
own. It remembers the last state it computed, so a keystroke that changes nothing computes
nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import ModuleType
from typing import Any, NamedTuple

from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown, estimate, validate_inputs
from vramdesk.core.fields import (
    FIELD_PART,
    Target,
    capacity_bytes_of,
    convert_field,
    parse_int_text,
    parse_real_text,
)
from vramdesk.core.model.scenario import fixed_overhead_bytes
from vramdesk.core.model.spec import ModelSpec, sliding_layer_pattern
from vramdesk.core.model.workload import Workload
from vramdesk.core.present import views
from vramdesk.core.solve.result import SolveResult
from vramdesk.core.solve.solver import solve
from vramdesk.core.store import bundled

#: The input parts of a state, in the order the core's functions take them.
PARTS = ("model", "weights", "workload", "runtime")


def budget_module() -> ModuleType:
    """:mod:`vramdesk.core.local.budget` (and so NVML's module), imported on first use.

    A snapshot arrives only after the window's first paint (issue 11: nothing of NVML's is
    loaded before the window shows).
    """
    # on first use: NVML is loaded only when a GPU is queried
    from vramdesk.core.local import budget

    return budget


class State(NamedTuple):
    """What a session edits: the four input parts, the sliding-window layout, the target.

    ``parts`` maps ``"model"``, ``"weights"``, ``"workload"`` and ``"runtime"`` to the
    frozen inputs; ``pattern`` names a layout of :data:`views.LAYER_PATTERNS`.
    """

    parts: dict[str, Any]
    pattern: str
    target: Target


def apply_field(state: State, name: str, raw: Any, loaded: ModelSpec) -> State:
    """``state`` with field ``name`` set from the widget's raw value ``raw``.

    ``loaded`` is the model last loaded: ``params_source = "checkpoint"`` takes its
    parameter count back.

    Raises
    ------
    InputError
        The raw value cannot be read as the field's type (named by the field).
    """
    parts, pattern, target = dict(state.parts), state.pattern, state.target
    if name == "live_tokens":
        parts["workload"] = with_live_tokens(parts["workload"], raw)
    elif name == "sliding_pattern":
        pattern = str(raw).strip().lower()
    elif name == "params_source":
        parts["model"] = with_params_source(parts["model"], str(raw), loaded)
    elif name == "fixed_overhead_gib":
        fixed = fixed_overhead_bytes(parse_real_text(name, raw) if isinstance(raw, str) else raw)
        parts["runtime"] = dataclasses.replace(parts["runtime"], fixed_overhead_bytes=fixed)
    elif name == "target":
        target = target.with_key(str(raw))
    elif name == "custom_capacity":
        target = _with_custom_capacity(target, raw)
    else:
        part = FIELD_PART[name]
        parts[part] = dataclasses.replace(parts[part], **{name: convert_field(name, raw)})
    return State(parts, pattern, target)


def _with_custom_capacity(target: Target, raw: Any) -> Target:
    """``target`` as the custom capacity ``raw`` = (typed text or a number, unit label).

    Raises
    ------
    InputError
        ``custom_capacity``: empty, not a number, or outside its limits.
    """
    value, unit = raw
    if isinstance(value, str):
        value = parse_real_text("custom_capacity", value)
        if value is None:
            raise InputError("custom_capacity", "is required", "required")
    return dataclasses.replace(target, kind="custom", custom_bytes=capacity_bytes_of(value, unit))


def with_live_tokens(workload: Workload, raw: Any) -> Workload:
    """``workload`` with the concurrency that gives ``raw`` live tokens at its context.

    Raises
    ------
    InputError
        ``live_tokens``: empty, not a whole number, or a concurrency outside its limits.
    """
    live = parse_int_text("live_tokens", raw) if isinstance(raw, str) else raw
    if live is None:
        raise InputError("live_tokens", "is required", "required")
    return dataclasses.replace(
        workload, batch=views.batch_for_live_tokens(live, workload.context_tokens)
    )


def with_params_source(model: ModelSpec, source: str, loaded: ModelSpec) -> ModelSpec:
    """``model`` with its parameter count from the checkpoint or from the shape.

    From the shape, the pinned count and the checkpoint's byte size are dropped, so that
    layer, width and vocabulary edits move the weights; from the checkpoint, the count and
    bytes of ``loaded`` (the model last loaded) come back.

    Raises
    ------
    InputError
        ``params_source``: the checkpoint is asked for and ``loaded`` pins no count.
    """
    if source == "shape":
        return model.replace(params=None, checkpoint_bytes=None)
    if loaded.params is None:
        raise InputError(
            "params_source", "the model loaded has no checkpoint parameter count", "invalid"
        )
    return model.replace(params=loaded.params, checkpoint_bytes=loaded.checkpoint_bytes)


def effective_model(model: ModelSpec, pattern: str) -> ModelSpec:
    """``model`` with the named sliding-window layout ``pattern`` expanded."""
    if pattern == "custom":
        return model
    if pattern == "none" and not model.sliding_window and not model.attention_chunk_size:
        return model.replace(layer_types=None)  # (with a chunk, None would read as all chunked)
    return model.replace(layer_types=sliding_layer_pattern(model.num_hidden_layers, pattern))


class Results(NamedTuple):
    """What one state computes to.

    ``inputs`` are (model with its layer pattern applied, weights, workload, runtime);
    ``solve`` is None when the target has no capacity, or when the solve is left to the
    caller (:attr:`Evaluator.defer_solve`): ``capacity`` is then the bytes to solve on.
    """

    inputs: tuple
    breakdown: Breakdown
    solve: SolveResult | None
    capacity: int | None = None


class Accepted(NamedTuple):
    """The typed values a state takes: see :meth:`Evaluator.accept_typed`."""

    state: State
    results: Results | None
    refused: dict[str, InputError]
    error: InputError | None


class Evaluator:
    """Computes session states against the latest local-GPU snapshot, remembering the last."""

    def __init__(self, defer_solve: bool = False) -> None:
        #: The last NVML snapshot (None when none was read).
        self.snapshot: Any = None
        #: Leave the solve to the caller (the window runs it off its GUI thread): results
        #: then carry the capacity to solve on instead of the solve.
        self.defer_solve = defer_solve
        self._memo: tuple | None = None  # (state, snapshot, results) of the last evaluation

    def accept_typed(
        self, committed: State, typed: Mapping[str, Any], loaded: ModelSpec
    ) -> Accepted:
        """The committed state with the acceptable typed values applied, and those refused.

        ``results`` is None when even the committed state is refused. First all typed
        values are tried together (one may make another valid: heads 30 with KV heads 6);
        else each in turn, oldest first, keeping those that leave the inputs valid.
        ``loaded`` is the model last loaded (see :func:`apply_field`).
        """
        try:
            state = committed
            for name, raw in typed.items():
                state = apply_field(state, name, raw, loaded)
            return Accepted(state, self.evaluate(state), {}, None)
        except InputError:
            pass
        try:
            results = self.evaluate(committed)
        except InputError as exc:
            return Accepted(committed, None, {}, exc)
        state, refused, first = committed, {}, None
        for name, raw in typed.items():
            try:
                candidate = apply_field(state, name, raw, loaded)
                candidate_results = self.evaluate(candidate)
            except InputError as exc:
                refused[name] = exc
                first = first or exc
                continue
            state, results = candidate, candidate_results
        return Accepted(state, results, refused, first)

    def evaluate(self, state: State) -> Results:
        """The inputs, breakdown and solve result of ``state``.

        Raises
        ------
        InputError
            The core refuses the inputs (named by the field).
        """
        memo = self._memo
        if memo is not None and memo[0] == state and memo[1] is self.snapshot:
            return memo[2]  # a keystroke that changes nothing computes nothing
        model = effective_model(state.parts["model"], state.pattern)
        inputs = (model, *(state.parts[part] for part in PARTS[1:]))
        validate_inputs(*inputs)  # input errors first, before a local-GPU lookup can fail
        capacity = self.capacity_bytes(state)
        if capacity and self.defer_solve:
            results = Results(inputs, estimate(*inputs), None, capacity)
        else:
            result = solve(*inputs, capacity) if capacity else None
            breakdown = result.breakdown if result else estimate(*inputs)  # solve estimated
            results = Results(inputs, breakdown, result)
        self._memo = (state, self.snapshot, results)
        return results

    def capacity_bytes(self, state: State) -> int | None:
        """Capacity of the target of ``state`` in bytes, exact int (None: no snapshot).

        A catalog GPU gives the budget of the engine of ``state`` (vLLM and SGLang start
        from CUDA's total where the catalog knows it); a custom target its bytes; a local
        GPU what the snapshot reports.

        Raises
        ------
        InputError
            ``gpu``: the local GPU index is not in the snapshot.
        """
        parts, _pattern, t = state
        if t.kind == "gpu":
            return bundled.find_gpu(t.name).capacity_for(parts["runtime"].engine)
        if t.kind == "custom":
            return t.custom_bytes
        if self.snapshot is None:
            return None
        return budget_module().local_per_gpu_bytes(self.snapshot, (t.local_index,), t.which)  # type: ignore[arg-type]

    def local_free_bytes(self, target: Any) -> int | None:
        """Free bytes of the local GPU ``target`` selects (else GPU 0), or None.

        None when there is no snapshot, it holds no GPU, or the index is not in it.
        """
        snapshot = self.snapshot
        if snapshot is None or not snapshot.gpus:
            return None
        index = target.local_index if target.kind == "local" else snapshot.gpus[0].index
        try:
            return budget_module().local_budget_bytes(snapshot, (index,), "free")
        except InputError:
            return None
