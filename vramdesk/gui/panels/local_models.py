"""The "Models on this machine" panel: what :func:`vramdesk.core.local.discovery.discover` finds.

The scan runs on the thread pool (:func:`vramdesk.gui.workers.run_in_thread`), one at a
time; the list fills batch by batch while it runs (a Hugging Face cache of 10,000 repos is
listed as it is read, issue 22), then shows the sorted result; a filter box narrows the
list by name, source or format; activating a row imports that model header-only and loads
it into the controller, as File → Import does.
Folders the user adds are kept in the settings (``local_models/dirs``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.errors import VramdeskError
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.workers import Worker, run_in_thread

if TYPE_CHECKING:  # imported by the first scan, after the window's first paint (issue 11)
    from vramdesk.core.local.discovery import Discovery, LocalModel

DIRS_KEY = "local_models/dirs"
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1


class LocalModelsPanel(QWidget):
    """A filterable list of the models on this machine; activating one loads it.

    Signals
    -------
    batchFound(object)
        A list of :class:`LocalModel` found by the running scan (emitted from its thread,
        delivered on the panel's: the rows are added as they come).
    scanFinished(object)
        The :class:`Discovery` of a finished scan (after the list is filled).
    message(str)
        A sentence for the status bar (a failed import or scan).
    """

    batchFound = Signal(object)
    scanFinished = Signal(object)
    message = Signal(str)

    def __init__(
        self,
        controller: ScenarioController,
        settings: QSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller, self.settings = controller, settings
        self.found: Discovery | None = None
        self._worker: Worker | None = None
        self._pending = False
        self._first_batch = True  # the next batch starts a new list
        self._batched = 0
        self.batchFound.connect(self._on_batch)
        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("local_models_filter")
        self.filter_edit.setPlaceholderText(self.tr("Filter by name, source or format"))
        self.filter_edit.setClearButtonEnabled(True)
        self.model = QStandardItemModel(0, 4, self)
        self.model.setHorizontalHeaderLabels(
            [self.tr("Name"), self.tr("Source"), self.tr("Format"), self.tr("Size on disk")]
        )
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterKeyColumn(-1)  # any column
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)
        self.view = self._make_view()
        self.status = QLabel()
        self.status.setObjectName("local_models_status")
        self.status.setWordWrap(True)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.clicked.connect(self.refresh)
        self.add_button = QPushButton(self.tr("Add folder…"))
        self.add_button.clicked.connect(self._on_add_clicked)
        self.use_button = QPushButton(self.tr("Use this model"))
        self.use_button.setObjectName("local_models_use")
        self.use_button.clicked.connect(self.load_selected)
        self._lay_out()

    def _make_view(self) -> QTreeView:
        view = QTreeView()
        view.setObjectName("local_models_view")
        view.setModel(self.proxy)
        view.setRootIsDecorated(False)
        view.setUniformRowHeights(True)
        view.setSortingEnabled(True)
        view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the scan's order until clicked
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        view.header().setStretchLastSection(False)
        view.activated.connect(self._on_activated)
        return view

    def _lay_out(self) -> None:
        buttons = QHBoxLayout()
        for b in (self.use_button, self.refresh_button, self.add_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)

    # ------------------------------------------------------------- scanning
    def extra_dirs(self) -> list[str]:
        """Folders the user added (kept in the settings)."""
        if self.settings is None:
            return []
        value = self.settings.value(DIRS_KEY, [])
        return [str(v) for v in (value if isinstance(value, list) else [value]) if v]

    def add_dir(self, folder: str | Path) -> None:
        """Remember ``folder`` and scan again."""
        dirs = self.extra_dirs()
        if str(folder) not in dirs and self.settings is not None:
            self.settings.setValue(DIRS_KEY, [*dirs, str(folder)])
        self.refresh()

    def refresh(self) -> None:
        """Scan on the thread pool; a scan asked for while one runs follows it."""
        if self._worker is not None:
            self._pending = True
            return
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.core.local import discovery

        self.status.setText(self.tr("Looking for models on this machine…"))
        extra = self.extra_dirs()
        self._first_batch, self._batched = True, 0
        emit = self.batchFound.emit  # from the worker thread: queued to this panel's thread
        self._worker = run_in_thread(
            lambda: discovery.discover(extra, emit), self._on_found, self._on_failed
        )

    def _on_batch(self, models: list[LocalModel]) -> None:
        """Add a batch of the running scan's models (unsorted until the scan ends)."""
        if self._first_batch:
            self.model.removeRows(0, self.model.rowCount())
            self._first_batch = False
        for entry in models:
            self.model.appendRow(self._row(entry))
        self._batched += len(models)
        self.status.setText(self.tr("%n model(s) found so far…", "", self._batched))

    def _on_found(self, found: Discovery) -> None:
        self._worker = None
        self.found = found
        self.model.removeRows(0, self.model.rowCount())
        for entry in found.models:
            self.model.appendRow(self._row(entry))
        self.view.resizeColumnToContents(1)
        self.view.resizeColumnToContents(2)
        self.view.resizeColumnToContents(3)
        text = self.tr("%n model(s) found", "", len(found.models))
        if found.problems:
            text += " · " + self.tr("%n could not be read", "", len(found.problems))
            self.status.setToolTip("\n".join(found.problems))
        self.status.setText(text)
        self.scanFinished.emit(found)
        self._run_pending()

    def _on_failed(self, exc: Exception) -> None:
        self._worker = None
        self.status.setText(self.tr("The scan failed: {0}").format(exc))
        self.message.emit(self.status.text())
        self._run_pending()

    def _run_pending(self) -> None:
        if self._pending:
            self._pending = False
            self.refresh()

    @staticmethod
    def _row(entry: LocalModel) -> list[QStandardItem]:
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.core.local.discovery import human_size

        cells = [entry.name, entry.source, entry.format, human_size(entry.size_bytes)]
        items = [QStandardItem(text) for text in cells]
        items[0].setData(entry, ENTRY_ROLE)
        items[0].setToolTip(entry.path)
        items[3].setData(entry.size_bytes, Qt.ItemDataRole.UserRole)
        items[3].setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return items

    def shutdown(self) -> None:
        """Drop a scan in flight (the window is closing) and wait briefly for it."""
        if self._worker is not None:
            self._worker.abandon()
            self._worker.wait(2000)

    # ------------------------------------------------------------- loading
    def visible_names(self) -> list[str]:
        """Names of the rows the filter lets through, in view order."""
        return [self.proxy.index(r, 0).data() for r in range(self.proxy.rowCount())]

    def _on_activated(self, index) -> None:  # noqa: ANN001 - a QModelIndex
        self.load_row(index.row())

    def load_selected(self) -> bool:
        """Load the selected row (the first visible one when none is selected)."""
        rows = self.view.selectionModel().selectedRows()
        if rows:
            return self.load_row(rows[0].row())
        return self.load_row(0) if self.proxy.rowCount() else False

    def load_row(self, row: int) -> bool:
        """Import the model on view row ``row`` header-only and load it into the form."""
        return self.load_entry(self.proxy.index(row, 0).data(ENTRY_ROLE))

    def load_entry(self, entry: LocalModel) -> bool:
        """Import ``entry`` header-only and load it into the form (a message when unreadable)."""
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.core.local.discovery import load_local

        try:
            imported = load_local(entry)
        except (VramdeskError, OSError) as exc:
            self.message.emit(self.tr("Cannot read {0}: {1}").format(entry.name, exc))
            return False
        runtime, notes = self._with_projector(entry, tuple(imported.notes))
        return self.controller.load(
            model=imported.model,
            weights=imported.weights,
            runtime=runtime,
            name=entry.name,
            origin=self.tr("Local: {0}").format(entry.name),
            notes=notes,
        )

    def _with_projector(self, entry: LocalModel, notes: tuple[str, ...]) -> tuple[Any, tuple]:
        """The runtime with the vision projector found beside ``entry`` (llama.cpp, Ollama).

        A projector of the model before is dropped; one under another engine is named in the
        notes but not counted (only llama.cpp's ``--mmproj`` loads it).
        """
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.core.local.importers._mmproj import projector_bytes
        from vramdesk.core.model.runtime import Engine

        runtime = self.controller.session.runtime
        size = None
        if entry.mmproj:
            try:
                size = projector_bytes(entry.mmproj)
            except (VramdeskError, OSError) as exc:
                return runtime.replace(mmproj_bytes=None), (
                    *notes,
                    self.tr("vision projector not read: {0}").format(exc),
                )
            name = Path(entry.mmproj).name
            if runtime.engine in (Engine.LLAMA_CPP, Engine.OLLAMA):
                notes += (self.tr("vision projector {0}: {1} bytes").format(name, f"{size:,}"),)
            else:
                notes += (
                    self.tr("vision projector {0}: counted under llama.cpp only").format(name),
                )
                size = None
        if runtime.mmproj_bytes == size:
            return None, notes
        return runtime.replace(mmproj_bytes=size), notes

    def _on_add_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder of models"))
        if folder:
            self.add_dir(folder)
