"""The one object that binds the window to the core (STYLE: "How a form binds to the core").

:class:`ScenarioController` holds the draft inputs (what the widgets show, valid or
not) and the last *valid* inputs with their :class:`Breakdown` and
:class:`SolveResult`. A widget edit calls :meth:`ScenarioController.set_field`; the
controller converts the raw value, replaces the field, validates, computes and emits
``inputsChanged`` / ``breakdownChanged`` / ``solveChanged``, or ``fieldInvalid`` with
the core's reason, leaving the last valid result in place. Loading a preset sets
every field and computes once.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QObject, Signal

from vramdesk.core import bundled, nvml, views
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown, estimate, validate_inputs
from vramdesk.core.formats import WeightSpec
from vramdesk.core.model import ModelSpec, sliding_layer_pattern
from vramdesk.core.runtime import Runtime
from vramdesk.core.scenario import fixed_overhead_bytes
from vramdesk.core.serialize import TYPES, scenario_to_dict
from vramdesk.core.solve import SolveResult, solve
from vramdesk.core.units import Unit
from vramdesk.core.workload import Workload
from vramdesk.gui.fields import FIELD_PART, Target, capacity_bytes_of, convert_field, parse_int_text
from vramdesk.gui.messages import reason_text

DEFAULT_MODEL_SLUGS = ("llama-3.1-8b", "7b-class")


class ScenarioController(QObject):
    """Draft and last-valid inputs, and the core results computed from them."""

    inputsChanged = Signal()
    breakdownChanged = Signal(object)
    solveChanged = Signal(object)
    fieldInvalid = Signal(str, str)
    fieldsValid = Signal()
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
        self._loaded_model = (preset.model, preset.weights)
        self.compute_count = 0
        self._recompute()

    # ----------------------------------------------------------- lookups
    @staticmethod
    def model_presets() -> tuple[bundled.ModelPreset, ...]:
        """Bundled model presets (read-only)."""
        return bundled.bundled_models()

    @staticmethod
    def gpu_catalog() -> tuple[bundled.GpuSpec, ...]:
        """The bundled GPU catalog."""
        return bundled.gpu_catalog()

    @classmethod
    def default_model_preset(cls) -> bundled.ModelPreset:
        """The first-start model: ``llama-3.1-8b`` when bundled, else the 7B-class shape."""
        by_slug = {p.slug: p for p in cls.model_presets()}
        for slug in DEFAULT_MODEL_SLUGS:
            if slug in by_slug:
                return by_slug[slug]
        return cls.model_presets()[0]

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
        """The target GPU choice."""
        return self._target

    @property
    def layer_pattern(self) -> str:
        """The draft sliding-window layout name (see :data:`views.LAYER_PATTERNS`)."""
        return self._pattern

    @property
    def problem(self) -> InputError | None:
        """The error of the current draft, None when the draft is valid."""
        return self._problem

    def draft(self, part: str) -> Any:
        """The draft ``model``, ``weights``, ``workload`` or ``runtime`` (maybe invalid)."""
        return self._draft[part]

    def value(self, name: str) -> Any:
        """The draft value of input field ``name``."""
        return getattr(self._draft[FIELD_PART[name]], name)

    # ----------------------------------------------------------- editing
    def set_field(self, name: str, raw: Any) -> bool:
        """Set one field from a widget's raw value, then validate and compute.

        Returns True when the draft is valid and the results were recomputed.
        """
        try:
            self._apply(name, raw)
        except InputError as exc:
            return self._reject(exc)
        return self._recompute()

    def _apply(self, name: str, raw: Any) -> None:
        if name == "live_tokens":
            self._apply_live_tokens(raw)
        elif name == "sliding_pattern":
            self._pattern = str(raw).strip().lower()
        elif name == "fixed_overhead_gib":
            self._replace("runtime", fixed_overhead_bytes=fixed_overhead_bytes(raw))
        elif name == "target":
            self._target = self._target.with_key(str(raw))
        elif name == "custom_capacity":
            self._target = dataclasses.replace(self._target, custom_bytes=capacity_bytes_of(*raw))
        else:
            self._replace(FIELD_PART[name], **{name: convert_field(name, raw)})

    def _apply_live_tokens(self, raw: Any) -> None:
        """Set the concurrency from live tokens; errors name ``live_tokens``, the field typed in.

        Raises
        ------
        InputError
            ``live_tokens``: empty, not a whole number, or a concurrency outside its limits.
        """
        live = parse_int_text("live_tokens", raw) if isinstance(raw, str) else raw
        if live is None:
            raise InputError("live_tokens", "is required", "required")
        batch = views.batch_for_live_tokens(live, self._draft["workload"].context_tokens)
        self._replace("workload", batch=batch)

    def _replace(self, part: str, **changes: Any) -> None:
        self._draft[part] = dataclasses.replace(self._draft[part], **changes)

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
    ) -> bool:
        """Replace whole inputs at once (a preset, an import), then compute once.

        ``origin`` says where a loaded model came from, for the preset picker
        (``"Imported: NAME"``, ``"NAME (saved)"``); it defaults to the name.
        """
        given = {"model": model, "weights": weights, "workload": workload, "runtime": runtime}
        for part, value in given.items():
            if value is not None:
                self._draft[part] = value
        if model is not None:
            self._pattern = views.describe_layer_pattern(model)
            self.preset_name = name or model.name
            self.model_origin = origin or self.preset_name
            self._loaded_model = (self._draft["model"], self._draft["weights"])
        return self._recompute()

    def model_edited(self) -> bool:
        """Whether the draft model or weight format differs from the one last loaded."""
        return (self._draft["model"], self._draft["weights"]) != self._loaded_model

    def load_model_preset(self, preset: bundled.ModelPreset) -> bool:
        """Load a model preset's model and weight format; compute once."""
        return self.load(model=preset.model, weights=preset.weights, name=preset.name)

    def load_scenario(
        self, parts: dict[str, Any], name: str | None = None, origin: str | None = None
    ) -> bool:
        """Load the parts a scenario preset holds (``model``, ``weights``, ...); compute once."""
        known = {k: v for k, v in parts.items() if k in TYPES}
        return self.load(**known, name=name, origin=origin)

    def scenario_dict(self) -> dict[str, Any]:
        """The last valid inputs as a JSON-ready dict (non-default fields only)."""
        return scenario_to_dict(self.model, self.weights, self.workload, self.runtime)

    # ----------------------------------------------------------- compute
    def _effective_model(self) -> ModelSpec:
        """The draft model with the named sliding-window layout expanded."""
        model = self._draft["model"]
        if self._pattern == "custom":
            return model
        if self._pattern == "none" and not model.sliding_window:
            return model.replace(layer_types=None)
        return model.replace(
            layer_types=sliding_layer_pattern(model.num_hidden_layers, self._pattern)
        )

    def capacity_bytes(self) -> int | None:
        """Capacity of the target GPU in bytes (None: a local GPU with no snapshot).

        Raises
        ------
        InputError
            ``gpu``: the local GPU index is not in the snapshot.
        """
        t = self._target
        if t.kind == "gpu":  # vLLM/SGLang budget from CUDA's total where the catalog knows it
            return bundled.find_gpu(t.name).capacity_for(self._draft["runtime"].engine)
        if t.kind == "custom":
            return t.custom_bytes
        if self._snapshot is None:
            return None
        return nvml.local_per_gpu_bytes(self._snapshot, (t.local_index,), t.which)  # type: ignore[arg-type]

    def _recompute(self) -> bool:
        try:
            model = self._effective_model()
            parts = (model, self._draft["weights"], self._draft["workload"], self._draft["runtime"])
            validate_inputs(*parts)  # input errors first, before a local-GPU lookup can fail
            capacity = self.capacity_bytes()
            result = solve(*parts, capacity) if capacity else None
            breakdown = result.breakdown if result else estimate(*parts)  # solve already estimated
        except InputError as exc:
            return self._reject(exc)
        self.compute_count += 1
        self._valid = {
            "model": model,
            "weights": parts[1],
            "workload": parts[2],
            "runtime": parts[3],
        }
        self._breakdown, self._solve = breakdown, result
        if self._problem is not None:
            self._problem = None
            self.fieldsValid.emit()
        self.inputsChanged.emit()
        self.breakdownChanged.emit(breakdown)
        self.solveChanged.emit(result)
        return True

    def _reject(self, exc: InputError) -> bool:
        self._problem = exc
        self.fieldInvalid.emit(exc.field, reason_text(exc))
        return False

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

    # ------------------------------------------------------------ local GPU
    def set_local_snapshot(self, snapshot: Any) -> None:
        """Take a new NVML snapshot (or None); recompute when the target is a local GPU."""
        self._snapshot = snapshot
        self.localChanged.emit()
        if self._target.kind == "local":
            self._recompute()

    @property
    def local_snapshot(self) -> Any:
        """The last NVML snapshot (None when none was read)."""
        return self._snapshot

    def local_free_bytes(self) -> int | None:
        """Free memory of the selected local GPU (index of the target, else GPU 0), or None."""
        if self._snapshot is None or not self._snapshot.gpus:
            return None
        index = (
            self._target.local_index
            if self._target.kind == "local"
            else self._snapshot.gpus[0].index
        )
        try:
            return nvml.local_budget_bytes(self._snapshot, (index,), "free")
        except InputError:
            return None

    def local_verdict(self) -> nvml.FitVerdict | None:
        """Whether the per-GPU estimate fits in the selected local GPU's free memory right now."""
        free = self.local_free_bytes()
        if free is None or self._breakdown is None:
            return None
        return nvml.fits_now(self._breakdown.total_bytes, free)
