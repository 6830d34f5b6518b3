"""The model form: preset picker, import, architecture fields and derived values (SPEC §7)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QWidget,
)

from vramdesk.core.errors import VramdeskError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.units import Unit, format_bytes
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.forms.binding import BoundForm
from vramdesk.gui.panels.library import PresetLibrary


class ModelForm(BoundForm):
    """Model architecture fields (config.json names), the preset picker and derived values."""

    importFailed = Signal(str)
    #: A preset picked could not be loaded (the one-line reason).
    loadFailed = Signal(str)
    #: The path of a model imported and loaded (for File → Open recent).
    imported = Signal(str)

    def __init__(
        self, controller: ScenarioController, library: PresetLibrary, parent: QWidget | None = None
    ) -> None:
        super().__init__(self.tr("Model"), controller, parent)
        self.library = library
        self.import_error = ""
        self._importing = False
        self._build_picker()
        self._build_fields()
        library.presetsChanged.connect(self.refresh_presets)
        self.refresh_presets()
        self.sync()

    def _build_picker(self) -> None:
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        self.preset_box = QComboBox()
        self.preset_box.setObjectName("preset_box")
        self.preset_box.setMinimumContentsLength(18)
        self.preset_box.activated.connect(self._on_preset_activated)
        self.import_button = QPushButton(self.tr("Import config.json / model folder…"))
        self.import_button.setObjectName("import_button")
        self.import_button.clicked.connect(self._on_import_clicked)
        box.addWidget(self.preset_box, 1)
        self.layout_.addRow(self.tr("Preset"), row)
        self.layout_.addRow(self.import_button)

    def _build_fields(self) -> None:
        auto = self.tr("auto")
        unset = self.tr("not set")
        self.add_int("num_hidden_layers", self.tr("Layers (num_hidden_layers)"))
        self.add_int("hidden_size", self.tr("hidden_size"), unset)
        self.add_int("num_attention_heads", self.tr("Attention heads"), unset)
        self.add_int("num_key_value_heads", self.tr("KV heads (num_key_value_heads)"))
        self.add_int("head_dim", self.tr("head_dim"), auto)
        self.add_int("intermediate_size", self.tr("intermediate_size"), unset)
        self.add_int("vocab_size", self.tr("vocab_size"), unset)
        self.add_check("tie_word_embeddings", self.tr("Tied embeddings"))
        self.add_int("max_position_embeddings", self.tr("max_position_embeddings"), unset)
        sources = [
            (self.tr("the checkpoint (fixed)"), "checkpoint"),
            (self.tr("the shape (follows the fields)"), "shape"),
        ]
        box = self.add_choice("params_source", self.tr("Parameter count from"), sources)
        box.setToolTip(
            self.tr(
                "A preset or import pins the checkpoint's published parameter count (and its"
                " byte size), so shape edits do not move the weights. Choose the shape to"
                " compute the count from the layers, widths and vocabulary instead."
            )
        )
        self.add_int("params", self.tr("Parameters"), self.tr("computed from the shape"))
        self.add_int("num_local_experts", self.tr("MoE experts (0 = dense)"))
        self.add_int("num_experts_per_tok", self.tr("Experts per token"))
        self.add_int("moe_intermediate_size", self.tr("Expert intermediate size"), unset)
        self.add_int("n_shared_experts", self.tr("Shared experts"))
        self.add_int("first_k_dense_replace", self.tr("Dense leading layers"))
        self.add_int("sliding_window", self.tr("Sliding window (tokens)"), self.tr("off"))
        patterns = [
            (self.tr("every layer slides"), "all"),
            (self.tr("no sliding layers"), "none"),
            (self.tr("alternating"), "alternating"),
            (self.tr("5 local : 1 global"), "5:1"),
            (self.tr("3 local : 1 global"), "3:1"),
            (self.tr("per-layer list (from preset)"), "custom"),
        ]
        self.add_choice("sliding_pattern", self.tr("Sliding layers"), patterns)
        self.add_readonly("derived_head_dim", self.tr("head_dim (derived)"))
        self.add_readonly("derived_gqa", self.tr("GQA ratio"))
        self.add_readonly("derived_params", self.tr("Parameter count"))
        self.add_readonly("derived_kv_token", self.tr("KV bytes per token"))

    def current(self, name: str) -> object:
        """Draft value for ``name``; the layer pattern is the controller's, not a model field."""
        if name == "sliding_pattern":
            return self.controller.layer_pattern
        if name == "params_source":
            return self.controller.params_source()
        return super().current(name)

    def sync_derived(self) -> None:
        """Show head_dim, GQA ratio, parameter count and KV bytes/token from the core."""
        d = self.controller.derived()
        if d is None:
            return
        kind = d.attention_kind
        self.fields["derived_head_dim"].setText("—" if d.head_dim is None else str(d.head_dim))
        ratio = "—" if d.gqa_ratio is None else f"{d.gqa_ratio:g}"
        self.fields["derived_gqa"].setText(f"{ratio} ({kind})")
        text = f"{d.params:,}"
        if d.params_computed is not None and d.params_computed != d.params:
            text += self.tr(" (shape gives {0:,})").format(d.params_computed)
        if d.active_params:
            text += self.tr(", active {0:,}").format(d.active_params)
        self.fields["derived_params"].setText(text)
        pinned = self.controller.checkpoint_params()
        shape = d.params_computed if d.params_computed is not None else d.params
        self.set_choices(
            "params_source",
            [
                (
                    self.tr("the checkpoint: {0:,}").format(pinned)
                    if pinned is not None
                    else self.tr("the checkpoint (none loaded)"),
                    "checkpoint",
                ),
                (self.tr("the shape: {0:,}").format(shape), "shape"),
            ],
        )
        with QSignalBlocker(self.fields["params_source"]):
            self._choose("params_source", self.controller.params_source())
        per_token = format_bytes(d.kv_bytes_per_token, Unit.MIB, 3)
        text = d.kv_summary or f"{d.kv_bytes_per_token:,} B ({per_token})"
        self.fields["derived_kv_token"].setText(text)

    # ------------------------------------------------------------- presets
    def refresh_presets(self) -> None:
        """Fill the picker: bundled presets (read-only, marked) then the user's."""
        self._presets = self.library.model_entries()
        with QSignalBlocker(self.preset_box):
            self.preset_box.clear()
            for key, name, source, user_preset in self._presets:
                mine = user_preset is not None
                mark = self.tr(" (mine)") if mine else self.tr(" (bundled, read-only)")
                self.preset_box.addItem(name + mark, key)
                self.preset_box.setItemData(
                    self.preset_box.count() - 1, source, Qt.ItemDataRole.ToolTipRole
                )
        self.sync_picker()

    def sync(self) -> None:
        """Set the fields from the draft, and the picker to the model they describe."""
        super().sync()
        if hasattr(self, "_presets"):
            self.sync_picker()

    def sync_picker(self) -> None:
        """Select the preset whose model and weights the draft holds, else name where it came from.

        The first entry (no key) then says "Imported: NAME", "NAME (saved)" or, once a
        field was edited away from what was loaded, "Custom (edited)".
        """
        c = self.controller
        key = self._key_holding(c.draft("model"), c.draft("weights"), c.preset_name)
        box = self.preset_box
        with QSignalBlocker(box):
            if box.itemData(0) == "":
                box.removeItem(0)
            if key is not None:
                box.setCurrentIndex(box.findData(key))
                return
            text = self.tr("Custom (edited)") if c.model_edited() else c.model_origin
            box.insertItem(0, text, "")
            box.setCurrentIndex(0)

    def _key_holding(self, model: ModelSpec, weights: WeightSpec, loaded: str) -> str | None:
        """The picker key of the preset holding ``model`` (None: none does).

        The preset named ``loaded`` (the one last loaded) is tried first, and is the only one
        built when its model matches, whatever the weight format: a format (or KV dtype,
        engine, workload) edit is not a model edit, and the model keeps its name (issue 23).
        Otherwise every preset is compared, in picker order: one holding ``model`` and
        ``weights`` first, else the first holding ``model``.
        """
        ordered = sorted(self._presets, key=lambda entry: entry[1] != loaded)  # stable
        same_model = None
        for key, name, _source, user_preset in ordered:
            try:
                preset = user_preset or self.library.model_by_key(key)  # a bundled one: built
            except (KeyError, VramdeskError):
                continue  # gone or unreadable since the list was filled
            if preset.model != model:
                continue
            if preset.weights == weights or name == loaded:
                return key
            same_model = same_model or key
        return same_model

    def _on_preset_activated(self, index: int) -> None:
        key = self.preset_box.itemData(index)
        if not key:
            return
        try:
            self.library.load_model_key(key)  # a saved preset: all it holds, as "Load" does
        except (KeyError, VramdeskError) as exc:  # e.g. its file was deleted meanwhile
            self.loadFailed.emit(self.tr("Preset not loaded: {0}").format(exc))
            self.refresh_presets()  # the list as it is now, the model in force selected

    def _on_import_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Import a model config"),
            "",
            self.tr("config.json (*.json);;All files (*)"),
        )
        if path and not self.import_path(Path(path)) and self.import_error:
            QMessageBox.warning(self, self.tr("Import a model config"), self.import_error)

    def import_path(self, path: Path) -> bool:
        """Import a config.json, model folder or GGUF through the core importer and load it.

        The file is read on the thread pool (:func:`read_off_thread`): the window keeps
        repainting meanwhile, and a read that takes more than a moment shows a progress
        dialog whose Cancel drops it (the figures stay as they were). Returns whether the
        model was read and loaded.
        """
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.core.local.importers import Monitor, load_model

        self.import_error = ""
        if self._importing:  # one import at a time (the dialog is window-modal)
            return False
        self._importing = True
        stop = threading.Event()  # set by Cancel: the reader stops at its next 1 MiB step
        try:
            outcome = read_off_thread(
                lambda: load_model(path, monitor=Monitor(cancelled=stop.is_set)),
                self,
                self.tr("Reading {0}…").format(path.name),
                self.tr("Cancel"),
                on_cancel=stop.set,
            )
        finally:
            self._importing = False
        if outcome is None:
            self.import_error = self.tr("Import of {0} cancelled").format(path.name)
            self.importFailed.emit(self.import_error)
            return False
        ok_read, value = outcome
        if not ok_read:
            if not isinstance(value, (VramdeskError, OSError)):
                raise value
            self.import_error = str(value)
            self.importFailed.emit(self.import_error)
            return False
        imported = value
        name = imported.model.name or path.name
        ok = self.controller.load(
            model=imported.model,
            weights=imported.weights,
            name=name,
            origin=self.tr("Imported: {0}").format(name),
            notes=imported.notes,
        )
        if ok:
            self.imported.emit(str(path))
        return ok


#: A read shorter than this shows no progress dialog at all.
PROGRESS_AFTER_MS = 400


def read_off_thread(
    fn: Callable[[], Any],
    parent: QWidget,
    label: str,
    cancel_text: str,
    on_cancel: Callable[[], None] | None = None,
) -> tuple[bool, Any] | None:
    """Run ``fn`` on a daemon thread while this thread keeps serving events; wait for it.

    Returns ``(True, result)``, ``(False, exception)``, or None when the user pressed Cancel
    on the progress dialog (shown only after :data:`PROGRESS_AFTER_MS`): ``on_cancel`` is
    called (the importer's monitor stops the read at its next step), the read is abandoned
    (its result is dropped) and this returns at once. The thread is a daemon
    (:meth:`~vramdesk.gui.workers.Worker.start`): a read that never returns cannot keep the
    process alive once the window has closed.
    """
    # on first use: not on the window's start-up path (built or run after the first paint)
    from vramdesk.gui.workers import run_in_thread

    loop = QEventLoop()
    outcome: list[tuple[bool, Any] | None] = []

    def done(value: tuple[bool, Any] | None) -> None:
        if not outcome:
            outcome.append(value)
            loop.quit()

    worker = run_in_thread(fn, lambda r: done((True, r)), lambda e: done((False, e)), daemon=True)
    progress = QProgressDialog(label, cancel_text, 0, 0, parent)
    progress.setObjectName("import_progress")
    progress.setWindowModality(Qt.WindowModality.WindowModal)
    progress.setAutoClose(False)
    progress.setAutoReset(False)
    progress.hide()  # QProgressDialog shows itself only as setValue advances: timed here
    QTimer.singleShot(PROGRESS_AFTER_MS, progress, lambda: outcome or progress.show())

    def cancelled() -> None:
        worker.abandon()
        if on_cancel is not None:
            on_cancel()
        done(None)

    progress.canceled.connect(cancelled)
    if not outcome:
        loop.exec()
    progress.canceled.disconnect(cancelled)
    progress.close()
    progress.deleteLater()
    return outcome[0]
