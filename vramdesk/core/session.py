"""The scenario being edited: committed, typed and last valid inputs, and their events (Qt-free).

:class:`ScenarioSession` holds two layers: the *committed* state (the four input parts, the
sliding-window layout, the target) and the raw values *typed* into fields but not committed
(field -> raw). What is shown is the committed state with every typed value applied that the
core accepts, computed at once. A refused value never reaches the estimate: its field keeps
the value it held before the edit began, the last valid inputs and :class:`Breakdown` stay,
and :attr:`~ScenarioSession.refused` names the field with the core's :class:`InputError`.
Loading a preset, or :meth:`~ScenarioSession.update` with several fields, computes once.
Events are psygnal signals; the window's controller re-emits them as Qt signals.

Longer than 400 lines: one state machine and its event API; its computing helpers are
already in ``_session_compute.py``, and splitting the API would hide the order its events
fire in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from psygnal import Signal

from vramdesk.core._session_compute import (
    PARTS,
    Evaluator,
    Results,
    State,
    budget_module,
    effective_model,
)
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown
from vramdesk.core.fields import FIELD_PART, Target
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.present import views
from vramdesk.core.solve.result import SolveResult
from vramdesk.core.solve.verdict import fit_state
from vramdesk.core.store import bundled
from vramdesk.core.store.applied import AppliedPreset
from vramdesk.core.store.serialize import TYPES, scenario_to_dict
from vramdesk.core.units import Unit

if TYPE_CHECKING:
    from vramdesk.core.local import budget

__all__ = ["DEFAULT_MODEL_SLUGS", "ScenarioSession", "State", "Target"]

#: The first-start model: the first of these that is bundled.
DEFAULT_MODEL_SLUGS = ("llama-3.1-8b", "7b-class")


class ScenarioSession:
    """Committed, typed and last-valid inputs, and the core results computed from them."""

    #: New inputs were computed (:attr:`model`, :attr:`workload`, ... changed).
    inputs_changed = Signal()
    #: The breakdown of the new inputs.
    breakdown_changed = Signal(Breakdown)
    #: The reverse solve on the target (None when the target has no capacity).
    solve_changed = Signal(object)
    #: A typed value (or a loaded input) was refused: the field and the core's error.
    field_invalid = Signal(str, InputError)
    #: Every typed value was accepted and computed.
    fields_valid = Signal()
    #: The set of refused typed fields may have changed (see :attr:`refused`).
    marks_changed = Signal()
    #: The notes of the loaded model changed (see :attr:`model_notes`).
    notes_changed = Signal()
    #: The display unit changed.
    unit_changed = Signal(Unit)
    #: A new local-GPU snapshot arrived (see :meth:`set_local_snapshot`).
    local_changed = Signal()
    #: With ``defer_solve``: new inputs need a solve, ``(inputs, capacity)``; run
    #: :func:`~vramdesk.core.solve.solver.solve` on them and hand the result to
    #: :meth:`ScenarioSession.deliver_solve` with the same job object.
    solve_requested = Signal(object)

    def __init__(self, defer_solve: bool = False) -> None:
        """Start from the default model.

        Parameters
        ----------
        defer_solve : bool
            Do not solve here: emit :attr:`solve_requested` and wait for
            :meth:`deliver_solve` (the window solves off its GUI thread). The breakdown is
            computed and published at once either way.
        """
        preset = self.default_model_preset()
        workload = Workload(context_tokens=8192, batch=8)
        parts = {"model": preset.model, "weights": preset.weights, "workload": workload}
        parts["runtime"] = Runtime()
        self._draft = State(parts, views.describe_layer_pattern(preset.model), Target())
        self._valid: dict[str, Any] = dict(self._draft.parts)
        self._breakdown: Breakdown | None = None
        self._solve: SolveResult | None = None
        self._unit = Unit.GIB
        self._evaluator = Evaluator(defer_solve)
        self._pending: tuple | None = None  # the solve job awaited (defer_solve)
        self._problem: InputError | None = None
        #: Name of the loaded preset (or model), shown in titles and saved with the session.
        self.preset_name = preset.name
        #: Where the loaded model came from, for the preset picker.
        self.model_origin = preset.name
        #: What the import of the loaded model assumed (fp32 storage, defaults filled in, ...).
        self.model_notes: tuple[str, ...] = ()
        self._loaded_model = (preset.model, preset.weights)
        #: How many times new inputs were computed and published (one per event burst).
        self.compute_count = 0
        self._typed: dict[str, Any] = {}
        self._refused: dict[str, InputError] = {}
        self._live: State | None = None
        self._published: Results | None = None
        self._refresh()

    # ----------------------------------------------------------- lookups
    @staticmethod
    def model_presets() -> tuple[bundled.ModelPreset, ...]:
        """Bundled model presets (read-only)."""
        return bundled.bundled_models()

    @staticmethod
    def gpu_catalog() -> tuple[bundled.GpuSpec, ...]:
        """The bundled GPU catalog."""
        return bundled.gpu_catalog()

    @staticmethod
    def default_model_preset() -> bundled.ModelPreset:
        """The first-start model: ``llama-3.1-8b`` when bundled, else the 7B-class shape.

        Only that preset is parsed (issue 11: not the 42 bundled ones, at start-up).
        """
        slugs = [slug for slug, _name, _source in bundled.bundled_model_index()]
        for slug in DEFAULT_MODEL_SLUGS:
            if slug in slugs:
                return bundled.bundled_model(slug)
        return bundled.bundled_model(slugs[0])

    # ------------------------------------------------------------ state
    @property
    def model(self) -> ModelSpec:
        """The last valid model (layer pattern applied)."""
        return self._valid["model"]

    @property
    def weights(self) -> WeightSpec:
        """The last valid weight format."""
        return self._valid["weights"]

    @property
    def workload(self) -> Workload:
        """The last valid workload."""
        return self._valid["workload"]

    @property
    def runtime(self) -> Runtime:
        """The last valid runtime."""
        return self._valid["runtime"]

    @property
    def breakdown(self) -> Breakdown | None:
        """The breakdown of the last valid inputs."""
        return self._breakdown

    @property
    def solve_result(self) -> SolveResult | None:
        """The reverse solve on the target (None when the target has no capacity)."""
        return self._solve

    @property
    def unit(self) -> Unit:
        """The display unit (GiB or GB)."""
        return self._unit

    @property
    def target(self) -> Target:
        """The target GPU choice (typed values the core accepted included)."""
        return self._shown_state().target

    @property
    def layer_pattern(self) -> str:
        """The draft sliding-window layout name (see :data:`views.LAYER_PATTERNS`)."""
        return self._shown_state().pattern

    @property
    def problem(self) -> InputError | None:
        """The error of the current draft, None when the draft is valid."""
        return self._problem

    @property
    def refused(self) -> dict[str, InputError]:
        """Typed fields whose values the core refused -> the error (figures ignore them)."""
        return dict(self._refused)

    def draft(self, part: str) -> Any:
        """The shown ``model``, ``weights``, ``workload`` or ``runtime``.

        The committed inputs with every accepted typed value applied (refused values are
        not in it: :meth:`typed_text` gives those).
        """
        return self._shown_state().parts[part]

    def value(self, name: str) -> Any:
        """The shown value of input field ``name`` (see :meth:`draft`)."""
        return getattr(self.draft(FIELD_PART[name]), name)

    def typed_text(self, name: str) -> Any:
        """The raw value typed into ``name`` that is refused (None when none is)."""
        return self._typed.get(name) if name in self._refused else None

    def params_source(self) -> str:
        """Where the parameter count comes from: ``"checkpoint"`` or ``"shape"``.

        ``"checkpoint"`` when it is pinned (a preset's, an import's or a typed one),
        ``"shape"`` when it is computed from the architecture fields.
        """
        return "shape" if self.draft("model").params is None else "checkpoint"

    def checkpoint_params(self) -> int | None:
        """The parameter count of the model last loaded (None: it had none pinned)."""
        return self._loaded_model[0].params

    def model_edited(self) -> bool:
        """Whether the draft model's own fields differ from the model last loaded.

        Only the model is compared (its architecture: layers, widths, heads, experts,
        sliding window and layout, the parameter count): the weight format, the KV dtype,
        the engine and the workload are not the model, and editing them keeps its name.
        """
        loaded = self._loaded_model[0]
        shown = effective_model(self.draft("model"), self.layer_pattern)
        return shown != effective_model(loaded, views.describe_layer_pattern(loaded))

    def scenario_dict(self) -> dict[str, Any]:
        """The last valid inputs as a JSON-ready dict (non-default fields only)."""
        return scenario_to_dict(self.model, self.weights, self.workload, self.runtime)

    # ----------------------------------------------------------- editing
    def set_field(self, name: str, raw: Any, *, commit: bool = True) -> bool:
        """Set one field from a widget's raw value (typed text included), then compute.

        Parameters
        ----------
        name
            The field: a config.json name of an input part, or one of ``live_tokens``,
            ``sliding_pattern``, ``params_source``, ``fixed_overhead_gib``, ``target``,
            ``custom_capacity`` (a pair: value, unit label).
        raw
            What the widget holds: typed text, a number, an enum member, a picker key.
        commit
            False while the user is still typing in the field: a refused text then falls
            back to the value the field held before the edit began.

        Returns
        -------
        bool
            True when every typed value was accepted and the results were recomputed.
        """
        return self.update({name: raw}, commit=commit)

    def update(self, values: Mapping[str, Any], *, commit: bool = True) -> bool:
        """Set several fields from raw values, then compute once (as :meth:`set_field`).

        The events fire once for the whole update (napari's ``EventedModel.update``).
        Returns True when every typed value was accepted and the results recomputed.
        """
        for name, raw in values.items():
            self._typed.pop(name, None)
            self._typed[name] = raw  # re-inserted last: the newest edit is tried last
        ok = self._refresh()
        if commit:
            self.commit()
        return ok

    def commit(self, _name: str | None = None) -> None:
        """Make every accepted typed value the committed one (a field finished editing).

        Refused values stay typed (and marked) until they are valid or replaced.
        """
        if self._live is None:
            return
        self._draft = State(dict(self._live.parts), self._live.pattern, self._live.target)
        self._typed = {k: v for k, v in self._typed.items() if k in self._refused}

    def set_unit(self, unit: Unit) -> None:
        """Switch the display unit; emits ``unit_changed``."""
        if unit is not self._unit:
            self._unit = unit
            self.unit_changed.emit(unit)

    def load(
        self,
        *,
        model: ModelSpec | None = None,
        weights: WeightSpec | None = None,
        workload: Workload | None = None,
        runtime: Runtime | None = None,
        name: str | None = None,
        origin: str | None = None,
        notes: tuple[str, ...] | list[str] = (),
        target: Target | None = None,
    ) -> bool:
        """Replace whole inputs at once (a preset, an import), then compute once.

        ``origin`` says where a loaded model came from, for the preset picker
        (``"Imported: NAME"``, ``"NAME (saved)"``); it defaults to the name. ``notes``
        are what an import assumed; they are kept (:attr:`model_notes`) for as long as
        that model is loaded. ``target`` replaces the target GPU in the same computation (a
        restored session's); it is kept even when the inputs loaded are refused.
        Returns True when the inputs loaded were accepted and computed.
        """
        given = {"model": model, "weights": weights, "workload": workload, "runtime": runtime}
        self.commit()
        self._typed.clear()
        parts = dict(self._draft.parts)
        parts.update({part: value for part, value in given.items() if value is not None})
        pattern = self._draft.pattern if model is None else views.describe_layer_pattern(model)
        self._draft = State(parts, pattern, self._draft.target if target is None else target)
        if model is not None:
            self.preset_name = name or model.name
            self.model_origin = origin or self.preset_name
            self._loaded_model = (parts["model"], parts["weights"])
            self.model_notes = tuple(notes)
            self.notes_changed.emit()
        return self._refresh()

    def load_model_preset(self, preset: bundled.ModelPreset) -> bool:
        """Load a model preset's model and weight format; compute once."""
        return self.load(model=preset.model, weights=preset.weights, name=preset.name)

    def load_preset(self, preset: AppliedPreset, origin: str | None = None) -> bool:
        """Apply a user preset: every part it holds and its target GPU; compute once.

        The one way a saved preset reaches the window, picked in the Model picker or loaded
        with "Load" (:mod:`vramdesk.core.store.applied`): a scenario sets its model, weights,
        workload, runtime and target; a part or target it lacks stays as it is (a scenario
        saved before targets were kept leaves the target chosen), and so does a catalog GPU
        name the catalog no longer has. ``origin`` as in :meth:`load`.
        """
        target = preset.target
        if target is not None and target.kind == "gpu":
            try:
                bundled.find_gpu(target.name)
            except InputError:
                target = None  # renamed or dropped from the catalog: the inputs still load
        return self.load(**preset.parts, name=preset.name, origin=origin, target=target)

    def load_scenario(
        self,
        parts: dict[str, Any],
        name: str | None = None,
        origin: str | None = None,
        target: Target | None = None,
    ) -> bool:
        """Load the parts a scenario preset holds (``model``, ``weights``, ...); compute once.

        ``target``: as in :meth:`load`.
        """
        known = {k: v for k, v in parts.items() if k in TYPES}
        return self.load(**known, name=name, origin=origin, target=target)

    # ----------------------------------------------------------- compute
    def _shown_state(self) -> State:
        return self._live or self._draft

    def _refresh(self) -> bool:
        """Apply the typed values the core accepts over the committed state and compute.

        Returns True when nothing typed is refused and the inputs were computed.
        """
        state, results, refused, error = self._evaluator.accept_typed(
            self._draft, self._typed, self._loaded_model[0]
        )
        self._refused = refused
        if results is not None:
            self._live = state
            if results is not self._published:
                self._publish(results)
        else:  # even the committed inputs are refused (e.g. a loaded preset): keep the last
            self._live = None
        self._problem = error
        self.marks_changed.emit()
        if error is not None:
            self.field_invalid.emit(error.field, error)
            return False
        self.fields_valid.emit()
        return True

    def capacity_bytes(self, state: State | None = None) -> int | None:
        """Capacity of the target GPU in bytes, exact int (None: local GPU, no snapshot).

        ``state`` defaults to the inputs shown.

        Raises
        ------
        InputError
            ``gpu``: the local GPU index is not in the snapshot.
        """
        return self._evaluator.capacity_bytes(state or self._shown_state())

    def export_target(self) -> tuple[str, int | None]:
        """The target as an export carries it: ``(name, budget bytes per GPU or None)``.

        The name is :meth:`~vramdesk.core.model.target.Target.shown_name`; the bytes
        :meth:`shown_capacity_bytes` (a catalog GPU's for the engine in force).
        """
        return self.target.shown_name(), self.shown_capacity_bytes()

    def shown_capacity_bytes(self) -> int | None:
        """:meth:`capacity_bytes` of the inputs shown, None when the target has none now.

        For what is drawn and compared: a local GPU that left the snapshot (unplugged, or a
        failed query) has no capacity to draw, where :meth:`capacity_bytes` raises.
        """
        try:
            return self.capacity_bytes()
        except InputError:
            return None

    def _publish(self, results: Results) -> None:
        self._published = results
        inputs, breakdown, result, capacity = results
        self.compute_count += 1
        self._valid = dict(zip(PARTS, inputs, strict=True))
        self._breakdown = breakdown
        self.inputs_changed.emit()
        self.breakdown_changed.emit(breakdown)
        if capacity is not None:  # deferred: the last solve stays shown until this one comes
            self._pending = (inputs, capacity)
            self.solve_requested.emit(self._pending)
            return
        self._pending, self._solve = None, result
        self.solve_changed.emit(result)

    @property
    def solve_pending(self) -> bool:
        """Whether a requested solve has not been delivered yet (``defer_solve``)."""
        return self._pending is not None

    @property
    def pending_job(self) -> tuple | None:
        """The solve job awaited (the latest :attr:`solve_requested`), or None."""
        return self._pending

    def deliver_solve(self, job: tuple, result: SolveResult | None) -> bool:
        """Take the result of a :attr:`solve_requested` job; emits ``solve_changed``.

        A job that is no longer the latest (the inputs changed since) is dropped.
        Returns True when the result was taken.
        """
        if job is not self._pending:
            return False
        self._pending, self._solve = None, result
        self.solve_changed.emit(result)
        return True

    # ------------------------------------------------------- derived views
    def derived(self) -> views.Derived | None:
        """Derived model values of the last valid inputs (head_dim, GQA ratio, params, ...)."""
        if self._breakdown is None:
            return None
        return views.derived_values(self.model, self._breakdown, self.workload)

    def fits_rows(self) -> list[views.FitRow]:
        """The current breakdown on every catalog GPU."""
        if self._breakdown is None:
            return []
        return views.catalog_fits(self._breakdown, self.runtime)

    def speed(self) -> Any:
        """Speed of the breakdown on the target (:func:`vramdesk.core.speed.speed_on`).

        None without a breakdown or when the target is not a catalog GPU.
        """
        if self._breakdown is None or self.target.kind != "gpu":
            return None
        # on first use: the speed block loads only when the window shows it
        from vramdesk.core.speed import speed

        gpu = bundled.find_gpu(self.target.name)
        return speed(self.model, self.weights, self.workload, self.runtime, self._breakdown, gpu)

    def speed_chart(self) -> Any:
        """Decode tokens/s against concurrency on the target (:mod:`vramdesk.core.speed_chart`).

        The memory limit is the last solve's ``max_concurrency`` (None while it is pending).
        None without a breakdown or when the target is not a catalog GPU; a
        ``SpeedUnavailable`` when the GPU lacks a speed fact.
        """
        if self._breakdown is None or self.target.kind != "gpu":
            return None
        # on first use: the speed chart loads only when the window shows it
        from vramdesk.core.speed_chart import speed_chart

        gpu = bundled.find_gpu(self.target.name)
        limit = None if self._solve is None else self._solve.max_concurrency
        return speed_chart(self.model, self.weights, self.workload, self.runtime, gpu, limit)

    def kv_growth(self, contexts: list[int], batches: list[int]) -> dict[int, list[int]]:
        """KV bytes (exact ints) over ``contexts`` (tokens) for each of ``batches``."""
        return views.kv_growth(
            self.model, self.weights, self.workload, self.runtime, contexts, batches
        )

    def compare(self, presets: list[tuple[str, ModelSpec, WeightSpec]]) -> list[views.CompareRow]:
        """Breakdowns of ``presets`` under the current workload and runtime."""
        return views.compare(presets, self.workload, self.runtime)

    def compare_fits(self, rows: list[views.CompareRow]) -> list[str | None]:
        """Per compare row: the headline's answer on the target (None: no capacity/row).

        ``"fits"``, ``"tight"`` or ``"no"`` (:func:`vramdesk.core.solve.verdict.fit_state`).
        """
        capacity = self.shown_capacity_bytes()
        return [
            None
            if capacity is None or row.breakdown is None
            else fit_state(row.breakdown, capacity, self.runtime)
            for row in rows
        ]

    # ------------------------------------------------------------ local GPU
    def set_local_snapshot(self, snapshot: Any) -> None:
        """Take a new NVML snapshot (or None); recompute when the target is a local GPU.

        A snapshot equal to the last one changes nothing and emits nothing: the GPU panel
        polls every 2 s, and with no driver each poll redrew the chart for the same None.
        """
        if snapshot == self._evaluator.snapshot:
            return
        self._evaluator.snapshot = snapshot
        self.local_changed.emit()
        if self.target.kind == "local":
            self._refresh()

    @property
    def local_snapshot(self) -> Any:
        """The last NVML snapshot (None when none was read)."""
        return self._evaluator.snapshot

    def local_free_bytes(self) -> int | None:
        """Free bytes of the selected local GPU (the target's index, else GPU 0), or None."""
        return self._evaluator.local_free_bytes(self.target)

    def local_verdict(self) -> budget.FreeMemoryFit | None:
        """Whether the per-GPU estimate fits in the selected local GPU's free memory now."""
        free = self.local_free_bytes()
        if free is None or self._breakdown is None:
            return None
        return budget_module().fits_now(self._breakdown.total_bytes, free)
