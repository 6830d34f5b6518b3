"""The speed panel beside the verdict shows the core's figures (issue 25)."""

from __future__ import annotations

from vramdesk.core.store.bundled import bundled_model
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.panels.speed import SpeedPanel


def test_speed_panel_follows_the_target(qtbot):
    c = ScenarioController()
    panel = SpeedPanel(c)
    qtbot.addWidget(panel)
    c.load_model_preset(bundled_model("llama-3.1-8b"))
    c.set_field("target", "gpu:H100 80GB")
    report = c.speed()
    # the figures are the core's, formatted: the ceiling of test_speed.py's derivation
    assert panel.summary.text().startswith(
        f"Decode {report.decode_tokens_per_s:,.1f} / ceiling "
        f"{report.decode_ceiling_tokens_per_s:,.1f} tokens/s per sequence"
    )
    assert "decode step >= max(bytes read / bandwidth, FLOPs / peak)" in panel.summary.toolTip()
    c.set_field("target", "gpu:Generic 80 GiB")
    assert "has no memory bandwidth" in panel.summary.text()
    c.set_field("target", "custom")
    assert panel.summary.text().startswith("Speed: pick a catalog GPU")


def test_the_window_shows_it_in_the_solver_pane(make_main_window):
    window = make_main_window()
    layout = window.solver_tab.layout()
    # the default target (RTX 4090) has speed facts: the figures, not a hint
    assert window.speed_panel.summary.text().startswith("Decode ")
    assert layout.itemAt(layout.count() - 1).widget() is window.speed_panel


def test_one_edit_computes_the_speed_once(make_main_window, monkeypatch, qtbot):
    # found in review: breakdownChanged and solveChanged each recomputed it
    from vramdesk.core import speed as speed_module

    window = make_main_window()
    calls = []
    real = speed_module.speed
    monkeypatch.setattr(speed_module, "speed", lambda *a, **k: calls.append(1) or real(*a, **k))
    window.controller.set_field("batch", 3)
    qtbot.wait(300)
    assert len(calls) == 1
