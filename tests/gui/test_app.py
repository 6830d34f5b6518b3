"""The application: a real launch, settings, exports, the local GPU and the Japanese UI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QLocale, QRect, QSettings
from PySide6.QtGui import QGuiApplication

from tests.export_parsing import read_csv, read_markdown
from tests.gui.conftest import one_gpu_snapshot
from vramdesk.core.local import budget, nvml
from vramdesk.core.model.formats import WeightFormat
from vramdesk.core.model.workload import Workload
from vramdesk.core.store.bundled import resources_dir
from vramdesk.core.store.serialize import from_dict
from vramdesk.core.units import Unit, to_unit
from vramdesk.gui.forms.fields import Target
from vramdesk.gui.main_window import AFTER_PAINT_FALLBACK_MS
from vramdesk.gui.settings import load_translator, open_settings, resolve_language, write_json

ROOT = Path(__file__).resolve().parents[2]


def test_app_launches_and_quits_with_a_timer(tmp_path):
    env = {
        **os.environ,
        "VRAMDESK_CONFIG_DIR": str(tmp_path),
        "VRAMDESK_QUIT_AFTER_MS": "500",
        "QT_QPA_PLATFORM": "offscreen",
        "VRAMDESK_FAKE_NVML": "error:no_driver",
    }
    code = "import sys; from vramdesk.gui.app import main; sys.exit(main([]))"
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    scenario = json.loads(settings.value("scenario"))
    # first start: 8192 tokens x 8 sequences (8192 is the Workload default, so not written)
    assert from_dict(Workload, scenario["parts"]["workload"]) == Workload(
        context_tokens=8192, batch=8
    )


def test_settings_remember_unit_and_last_scenario(make_main_window):
    first = make_main_window()
    first.controller.set_unit(Unit.GB)
    first.controller.set_field("context_tokens", 4096)
    first.controller.set_field("target", "gpu:H100 80GB")
    first.close()
    second = make_main_window()
    assert second.controller.unit is Unit.GB
    assert second.controller.workload.context_tokens == 4096
    assert second.controller.target.name == "H100 80GB"
    assert [a.isChecked() for a in second.unit_actions] == [False, True]


def test_a_restored_session_is_computed_once(make_main_window):
    # issue 11: the window computed four times while opening (defaults, custom capacity,
    # target, scenario), each publish re-syncing every form; the restore is now one load
    first = make_main_window()
    first.controller.set_field("custom_capacity", ("23.5", "GiB"))
    first.controller.set_field("target", "gpu:H100 80GB")
    first.controller.set_field("context_tokens", 4096)
    first.close()
    second = make_main_window()
    c = second.controller
    assert c.compute_count == 2  # the built-in default while building, then the session
    assert c.workload.context_tokens == 4096
    assert (c.target.kind, c.target.name) == ("gpu", "H100 80GB")
    assert c.target.custom_bytes == 47 * 2**29  # 23.5 GiB, kept for the custom entry
    assert not c.refused


def test_a_saved_target_no_longer_in_the_catalog_is_reported_and_left_out(make_main_window):
    first = make_main_window()
    first.controller.set_field("context_tokens", 4096)
    first.close()
    settings = open_settings()
    write_json(settings, "target", {"key": "gpu:No Such GPU", "custom_bytes": 2**30})
    settings.sync()
    second = make_main_window()
    c = second.controller
    assert c.workload.context_tokens == 4096  # the scenario is restored all the same
    assert c.target.name == Target().name and not c.refused  # the default GPU, nothing marked
    assert c.target.custom_bytes == 2**30
    message = second.statusBar().currentMessage()
    assert message.startswith("Last session not restored:") and "No Such GPU" in message


def test_a_refused_saved_scenario_keeps_the_saved_target(make_main_window):
    first = make_main_window()
    first.controller.set_field("target", "gpu:H100 80GB")
    first.close()
    settings = open_settings()
    scenario = json.loads(settings.value("scenario"))
    scenario["parts"]["model"]["num_key_value_heads"] = 128  # 32 attention heads
    write_json(settings, "scenario", scenario)
    settings.sync()
    second = make_main_window()
    c = second.controller
    assert c.problem is not None and c.problem.field == "num_key_value_heads"
    assert (c.target.kind, c.target.name) == ("gpu", "H100 80GB")
    second.close()
    saved = json.loads(open_settings().value("target"))
    assert saved["key"] == "gpu:H100 80GB"  # not overwritten by the default


@pytest.mark.parametrize(
    ("saved", "reported"),
    [
        # a local GPU may be gone: the kind stays the default, the custom size is kept
        ({"key": "local:0:total", "custom_bytes": 25232932864}, None),
        ({"key": "gpu:H100 80GB", "custom_bytes": 10**32}, "custom_capacity"),
        ({"key": "custom", "custom_bytes": True}, None),  # a bool is not a byte count
        ("{not json", "target: not a JSON object"),
    ],
)
def test_a_saved_target_that_cannot_be_restored_is_skipped(make_main_window, saved, reported):
    make_main_window().close()
    settings = open_settings()
    if isinstance(saved, str):
        settings.setValue("target", saved)
    else:
        write_json(settings, "target", saved)
    settings.sync()
    window = make_main_window()
    c = window.controller
    assert not c.refused and c.problem is None
    message = window.statusBar().currentMessage()
    if reported is None:
        assert "not restored" not in message
    else:
        assert message.startswith("Last session not restored:") and reported in message
    default = Target()
    if saved == {"key": "local:0:total", "custom_bytes": 25232932864}:
        assert (c.target.kind, c.target.custom_bytes) == (default.kind, 25232932864)
    elif isinstance(saved, dict) and saved["key"] == "gpu:H100 80GB":
        assert (c.target.name, c.target.custom_bytes) == ("H100 80GB", default.custom_bytes)
    elif isinstance(saved, dict):  # "custom" with a bool size: custom, the default size
        assert (c.target.kind, c.target.custom_bytes) == ("custom", default.custom_bytes)
    else:
        assert c.target == default


def test_a_window_closed_before_its_first_paint_starts_no_worker(make_main_window, qtbot):
    window = make_main_window()
    window.close()
    qtbot.wait(AFTER_PAINT_FALLBACK_MS + 200)  # past the fallback that starts them
    assert not window.gpu_panel.is_querying()
    assert window.local_models.found is None and window.local_models._worker is None


def test_the_panels_behind_my_presets_are_built_after_the_first_paint(make_main_window, qtbot):
    # issue 11: the GPU and local-model panels (and NVML's module) wait for the first frame;
    # their docks and tabs are there from the start
    from vramdesk.gui.panels.gpu import GpuPanel
    from vramdesk.gui.panels.local_models import LocalModelsPanel

    snapshot = one_gpu_snapshot()
    window = make_main_window(gpu_query=lambda: snapshot)
    window.controller.set_unit(Unit.GB)  # chosen before the GPU panel exists
    assert window.gpu_dock.windowTitle() == "Local GPUs"
    assert not isinstance(window.gpu_dock.widget(), GpuPanel)
    assert not isinstance(window.local_dock.widget(), LocalModelsPanel)
    window.show()
    qtbot.waitUntil(lambda: isinstance(window.gpu_dock.widget(), GpuPanel), timeout=2000)
    assert isinstance(window.local_dock.widget(), LocalModelsPanel)
    panel = window.gpu_panel
    qtbot.waitUntil(lambda: panel.snapshot() is not None, timeout=5000)
    # 1,330 MiB = 1,394,606,080 B = 1.39 GB used of 24,564 MiB = 25,757,220,864 B = 25.76 GB;
    # free 23,234 MiB = 24,362,614,784 B = 24.36 GB
    assert panel.figures_text(snapshot.gpus[0]) == "1.39 GB used of 25.76 GB · 24.36 GB free"
    assert window.controller.local_snapshot is snapshot


def test_a_fresh_window_builds_only_the_default_model_preset(make_main_window, qtbot):
    # issue 11: the picker lists the 42 bundled presets from their files; only the one shown
    # is built at start-up, the others when loaded or compared
    from vramdesk.core.store import bundled

    bundled.bundled_models.cache_clear()
    bundled.bundled_model.cache_clear()
    window = make_main_window()
    assert bundled.bundled_model.cache_info().currsize == 1
    box = window.model_form.preset_box
    assert box.count() == len(bundled.bundled_model_index())
    assert box.currentText() == "Llama-3.1-8B (bundled, read-only)"
    window.controller.set_field("num_hidden_layers", 31)  # now no preset holds the draft
    assert box.currentText() == "Custom (edited)"
    assert bundled.bundled_model.cache_info().currsize == box.count() - 1  # all compared
    window.controller.set_field("num_hidden_layers", 32)
    assert box.currentText() == "Llama-3.1-8B (bundled, read-only)"


def test_exports_carry_the_core_figures(make_main_window, tmp_path):
    window = make_main_window()
    b = window.controller.breakdown
    exports = window.exports
    data = json.loads(exports.export_breakdown(tmp_path / "b.json").read_text(encoding="utf-8"))
    assert data == {**data, **b.to_dict()}  # every figure, after what it is of
    exports.export_breakdown(tmp_path / "b.csv")
    _facts, rows = read_csv((tmp_path / "b.csv").read_bytes().decode("utf-8"))
    assert [r[1] for r in rows[1:]] == [str(p.bytes) for p in b.parts] + [str(b.total_bytes)]
    md = exports.export_breakdown(tmp_path / "b.md").read_text(encoding="utf-8")
    _facts, table = read_markdown(md)
    assert table[0][:2] == ["part", "bytes"] and table[-1][1] == str(b.total_bytes)
    png = exports.export_chart(tmp_path / "chart.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = exports.export_chart(tmp_path / "chart.svg")
    assert ET.parse(svg).getroot().tag.endswith("svg")
    assert exports.export_chart(tmp_path / "chart.gif") is None
    assert ".png or .svg" in window.statusBar().currentMessage()
    exports.copy_breakdown("md")
    assert QGuiApplication.clipboard().text() == md


def test_comparison_export(make_main_window, tmp_path):
    window = make_main_window()
    window.compare_tab.set_checked(["bundled:7b-class"])
    data = json.loads(
        window.exports.export_comparison(tmp_path / "c.json").read_text(encoding="utf-8")
    )
    rows = window.compare_tab.rows  # the model the window shows, then the ticked preset
    assert [r.name for r in rows] == ["This model: Llama-3.1-8B", "7B-class (source documents)"]
    # the command line's compare JSON: the target (RTX 4090, 24,564 MiB), then per model its
    # breakdown and the headline's verdict (the verdict walk of issue 23 item 1 pins the rule)
    assert data["budget"] == "RTX 4090" and data["capacity_bytes"] == 24_564 * 2**20
    verdicts = window.controller.compare_fits(rows)
    assert [m["verdict"] for m in data["models"]] == [
        {"fits": "fits", "tight": "tight", "no": "does_not_fit"}[v] for v in verdicts
    ]
    # the key estimate and solve give the model name (issue 23, item 9; "name" before)
    assert [(m["model"], m["breakdown"]) for m in data["models"]] == [
        (r.name, r.breakdown.to_dict()) for r in rows
    ]


def test_local_gpu_feeds_target_chart_and_verdict(make_main_window, qtbot, solved):
    snapshot = one_gpu_snapshot()
    window = make_main_window(gpu_query=lambda: snapshot)
    c = window.controller
    qtbot.waitUntil(lambda: c.local_snapshot is snapshot, timeout=5000)
    target = window.forms[4]
    assert "local:0:total" in target.choices("target") and "local:0:free" in target.choices(
        "target"
    )
    box = target.fields["target"]
    box.setCurrentIndex(target.choices("target").index("local:0:free"))
    free = budget.local_budget_bytes(snapshot, (0,), "free")
    assert c.capacity_bytes() == budget.local_per_gpu_bytes(snapshot, (0,), "free") == free
    solved(window)
    assert c.solve_result.capacity_bytes == free
    window.chart.redraw()
    # the capacity line is the free memory itself: no second line on top of it
    assert (
        window.chart.capacity_line.value() == to_unit(free)
        and not window.chart.free_line.isVisible()
    )
    box.setCurrentIndex(target.choices("target").index("local:0:total"))
    window.chart.redraw()
    assert window.chart.free_line.isVisible() and window.chart.free_line.value() == to_unit(free)
    verdict = budget.fits_now(c.breakdown.total_bytes, free)
    assert window.verdict.text() == verdict.text and not window.verdict.isHidden()


def test_a_local_target_gone_from_the_snapshot_draws_no_capacity(make_main_window, qtbot):
    # issue 22 item 8 (found by the random session): the chart and the compare tab asked for
    # the target's capacity, which raises once the chosen local GPU is not in the snapshot
    # (unplugged, or an NVML query answering no GPU); each redraw was a traceback
    from vramdesk.core.local.gpu_info import NvmlSnapshot

    snapshot = one_gpu_snapshot()
    window = make_main_window(gpu_query=lambda: snapshot)
    c = window.controller
    qtbot.waitUntil(lambda: c.local_snapshot is snapshot, timeout=5000)
    target = window.forms[4]
    target.fields["target"].setCurrentIndex(target.choices("target").index("local:0:free"))
    assert c.shown_capacity_bytes() == budget.local_budget_bytes(snapshot, (0,), "free")
    window.compare_tab.set_checked(["bundled:7b-class"])
    empty = NvmlSnapshot(
        driver_version="550.54", nvml_version="12.550", cuda_driver_version=12040, gpus=()
    )
    c.set_local_snapshot(empty)
    assert c.shown_capacity_bytes() is None
    window.chart.redraw()
    window.compare_tab.refresh()
    assert not window.chart.capacity_line.isVisible()
    fits = c.compare_fits(window.compare_tab.rows)
    assert fits and set(fits) == {None}  # no capacity: no row is said to fit or not


def test_a_mig_gpu_is_offered_and_drawn_as_the_instance_an_engine_gets(
    make_main_window, qtbot, monkeypatch
):
    # issue 26: a CUDA process sees one MIG instance; the A100 fake's instances have
    # 40192 MiB = 39.25 GiB each, 39168 MiB free (the parent: 80 GiB, 79872 MiB free)
    from tests.fake_nvml import MIB, FakeNvml, a100_mig

    FakeNvml(monkeypatch, [a100_mig()])
    snapshot = nvml.query_gpus()
    window = make_main_window(gpu_query=lambda: snapshot)
    qtbot.waitUntil(lambda: window.controller.local_snapshot is snapshot, timeout=5000)
    box = window.forms[4].fields["target"]
    assert "local GPU 0 (total, 39.25 GiB)" in [box.itemText(i) for i in range(box.count())]
    window.chart.redraw()
    assert window.chart.free_line.value() == to_unit(39168 * MIB)


def test_without_a_gpu_there_is_no_free_line(make_main_window, qtbot):
    window = make_main_window()
    qtbot.waitUntil(lambda: "NVIDIA" in window.statusBar().currentMessage(), timeout=5000)
    window.chart.redraw()
    assert not window.chart.free_line.isVisible() and window.verdict.isHidden()


def test_japanese_translation_is_compiled_and_used(make_main_window):
    source = resources_dir() / "i18n" / "vramdesk_ja.ts"
    root = ET.parse(source).getroot()
    wanted = {}
    for ctx in root.iter("context"):
        for msg in ctx.iter("message"):
            wanted[(ctx.find("name").text, msg.find("source").text)] = msg.find("translation").text
    assert all(wanted.values()), "every message has a Japanese translation"
    translator = load_translator("ja")
    assert translator is not None
    app = QCoreApplication.instance()
    app.installTranslator(translator)
    try:
        window = make_main_window()
        assert window.tabs.tabText(0) == wanted[("MainWindow", "Reverse solver")]
        assert window.model_form.title() == wanted[("ModelForm", "Model")]
    finally:
        app.removeTranslator(translator)


def test_language_follows_the_system_locale():
    assert resolve_language("system", QLocale("ja_JP")) == "ja"
    assert resolve_language("system", QLocale("de_DE")) == "en"
    assert resolve_language("en", QLocale("ja_JP")) == "en"
    assert load_translator("en") is None


@pytest.mark.qt_log_ignore("propagateSizeHints")  # the offscreen platform, on show()
def test_language_switch_rebuilds_the_window_in_japanese(qtbot, monkeypatch):
    monkeypatch.setenv("VRAMDESK_FAKE_NVML", "error:no_driver")
    from vramdesk.gui.app import WindowHost

    host = WindowHost(QCoreApplication.instance())
    host.open_window()
    first = host.window
    first.controller.set_field("batch", 5)
    qtbot.waitExposed(first)
    qtbot.wait(50)  # its fit to the screen after show
    first.setGeometry(QRect(40, 60, 700, 500))  # moved by the user (the screen is 800 x 800)
    QCoreApplication.processEvents()
    placed = first.geometry()
    wanted = {
        (c.find("name").text, m.find("source").text): m.find("translation").text
        for c in ET.parse(resources_dir() / "i18n" / "vramdesk_ja.ts").getroot().iter("context")
        for m in c.iter("message")
    }
    try:
        [a for a in first.language_actions if a.data() == "ja"][0].trigger()
        second = host.window
        assert second is not first and not first.isVisible()
        assert second.tabs.tabText(0) == wanted[("MainWindow", "Reverse solver")]
        assert second.controller.workload.batch == 5  # the session carried over
        # where the old window was, not a title bar lower (issue 23, item 10)
        qtbot.waitExposed(second)
        assert second.geometry().topLeft() == placed.topLeft()  # (wider: the Japanese minimum)
        qtbot.wait(50)
        placed = second.geometry()
        host.switch_language("en")
        assert host.window.tabs.tabText(0) == "Reverse solver"
        qtbot.waitExposed(host.window)
        # where the Japanese window was, at its size, unless that is under the English
        # window's own minimum: the Japanese window is fitted to this 800 px screen (796 px),
        # and the English minimum follows the fonts' metrics (803 px on a machine with DejaVu
        # Sans only and no CJK font, under 796 px on another)
        back = host.window
        assert back.geometry().topLeft() == placed.topLeft()
        assert back.size() == placed.size().expandedTo(back.minimumSizeHint())
    finally:
        host.install_language("en")
        for window in (first, second, host.window):
            if not shiboken6.isValid(window):
                continue  # deleted already (deleteLater ran while the test waited)
            window.close()
            window.gpu_panel.shutdown(5000)
            window.deleteLater()
        QCoreApplication.processEvents()


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_calibration_dialog_opens_on_the_current_inputs(make_main_window):
    window = make_main_window()
    dialog = window.open_calibration()
    c = window.controller
    assert dialog._provider() == (c.model, c.weights, c.workload, c.runtime)
    dialog.close()


def test_invalid_field_reason_is_translated_from_code_and_params(make_main_window):
    template = "must be a divisor of num_attention_heads ({heads})"
    translator = load_translator("ja")
    app = QCoreApplication.instance()
    app.installTranslator(translator)
    try:
        window = make_main_window()
        c = window.controller
        c.set_field("num_attention_heads", 32)
        c.set_field("num_key_value_heads", 5)
        wanted = QCoreApplication.translate("InputError", template)
        assert wanted != template  # a Japanese sentence is installed
        kv = window.model_form.fields["num_key_value_heads"]
        assert kv.toolTip() == f"num_key_value_heads: {wanted.format(heads=32)}"
    finally:
        app.removeTranslator(translator)
    # English: the core's own reason, unchanged
    c.set_field("num_key_value_heads", 6)
    assert kv.toolTip() == f"num_key_value_heads: {c.problem.reason}"


def test_vramdesk_without_arguments_opens_the_window_in_the_given_config_dir(tmp_path):
    config = tmp_path / "elsewhere"
    env = {
        **os.environ,
        "VRAMDESK_QUIT_AFTER_MS": "500",
        "QT_QPA_PLATFORM": "offscreen",
        "VRAMDESK_FAKE_NVML": "error:no_driver",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "vramdesk", "--config-dir", str(config)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert (config / "settings.ini").is_file()  # the window saved its session there


def test_unit_buttons_show_the_unit_on_first_start_and_stay_exclusive(make_main_window):
    window = make_main_window()
    checked = [a.data() for a in window.unit_actions if a.isChecked()]
    assert checked == [window.controller.unit.label] == ["GiB"]
    gb = next(a for a in window.unit_actions if a.data() == "GB")
    gb.trigger()
    assert [a.data() for a in window.unit_actions if a.isChecked()] == ["GB"]
    assert window.controller.unit.label == "GB"


def test_total_text_sits_above_the_capacity_line(make_main_window):
    window = make_main_window()
    c, chart = window.controller, window.chart
    # total just above (33 x 4096) and below (8 x 4096) an RTX 4090's capacity: both cases
    c.set_field("format", WeightFormat.INT4)
    c.set_field("context_tokens", 4096)
    for batch in (33, 8):
        c.set_field("batch", batch)
        chart.redraw()
        line_y = chart.capacity_line.value()
        total_y = to_unit(c.breakdown.total_bytes)
        assert chart.total_text.pos().y() == max(line_y, total_y)
        assert chart.total_text.anchor.y() > 1  # bottom edge a little above that height


def test_capacity_label_is_drawn_on_a_fresh_window(make_main_window, qtbot):
    # RTX 4090: 24,564 MiB = 23.99 GiB. The label's format is set once per change, and
    # pyqtgraph renders a format only while the line is visible: it must not stay empty
    from tests.gui.conftest import one_gpu_snapshot

    snapshot = one_gpu_snapshot()
    window = make_main_window(show=True, gpu_query=lambda: snapshot)
    qtbot.waitUntil(lambda: window.controller.local_snapshot is snapshot, timeout=5000)
    qtbot.wait(50)
    assert window.chart.capacity_line.label.toPlainText() == "RTX 4090\n23.99 GiB"
