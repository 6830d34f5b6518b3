"""The calibration dialog: paste or open an engine's start-up log, compare, save overheads.

The dialog does no arithmetic: parsing is :func:`vramdesk.core.calibrate.logparse.parse_log`, the
comparison :func:`vramdesk.core.calibrate.calibration.compare` on the scenario the window currently
holds (``scenario_provider()``), saving
:func:`vramdesk.core.calibrate.calibration.save_calibration`, and whether the log is about the
model shown :func:`vramdesk.core.calibrate.identity.check_model` (a message, and "Load that
model" when a bundled preset or a model on this machine matches the log's name).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.calibrate.calibration import Row, calibrated_runtime, compare, save_calibration
from vramdesk.core.calibrate.identity import ModelCheck, check_model, matching_local
from vramdesk.core.calibrate.logparse import MAX_LOG_BYTES, ParsedLog, parse_log, read_log_text
from vramdesk.core.errors import InputError, VramdeskError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.units import Unit, format_bytes

Scenario = tuple[ModelSpec, WeightSpec, Workload, Runtime]
#: At most this many characters of pasted text are parsed: the core's cap on a log file.
MAX_PASTE_CHARS = MAX_LOG_BYTES


def _cell(name: str, value: int | Fraction | None) -> str:
    if value is None:
        return "-"
    if name.endswith("_bytes"):
        return format_bytes(value, Unit.GIB, 3)
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{float(value):,.4f}"
    return f"{int(value):,}"


class CalibrateDialog(QDialog):
    """Paste or open a log; a table of figure / measured / vramdesk / difference; save.

    Parameters
    ----------
    parent : QWidget or None
        Owner window.
    scenario_provider : callable
        Returns the window's current ``(ModelSpec, WeightSpec, Workload, Runtime)``; the
        prediction column stays empty when it raises :class:`InputError` or returns None.
    model_loader : callable, optional
        Loads the model a log names into the window: called with ``("preset", slug)`` or
        ``("local", LocalModel)``, returns whether it loaded. Without it no load is offered.
    local_models : callable, optional
        The models found on this machine so far (searched for the log's name).

    Signals
    -------
    calibrationSaved(str)
        The name of the runtime preset just saved.
    """

    calibrationSaved = Signal(str)

    def __init__(
        self,
        parent: QWidget | None,
        scenario_provider: Callable[[], Scenario | None],
        model_loader: Callable[[tuple[str, object]], bool] | None = None,
        local_models: Callable[[], list] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Calibrate from an engine log"))
        self._provider = scenario_provider
        self._loader = model_loader
        self._local_models = local_models or list
        self._load_target: tuple[str, object] | None = None
        self.check: ModelCheck | None = None
        self.model_warning = QLabel()
        self.model_warning.setObjectName("calibrate_model_warning")
        self.model_warning.setWordWrap(True)
        self.model_warning.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.load_model_button = QPushButton(self.tr("Load that model"))
        self.load_model_button.setObjectName("calibrate_load_model")
        self._parsed: ParsedLog | None = None
        self.log_edit = QPlainTextEdit()
        self.log_edit.setPlaceholderText(
            self.tr("Paste a vLLM, SGLang, llama.cpp or Ollama start-up log here")
        )
        self.open_button = QPushButton(self.tr("Open log…"))
        self.status = QLabel()
        self.status.setObjectName("calibrate_status")
        self.status.setWordWrap(True)
        # an error message wraps inside the dialog instead of widening it
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("calibrate_table")
        self.table.setHorizontalHeaderLabels(
            [self.tr("Figure"), self.tr("Measured"), self.tr("vramdesk"), self.tr("Difference")]
        )
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)  # values stay on one line
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        self.resize(760, 560)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("Preset name"))
        self.save_button = QPushButton(self.tr("Save as calibrated runtime"))
        self._layout()
        self.open_button.clicked.connect(self._on_open_clicked)
        self.log_edit.textChanged.connect(self._on_log_changed)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.load_model_button.clicked.connect(self._on_load_model_clicked)
        self.name_edit.textChanged.connect(self._update_save_enabled)
        self._show(None)

    def _layout(self) -> None:
        bottom = QHBoxLayout()
        bottom.addWidget(self.name_edit, 1)
        bottom.addWidget(self.save_button)
        box = QVBoxLayout(self)
        box.addWidget(self.open_button)
        box.addWidget(self.status)
        warning = QHBoxLayout()
        warning.addWidget(self.model_warning, 1)
        warning.addWidget(self.load_model_button)
        box.addLayout(warning)
        box.addWidget(self.log_edit, 1)
        box.addWidget(self.table, 1)
        box.addLayout(bottom)
        box.addWidget(self.buttons)

    # ----------------------------------------------------------------- actions
    def set_log_text(self, text: str) -> None:
        """Replace the log text (parses it and refreshes the table)."""
        self.log_edit.setPlainText(text[:MAX_PASTE_CHARS])

    def load_file(self, path: str) -> None:
        """Read a log file (size-capped by the core) into the dialog."""
        try:
            text, truncated = read_log_text(path)  # read once, capped by the core
        except VramdeskError as exc:
            self.status.setText(str(exc))
            return
        parsed = parse_log(text)
        parsed.truncated = truncated
        self.log_edit.blockSignals(True)
        try:
            self.log_edit.setPlainText(text)
        finally:
            self.log_edit.blockSignals(False)
        self._show(parsed)

    def rows(self) -> list[Row]:
        """Compare the parsed log with the current scenario."""
        if self._parsed is None:
            return []
        scenario = self._scenario()
        try:
            return compare(self._parsed, *scenario) if scenario else compare(self._parsed)
        except InputError:
            return compare(self._parsed)

    def _scenario(self) -> Scenario | None:
        try:
            return self._provider()
        except InputError:
            return None

    # ------------------------------------------------------------------- slots
    def _on_open_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open engine log"), "", self.tr("Logs (*.log *.txt);;All files (*)")
        )
        if path:
            self.load_file(path)

    def _on_log_changed(self) -> None:
        text = self.log_edit.toPlainText()
        self._show(parse_log(text[:MAX_PASTE_CHARS]) if text.strip() else None)

    def _on_load_model_clicked(self) -> None:
        if self._load_target is None or self._loader is None:
            return
        if self._loader(self._load_target):
            self._show(self._parsed)  # the prediction is now for the loaded model

    def _on_save_clicked(self) -> None:
        name = self.name_edit.text().strip()
        base = self._scenario()
        try:
            runtime = calibrated_runtime(self._parsed, base[3] if base else None)
            save_calibration(name, runtime)
        except VramdeskError as exc:
            self.status.setText(str(exc))
            return
        self.status.setText(self.tr("Saved runtime preset “{0}”").format(name))
        self.calibrationSaved.emit(name)

    # ----------------------------------------------------------------- display
    def _show(self, parsed: ParsedLog | None) -> None:
        self._parsed = parsed
        rows = self.rows()
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            diff = "-" if row.rel_diff is None else f"{row.rel_diff * 100:+.2f} %"
            for col, text in enumerate(
                (row.name, _cell(row.name, row.measured), _cell(row.name, row.predicted), diff)
            ):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if col:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(i, col, item)
        self.status.setText(parsed.describe() if parsed else self.tr("No log yet"))
        self._show_model_check(parsed)
        self._update_save_enabled()
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def _show_model_check(self, parsed: ParsedLog | None) -> None:
        """Say when the log is about another model than the one shown; offer to load it."""
        scenario = self._scenario() if parsed is not None else None
        self.check = check_model(parsed, scenario[0]) if scenario else None
        self._load_target = None
        if self.check is not None and self.check.mismatch:
            if self.check.preset:
                self._load_target = ("preset", self.check.preset)
            else:
                local = matching_local(self.check.log_model, self._local_models())
                self._load_target = ("local", local) if local is not None else None
            self.model_warning.setText(
                self.tr(
                    "This log is about {0}, not the model shown ({1}): its differences "
                    "compare two models."
                ).format(self.check.log_model or self.tr("another model"), self.check.shown)
            )
        self.model_warning.setVisible(bool(self.check and self.check.mismatch))
        self.load_model_button.setVisible(
            self._load_target is not None and self._loader is not None
        )

    def _update_save_enabled(self) -> None:
        self.save_button.setEnabled(
            bool(self._parsed and self._parsed.figures and self.name_edit.text().strip())
        )
