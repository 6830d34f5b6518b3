"""The File menu's launch-command actions (issue 27.2, 27.3): paste one, copy one back.

"Paste launch command…" reads a ``vllm serve …`` / ``llama-server …`` / ``ollama run …`` /
``docker run …`` line (typed or pasted into the dialog, the clipboard's text filled in) with
the reader of ``vramdesk from-command``
(:func:`vramdesk.core.model.launch_scenario.launch_parts`) and loads what it sets into the
session; the flags read and ignored, and a model not on this machine, are said in the status
bar. "Copy launch command" puts on the clipboard the command that ``solve --emit`` prints for
the scenario shown, for the current engine (:func:`~vramdesk.core.model.launch_scenario.
scenario_command` at the solver's max concurrency).
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QVBoxLayout,
)

from vramdesk.core.errors import VramdeskError
from vramdesk.core.model.launch_scenario import (
    EMIT_TARGET,
    launch_parts,
    model_ref,
    scenario_command,
)

# The paste action's shortcut (Ctrl+V stays the text boxes' paste).
PASTE_SHORTCUT = "Ctrl+Shift+V"


class LaunchCommandMenu(QObject):
    """Paste a launch command into the session; copy the solved scenario's one."""

    def __init__(self, window: QMainWindow) -> None:
        # window: the main window, whose controller and show_message the actions use (typed
        # as its Qt base, so that this module does not import it)
        super().__init__(window)
        self.window = window

    def populate(self, menu: QMenu) -> None:
        """Add the paste and copy actions to ``menu``."""
        self.paste_action = menu.addAction(self.tr("Paste launch command…"), self.ask_paste)
        self.paste_action.setShortcut(QKeySequence(PASTE_SHORTCUT))
        self.copy_action = menu.addAction(self.tr("Copy launch command"), self.copy_command)

    @property
    def session(self):  # noqa: ANN201 - the window's ScenarioSession
        """The window's scenario session."""
        return self.window.controller.session

    # ------------------------------------------------------- testable actions
    def apply_text(self, text: str) -> bool:
        """Read launch command ``text`` into the session; say what was read. True: loaded."""
        shown = self.session.model
        try:
            read = launch_parts(text, shown.max_position_embeddings)
        except VramdeskError as exc:
            self.window.show_message(str(exc))
            return False
        launch = read.launch
        name = launch.model if "model" in read.parts else None
        loaded = self.session.load(**read.parts, name=name)
        none = self.tr("(none)")
        parts = [
            self.tr("Launch command read ({0})").format(launch.engine),
            self.tr("read: {0}").format(", ".join(launch.read) or none),
            self.tr("ignored: {0}").format(", ".join(launch.ignored) or none),
        ]
        if read.missing:
            parts.append(self.tr("model {0}").format(read.missing))
        self.window.show_message("; ".join(parts))
        return loaded

    def command_text(self) -> str | None:
        """The launch command of the scenario shown, for its engine; None (said) when none."""
        session = self.session
        runtime = session.runtime
        target = EMIT_TARGET.get(runtime.engine)
        if target is None:
            self.window.show_message(
                self.tr(
                    "{0} has no launch command: choose vLLM, SGLang, llama.cpp or Ollama"
                ).format(runtime.engine.value)
            )
            return None
        result = session.solve_result
        if result is None:
            self.window.show_message(self.tr("No solved scenario yet: try again in a moment"))
            return None
        ref = model_ref(target, session.preset_name, session.model.name)
        try:
            return scenario_command(target, session.workload, runtime, result.max_concurrency, ref)
        except VramdeskError as exc:
            self.window.show_message(str(exc))
            return None

    def copy_command(self) -> str | None:
        """Put :meth:`command_text` on the clipboard; return it."""
        text = self.command_text()
        if text is not None:
            QGuiApplication.clipboard().setText(text)
            self.window.show_message(self.tr("Launch command copied to the clipboard"))
        return text

    # ----------------------------------------------------------------- dialog
    def ask_paste(self) -> None:
        """Ask for the command in a multi-line box (the clipboard's text filled in)."""
        dialog = QDialog(self.window)
        dialog.setWindowTitle(self.tr("Paste launch command"))
        layout = QVBoxLayout(dialog)
        layout.addWidget(
            QLabel(
                self.tr(
                    "A vllm serve, python -m sglang.launch_server, llama-server, ollama run or "
                    "docker run command (lines joined at a trailing \\):"
                )
            )
        )
        box = QPlainTextEdit(dialog)
        box.setPlainText(QGuiApplication.clipboard().text())
        layout.addWidget(box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        layout.addWidget(buttons)
        self.dialog = dialog
        if dialog.exec() == QDialog.DialogCode.Accepted and box.toPlainText().strip():
            self.apply_text(box.toPlainText())
