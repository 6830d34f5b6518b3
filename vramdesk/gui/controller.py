"""The one object that binds the window to the core (STYLE: "How a form binds to the core").

:class:`ScenarioController` holds the *committed* inputs, the values typed but not yet
committed, and the last valid inputs with their :class:`Breakdown` and
:class:`SolveResult`. A widget edit calls :meth:`ScenarioController.set_field` (text as
typed, parsed by the core's rules); every typed value the core accepts is applied over the
committed inputs and computed at once, a refused one never reaches the estimate (its field
keeps the value it held before the edit began) and is reported through ``marksChanged`` /
``fieldInvalid`` with the core's reason. :meth:`commit` makes accepted values committed
when a field finishes editing. Loading a preset sets every field and computes once.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from types import ModuleType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown, estimate, validate_inputs
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.scenario import fixed_overhead_bytes
from vramdesk.core.model.spec import ModelSpec, sliding_layer_pattern
from vramdesk.core.model.workload import Workload
from vramdesk.core.present import views
from vramdesk.core.solve.solver import SolveResult, solve
from vramdesk.core.solve.verdict import fits_budget
from vramdesk.core.store import bundled
from vramdesk.core.store.serialize import TYPES, scenario_to_dict
from vramdesk.core.units import Unit
from vramdesk.gui.forms.fields import (
    FIELD_PART,
    Target,
    capacity_bytes_of,
    convert_field,
    parse_int_text,
    parse_real_text,
)
from vramdesk.gui.messages import reason_text

if TYPE_CHECKING:
    from vramdesk.core.local import nvml


def _nvml() -> ModuleType:
    """:mod:`vramdesk.core.local.nvml`, imported on first use.

    A snapshot arrives only after the first paint (issue 11: nothing of NVML's is loaded
    before the window shows).
    """
    from vramdesk.core.local import nvml

    return nvml


DEFAULT_MODEL_SLUGS = ("llama-3.1-8b", "7b-class")


class ScenarioController(QObject):
    """Draft and last-valid inputs, and the core results computed from them."""

    inputsChanged = Signal()
    breakdownChanged = Signal(object)
    solveChanged = Signal(object)
    fieldInvalid = Signal(str, str)
    fieldsValid = Signal()
    #: The set of refused typed fields changed (see :attr:`refused`, :meth:`stale_text`).
    marksChanged = Signal()
    #: The notes of the loaded model changed (see :attr:`model_notes`).
    notesChanged = Signal()
    unitChanged = Signal(object)
    localChanged = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        preset = self.default_model_preset()
        self._draft: dict[str, Any] = {
            "model": preset.model,
            "weights": preset.weights,
            "workload": Workload(context_tokens=8192, batch=8),
            "runtime": Runtime(),
        }
        self._pattern = views.describe_layer_pattern(preset.model)
        self._target = Target()
        self._valid = dict(self._draft)
        self._breakdown: Breakdown | None = None
        self._solve: SolveResult | None = None
        self._unit = Unit.GIB
        self._snapshot: Any = None
        self._problem: InputError | None = None
        self.preset_name = preset.name
        self.model_origin = preset.name
        #: What the import of the loaded model assumed (fp32 storage, defaults filled in, ...).
        self.model_notes: tuple[str, ...] = ()
        self._loaded_model = (preset.model, preset.weights)
        self.compute_count = 0
        self._typed: dict[str, Any] = {}
        self._refused: dict[str, InputError] = {}
        self._live: tuple | None = None
        self._memo: tuple | None = None  # (state, snapshot, results) of the last evaluation
        self._published: tuple | None = None
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
        return self._shown_state()[2]

    @property
    def layer_pattern(self) -> str:
        """The draft sliding-window layout name (see :data:`views.LAYER_PATTERNS`)."""
        return self._shown_state()[1]

    @property
    def problem(self) -> InputError | None:
        """The error of the current draft, None when the draft is valid."""
        return self._problem

    def draft(self, part: str) -> Any:
        """The shown ``model``, ``weights``, ``workload`` or ``runtime``.

        The committed inputs with every accepted typed value applied (refused texts are
        not in it: :meth:`typed_text` gives those).
        """
        return self._shown_state()[0][part]

    def value(self, name: str) -> Any:
        """The shown value of input field ``name`` (see :meth:`draft`)."""
        return getattr(self.draft(FIELD_PART[name]), name)

    # ----------------------------------------------------------- editing
    #
    # Two layers: the *committed* draft (``_draft``, ``_pattern``, ``_target``) and the texts
    # typed but not yet committed (``_typed``, field -> raw). What is shown is the committed
    # draft with every typed value applied that the core accepts. A refused text never
    # reaches the core: its field keeps the committed value, i.e. the value it held before
    # the user started typing in it (not whatever a half-typed prefix such as ``1e4`` of
    # ``1e400`` was), and ``stale_fields`` says so. Typed values become committed when
    # their field finishes editing (:meth:`commit`), or at once for pickers and check boxes.
    def set_field(self, name: str, raw: Any, *, commit: bool = True) -> bool:
        """Set one field from a widget's raw value (typed text included), then compute.

        ``commit=False`` while the user is still typing in the field: a refused text then
        falls back to the value the field held before the edit began. Returns True when
        every typed value was accepted and the results were recomputed from them.
        """
        self._typed.pop(name, None)
        self._typed[name] = raw  # re-inserted last: the newest edit is tried last
        ok = self._refresh()
        if commit:
            self.commit()
        return ok

    def commit(self, _name: str | None = None) -> None:
        """Make every accepted typed value the committed one (a field finished editing).

        Refused texts stay typed (and marked) until they are valid or replaced.
        """
        if self._live is None:
            return
        parts, self._pattern, self._target = self._live
        self._draft = dict(parts)  # never shared: load() replaces entries in place
        self._typed = {k: v for k, v in self._typed.items() if k in self._refused}

    def typed_text(self, name: str) -> Any:
        """The raw value typed into ``name`` that is refused (None when none is)."""
        return self._typed.get(name) if name in self._refused else None

    @property
    def refused(self) -> dict[str, InputError]:
        """Typed fields whose values the core refused -> the error (figures ignore them)."""
        return dict(self._refused)

    def stale_text(self) -> str:
        """One line saying which typed values the figures ignore, '' when none."""
        if not self._refused:
            return ""
        shown = "; ".join(f"{name} = {self._in_force_text(name)}" for name in self._refused)
        return self.tr(
            "The figures use the last accepted values ({0}) until what was typed there is valid."
        ).format(shown)

    def _in_force_text(self, name: str) -> str:
        """The value of field ``name`` the figures use, as text."""
        if name == "live_tokens":
            value: Any = self.workload.live_tokens
        elif name == "custom_capacity":
            value = f"{self.target.custom_bytes:,} B"
        elif name == "fixed_overhead_gib":
            value = f"{self.runtime.fixed_overhead_bytes:,} B"
        elif name in FIELD_PART:
            value = self.value(name)
        else:
            return "…"
        if isinstance(value, bool) or value is None:
            return self.tr("not set") if value is None else str(value)
        if isinstance(value, int):
            return f"{value:,}"
        if isinstance(value, Fraction):
            return f"{float(value):g}"
        return views.compact_text(str(getattr(value, "label", value)))

    def _refresh(self) -> bool:
        """Apply the typed values the core accepts over the committed draft and compute.

        Returns True when nothing typed is refused and the inputs were computed.
        """
        committed = (dict(self._draft), self._pattern, self._target)
        state, results, refused, error = self._accept_typed(committed)
        self._refused = refused
        if results is not None:
            self._live = state
            if results is not self._published:
                self._publish(state, results)
        else:  # even the committed inputs are refused (e.g. a loaded preset): keep the last
            self._live = None
        self._problem = error
        self.marksChanged.emit()
        if error is not None:
            self.fieldInvalid.emit(error.field, reason_text(error))
            return False
        self.fieldsValid.emit()
        return True

    def _accept_typed(
        self, committed: tuple
    ) -> tuple[tuple, tuple | None, dict[str, InputError], InputError | None]:
        """The committed state with the acceptable typed values applied, and those refused.

        Returns ``(state, results, refused, first_error)``; ``results`` is None when even
        the committed state is refused. First all typed values are tried together (one
        may make another valid: heads 30 with KV heads 6); else each in turn, keeping
        those that leave the inputs valid.
        """
        try:
            state = committed
            for name, raw in self._typed.items():
                state = self._apply(state, name, raw)
            return state, self._evaluate(state), {}, None
        except InputError:
            pass
        try:
            results = self._evaluate(committed)
        except InputError as exc:
            return committed, None, {}, exc
        state, refused, first = committed, {}, None
        for name, raw in self._typed.items():
            try:
                candidate = self._apply(state, name, raw)
                candidate_results = self._evaluate(candidate)
            except InputError as exc:
                refused[name] = exc
                first = first or exc
                continue
            state, results = candidate, candidate_results
        return state, results, refused, first

    def _apply(self, state: tuple, name: str, raw: Any) -> tuple:
        """``state`` (parts, pattern, target) with field ``name`` set from ``raw``.

        Raises
        ------
        InputError
            The raw value cannot be read as the field's type (named by the field).
        """
        parts, pattern, target = dict(state[0]), state[1], state[2]
        if name == "live_tokens":
            parts["workload"] = self._with_live_tokens(parts["workload"], raw)
        elif name == "sliding_pattern":
            pattern = str(raw).strip().lower()
        elif name == "params_source":
            parts["model"] = self._with_params_source(parts["model"], str(raw))
        elif name == "fixed_overhead_gib":
            fixed = fixed_overhead_bytes(
                parse_real_text(name, raw) if isinstance(raw, str) else raw
            )
            parts["runtime"] = dataclasses.replace(parts["runtime"], fixed_overhead_bytes=fixed)
        elif name == "target":
            target = target.with_key(str(raw))
        elif name == "custom_capacity":
            value, unit = raw
            if isinstance(value, str):
                value = parse_real_text(name, value)
                if value is None:
                    raise InputError(name, "is required", "required")
            target = dataclasses.replace(
                target, kind="custom", custom_bytes=capacity_bytes_of(value, unit)
            )
        else:
            part = FIELD_PART[name]
            parts[part] = dataclasses.replace(parts[part], **{name: convert_field(name, raw)})
        return parts, pattern, target

    def params_source(self) -> str:
        """Where the parameter count comes from: ``"checkpoint"`` or ``"shape"``.

        ``"checkpoint"`` when it is pinned (a preset's, an import's or a typed one),
        ``"shape"`` when it is computed from the architecture fields.
        """
        return "shape" if self.draft("model").params is None else "checkpoint"

    def checkpoint_params(self) -> int | None:
        """The parameter count of the model last loaded (None: it had none pinned)."""
        return self._loaded_model[0].params

    def _with_params_source(self, model: ModelSpec, source: str) -> ModelSpec:
        """``model`` with its parameter count from the checkpoint or from the shape.

        From the shape, the pinned count and the checkpoint's byte size are dropped, so
        that layer, width and vocabulary edits move the weights; from the checkpoint, the
        loaded model's count and bytes come back.
        """
        if source == "shape":
            return model.replace(params=None, checkpoint_bytes=None)
        loaded = self._loaded_model[0]
        if loaded.params is None:
            raise InputError(
                "params_source", "the model loaded has no checkpoint parameter count", "invalid"
            )
        return model.replace(params=loaded.params, checkpoint_bytes=loaded.checkpoint_bytes)

    @staticmethod
    def _with_live_tokens(workload: Workload, raw: Any) -> Workload:
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

    def set_unit(self, unit: Unit) -> None:
        """Switch the display unit; emits ``unitChanged``."""
        if unit is not self._unit:
            self._unit = unit
            self.unitChanged.emit(unit)

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
        """
        given = {"model": model, "weights": weights, "workload": workload, "runtime": runtime}
        self.commit()
        self._typed.clear()
        for part, value in given.items():
            if value is not None:
                self._draft[part] = value
        if target is not None:
            self._target = target
        if model is not None:
            self._pattern = views.describe_layer_pattern(model)
            self.preset_name = name or model.name
            self.model_origin = origin or self.preset_name
            self._loaded_model = (self._draft["model"], self._draft["weights"])
            self.model_notes = tuple(notes)
            self.notesChanged.emit()
        return self._refresh()

    def model_edited(self) -> bool:
        """Whether the draft model or weight format differs from the one last loaded."""
        return (self.draft("model"), self.draft("weights")) != self._loaded_model

    def load_model_preset(self, preset: bundled.ModelPreset) -> bool:
        """Load a model preset's model and weight format; compute once."""
        return self.load(model=preset.model, weights=preset.weights, name=preset.name)

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

    def scenario_dict(self) -> dict[str, Any]:
        """The last valid inputs as a JSON-ready dict (non-default fields only)."""
        return scenario_to_dict(self.model, self.weights, self.workload, self.runtime)

    # ----------------------------------------------------------- compute
    @staticmethod
    def _effective_model(model: ModelSpec, pattern: str) -> ModelSpec:
        """``model`` with the named sliding-window layout ``pattern`` expanded."""
        if pattern == "custom":
            return model
        if pattern == "none" and not model.sliding_window:
            return model.replace(layer_types=None)
        return model.replace(layer_types=sliding_layer_pattern(model.num_hidden_layers, pattern))

    def capacity_bytes(self, state: tuple | None = None) -> int | None:
        """Capacity of the target GPU in bytes (None: a local GPU with no snapshot).

        ``state`` defaults to the inputs shown. Raises
        ------
        InputError
            ``gpu``: the local GPU index is not in the snapshot.
        """
        parts, _pattern, t = state or self._shown_state()
        if t.kind == "gpu":  # vLLM/SGLang budget from CUDA's total where the catalog knows it
            return bundled.find_gpu(t.name).capacity_for(parts["runtime"].engine)
        if t.kind == "custom":
            return t.custom_bytes
        if self._snapshot is None:
            return None
        return _nvml().local_per_gpu_bytes(self._snapshot, (t.local_index,), t.which)  # type: ignore[arg-type]

    def _shown_state(self) -> tuple:
        return self._live or (self._draft, self._pattern, self._target)

    def _evaluate(self, state: tuple) -> tuple:
        """``(inputs, breakdown, solve result)`` of ``state``.

        Raises
        ------
        InputError
            The core refuses the inputs (named by the field).
        """
        memo = self._memo
        if memo is not None and memo[0] == state and memo[1] is self._snapshot:
            return memo[2]  # a keystroke that changes nothing computes nothing
        parts, pattern, _target = state
        model = self._effective_model(parts["model"], pattern)
        inputs = (model, parts["weights"], parts["workload"], parts["runtime"])
        validate_inputs(*inputs)  # input errors first, before a local-GPU lookup can fail
        capacity = self.capacity_bytes(state)
        result = solve(*inputs, capacity) if capacity else None
        breakdown = result.breakdown if result else estimate(*inputs)  # solve already estimated
        self._memo = (state, self._snapshot, (inputs, breakdown, result))
        return self._memo[2]

    def _publish(self, state: tuple, results: tuple) -> None:
        self._published = results
        inputs, breakdown, result = results
        self.compute_count += 1
        self._valid = dict(zip(("model", "weights", "workload", "runtime"), inputs, strict=True))
        self._breakdown, self._solve = breakdown, result
        self.inputsChanged.emit()
        self.breakdownChanged.emit(breakdown)
        self.solveChanged.emit(result)

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
        return views.catalog_fits(self._breakdown)

    def kv_growth(self, contexts: list[int], batches: list[int]) -> dict[int, list[int]]:
        """KV bytes over ``contexts`` for each of ``batches`` under the current inputs."""
        return views.kv_growth(
            self.model, self.weights, self.workload, self.runtime, contexts, batches
        )

    def compare(self, presets: list[tuple[str, ModelSpec, WeightSpec]]) -> list[views.CompareRow]:
        """Breakdowns of ``presets`` under the current workload and runtime."""
        return views.compare(presets, self.workload, self.runtime)

    def compare_fits(self, rows: list[views.CompareRow]) -> list[bool | None]:
        """Per compare row: whether it fits the target's KV budget (None: no capacity/row)."""
        capacity = self.capacity_bytes()
        return [
            None
            if capacity is None or row.breakdown is None
            else fits_budget(row.breakdown, capacity, self.runtime)
            for row in rows
        ]

    # ------------------------------------------------------------ local GPU
    def set_local_snapshot(self, snapshot: Any) -> None:
        """Take a new NVML snapshot (or None); recompute when the target is a local GPU."""
        self._snapshot = snapshot
        self.localChanged.emit()
        if self.target.kind == "local":
            self._refresh()

    @property
    def local_snapshot(self) -> Any:
        """The last NVML snapshot (None when none was read)."""
        return self._snapshot

    def local_free_bytes(self) -> int | None:
        """Free memory of the selected local GPU (index of the target, else GPU 0), or None."""
        if self._snapshot is None or not self._snapshot.gpus:
            return None
        index = (
            self.target.local_index if self.target.kind == "local" else self._snapshot.gpus[0].index
        )
        try:
            return _nvml().local_budget_bytes(self._snapshot, (index,), "free")
        except InputError:
            return None

    def local_verdict(self) -> nvml.FitVerdict | None:
        """Whether the per-GPU estimate fits in the selected local GPU's free memory right now."""
        free = self.local_free_bytes()
        if free is None or self._breakdown is None:
            return None
        return _nvml().fits_now(self._breakdown.total_bytes, free)
