"""The presets panel: save, load, rename, delete, import and export user presets (SPEC §5)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.errors import VramdeskError
from vramdesk.gui.panels.library import PresetLibrary


class PresetsPanel(QWidget):
    """The user's presets with the actions on them; bundled models live in the model picker."""

    message = Signal(str)

    def __init__(self, library: PresetLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.last_error = ""
        self.list = QListWidget()
        self.list.setObjectName("user_presets")
        self.list.itemDoubleClicked.connect(lambda _i: self.load_selected())
        buttons = QGridLayout()
        actions = [
            (self.tr("Load"), self.load_selected),
            (self.tr("Delete"), self.delete_selected),
            (self.tr("Save model…"), lambda: self._ask_save("model")),
            (self.tr("Save workload…"), lambda: self._ask_save("workload")),
            (self.tr("Save scenario…"), lambda: self._ask_save("scenario")),
            (self.tr("Rename…"), self._ask_rename),
            (self.tr("Import file…"), self._ask_import),
            (self.tr("Export file…"), self._ask_export),
        ]
        for i, (text, slot) in enumerate(actions):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button, i // 4, i % 4)
        layout = QVBoxLayout(self)
        layout.addWidget(self._build_notice())
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        library.presetsChanged.connect(self.refresh)
        self.refresh()

    def _build_notice(self) -> QWidget:
        """A banner for notices that must stay until read (files set aside), hidden by default."""
        self.notice_bar = QWidget()
        self.notice_bar.setObjectName("presets_notice")
        # the text's colour set with the light banner's, so that a dark scheme keeps it readable
        self.notice_bar.setStyleSheet(
            "#presets_notice { background: #fdf2d0; } #presets_notice QLabel { color: #3d2e00; }"
        )
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        dismiss = QPushButton(self.tr("Dismiss"))
        dismiss.clicked.connect(self.notice_bar.hide)
        row = QHBoxLayout(self.notice_bar)
        row.addWidget(self.notice, 1)
        row.addWidget(dismiss)
        self.notice_bar.hide()
        return self.notice_bar

    def show_notice(self, text: str) -> None:
        """Show ``text`` in the banner until the user dismisses it."""
        self.notice.setText(text)
        self.notice_bar.show()

    def refresh(self) -> None:
        """List the user's presets: name and kind."""
        self.list.clear()
        for user in self.library.user_presets():
            item = QListWidgetItem(f"{user.name}  [{user.kind}]")
            item.setData(Qt.ItemDataRole.UserRole, user.slug)
            item.setToolTip(str(user.path))
            self.list.addItem(item)

    def selected_slug(self) -> str | None:
        """Slug of the selected preset, or None."""
        item = self.list.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def select(self, slug: str) -> None:
        """Select the preset ``slug`` in the list."""
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == slug:
                self.list.setCurrentRow(i)

    def _guard(self, action, *args):  # noqa: ANN001, ANN202 - small dispatcher
        try:
            return action(*args)
        except (VramdeskError, OSError) as exc:
            self.last_error = str(exc)
            self.message.emit(self.last_error)
            return None

    # --------------------------------------------------- actions (testable)
    def save_as(self, name: str, kind: str) -> str | None:
        """Save the current inputs as a ``kind`` preset; return its slug."""
        user = self._guard(self.library.save, name, kind)
        if user is not None:
            self.select(user.slug)
            self.message.emit(self.tr("Saved {0} preset “{1}”").format(kind, user.name))
        return None if user is None else user.slug

    def load_selected(self) -> None:
        """Load the selected preset into the forms (computes once)."""
        slug = self.selected_slug()
        if slug is not None:
            self._guard(self.library.load, slug)

    def rename_selected(self, new_name: str) -> None:
        """Rename the selected preset."""
        slug = self.selected_slug()
        if slug is not None:
            user = self._guard(self.library.rename, slug, new_name)
            if user is not None:
                self.select(user.slug)

    def delete_selected(self) -> None:
        """Delete the selected preset."""
        slug = self.selected_slug()
        if slug is not None:
            self._guard(self.library.delete, slug)

    def import_path(self, path: Path) -> bool:
        """Import a preset file; False (and ``message`` emitted) when it failed."""
        user = self._guard(self.library.import_file, path)
        if user is not None:
            self.select(user.slug)
        return user is not None

    def export_selected(self, path: Path) -> None:
        """Export the selected preset to ``path``."""
        slug = self.selected_slug()
        if slug is not None and self._guard(self.library.export, slug, path) is not None:
            self.message.emit(self.tr("Exported to {0}").format(path))

    # ---------------------------------------------------------- dialogs
    def _ask_save(self, kind: str) -> None:
        name, ok = QInputDialog.getText(
            self, self.tr("Save preset"), self.tr("Name of the {0} preset:").format(kind)
        )
        if ok and name.strip():
            self.save_as(name, kind)

    def _ask_rename(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Rename preset"), self.tr("New name:"))
        if ok and name.strip():
            self.rename_selected(name)

    def _ask_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import preset"), "", "JSON (*.json)")
        if path and not self.import_path(Path(path)):
            QMessageBox.warning(self, self.tr("Import preset"), self.last_error)

    def _ask_export(self) -> None:
        if self.selected_slug() is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export preset"), f"{self.selected_slug()}.json", "JSON (*.json)"
        )
        if path:
            self.export_selected(Path(path))
