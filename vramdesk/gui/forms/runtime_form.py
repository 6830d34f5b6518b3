"""The runtime form (engine knobs) and the target-GPU form (SPEC §7, left column)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from vramdesk.core.errors import InputError
from vramdesk.core.limits import FLOAT_LIMITS
from vramdesk.core.model.runtime import Engine, OverheadForm, Runtime, engine_options
from vramdesk.core.model.scenario import fixed_overhead_bytes
from vramdesk.core.units import Unit, format_bytes, to_unit
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.forms.binding import BoundForm
from vramdesk.gui.forms.fields import capacity_bytes_of, parse_real_text
from vramdesk.gui.forms.number_edit import NumberEdit

#: Runtime fields and their defaults (the form's other fields are display conversions).
RUNTIME_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Runtime)}


class RuntimeForm(BoundForm):
    """Utilization, paging, prefix sharing, parallelism, overhead form and engine."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Runtime"), controller, parent)
        self.add_choice("engine", self.tr("Engine"), [(e.value, e) for e in Engine])
        self.add_real("gpu_memory_utilization", self.tr("gpu_memory_utilization"))
        self.add_int("block_size", self.tr("KV block size (tokens)"), self.tr("unpaged"))
        self.add_int("shared_prefix_tokens", self.tr("Shared prefix (tokens)"))
        self.add_int("tensor_parallel_size", self.tr("Tensor parallel (TP)"))
        self.add_int("pipeline_parallel_size", self.tr("Pipeline parallel (PP)"))
        # data / expert / decode-context parallelism (vLLM, SGLang: ENGINE_OPTION_GROUPS)
        self.add_int("data_parallel_size", self.tr("Data parallel (DP)"))
        self.add_check("enable_expert_parallel", self.tr("Expert parallel (vLLM -ep)"))
        self.add_check(
            "language_model_only", self.tr("Language model only (vLLM --language-model-only)")
        )
        self.add_int("decode_context_parallel_size", self.tr("Decode context parallel (vLLM -dcp)"))
        self.add_check("enable_dp_attention", self.tr("DP attention (SGLang)"))
        self.add_int("ep_size", self.tr("Expert parallel size (SGLang --ep-size)"))
        forms = [
            (self.tr("multiplier: (w + kv + act) x factor + fixed"), OverheadForm.MULTIPLIER),
            (self.tr("workspace: weights x fraction"), OverheadForm.WORKSPACE),
        ]
        self.add_choice("overhead", self.tr("Overhead form"), forms)
        self.add_real("overhead_factor", self.tr("Overhead factor"))
        self.add_real("fixed_overhead_gib", self.tr("Fixed overhead (GiB)"), 3, 0.125)
        self.add_real("workspace_fraction", self.tr("Workspace fraction"))
        self.add_check(
            "sliding_window_exploited", self.tr("Engine caps sliding layers at the window")
        )
        # llama.cpp / Ollama knobs (enabled only for those engines: ENGINE_OPTION_GROUPS)
        self.add_int("n_gpu_layers", self.tr("GPU layers (-ngl)"), self.tr("all"))
        self.add_int(
            "n_cpu_moe", self.tr("Layers with experts in RAM (--n-cpu-moe)"), self.tr("none")
        )
        self.add_check("cpu_moe", self.tr("All experts in RAM (--cpu-moe)"))
        auto_on_off = [(self.tr("auto"), None), (self.tr("on"), True), (self.tr("off"), False)]
        self.add_choice("flash_attn", self.tr("Flash attention (-fa)"), auto_on_off)
        self.add_int("n_ubatch", self.tr("Physical batch (-ub)"), self.tr("512"))
        self.add_int("n_parallel", self.tr("Slots (-np)"), self.tr("= concurrency"))
        self.add_check("kv_unified", self.tr("Unified KV cache (-kvu)"))
        self.add_check("swa_full", self.tr("Full-size SWA cache (--swa-full)"))
        controller.inputsChanged.connect(self._enable_overhead_fields)
        self.sync()
        self._enable_overhead_fields()

    def current(self, name: str) -> Any:
        """Draft value; the fixed overhead is shown in GiB (display conversion only)."""
        if name == "fixed_overhead_gib":
            return to_unit(self.controller.draft("runtime").fixed_overhead_bytes, Unit.GIB)
        return super().current(name)

    def text_holds(self, name: str, text: str) -> bool:
        """The fixed overhead is typed in GiB and held in bytes: compare the bytes."""
        if name == "fixed_overhead_gib":
            try:
                typed = fixed_overhead_bytes(parse_real_text(name, text))
            except InputError:
                return False
            return typed == self.controller.draft("runtime").fixed_overhead_bytes
        return super().text_holds(name, text)

    def _enable_overhead_fields(self) -> None:
        """Enable the fields the engine has (core's option groups) and the overhead form's.

        A field of another engine stays enabled while it is set, so that the error the core
        reports at it can be fixed there.
        """
        runtime = self.controller.draft("runtime")
        has = set(engine_options(runtime.engine))

        def enabled(field: str) -> bool:
            return field in has or getattr(runtime, field) != RUNTIME_DEFAULTS[field]

        for name, widget in self.fields.items():
            if name in RUNTIME_DEFAULTS:
                widget.setEnabled(enabled(name))
        workspace = runtime.overhead is OverheadForm.WORKSPACE
        self.fields["overhead_factor"].setEnabled(enabled("overhead_factor") and not workspace)
        self.fields["fixed_overhead_gib"].setEnabled(
            enabled("fixed_overhead_bytes") and not workspace
        )
        self.fields["workspace_fraction"].setEnabled(enabled("workspace_fraction") and workspace)


class TargetForm(BoundForm):
    """The GPU to check against: a catalog GPU, a custom capacity, or a local GPU (NVML)."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Target GPU"), controller, parent)
        self.target_box = self.add_choice("target", self.tr("GPU"), [])
        self._build_custom()
        controller.localChanged.connect(self.refresh_targets)
        self.refresh_targets()
        self.sync()

    def _build_custom(self) -> None:
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        self.custom_value = NumberEdit(Fraction, None, 1, (FLOAT_LIMITS["vram_gib"][0], 2**40), 3)
        self.custom_value.setObjectName("custom_value")
        self.custom_value.setToolTip(self.tr("the capacity to check against, in the unit beside"))
        self.custom_unit = QComboBox()
        self.custom_unit.setObjectName("custom_unit")
        self.custom_unit.addItems(["GiB", "MiB"])
        self.custom_value.textEdited.connect(self._on_custom_edited)
        self.custom_value.stepped.connect(self._on_custom_edited)
        self.custom_value.editingFinished.connect(lambda: self._finished("custom_capacity"))
        self.custom_unit.currentIndexChanged.connect(lambda _i: self._on_unit_changed())
        box.addWidget(self.custom_value, 1)
        box.addWidget(self.custom_unit)
        row.setObjectName("custom_capacity")
        self.fields["custom_capacity"] = row
        self.layout_.addRow(self.tr("Custom capacity"), row)

    def _on_custom_edited(self) -> None:
        """Typed capacity (text, unit): the controller reads it exactly and picks "custom"."""
        raw = (self.custom_value.typed(), self.custom_unit.currentText())
        self.controller.set_field("custom_capacity", raw, commit=False)

    def _on_unit_changed(self) -> None:
        """A refused text is re-read in the new unit; otherwise the value is shown in it."""
        if self.controller.typed_text("custom_capacity") is not None:
            self._on_custom_edited()
        self.sync()

    def refresh_targets(self) -> None:
        """Catalog GPUs (MiB as nvidia-smi reports), custom, and each local GPU's total and free."""
        items = [
            (f"{gpu.name} ({gpu.memory_mib:,} MiB)", f"gpu:{gpu.name}")
            for gpu in self.controller.gpu_catalog()
        ]
        items.append((self.tr("Custom capacity"), "custom"))
        snapshot = self.controller.local_snapshot
        for gpu in getattr(snapshot, "gpus", ()) or ():
            # the budget's total (a MIG GPU's instance): vramdesk.core.local.nvml is loaded by now
            from vramdesk.core.local.budget import local_per_gpu_bytes

            total = format_bytes(local_per_gpu_bytes(snapshot, (gpu.index,), "total"), Unit.GIB)
            items.append(
                (
                    self.tr("local GPU {0} (total, {1})").format(gpu.index, total),
                    f"local:{gpu.index}:total",
                )
            )
            items.append(
                (self.tr("local GPU {0} (free now)").format(gpu.index), f"local:{gpu.index}:free")
            )
        key = self.controller.target.key()
        if key not in [k for _t, k in items]:  # a local GPU that stopped answering
            items.append((self.tr("{0} (not available now)").format(key), key))
        self.set_choices("target", items)
        self.sync()

    def current(self, name: str) -> Any:
        """The target's picker key."""
        if name == "target":
            return self.controller.target.key()
        return super().current(name)

    def sync(self) -> None:
        """Also show the custom capacity in the chosen unit (display conversion only)."""
        super().sync()
        if self.controller.typed_text("custom_capacity") is not None:
            return  # keep the refused text beside its mark
        unit = Unit.GIB if self.custom_unit.currentText() == "GiB" else Unit.MIB
        try:  # the text already gives these bytes: keep it as typed
            value = parse_real_text("custom_capacity", self.custom_value.typed())
            if value is not None and capacity_bytes_of(value, self.custom_unit.currentText()) == (
                self.controller.target.custom_bytes
            ):
                return
        except InputError:
            pass
        with QSignalBlocker(self.custom_value):
            self.custom_value.show_value(to_unit(self.controller.target.custom_bytes, unit))
