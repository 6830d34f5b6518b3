"""Can the window open here? One line saying why not, before Qt aborts with its plugin text.

Qt picks its platform plugin when ``QApplication`` is built; when that fails (no X server,
or the ``xcb`` plugin cannot load a shared library) it prints several lines and aborts the
process (exit 134). :func:`display_problem` answers the same question beforehand, without
loading any Qt platform plugin:

* the platform Qt will use (``QT_QPA_PLATFORM``, else ``xcb`` or ``wayland`` on Linux);
* for ``xcb``: the shared libraries its plugin needs that the dynamic loader cannot find
  (``ldd`` on ``libqxcb.so``), named with their Debian packages, and whether the X server
  named by ``DISPLAY`` accepts a connection (``xcb_connect`` through ctypes);
* for ``wayland``: whether ``WAYLAND_DISPLAY`` is set.

:class:`FatalQtMessage` is the fallback for what that check cannot foresee: while the
application is built, it turns Qt's fatal message into the same one line and exit status 2.
Only Linux is checked; elsewhere Qt's own platform always exists.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

#: Sonames the xcb platform plugin and the Qt libraries under it link (Qt 6.5+; their ELF
#: ``NEEDED`` entries, the C and C++ runtimes aside) and the Debian package that ships each.
#: ``tools/install.sh`` installs every one of these packages that is missing
#: (tests/test_install_script.py checks both lists against the plugin itself).
DEBIAN_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libfreetype.so.6": "libfreetype6",
    "libzstd.so.1": "libzstd1",
    "libz.so.1": "zlib1g",
}

#: What to type after the reason: the command line needs no display.
CLI_WORKS = "the command line works without one (vramdesk --help)"

_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found\s*$", re.MULTILINE)
_LDD_TIMEOUT_S = 10


def platform_names(env: Mapping[str, str]) -> list[str]:
    """The platform plugins Qt will try, in order (``QT_QPA_PLATFORM``, else Linux's default).

    ``QT_QPA_PLATFORM`` may list several (``wayland;xcb``) and carry options
    (``offscreen:configfile=...``); the options are dropped. Unset: ``wayland`` first when
    ``WAYLAND_DISPLAY`` is set, then ``xcb`` (Qt 6's choice on Linux).
    """
    chosen = env.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return [part.split(":", 1)[0].strip() for part in chosen.split(";") if part.strip()]
    return ["wayland", "xcb"] if env.get("WAYLAND_DISPLAY") else ["xcb"]


def missing_libraries(ldd_output: str) -> list[str]:
    """Sonames ``ldd`` reports as ``not found``, each once, in the order it printed them."""
    return list(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def xcb_plugin_path() -> Path | None:
    """Where Qt's ``xcb`` platform plugin lies (None when this Qt has none)."""
    from PySide6.QtCore import QLibraryInfo  # QtCore only: loads no platform plugin

    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    path = plugins / "platforms" / "libqxcb.so"
    return path if path.is_file() else None


def xcb_missing_libraries() -> list[str]:
    """Shared libraries the ``xcb`` plugin needs and the loader cannot find ([] when unknown)."""
    plugin, ldd = xcb_plugin_path(), shutil.which("ldd")
    if plugin is None or ldd is None:
        return []
    try:
        proc = subprocess.run(
            [ldd, str(plugin)], capture_output=True, text=True, timeout=_LDD_TIMEOUT_S
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return missing_libraries(proc.stdout)


#: Connections opened by the check and held until Qt has its own (see :func:`x_server_answers`).
_HELD: list[tuple[ctypes.CDLL, int]] = []


def x_server_answers(display: str) -> bool | None:
    """Whether the X server ``display`` accepts a connection (None: libxcb cannot be loaded).

    A connection that succeeded is kept open until :func:`release_connections`: an X server
    with no other client (a bare Xvfb) resets when its last client leaves, and Qt connecting
    during that reset would fail.
    """
    import ctypes.util  # on use: only the command that opens the window asks

    name = ctypes.util.find_library("xcb")
    if name is None:
        return None
    try:
        xcb = ctypes.CDLL(name)
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)
    if xcb.xcb_connection_has_error(connection) != 0:
        xcb.xcb_disconnect(connection)  # also frees a connection in the error state
        return False
    _HELD.append((xcb, connection))
    return True


def release_connections() -> None:
    """Close the connections :func:`x_server_answers` kept (once Qt holds its own)."""
    while _HELD:
        xcb, connection = _HELD.pop()
        xcb.xcb_disconnect(connection)


def describe_missing(sonames: list[str]) -> str:
    """``Qt's xcb platform plugin cannot load libA, libB (Debian: apt install pkgA pkgB)``."""
    packages = [DEBIAN_PACKAGES[s] for s in sonames if s in DEBIAN_PACKAGES]
    text = "Qt's xcb platform plugin cannot load " + ", ".join(sonames)
    if packages:
        text += f" (Debian: apt install {' '.join(packages)})"
    return text


def display_problem(
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    missing: list[str] | None = None,
    answers: bool | None = None,
) -> str | None:
    """One line saying why the window cannot open here, or None when nothing is known wrong.

    Parameters
    ----------
    env : mapping, optional
        The environment (default ``os.environ``).
    platform : str, optional
        ``sys.platform`` (default); only ``linux`` is checked.
    missing : list of str, optional
        Sonames the xcb plugin lacks (default: :func:`xcb_missing_libraries`; tests pass them).
    answers : bool, optional
        Whether the X server answers (default: :func:`x_server_answers` on ``DISPLAY``).

    Returns
    -------
    str or None
        ``vramdesk: the window cannot open: <reasons>; the command line works ...``.
    """
    env = os.environ if env is None else env
    if (sys.platform if platform is None else platform) != "linux":
        return None
    names = platform_names(env)
    if names[0] != "xcb" and names[0] != "wayland":
        return None  # offscreen, minimal, vnc, eglfs...: no display server needed
    if names[0] == "wayland" and env.get("WAYLAND_DISPLAY"):
        return None
    reasons = []
    if "xcb" in names:
        lacking = xcb_missing_libraries() if missing is None else missing
        if lacking:
            reasons.append(describe_missing(lacking))
    display = env.get("DISPLAY", "").strip()
    if not display and not env.get("WAYLAND_DISPLAY"):
        reasons.append("there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)")
    elif display and not reasons and "xcb" in names:
        if (x_server_answers(display) if answers is None else answers) is False:
            reasons.append(f"there is no display: the X server {display} does not answer")
    if not reasons:
        return None
    return f"vramdesk: the window cannot open: {', and '.join(reasons)}; {CLI_WORKS}"


def line_from_qt_messages(messages: list[str]) -> str:
    """The one line for Qt's own messages about a platform plugin that could not start.

    Names a library Qt says it needs (``xcb-cursor0 or libxcb-cursor0``) or a display it
    could not reach; otherwise gives Qt's first message, cut to one line.
    """
    text = " ".join(m.strip().replace("\n", " ") for m in messages if m.strip())
    needed = re.search(r"(\S+(?: or \S+)?) is needed to load the Qt (\S+) platform plugin", text)
    display = re.search(r"could not connect to display ?(\S*)", text)
    if display:
        reason = f"there is no display: Qt could not connect to display {display.group(1)}".strip()
    elif needed:
        reason = f"Qt's {needed.group(2)} platform plugin needs {needed.group(1)}"
    else:
        first = next((m.strip().splitlines()[0] for m in messages if m.strip()), "unknown")
        reason = f"Qt's platform plugin did not start ({first[:200]})"
    return f"vramdesk: the window cannot open: {reason}; {CLI_WORKS}"


class FatalQtMessage:
    """While installed, Qt's fatal message exits with status 2 and one line instead of aborting.

    Use as a context manager around building the ``QApplication``; the messages Qt printed
    before the fatal one (the plugin's reasons) go into the line, not onto the terminal.
    """

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._previous = None

    def __enter__(self) -> FatalQtMessage:
        # on first use: Qt's message handler only once the display check has passed
        from PySide6.QtCore import qInstallMessageHandler

        self._previous = qInstallMessageHandler(self._handle)
        return self

    def __exit__(self, *_exc: object) -> None:
        # on first use: Qt's message handler only once the display check has passed
        from PySide6.QtCore import qInstallMessageHandler

        qInstallMessageHandler(self._previous)
        for text in self.messages:  # what Qt said while starting, now that it started
            print(text, file=sys.stderr)

    def _handle(self, kind: object, _context: object, message: str) -> None:
        # on first use: Qt's message handler only once the display check has passed
        from PySide6.QtCore import QtMsgType

        if kind == QtMsgType.QtFatalMsg:
            print(line_from_qt_messages([*self.messages, message]), file=sys.stderr, flush=True)
            os._exit(2)  # Qt aborts right after this handler returns
        self.messages.append(message)
