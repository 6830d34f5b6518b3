"""No usable display: ``vramdesk`` exits 2 with one line, naming a missing Qt library if any."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from vramdesk.gui.display import (
    CLI_WORKS,
    display_problem,
    line_from_qt_messages,
    missing_libraries,
    platform_names,
    xcb_plugin_path,
)

ROOT = Path(__file__).resolve().parents[2]
linux_only = pytest.mark.skipif(sys.platform != "linux", reason="the X11/xcb checks are Linux's")

#: ``ldd libqxcb.so`` on a Debian 12 machine without libxcb-icccm4 and libxcb-keysyms1 (trimmed).
LDD_MISSING = """\
\tlinux-vdso.so.1 (0x00007f38c0a86000)
\tlibQt6XcbQpa.so.6 => /v/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f38c09b8000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f38bf5f0000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
"""

#: What Qt 6.11 printed before aborting on that machine (its guess names a library that was there).
QT_MESSAGES = [
    "From 6.5.0, xcb-cursor0 or libxcb-cursor0 is needed to load the Qt xcb platform plugin.",
    'Could not load the Qt platform plugin "xcb" in "" even though it was found.',
    "This application failed to start because no Qt platform plugin could be initialized. "
    "Reinstalling the application may fix this problem.\n\nAvailable platform plugins are: "
    "minimal, linuxfb, offscreen, xcb.\n",
]


def _run_vramdesk(env_changes, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    env.update(env_changes)
    env["VRAMDESK_CONFIG_DIR"] = str(tmp_path)
    env["VRAMDESK_QUIT_AFTER_MS"] = "300"  # were a window to open after all, it closes
    # An explicit runtime directory, empty and private (0700, as mkdtemp makes it), rather than
    # the caller's: without XDG_RUNTIME_DIR libwayland prints its own "error: XDG_RUNTIME_DIR
    # is invalid or not set" on stderr before Qt's fatal message, a second line that is not
    # ours; with the caller's, a socket of that name could exist. Made by mkdtemp, not under
    # tmp_path, whose deep path could take the socket's past the 108 bytes libwayland accepts.
    with tempfile.TemporaryDirectory(prefix="vd-xdg-") as runtime:
        env["XDG_RUNTIME_DIR"] = runtime
        return subprocess.run(
            [sys.executable, "-m", "vramdesk"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )


def _ldd_missing():
    """The test's own look at the xcb plugin: what ``ldd`` says is not found."""
    plugin = xcb_plugin_path()
    if plugin is None or shutil.which("ldd") is None:
        return []
    out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True).stdout
    return sorted({line.split()[0] for line in out.splitlines() if "not found" in line})


@linux_only
@pytest.mark.parametrize("platform_env", [{"QT_QPA_PLATFORM": "xcb"}, {}], ids=["xcb", "default"])
def test_no_display_exits_2_with_one_line(platform_env, tmp_path):
    proc = _run_vramdesk(platform_env, tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr  # not Qt's plugin text, not an abort (134)
    assert lines[0].startswith("vramdesk: the window cannot open: ")
    assert "there is no display" in lines[0] and "the command line works" in lines[0]
    for soname in _ldd_missing():  # on a machine without the xcb libraries, each is named
        assert soname in lines[0]
    assert proc.stdout == ""


@linux_only
def test_an_x_server_that_does_not_answer_is_one_line(tmp_path):
    number = next(n for n in range(917, 999) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    proc = _run_vramdesk({"QT_QPA_PLATFORM": "xcb", "DISPLAY": f":{number}"}, tmp_path)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.splitlines()
    if not _ldd_missing():
        assert f"the X server :{number} does not answer" in line
    assert line.endswith(CLI_WORKS)


@linux_only
def test_what_the_check_cannot_foresee_is_still_one_line(tmp_path):
    """A Wayland socket that is not there: the check lets Qt try, Qt's fatal error is caught."""
    proc = _run_vramdesk(
        {"QT_QPA_PLATFORM": "wayland", "WAYLAND_DISPLAY": "vramdesk-test-no-such-socket"}, tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith("vramdesk: the window cannot open: ") and line.endswith(CLI_WORKS)


def test_ldd_output_gives_each_missing_library_once():
    assert missing_libraries(LDD_MISSING) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert missing_libraries("\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x1)\n") == []


def test_missing_libraries_are_named_with_their_debian_packages():
    line = display_problem(
        {"DISPLAY": ":0"},
        platform="linux",
        missing=["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0"],
        answers=True,
    )
    assert line == (
        "vramdesk: the window cannot open: Qt's xcb platform plugin cannot load "
        "libxcb-icccm.so.4, libxcb-keysyms.so.1, libxcb-cursor.so.0 "
        "(Debian: apt install libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0); " + CLI_WORKS
    )
    both = display_problem({}, platform="linux", missing=["libxcb-icccm.so.4"])
    assert "cannot load libxcb-icccm.so.4" in both and "there is no display" in both


def test_nothing_is_reported_where_the_window_can_open():
    ok = {"DISPLAY": ":0"}
    assert display_problem(ok, platform="linux", missing=[], answers=True) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, platform="linux") is None
    cfg = {"QT_QPA_PLATFORM": "offscreen:configfile=/tmp/screens.json"}
    assert display_problem(cfg, platform="linux") is None
    assert display_problem({}, platform="win32") is None
    wayland = {"WAYLAND_DISPLAY": "wayland-0"}
    assert display_problem(wayland, platform="linux", missing=[]) is None
    assert platform_names(wayland) == ["wayland", "xcb"]
    assert platform_names({"QT_QPA_PLATFORM": "wayland;xcb"}) == ["wayland", "xcb"]


def test_qt_messages_become_one_line_naming_the_library():
    line = line_from_qt_messages(QT_MESSAGES)
    assert line == (
        "vramdesk: the window cannot open: Qt's xcb platform plugin needs "
        "xcb-cursor0 or libxcb-cursor0; " + CLI_WORKS
    )
    assert "\n" not in line
    reached = line_from_qt_messages(["qt.qpa.xcb: could not connect to display :42"])
    assert "there is no display: Qt could not connect to display :42" in reached
