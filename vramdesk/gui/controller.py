"""The window's adaptor to the scenario session (STYLE: "How a form binds to the core").

:class:`ScenarioController` owns a :class:`vramdesk.core.session.ScenarioSession`, the
Qt-free state machine of the scenario (committed, typed, refused and last valid inputs, and
the :class:`Breakdown` and :class:`SolveResult` computed from them), and re-emits the
session's psygnal events as the Qt signals the widgets connect to, in the same order. A
widget edit calls :meth:`ScenarioSession.set_field` through it; every other member (state,
editing, loading, derived views, the local GPU) reads through to the session.

What stays here needs Qt: the Qt signals themselves (queued across threads, blocked by
``signals_blocked``), the refusal reason in the UI language (``fieldInvalid``), and the
translated line that says which typed values the figures ignore (:meth:`stale_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from PySide6.QtCore import QObject, Signal

from vramdesk.core.errors import InputError
from vramdesk.core.fields import FIELD_PART
from vramdesk.core.present import views
from vramdesk.core.session import ScenarioSession
from vramdesk.gui.messages import reason_text
from vramdesk.gui.solving import BackgroundSolver


class _FromSession:
    """A controller member that reads (and writes) the session's member of the same name.

    Properties, methods and plain attributes alike: ``controller.set_field(...)`` is
    ``controller.session.set_field(...)``. A data descriptor, so that a value set on the
    controller lands on the session and never shadows it.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.__doc__ = f"The session's :attr:`~ScenarioSession.{name}`."

    def __get__(self, obj: ScenarioController | None, objtype: type | None = None) -> Any:
        return self if obj is None else getattr(obj.session, self.name)

    def __set__(self, obj: ScenarioController, value: Any) -> None:
        setattr(obj.session, self.name, value)


class ScenarioController(QObject):
    """The scenario session of one window, its events as Qt signals."""

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

    # lookups
    model_presets = _FromSession()
    gpu_catalog = _FromSession()
    default_model_preset = _FromSession()
    # state
    model = _FromSession()
    weights = _FromSession()
    workload = _FromSession()
    runtime = _FromSession()
    breakdown = _FromSession()
    solve_result = _FromSession()
    unit = _FromSession()
    target = _FromSession()
    layer_pattern = _FromSession()
    problem = _FromSession()
    refused = _FromSession()
    preset_name = _FromSession()
    model_origin = _FromSession()
    model_notes = _FromSession()
    compute_count = _FromSession()
    draft = _FromSession()
    value = _FromSession()
    typed_text = _FromSession()
    params_source = _FromSession()
    checkpoint_params = _FromSession()
    model_edited = _FromSession()
    scenario_dict = _FromSession()
    capacity_bytes = _FromSession()
    shown_capacity_bytes = _FromSession()
    export_target = _FromSession()
    # editing and loading
    set_field = _FromSession()
    update = _FromSession()
    commit = _FromSession()
    set_unit = _FromSession()
    load = _FromSession()
    load_model_preset = _FromSession()
    load_preset = _FromSession()
    load_scenario = _FromSession()
    solve_pending = _FromSession()
    # derived views
    derived = _FromSession()
    fits_rows = _FromSession()
    speed = _FromSession()
    speed_chart = _FromSession()
    kv_growth = _FromSession()
    compare = _FromSession()
    compare_fits = _FromSession()
    # local GPU
    set_local_snapshot = _FromSession()
    local_snapshot = _FromSession()
    local_free_bytes = _FromSession()
    local_verdict = _FromSession()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: The scenario's state machine; its events are relayed by the ``_on_session_*`` slots.
        self.session = ScenarioSession(defer_solve=True)
        #: The reverse solve runs here, off the GUI thread (``solveChanged`` when it is done).
        self.solver = BackgroundSolver(self.session)
        events = self.session
        events.inputs_changed.connect(self._on_session_inputs_changed)
        events.breakdown_changed.connect(self._on_session_breakdown_changed)
        events.solve_changed.connect(self._on_session_solve_changed)
        events.field_invalid.connect(self._on_session_field_invalid)
        events.fields_valid.connect(self._on_session_fields_valid)
        events.marks_changed.connect(self._on_session_marks_changed)
        events.notes_changed.connect(self._on_session_notes_changed)
        events.unit_changed.connect(self._on_session_unit_changed)
        events.local_changed.connect(self._on_session_local_changed)

    # ------------------------------------------------------------ relays
    def _on_session_inputs_changed(self) -> None:
        self.inputsChanged.emit()

    def _on_session_breakdown_changed(self, breakdown: Any) -> None:
        self.breakdownChanged.emit(breakdown)

    def _on_session_solve_changed(self, result: Any) -> None:
        self.solveChanged.emit(result)

    def _on_session_field_invalid(self, name: str, error: InputError) -> None:
        self.fieldInvalid.emit(name, reason_text(error))

    def _on_session_fields_valid(self) -> None:
        self.fieldsValid.emit()

    def _on_session_marks_changed(self) -> None:
        self.marksChanged.emit()

    def _on_session_notes_changed(self) -> None:
        self.notesChanged.emit()

    def _on_session_unit_changed(self, unit: Any) -> None:
        self.unitChanged.emit(unit)

    def _on_session_local_changed(self) -> None:
        self.localChanged.emit()

    # ------------------------------------------------------- translated text
    def stale_text(self, label_of: Callable[[str], str | None] = lambda _name: None) -> str:
        """One line saying which typed values the figures ignore, '' when none.

        ``label_of``: a field's row label as the window shows it (the field name without one).
        """
        refused = self.session.refused
        if not refused:
            return ""
        shown = "; ".join(
            f"{label_of(name) or name} = {self._in_force_text(name)}" for name in refused
        )
        return self.tr(
            "The figures use the last accepted values ({0}) until what was typed there is valid."
        ).format(shown)

    def _in_force_text(self, name: str) -> str:
        """The value of field ``name`` the figures use, as text."""
        s = self.session
        if name == "live_tokens":
            value: Any = s.workload.live_tokens
        elif name == "custom_capacity":
            value = f"{s.target.custom_bytes:,} B"
        elif name == "fixed_overhead_gib":
            value = f"{s.runtime.fixed_overhead_bytes:,} B"
        elif name in FIELD_PART:
            value = s.value(name)
        else:
            return "…"
        if isinstance(value, bool) or value is None:
            return self.tr("not set") if value is None else str(value)
        if isinstance(value, int):
            return f"{value:,}"
        if isinstance(value, Fraction):
            return f"{float(value):g}"
        return views.compact_text(str(getattr(value, "label", value)))
