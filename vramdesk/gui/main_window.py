"""The main window: composes the panels around one ScenarioController (no logic of its own).

Left: the forms in a scroll area. Centre: the live chart over the figures table.
Right: tabs (reverse solver, fits, KV growth, compare). Docks: user presets and the
local GPU panel. Menus: file exports, units, language.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.units import Unit
from vramdesk.gui.chart import BreakdownChart
from vramdesk.gui.compare_tab import CompareTab
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.export_menu import ExportMenu
from vramdesk.gui.figures_table import FiguresTable
from vramdesk.gui.fits_tab import FitsTab
from vramdesk.gui.kv_growth_tab import KvGrowthTab
from vramdesk.gui.library import PresetLibrary
from vramdesk.gui.model_form import ModelForm
from vramdesk.gui.presets_panel import PresetsPanel
from vramdesk.gui.runtime_form import RuntimeForm, TargetForm
from vramdesk.gui.session import restore_session, save_session
from vramdesk.gui.settings import LANGUAGES
from vramdesk.gui.solver_tab import SolverTab
from vramdesk.gui.verdict_view import VerdictView
from vramdesk.gui.workload_form import WeightsForm, WorkloadForm


class MainWindow(QMainWindow):
    """The vramdesk window.

    Parameters
    ----------
    settings : QSettings
        Where geometry, the last scenario, the unit and the language are kept.
    gpu_query : callable, optional
        Passed to the local GPU panel (tests inject a fake NVML query).
    """

    languageRequested = Signal(str)

    def __init__(
        self,
        settings: QSettings,
        gpu_query: Callable[[], Any] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("vramdesk")
        self.settings = settings
        self.controller = ScenarioController(self)
        self._gpu_message: str | None = None
        self.library = PresetLibrary(self.controller, self)
        self._build_forms()
        self._build_centre()
        self._build_docks(gpu_query)
        self.exports = ExportMenu(self)
        self._build_menus()
        self.library.problemsFound.connect(self._on_library_problems)
        self.presets_panel.message.connect(self.show_message)
        self.model_form.importFailed.connect(self.show_message)
        self.controller.fieldInvalid.connect(lambda f, r: self.show_message(f"{f}: {r}"))
        restore_session(self, settings)
        self._report_startup_problems()

    # ------------------------------------------------------------ building
    def _build_forms(self) -> None:
        c = self.controller
        self.model_form = ModelForm(c, self.library)
        self.forms = [
            self.model_form,
            WeightsForm(c),
            WorkloadForm(c),
            RuntimeForm(c),
            TargetForm(c),
        ]
        column = QWidget()
        layout = QVBoxLayout(column)
        for form in self.forms:
            layout.addWidget(form)
        layout.addStretch(1)
        self.form_scroll = QScrollArea()
        self.form_scroll.setObjectName("forms")
        self.form_scroll.setWidgetResizable(True)
        self.form_scroll.setWidget(column)
        self.form_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.form_scroll.setMinimumWidth(column.sizeHint().width() + 24)

    def _build_centre(self) -> None:
        c = self.controller
        self.chart = BreakdownChart(c)
        self.figures = FiguresTable(c)
        self.verdict = QLabel()
        self.verdict.setObjectName("local_verdict")
        self.verdict.hide()
        self.stale_banner = QLabel()
        self.stale_banner.setObjectName("stale_banner")
        self.stale_banner.setWordWrap(True)
        self.stale_banner.setStyleSheet(
            "QLabel { background: #fff3cd; color: #5c4400; padding: 4px; border-radius: 3px; }"
        )
        self.stale_banner.hide()
        c.marksChanged.connect(self._show_stale_banner)
        centre = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        self.headline = VerdictView(c)
        self.headline.setObjectName("headline_verdict")
        top_layout.addWidget(self.headline)
        top_layout.addWidget(self.stale_banner)
        top_layout.addWidget(self.chart, 1)
        top_layout.addWidget(self.verdict)
        centre.addWidget(top)
        centre.addWidget(self.figures)
        centre.setSizes([560, 320])
        self.solver_tab, self.fits_tab = SolverTab(c), FitsTab(c)
        self.kv_tab, self.compare_tab = KvGrowthTab(c), CompareTab(c, self.library)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.solver_tab, self.tr("Reverse solver"))
        self.tabs.addTab(self.fits_tab, self.tr("Fits"))
        self.tabs.addTab(self.kv_tab, self.tr("KV growth"))
        self.tabs.addTab(self.compare_tab, self.tr("Compare"))
        self.splitter = QSplitter()
        for widget in (self.form_scroll, centre, self.tabs):
            self.splitter.addWidget(widget)
        self.splitter.setSizes([400, 600, 600])
        self.setCentralWidget(self.splitter)
        for signal in (c.breakdownChanged, c.localChanged):
            signal.connect(self._show_local_verdict)

    def _build_docks(self, gpu_query: Callable[[], Any] | None) -> None:
        self.presets_panel = PresetsPanel(self.library)
        self.presets_dock = self._dock(self.tr("My presets"), self.presets_panel, "presets_dock")
        self.gpu_panel = self._make_gpu_panel(gpu_query)
        self.gpu_dock = None
        if self.gpu_panel is not None:
            self.gpu_dock = self._dock(self.tr("Local GPUs"), self.gpu_panel, "gpu_dock")
            self.tabifyDockWidget(self.presets_dock, self.gpu_dock)
            self.presets_dock.raise_()
        self.resizeDocks([self.presets_dock], [170], Qt.Orientation.Vertical)

    def _dock(self, title: str, widget: QWidget, name: str) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        return dock

    def _make_gpu_panel(self, gpu_query: Callable[[], Any] | None) -> QWidget | None:
        """Build the local GPU panel (gui/gpu_panel.py); its snapshots feed the controller."""
        if importlib.util.find_spec("vramdesk.gui.gpu_panel") is None:
            return None
        from vramdesk.gui.gpu_panel import GpuPanel

        panel = GpuPanel(**({"query": gpu_query} if gpu_query is not None else {}))
        panel.gpusChanged.connect(self.controller.set_local_snapshot)
        panel.queryFailed.connect(self._on_gpu_query_failed)
        panel.gpusChanged.connect(self._on_gpus_changed)
        self.controller.unitChanged.connect(panel.set_unit)
        return panel

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        file_menu.addAction(self.tr("Import model config…"), self.model_form._on_import_clicked)
        if importlib.util.find_spec("vramdesk.gui.calibrate_dialog") is not None:
            file_menu.addAction(self.tr("Calibrate from an engine log…"), self.open_calibration)
        self.exports.populate(file_menu)
        file_menu.addSeparator()
        file_menu.addAction(self.tr("&Quit"), self.close)
        view = bar.addMenu(self.tr("&View"))
        self.unit_actions = self._radio_menu(
            view,
            [(u.label, u.label) for u in (Unit.GIB, Unit.GB)],
            lambda label: self.controller.set_unit(Unit.parse(label)),
        )
        self.controller.unitChanged.connect(self._sync_unit_actions)
        self._sync_unit_actions(self.controller.unit)  # set_unit is silent when unchanged
        units_bar = self.addToolBar(self.tr("Units"))
        units_bar.setObjectName("units_toolbar")
        units_bar.addActions(self.unit_actions)
        view.addSeparator()
        view.addAction(self.presets_dock.toggleViewAction())
        if self.gpu_dock is not None:
            view.addAction(self.gpu_dock.toggleViewAction())
        lang = bar.addMenu(self.tr("&Language"))
        names = {"system": self.tr("System default"), "en": "English", "ja": "日本語"}
        self.language_actions = self._radio_menu(
            lang, [(names[k], k) for k in LANGUAGES], self.languageRequested.emit
        )
        current = str(self.settings.value("language", "system"))
        for action in self.language_actions:
            action.setChecked(action.data() == current)

    def _radio_menu(
        self, menu: Any, items: list[tuple[str, Any]], slot: Callable[[Any], Any]
    ) -> list[QAction]:
        group = QActionGroup(self)
        actions = []
        for text, data in items:
            action = QAction(text, self, checkable=True)
            action.setData(data)
            action.triggered.connect(lambda _c=False, d=data: slot(d))
            group.addAction(action)
            menu.addAction(action)
            actions.append(action)
        return actions

    # ------------------------------------------------------------- slots
    def open_calibration(self) -> QWidget:
        """Open the calibration dialog (gui/calibrate_dialog.py) on the current inputs."""
        from vramdesk.gui.calibrate_dialog import CalibrateDialog

        c = self.controller
        dialog = CalibrateDialog(self, lambda: (c.model, c.weights, c.workload, c.runtime))
        dialog.calibrationSaved.connect(lambda _name: self.library.presetsChanged.emit())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def _sync_unit_actions(self, unit: Unit) -> None:
        for action in self.unit_actions:
            action.setChecked(action.data() == unit.label)

    def _show_local_verdict(self, *_args: object) -> None:
        verdict = self.controller.local_verdict()
        self.verdict.setVisible(verdict is not None)
        if verdict is not None:
            colour = "#1e7b34" if verdict.fits else "#c0392b"
            self.verdict.setText(verdict.text)
            self.verdict.setStyleSheet(f"color: {colour}; font-weight: 600;")

    def _show_stale_banner(self) -> None:
        """Say, above the chart, that the figures ignore a refused typed value."""
        text = self.controller.stale_text()
        self.stale_banner.setText(text)
        self.stale_banner.setVisible(bool(text))

    def show_message(self, text: str) -> None:
        """Show ``text`` in the status bar."""
        self.statusBar().showMessage(text, 15000)

    def _on_gpu_query_failed(self, text: str) -> None:
        """Say a GPU query failed once per distinct message: the panel keeps showing it."""
        if text != self._gpu_message:
            self._gpu_message = text
            self.show_message(text)

    def _on_gpus_changed(self, snapshot: object) -> None:
        if snapshot is not None:
            self._gpu_message = None

    def _on_library_problems(self, problems: list[str]) -> None:
        text = self.tr("Preset files set aside: ") + " ".join(problems)
        self.presets_panel.show_notice(text)
        self.show_message(text)

    def _report_startup_problems(self) -> None:
        self.library.take_problems()
        if self.library.all_problems:
            self._on_library_problems(self.library.all_problems)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Save the session and stop the GPU panel's worker before closing."""
        save_session(self, self.settings)
        if self.gpu_panel is not None:
            self.gpu_panel.shutdown()
        super().closeEvent(event)
