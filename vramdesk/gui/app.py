"""The application entry: QApplication, translator, settings, the window, the event loop.

``vramdesk`` with no arguments calls :func:`main`. The environment variable
``VRAMDESK_QUIT_AFTER_MS`` closes the window after that many milliseconds (smoke
tests, screenshots). SIGTERM (a logout, ``kill``, a service manager) closes the window as
its close button does, so that its session is saved (:func:`close_on_sigterm`).
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import sys
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QRect, QSocketNotifier, QTimer, QTranslator
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from vramdesk.core.store.bundled import resources_dir
from vramdesk.gui.display import FatalQtMessage, display_problem, release_connections
from vramdesk.gui.settings import (
    japanese_ui_family,
    load_translator,
    open_settings,
    resolve_language,
)

QUIT_ENV = "VRAMDESK_QUIT_AFTER_MS"
#: Exit status when the window cannot open here (no display, a missing Qt library): as bad input.
EXIT_NO_DISPLAY = 2


class WindowHost:
    """Owns the translator and the window; switching language rebuilds the window in place."""

    def __init__(self, app: QApplication) -> None:
        self.app = app
        self.settings = open_settings()
        self.translator: QTranslator | None = None
        self.window = None
        #: Called at the first paint of each window this host opens (``firstPainted``): a
        #: window replaced before it painted (a language switch) never emits it.
        self.first_paint_hooks: list[Callable[[], object]] = []
        self.install_language(str(self.settings.value("language", "system")))

    def install_language(self, choice: str) -> None:
        """Install the translator for ``choice`` (``system``, ``en`` or ``ja``)."""
        if self.translator is not None:
            self.app.removeTranslator(self.translator)
        language = resolve_language(choice)
        self.translator = load_translator(language)
        if self.translator is not None:
            self.app.installTranslator(self.translator)
        self._set_ui_font(language)

    def _set_ui_font(self, language: str) -> None:
        """Japanese: a family with a real bold face, so bold labels stay bold."""
        # on first use: not on the window's start-up path (built or run after the first paint)
        from PySide6.QtGui import QFont, QFontDatabase

        if not hasattr(self, "_default_font"):
            self._default_font = QFont(self.app.font())
        family = (
            japanese_ui_family(QFontDatabase.families(), QFontDatabase.styles)
            if language == "ja"
            else None
        )
        font = QFont(self._default_font)
        if family is not None:
            font.setFamilies([family, *self._default_font.families()])
        self.app.setFont(font)

    def open_window(self, geometry: QRect | None = None) -> None:
        """Build and show the window (restoring the last session from the settings).

        ``geometry``: the client rectangle to open at (a language switch keeps the old one).
        """
        # imported here, after the QApplication exists and with the cyclic GC off (cli._run_gui)
        from vramdesk.gui.main_window import MainWindow

        self.window = MainWindow(self.settings)
        self.window.languageRequested.connect(self.switch_language)
        for hook in self.first_paint_hooks:
            self.window.firstPainted.connect(hook)
        if geometry is not None:
            # the client rectangle itself: restoreGeometry's frame position came back a title
            # bar lower under a window manager (issue 23, item 10)
            self.window.setGeometry(geometry)
        self.window.show()

    def switch_language(self, choice: str) -> None:
        """Remember ``choice``, then rebuild the window with the new translation."""
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.gui.window_state import save_session

        self.settings.setValue("language", choice)
        old = self.window
        save_session(old, self.settings)
        self.install_language(choice)
        self.open_window(old.geometry() if not (old.isMaximized() or old.isFullScreen()) else None)
        old.close()
        old.deleteLater()


def set_window_icon(app: QApplication) -> None:
    """Give every window of ``app`` the vramdesk icon (``resources/icons/vramdesk.svg``)."""
    icon = resources_dir() / "icons" / "vramdesk.svg"
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))


def close_on_sigterm(app: QApplication) -> None:
    """On SIGTERM, close every window (each saves its session, as on a close) and quit.

    Qt's event loop runs in C++, where a Python signal handler waits for the next Python
    bytecode; the signal's wake-up byte on a socket pair wakes the loop at once
    (``signal.set_wakeup_fd``, read by a ``QSocketNotifier``).
    """
    if not hasattr(signal, "SIGTERM") or getattr(app, "_sigterm_sockets", None) is not None:
        return  # no such signal here, or installed already (main run again on one app)
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    try:
        signal.set_wakeup_fd(writer.fileno())
    except ValueError:  # not the main thread: leave the default (the process ends)
        reader.close()
        writer.close()
        return
    signal.signal(signal.SIGTERM, lambda _signum, _frame: None)  # the byte does the work
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, app)

    def on_signal() -> None:
        try:
            numbers = reader.recv(64)  # one byte per signal caught: its number
        except OSError:
            return
        if signal.SIGTERM in numbers:
            app.closeAllWindows()
            app.quit()

    notifier.activated.connect(on_signal)
    app._sigterm_sockets = (reader, writer, notifier)  # kept for the application's life


#: Qt's switch that keeps its raster painting on the thread that paints (read once, at the first
#: paint: set before QApplication).
SERIAL_RASTER_ENV = "QT_NO_GUI_THREADPOOL"


def serial_raster() -> None:
    """Make Qt's raster engine fill on the painting thread, not on its GUI thread pool.

    Qt 6 hands each fill of 96 spans or more (a table row's background, a scroll bar's
    groove, a bar of the chart) to ``QGuiApplicationPrivate::qtGuiThreadPool`` and waits for
    it; for the small shapes of this window the hand-off costs more than the fill: a Fusion
    scroll bar 14 x 259 px painted in 0.62-0.82 ms, 0.060-0.106 ms with the pool off
    (``tests/benchmarks/bench_paint.py``, four runs in two sessions, Qt 6.11 offscreen, two
    cores: 7.6-11x), and one keystroke painted such a bar up to three times (issue 24).
    ``QT_NO_GUI_THREADPOOL`` is Qt's own switch (qtbase,
    ``src/gui/kernel/qguiapplication.cpp``, ``qtGuiThreadPool``): any value turns the pool
    off, read once when Qt first asks for the pool, so this runs before the QApplication (a
    value already in the environment is left as it is). Large image work (scaling an export
    to another size) then runs on one core too.
    """
    os.environ.setdefault(SERIAL_RASTER_ENV, "1")


def main(argv: list[str] | None = None) -> int:
    """Open the window and run the event loop; return the exit status.

    2 with one line on stderr when the window cannot open here (see
    :func:`vramdesk.gui.display.display_problem`).

    The cyclic garbage collector is off from here until the window's first paint (and on
    again however this returns). Everything allocated before the first frame (modules,
    Qt's enums, the window) lives on, so a collection then only walks the growing heap
    again: with it, start-up took about 40 ms more of 0.43 s on two cores (issue 11).
    ``vramdesk`` with no arguments turns it off earlier still, before PySide6, pyqtgraph
    and numpy are imported (:func:`vramdesk.cli.main`). Qt paints on this thread alone
    (:func:`serial_raster`).
    """
    gc.disable()
    serial_raster()
    try:
        return _open_and_run(list(sys.argv[1:] if argv is None else argv))
    finally:
        gc.enable()


def _open_and_run(argv: list[str]) -> int:
    app = QApplication.instance()
    if app is None:
        problem = display_problem()
        if problem is not None:
            print(problem, file=sys.stderr)
            return EXIT_NO_DISPLAY
        with FatalQtMessage():  # what the check could not foresee: still one line, exit 2
            app = QApplication(["vramdesk", *argv])
        release_connections()
    QCoreApplication.setApplicationName("vramdesk")
    QCoreApplication.setOrganizationName("vramdesk")
    # the desktop entry that `vramdesk install-desktop` writes: docks and Wayland compositors
    # match the window to it (and to its icon) by this name
    app.setDesktopFileName("vramdesk")
    close_on_sigterm(app)
    host = WindowHost(app)
    # the icon after the first frame: an SVG icon loads Qt's SVG engine first (about 3 ms)
    host.first_paint_hooks += [lambda: set_window_icon(app), gc.enable]
    host.open_window()
    quit_ms = os.environ.get(QUIT_ENV, "").strip()
    if quit_ms.isdigit():
        QTimer.singleShot(int(quit_ms), app.closeAllWindows)
    return app.exec()
