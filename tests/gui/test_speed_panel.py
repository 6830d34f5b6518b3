"""The speed panel beside the verdict shows the core's figures (issue 25)."""

from __future__ import annotations

from vramdesk.core.store.bundled import bundled_model
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.panels.speed import SpeedPanel


def test_speed_panel_follows_the_target(qtbot):
    c = ScenarioController()
    panel = SpeedPanel(c)
    qtbot.addWidget(panel)
    panel.show()  # shown: it follows each edit on the next turn of the event loop
    c.load_model_preset(bundled_model("llama-3.1-8b"))
    c.set_field("target", "gpu:H100 80GB")
    report = c.speed()
    # the figures are the core's, formatted: the ceiling of test_speed.py's derivation
    wanted = (
        f"Decode {report.decode_tokens_per_s:,.1f} / ceiling "
        f"{report.decode_ceiling_tokens_per_s:,.1f} tokens/s per sequence"
    )
    qtbot.waitUntil(lambda: panel.summary.text().startswith(wanted), timeout=5000)
    assert "decode step >= max(bytes read / bandwidth, FLOPs / peak)" in panel.summary.toolTip()
    c.set_field("target", "gpu:Generic 80 GiB")
    qtbot.waitUntil(lambda: "has no memory bandwidth" in panel.summary.text(), timeout=5000)
    c.set_field("target", "custom")
    qtbot.waitUntil(
        lambda: panel.summary.text().startswith("Speed: pick a catalog GPU"), timeout=5000
    )


def test_the_window_shows_it_in_the_solver_pane(make_main_window, qtbot):
    window = make_main_window(show=True)
    layout = window.solver_tab.layout()
    # the default target (RTX 4090) has speed facts: the figures, not a hint
    qtbot.waitUntil(lambda: window.speed_panel.summary.text().startswith("Decode "), timeout=5000)
    assert layout.itemAt(layout.count() - 1).widget() is window.speed_panel


def test_one_edit_computes_the_speed_once(make_main_window, monkeypatch, qtbot):
    # found in review: breakdownChanged and solveChanged each recomputed it
    from vramdesk.core import speed as speed_module

    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: window.speed_panel.summary.text() != "", timeout=5000)
    calls = []
    real = speed_module.speed
    monkeypatch.setattr(speed_module, "speed", lambda *a, **k: calls.append(1) or real(*a, **k))
    window.controller.set_field("batch", 3)
    qtbot.wait(300)
    assert len(calls) == 1


def test_behind_another_tab_it_computes_nothing_until_shown(make_main_window, monkeypatch, qtbot):
    # issue 24: the panel sits in the solver's pane; with another tab in front an edit
    # computes no speed, and showing the pane again computes it once, for the last edit
    from vramdesk.core import speed as speed_module

    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: window.speed_panel.summary.text() != "", timeout=5000)
    calls = []
    real = speed_module.speed
    monkeypatch.setattr(speed_module, "speed", lambda *a, **k: calls.append(1) or real(*a, **k))
    window.tabs.setCurrentIndex(1)  # "Fits"
    for batch in (3, 5, 7):
        window.controller.set_field("batch", batch)
    qtbot.wait(300)
    assert calls == []
    window.tabs.setCurrentIndex(0)
    qtbot.waitUntil(lambda: len(calls) == 1, timeout=5000)
    qtbot.wait(100)
    assert len(calls) == 1
    # batch 7 shown: the panel's figures are those of the last edit (the core's own speed)
    report = window.controller.speed()
    assert f"({report.aggregate_decode_tokens_per_s:,.0f} / " in window.speed_panel.summary.text()
