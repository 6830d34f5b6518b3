"""Drag and drop onto the window, and File → Open recent.

A ``config.json``, a model folder, a ``.safetensors`` or a ``.gguf`` dropped anywhere on
the window is imported through :meth:`ModelForm.import_path`, exactly as File → Import
does. Every successful import (dropped, picked in the dialog, or reopened: the form's
``imported`` signal) goes to the front of the recent list, kept in the settings
(``recent/models``, at most :data:`MAX_RECENT`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from vramdesk.gui.forms.model_form import ModelForm

RECENT_KEY = "recent/models"
MAX_RECENT = 10
#: What a drop may carry: files by suffix, or a folder.
SUFFIXES = (".json", ".safetensors", ".gguf")


def importable(path: Path) -> bool:
    """Whether ``path`` is something File → Import reads (a folder or a known suffix)."""
    return path.is_dir() or (path.is_file() and path.suffix.lower() in SUFFIXES)


def dropped_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
    """The local files and folders a drag carries that can be imported, in order."""
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    paths = [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()]
    return [p for p in paths if importable(p)]


class RecentFiles(QObject):
    """The most recently imported model paths, newest first, kept in ``settings``."""

    changed = Signal()

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings

    def paths(self) -> list[str]:
        """The kept paths, newest first."""
        value = self.settings.value(RECENT_KEY, [])
        return [str(v) for v in (value if isinstance(value, list) else [value]) if v]

    def add(self, path: str | Path) -> None:
        """Put ``path`` first (once), keeping at most :data:`MAX_RECENT`."""
        text = str(Path(path))
        kept = [text] + [p for p in self.paths() if p != text]
        self.settings.setValue(RECENT_KEY, kept[:MAX_RECENT])
        self.changed.emit()

    def clear(self) -> None:
        """Forget every path."""
        self.settings.setValue(RECENT_KEY, [])
        self.changed.emit()


class DropImporter(QObject):
    """Event filter that imports what is dropped on a window, and the File → Open recent menu.

    Parameters
    ----------
    form : ModelForm
        Its :meth:`~ModelForm.import_path` is the one import path.
    recent : RecentFiles
        Where successful imports are recorded.
    """

    def __init__(self, form: ModelForm, recent: RecentFiles, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.form, self.recent = form, recent
        self.menu: QMenu | None = None

    def install(self, window) -> None:  # noqa: ANN001 - a QWidget
        """Accept drops on ``window`` and filter its drag events."""
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Accept a drag carrying an importable path; import it on drop."""
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if dropped_paths(event):
                event.acceptProposedAction()
                return True
            return False
        if kind == QEvent.Type.Drop:
            paths = dropped_paths(event)
            if paths:
                event.acceptProposedAction()
                self.open(paths[0])
                return True
        return False

    def open(self, path: str | Path) -> bool:
        """Import ``path`` as File → Import does (the form records it as recent)."""
        return self.form.import_path(Path(path))

    # ------------------------------------------------------------ the menu
    def populate(self, file_menu: QMenu) -> QMenu:
        """Add File → Open recent, rebuilt each time it opens."""
        self.menu = file_menu.addMenu(self.tr("Open &recent"))
        self.menu.setObjectName("recent_menu")
        self.menu.aboutToShow.connect(self.rebuild)
        self.rebuild()
        return self.menu

    def rebuild(self) -> None:
        """One action per recent path (missing ones disabled), then Clear."""
        menu = self.menu
        if menu is None:
            return
        menu.clear()
        paths = self.recent.paths()
        for i, text in enumerate(paths, start=1):
            action = menu.addAction(f"&{i % 10} {Path(text).name}  —  {text}")
            action.setData(text)
            action.setEnabled(Path(text).exists())
            action.triggered.connect(lambda _c=False, p=text: self.open(p))
        if not paths:
            menu.addAction(self.tr("(none yet)")).setEnabled(False)
        menu.addSeparator()
        menu.addAction(self.tr("Clear recent"), self.recent.clear).setEnabled(bool(paths))
