"""The main window: composes the panels around one ScenarioController (no logic of its own).

Left, the whole height: the everyday inputs, then the forms' details in sections that open
(form_column.py, in a fixed dock). Centre: the live chart over the figures table. Right: tabs
(reverse solver, fits, KV growth, compare). Bottom docks, under centre and right: user
presets and the local GPU panel. Menus: file exports, units,
language, help. The window is sized from the screen's available geometry (screen_fit.py).

Longer than 400 lines: composition only: the panels, docks, menus and their connections,
about 110 visible widgets placed and named; no logic.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import shiboken6
from PySide6.QtCore import (
    QEvent,
    QMargins,
    QObject,
    QRect,
    QSettings,
    QSignalBlocker,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.units import Unit
from vramdesk.gui.chart.breakdown import BreakdownChart
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import tr_note
from vramdesk.gui.dialogs.drop_import import DropImporter, RecentFiles
from vramdesk.gui.dialogs.export_menu import ExportMenu
from vramdesk.gui.dialogs.help_menu import HelpMenu
from vramdesk.gui.dialogs.launch_command import LaunchCommandMenu
from vramdesk.gui.forms import glossary
from vramdesk.gui.forms.form_column import FormColumn
from vramdesk.gui.forms.model_form import ModelForm
from vramdesk.gui.forms.runtime_form import RuntimeForm, TargetForm
from vramdesk.gui.forms.workload_form import WeightsForm, WorkloadForm
from vramdesk.gui.panels.figures_table import FiguresTable
from vramdesk.gui.panels.library import PresetLibrary
from vramdesk.gui.panels.presets import PresetsPanel
from vramdesk.gui.panels.speed import SpeedPanel
from vramdesk.gui.panels.verdict import VerdictView
from vramdesk.gui.screen_fit import (
    FRAME_GUESS,
    PREFERRED_SIZE,
    first_geometry,
    fit_geometry,
    frame_margins,
)
from vramdesk.gui.settings import LANGUAGES
from vramdesk.gui.tabs.solver import SolverTab
from vramdesk.gui.theme import tint
from vramdesk.gui.window_state import restore_session, save_session

if TYPE_CHECKING:  # built after the first paint or on first use (the docks' panels, the tabs)
    from vramdesk.gui.panels.local_models import LocalModelsPanel
    from vramdesk.gui.tabs.compare import CompareTab
    from vramdesk.gui.tabs.fits import FitsTab
    from vramdesk.gui.tabs.kv_growth import KvGrowthTab
    from vramdesk.gui.tabs.speed_chart import SpeedChartTab

#: A window never shown (tests, a screenshot tool) scans for local models and queries the
#: local GPUs after this delay (a shown one does it after its first paint).
AFTER_PAINT_FALLBACK_MS = 300


class _FirstPaint(QObject):
    """Calls ``then`` on the event-loop turn after ``widget``'s first paint, once."""

    def __init__(self, widget: QWidget, then: Callable[[], None]) -> None:
        super().__init__(widget)
        self._then = then
        widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """On the first paint, schedule ``then`` and stop watching."""
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self, self._then)
        return False


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
    #: Once, on the event-loop turn after the first paint (in a window never shown: after
    #: ``AFTER_PAINT_FALLBACK_MS``); not when the window closes first.
    firstPainted = Signal()

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
        self._fitted_after_show = False
        #: No geometry was restored: the window is placed from the screen alone.
        self.first_start = False
        self.library = PresetLibrary(self.controller, self)
        self._build_forms()
        self._build_centre()
        self._build_docks(gpu_query)
        self.exports = ExportMenu(self)
        self.launch_commands = LaunchCommandMenu(self)
        self.recent = RecentFiles(settings, self)
        self.drops = DropImporter(self.model_form, self.recent, self)
        self.drops.install(self)
        self.model_form.imported.connect(self.recent.add)
        self._build_menus()
        self.library.problemsFound.connect(self._on_library_problems)
        self.presets_panel.message.connect(self.show_message)
        self.model_form.importFailed.connect(self.show_message)
        self.model_form.loadFailed.connect(self.show_message)
        self.library.notice.connect(self.show_message)
        self._field_message = ""
        self.controller.fieldInvalid.connect(self._on_field_invalid)
        self.controller.fieldsValid.connect(self._on_fields_valid)
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
        keys = ("model", "weights", "workload", "runtime", "target")
        self.form_scroll = FormColumn(dict(zip(keys, self.forms, strict=True)))
        self.form_column = self.form_scroll
        required, self._inputs_width = self.form_scroll.open_widths()
        self.form_scroll.setMinimumWidth(required)
        glossary.explain_fields(self.forms)

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
        self.solver_tab = SolverTab(c)
        # the speed on the target closes the solver's pane: the centre column has no height
        # to spare at 1280 x 720 (the chart's legend needs it; tests/gui/test_layout.py)
        self.speed_panel = SpeedPanel(c)
        self.speed_panel.setObjectName("speed_panel")
        self.solver_tab.layout().addWidget(self.speed_panel)
        self.tabs = QTabWidget()
        self.tabs.setUsesScrollButtons(True)
        # the solved values wrap to the pane's width and scroll, rather than being cut
        self.solver_scroll = QScrollArea()
        self.solver_scroll.setObjectName("solver_scroll")
        self.solver_scroll.setWidget(self.solver_tab)
        self.solver_scroll.setWidgetResizable(True)
        self.solver_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.solver_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tabs.addTab(self.solver_scroll, self.tr("Reverse solver"))
        # the tabs behind it are built (and their modules imported) when first shown or used
        self._tab_pages: dict[str, QWidget] = {}
        for title in (self.tr("Fits"), self.tr("KV growth"), self.tr("Speed"), self.tr("Compare")):
            self.tabs.addTab(QWidget(), title)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.splitter = QSplitter()
        self.splitter.setChildrenCollapsible(False)
        for widget in (centre, self.tabs):
            self.splitter.addWidget(widget)
        self.centre_splitter = centre
        self.apportion(PREFERRED_SIZE)
        self.setCentralWidget(self.splitter)
        for signal in (c.breakdownChanged, c.localChanged):
            signal.connect(self._show_local_verdict)

    #: Tab index of each tab built on first use.
    _LAZY_TABS = {"fits": 1, "kv": 2, "speed": 3, "compare": 4}

    @property
    def fits_tab(self) -> FitsTab:
        """The "Fits" tab (built on first use)."""
        return cast("FitsTab", self._tab("fits"))

    @property
    def kv_tab(self) -> KvGrowthTab:
        """The "KV growth" tab (built on first use)."""
        return cast("KvGrowthTab", self._tab("kv"))

    @property
    def speed_tab(self) -> SpeedChartTab:
        """The "Speed" tab: tokens/s against concurrency (built on first use)."""
        return cast("SpeedChartTab", self._tab("speed"))

    @property
    def compare_tab(self) -> CompareTab:
        """The "Compare" tab (built on first use)."""
        return cast("CompareTab", self._tab("compare"))

    def _on_tab_changed(self, index: int) -> None:
        for name, at in self._LAZY_TABS.items():
            if at == index:
                self._tab(name)
        self._widen_for(index)

    def _widen_for(self, index: int) -> None:
        """Compare shown: the tabs take the chart's width too; another tab: the chart is back.

        A comparison of several models needs the room (issue 23, item 5: at 1920 x 1080 its
        chart was 110 px wide, its table scrolled); the live chart and headline are of one
        model, the compare table's first row. The splitter's sizes come back as they were.
        """
        wide = index == self._LAZY_TABS["compare"]
        centre = self.centre_splitter
        if wide == centre.isHidden():
            return
        if wide:
            self._narrow_sizes = self.splitter.sizes()
            centre.hide()
        else:
            centre.show()
            self.splitter.setSizes(self._narrow_sizes)

    def _tab(self, name: str) -> QWidget:
        """Tab ``name``, put in place of its placeholder the first time it is asked for."""
        page = self._tab_pages.get(name)
        if page is not None:
            return page
        c = self.controller
        if name == "fits":
            # on first use: not on the window's start-up path (built or run after the first paint)
            from vramdesk.gui.tabs.fits import FitsTab

            page = FitsTab(c)
        elif name == "kv":
            # on first use: not on the window's start-up path (built or run after the first paint)
            from vramdesk.gui.tabs.kv_growth import KvGrowthTab

            page = KvGrowthTab(c)
        elif name == "speed":
            # on first use: not on the window's start-up path (built or run after the first paint)
            from vramdesk.gui.tabs.speed_chart import SpeedChartTab

            page = SpeedChartTab(c)
        else:
            # on first use: not on the window's start-up path (built or run after the first paint)
            from vramdesk.gui.tabs.compare import CompareTab

            page = CompareTab(c, self.library)
        self._tab_pages[name] = page
        index, current = self._LAZY_TABS[name], self.tabs.currentIndex()
        title, placeholder = self.tabs.tabText(index), self.tabs.widget(index)
        with QSignalBlocker(self.tabs):
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, page, title)
            self.tabs.setCurrentIndex(current)
        if shiboken6.isValid(placeholder):  # a random GUI session once crashed here (SIGSEGV)
            placeholder.deleteLater()
        return page

    def _build_docks(self, gpu_query: Callable[[], Any] | None) -> None:
        # the inputs take the window's whole height on the left; the panels below share the rest
        self.inputs_dock = QDockWidget(self.tr("Inputs"), self)
        self.inputs_dock.setObjectName("inputs_dock")
        self.inputs_dock.setWidget(self.form_scroll.panel)  # the fields over their error strip
        self.inputs_dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.inputs_dock.setTitleBarWidget(QWidget())
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.inputs_dock)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.presets_panel = PresetsPanel(self.library)
        # two rows of presets at least: the list scrolls, and the chart keeps its height
        presets = self.presets_panel.list
        presets.setMinimumHeight(2 * (presets.fontMetrics().lineSpacing() + 6) + 4)
        self.presets_dock = self._dock(self.tr("My presets"), self.presets_panel, "presets_dock")
        # the GPU and local-model panels sit behind "My presets": their docks (and tabs) are
        # made now, the panels themselves after the first paint or when first used
        self._gpu_query = gpu_query
        self._gpu_panel: QWidget | None = None
        self._local_models: LocalModelsPanel | None = None
        self._panels_built = False
        self.gpu_dock = None
        if importlib.util.find_spec("vramdesk.gui.panels.gpu") is not None:
            self.gpu_dock = self._dock(self.tr("Local GPUs"), QWidget(), "gpu_dock")
            self.tabifyDockWidget(self.presets_dock, self.gpu_dock)
        self.local_dock = self._dock(
            self.tr("Models on this machine"), QWidget(), "local_models_dock"
        )
        self.tabifyDockWidget(self.presets_dock, self.local_dock)
        self.presets_dock.raise_()
        for dock in (self.gpu_dock, self.local_dock):
            if dock is not None:
                dock.visibilityChanged.connect(self._on_panel_dock_shown)
        # the scan (a worker thread) and the NVML query start after the first paint, or a
        # little later in a window never shown: neither delays the window's first frame
        self._after_paint_started = False
        self._first_paint = _FirstPaint(self.chart.plot.viewport(), self._after_first_paint)
        QTimer.singleShot(AFTER_PAINT_FALLBACK_MS, self, self._after_first_paint)

    @property
    def gpu_panel(self) -> QWidget | None:
        """The local GPU panel (None when this build has none); built on first use."""
        self._build_panels()
        return self._gpu_panel

    @property
    def local_models(self) -> LocalModelsPanel:
        """The "Models on this machine" panel; built on first use."""
        self._build_panels()
        assert self._local_models is not None
        return self._local_models

    def _on_panel_dock_shown(self, visible: bool) -> None:
        if visible:
            self._build_panels()

    def _build_panels(self) -> None:
        """Put the GPU and local-model panels into their docks (once)."""
        if self._panels_built:
            return
        self._panels_built = True
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.gui.panels.local_models import LocalModelsPanel

        self._local_models = LocalModelsPanel(self.controller, self.settings)
        self._local_models.message.connect(self.show_message)
        self._fill_dock(self.local_dock, self._local_models)
        if self.gpu_dock is not None:
            self._gpu_panel = self._make_gpu_panel(self._gpu_query)
            self._fill_dock(self.gpu_dock, self._gpu_panel)

    @staticmethod
    def _fill_dock(dock: QDockWidget, panel: QWidget) -> None:
        placeholder = dock.widget()
        dock.setWidget(panel)
        if dock.isVisible():
            panel.show()  # QDockWidget.setWidget leaves a new widget of a shown dock hidden
        if placeholder is not None:
            placeholder.deleteLater()

    def _dock(self, title: str, widget: QWidget, name: str) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        return dock

    def _make_gpu_panel(self, gpu_query: Callable[[], Any] | None) -> QWidget:
        """Build the local GPU panel (gui/panels/gpu.py); its snapshots feed the controller."""
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.gui.panels.gpu import GpuPanel

        panel = GpuPanel(
            refresh_on_start=False,  # NVML is asked after the first paint (_after_first_paint)
            **({"query": gpu_query} if gpu_query is not None else {}),
        )
        panel.gpusChanged.connect(self.controller.set_local_snapshot)
        panel.queryFailed.connect(self._on_gpu_query_failed)
        panel.gpusChanged.connect(self._on_gpus_changed)
        self.controller.unitChanged.connect(panel.set_unit)
        panel.set_unit(self.controller.unit)
        return panel

    def _after_first_paint(self) -> None:
        """Once, after the first paint: scan for local models and ask NVML for the GPUs.

        Both run on worker threads; started before the first frame they would compete with
        building it (issue 11).
        """
        if self._after_paint_started or not shiboken6.isValid(self):
            return  # done already, or the window is gone (closed: see closeEvent)
        self._after_paint_started = True
        self.firstPainted.emit()
        self._build_panels()
        self.local_models.refresh()
        if self._gpu_panel is not None:
            self._gpu_panel.refresh()

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        file_menu.addAction(self.tr("Import model config…"), self.model_form._on_import_clicked)
        self.drops.populate(file_menu)
        if importlib.util.find_spec("vramdesk.gui.dialogs.calibrate") is not None:
            file_menu.addAction(self.tr("Calibrate from an engine log…"), self.open_calibration)
        self.exports.populate(file_menu)
        file_menu.addSeparator()
        self.launch_commands.populate(file_menu)
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
        # GiB | GB in the menu bar's corner: no toolbar row taken from a laptop screen's height
        units_bar = QToolBar(self.tr("Units"))
        units_bar.setObjectName("units_toolbar")
        units_bar.addActions(self.unit_actions)
        bar.setCornerWidget(units_bar, Qt.Corner.TopRightCorner)
        self.units_bar = units_bar
        view.addSeparator()
        view.addAction(self.presets_dock.toggleViewAction())
        view.addAction(self.local_dock.toggleViewAction())
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
        self.help_menu = HelpMenu(self, bar)

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

    # ------------------------------------------------------------ geometry
    def available_geometry(self) -> QRect:
        """The available geometry of the screen the window is on (or the primary screen)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry()

    def current_frame_margins(self) -> QMargins:
        """The window manager's frame around the window (a guess until it is shown)."""
        margins = frame_margins(self.frameGeometry(), self.geometry())
        if self.isVisible() and not margins.isNull():
            return margins
        return FRAME_GUESS if not self.isVisible() else margins

    def place_on(self, available: QRect, first: bool = False) -> None:
        """Size the window for ``available`` (a screen's available geometry) and lay it out.

        ``first``: a first start, the preferred size or the room there is, centred; otherwise
        the current geometry (e.g. restored from the last session) is clamped so that the
        frame lies inside ``available``. The panes are then shared out for the new width.
        """
        margins = self.current_frame_margins()
        if first:
            self.first_start = True
            target = first_geometry(available, margins)
        else:
            target = fit_geometry(self.geometry(), available, margins)
        if self.isMaximized() or self.isFullScreen():
            return
        if target != self.geometry():
            self.setGeometry(target)
        self.apportion(target.size())

    def apportion(self, size: QSize) -> None:
        """Share ``size`` among the forms, the chart and the tabs; the docks get a small height."""
        # the inputs as wide as they like, up to a third of the window (never below their minimum)
        left = max(self.form_scroll.minimumWidth(), min(self._inputs_width, size.width() // 3))
        rest = max(0, size.width() - left)
        centre = rest // 2
        self._narrow_sizes = [centre, rest - centre]  # also the sizes after a wide Compare
        self.splitter.setSizes(self._narrow_sizes)
        if hasattr(self, "inputs_dock"):
            self.resizeDocks([self.inputs_dock], [left], Qt.Orientation.Horizontal)
        height = size.height()
        self.centre_splitter.setSizes([height * 2 // 3, height // 3])
        names = ("presets_dock", "gpu_dock", "local_dock")
        docks = [getattr(self, name, None) for name in names]
        docks = [d for d in docks if d is not None]
        if docks:
            dock_height = min(170, max(120, height // 5))
            self.resizeDocks(docks, [dock_height] * len(docks), Qt.Orientation.Vertical)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """Once shown, the frame is known: fit the window to its screen again."""
        super().showEvent(event)
        if not self._fitted_after_show:
            self._fitted_after_show = True
            QTimer.singleShot(0, self._fit_after_show)

    def _fit_after_show(self) -> None:
        if shiboken6.isValid(self) and self.isVisible():
            self.place_on(self.available_geometry(), first=self.first_start)

    # ------------------------------------------------------------- slots
    def open_calibration(self) -> QWidget:
        """Open the calibration dialog (gui/dialogs/calibrate.py) on the current inputs."""
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.gui.dialogs.calibrate import CalibrateDialog

        c = self.controller
        dialog = CalibrateDialog(
            self,
            lambda: (c.model, c.weights, c.workload, c.runtime),
            self._load_log_model,
            lambda: (
                list(self._local_models.found.models)
                if self._local_models is not None and self._local_models.found is not None
                else []
            ),
        )
        dialog.calibrationSaved.connect(lambda _name: self.library.presetsChanged.emit())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def _load_log_model(self, target: tuple[str, object]) -> bool:
        """Load the model a calibration log names: a bundled preset (slug) or a local model."""
        kind, what = target
        if kind == "local":
            return self.local_models.load_entry(what)
        # on first use: the bundled presets load only when a log names one
        from vramdesk.core.store.bundled import bundled_model

        return self.controller.load_model_preset(bundled_model(str(what)))

    def _sync_unit_actions(self, unit: Unit) -> None:
        for action in self.unit_actions:
            action.setChecked(action.data() == unit.label)

    def _show_local_verdict(self, *_args: object) -> None:
        verdict = self.controller.local_verdict()
        self.verdict.setVisible(verdict is not None)
        if verdict is not None:
            self.verdict.setText(tr_note(verdict.text))
            tint(self.verdict, "ok" if verdict.fits else "error", "font-weight: 600;")

    def _on_field_invalid(self, field: str, reason: str) -> None:
        self._field_message = f"{field}: {reason}"
        self.show_message(self._field_message)

    def _on_fields_valid(self) -> None:
        """A refusal fixed: its status message goes with its mark."""
        if self._field_message and self.statusBar().currentMessage() == self._field_message:
            self.statusBar().clearMessage()
        self._field_message = ""

    def _show_stale_banner(self) -> None:
        """Say, above the chart, that the figures ignore a refused typed value."""
        text = self.controller.stale_text(self.form_column.label_for)
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
        """Save the session and stop the GPU panel's and the solve's workers before closing."""
        self._after_paint_started = True  # closed before its first paint: start no worker
        save_session(self, self.settings)
        self.controller.solver.shutdown()
        for panel in (self._local_models, self._gpu_panel):  # built ones only
            if panel is not None:
                panel.shutdown()
        super().closeEvent(event)
