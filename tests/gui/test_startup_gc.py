"""The window starts with the cyclic garbage collector off, and turns it on after its first paint.

Issue 11: everything allocated before the first frame (modules, Qt's enums, the window) lives
on, so collections during start-up only walk the growing heap again (about 40 ms of a 0.43 s
start on two cores). The collector must come back on after the first paint, and on every way
out of :func:`vramdesk.gui.app.main` and :func:`vramdesk.cli.main`.
"""

from __future__ import annotations

import gc

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from vramdesk import cli
from vramdesk.gui import app as gui_app


@pytest.fixture(autouse=True)
def _gc_back_on():
    yield
    gc.enable()  # whatever a failing test left behind


def _main_with_event_loop(qapp, monkeypatch, run) -> int:
    """``gui_app.main([])`` with ``run`` in place of the event loop; the app starts iconless."""
    monkeypatch.setenv("VRAMDESK_FAKE_NVML", "error:no_driver")
    monkeypatch.setattr(qapp, "exec", run)
    icon_before = qapp.windowIcon()
    qapp.setWindowIcon(QIcon())
    try:
        return gui_app.main([])
    finally:
        qapp.setWindowIcon(icon_before)


def _close(window) -> None:
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_the_window_opens_without_the_gc_and_turns_it_on_after_its_first_paint(
    qtbot, qapp, monkeypatch
):
    seen: dict[str, bool] = {}
    hosts = []
    opened = gui_app.WindowHost.open_window

    def open_window(host):
        seen["while building"] = gc.isenabled()
        opened(host)
        hosts.append(host)

    def run_until_painted():
        window = hosts[0].window
        seen["before the first paint"] = gc.isenabled()
        with qtbot.waitSignal(window.firstPainted, timeout=5000):
            pass  # the window is shown: the event loop paints it
        seen["after the first paint"] = gc.isenabled()
        seen["icon after the first paint"] = not qapp.windowIcon().isNull()
        _close(window)
        return 0

    monkeypatch.setattr(gui_app.WindowHost, "open_window", open_window)
    assert gc.isenabled()
    assert _main_with_event_loop(qapp, monkeypatch, run_until_painted) == 0
    assert seen == {
        "while building": False,
        "before the first paint": False,
        "after the first paint": True,
        "icon after the first paint": True,  # set then: loading the SVG engine takes ~3 ms
    }
    assert gc.isenabled()


def test_the_gc_is_on_again_when_the_window_cannot_open(monkeypatch, capsys):
    monkeypatch.setattr(gui_app.QApplication, "instance", staticmethod(lambda: None))
    monkeypatch.setattr(gui_app, "display_problem", lambda: "vramdesk: no display (test)")
    assert gui_app.main([]) == gui_app.EXIT_NO_DISPLAY
    assert "no display (test)" in capsys.readouterr().err
    assert gc.isenabled()


def test_plain_vramdesk_turns_the_gc_off_before_the_window_module_runs(monkeypatch):
    # cli._run_gui turns it off before importing the window (PySide6, pyqtgraph, numpy are
    # imported there in a fresh process); the window's main is what sees it off
    seen = []
    monkeypatch.setattr(gui_app, "main", lambda argv: seen.append(gc.isenabled()) or 0)
    assert cli.main([]) == 0
    assert seen == [False]
    assert gc.isenabled()  # and on again when the window's main returns, however it returns


def test_the_gc_is_on_again_when_the_window_raises(monkeypatch):
    def broken(argv):
        raise RuntimeError("no window (test)")

    monkeypatch.setattr(gui_app, "main", broken)
    with pytest.raises(RuntimeError, match="no window"):
        cli.main([])
    assert gc.isenabled()


def test_a_window_replaced_before_its_first_paint_still_turns_the_gc_on(qtbot, qapp, monkeypatch):
    # a language switch rebuilds the window; the first one, closed before it painted, never
    # says so: the hooks are connected to every window the host opens
    hosts = []
    opened = gui_app.WindowHost.open_window

    def open_window(host, *args):
        opened(host, *args)
        if not hosts:
            hosts.append(host)

    seen = {}

    def switch_then_run():
        host = hosts[0]
        first = host.window
        first.languageRequested.emit("en")  # before anything was painted
        assert host.window is not first
        with qtbot.waitSignal(host.window.firstPainted, timeout=5000):
            pass
        seen["gc"] = gc.isenabled()
        seen["icon"] = not qapp.windowIcon().isNull()
        _close(host.window)  # the first one was deleted by the switch
        return 0

    monkeypatch.setattr(gui_app.WindowHost, "open_window", open_window)
    assert _main_with_event_loop(qapp, monkeypatch, switch_then_run) == 0
    assert seen == {"gc": True, "icon": True}
