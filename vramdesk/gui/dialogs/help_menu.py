"""Help menu: About (version and licence from the package metadata) and the formulas.

Both dialogs are modeless (``show()``): the numbers stay visible beside the formulas, and a
test can open and close them without a nested event loop.
"""

from __future__ import annotations

import html
import platform

import PySide6
from PySide6.QtCore import QCoreApplication, Qt, qVersion
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QMenuBar,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

import vramdesk
from vramdesk.core.present.how_computed import HOW_COMPUTED
from vramdesk.core.store.bundled import license_file

#: Where Qt for Python's licences and terms are (The Qt Company).
QT_LICENSING_URL = "https://www.qt.io/licensing/"


def licence() -> str:
    """The licence the installed package declares (``MIT``), or ``unknown``."""
    from importlib.metadata import PackageNotFoundError, metadata  # on use: not at start-up

    try:
        meta = metadata("vramdesk")
    except PackageNotFoundError:
        return "unknown"
    return meta.get("License-Expression") or meta.get("License") or "unknown"


def _dialog(parent: QWidget, title: str, name: str, body: QWidget) -> QDialog:
    dialog = QDialog(parent)
    dialog.setObjectName(name)
    dialog.setWindowTitle(title)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    layout = QVBoxLayout(dialog)
    layout.addWidget(body, 1)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.close)
    layout.addWidget(buttons)
    return dialog


class HelpMenu:
    """Adds Help -> About vramdesk and Help -> How the numbers are computed to ``bar``."""

    def __init__(self, window: QMainWindow, bar: QMenuBar) -> None:
        self.window = window
        menu = bar.addMenu(QCoreApplication.translate("HelpMenu", "&Help"))
        menu.setObjectName("help_menu")
        self.formulas_action = menu.addAction(
            QCoreApplication.translate("HelpMenu", "How the numbers are computed"),
            self.open_formulas,
        )
        self.formulas_action.setObjectName("help_formulas")
        menu.addSeparator()
        self.about_action = menu.addAction(
            QCoreApplication.translate("HelpMenu", "About vramdesk"), self.open_about
        )
        self.about_action.setObjectName("help_about")
        self.menu = menu

    def about_text(self) -> str:
        """The About text: version, licences (ours and Qt for Python's), what it runs on."""
        return "<br>".join(
            [
                f"<b>vramdesk {vramdesk.__version__}</b>",
                QCoreApplication.translate(
                    "HelpMenu", "Will this LLM fit in GPU memory under this traffic?"
                ),
                QCoreApplication.translate("HelpMenu", "Licence: {0}").format(licence()),
                QCoreApplication.translate("HelpMenu", "Licence text: {0}").format(
                    html.escape(str(license_file()))
                ),
                QCoreApplication.translate(
                    "HelpMenu",
                    "The window uses Qt for Python (PySide6 and Qt), under the GNU LGPL 3.0: "
                    "its licences and terms are at {0}.",
                ).format(f'<a href="{QT_LICENSING_URL}">{QT_LICENSING_URL}</a>'),
                QCoreApplication.translate("HelpMenu", "Python {0}, Qt {1}, PySide6 {2}").format(
                    platform.python_version(), qVersion(), PySide6.__version__
                ),
                QCoreApplication.translate(
                    "HelpMenu",
                    "Offline: nothing is sent anywhere. The command line gives the same numbers "
                    "(vramdesk --help).",
                ),
            ]
        )

    def open_about(self) -> QDialog:
        """Show the About dialog (modeless) and return it."""
        label = QLabel(self.about_text())
        label.setObjectName("about_text")
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        label.setOpenExternalLinks(True)  # the Qt licensing page, in the user's browser
        label.setMinimumWidth(label.fontMetrics().averageCharWidth() * 60)  # lines, not a column
        dialog = _dialog(
            self.window,
            QCoreApplication.translate("HelpMenu", "About vramdesk"),
            "about_dialog",
            label,
        )
        dialog.show()
        return dialog

    def open_formulas(self) -> QDialog:
        """Show the formulas (the README's table, :mod:`vramdesk.core.present.how_computed`)."""
        browser = QTextBrowser()
        browser.setObjectName("formulas_text")
        browser.setOpenExternalLinks(False)
        browser.setMarkdown(HOW_COMPUTED)
        title = QCoreApplication.translate("HelpMenu", "How the numbers are computed")
        dialog = _dialog(self.window, title, "formulas_dialog", browser)
        available = self.window.screen().availableGeometry()
        dialog.resize(min(900, available.width() * 9 // 10), min(600, available.height() * 8 // 10))
        dialog.show()
        return dialog
