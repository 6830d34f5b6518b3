"""A scenario preset is applied the same way wherever it is picked (issue 23, item 3).

Every field is set as a person sets it (keys typed into fields, combo boxes stepped with the
arrow keys, buttons clicked), saved with "Save scenario…", changed, then brought back with
"Load" and with the Model picker: both give the same session, equal to the one saved.
"""

from __future__ import annotations

import json
from fractions import Fraction

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from tests.gui.keyboard import pick, type_text
from vramdesk.core.model.formats import KVDtype, WeightFormat
from vramdesk.core.model.runtime import Engine
from vramdesk.core.store.bundled import find_model
from vramdesk.core.store.presets import PresetStore
from vramdesk.core.store.serialize import to_dict


def _button(panel, text):
    [button] = [b for b in panel.findChildren(QPushButton) if b.text() == text]
    return button


def _click(qtbot, widget):
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _select(qtbot, panel, slug):
    lst = panel.list
    row = next(i for i in range(lst.count()) if lst.item(i).data(Qt.ItemDataRole.UserRole) == slug)
    rect = lst.visualItemRect(lst.item(row))
    qtbot.mouseClick(lst.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert panel.selected_slug() == slug


def _state(c):
    """Everything a preset can set, and what the window shows about where it came from."""
    return (
        c.scenario_dict(),
        c.target,
        c.layer_pattern,
        c.preset_name,
        c.model_origin,
        c.breakdown,
    )


def _field(window, name):
    for form in (window.model_form, *window.forms):
        if name in form.fields:
            return form.fields[name]
    raise KeyError(name)


def _choose(qtbot, window, name, value):
    """Step the choice field ``name`` to ``value`` with the arrow keys."""
    form = next(f for f in (window.model_form, *window.forms) if name in f.fields)
    pick(qtbot, form.fields[name], value, lambda: form.choices(name))


def _save_scenario(qtbot, window, monkeypatch, name):
    from vramdesk.gui.panels import presets as presets_panel

    monkeypatch.setattr(presets_panel.QInputDialog, "getText", lambda *a, **k: (name, True))
    _click(qtbot, _button(window.presets_panel, "Save scenario…"))
    return window.presets_panel.selected_slug()


def test_every_field_round_trips_and_the_picker_applies_it_as_load_does(
    make_main_window, qtbot, monkeypatch, config_dir, solved
):
    # a calibrated runtime (as 'vramdesk calibrate --save' writes it) brings the engine version
    PresetStore().save(
        "H100 vLLM 0.11",
        "runtime",
        {"runtime": {"engine": "vllm", "engine_version": "0.11.0", "non_torch_bytes": 139586437}},
    )
    window = make_main_window(show=True)
    c, panel = window.controller, window.presets_panel
    panel.refresh()
    _select(qtbot, panel, "h100-vllm-0-11")
    _click(qtbot, _button(panel, "Load"))
    assert (c.runtime.engine, c.runtime.engine_version) == (Engine.VLLM, "0.11.0")
    pick(qtbot, window.model_form.preset_box, "bundled:qwen3-8b")
    type_text(qtbot, _field(window, "num_hidden_layers"), "30")  # an edited model
    _choose(qtbot, window, "format", WeightFormat.INT8)
    type_text(qtbot, _field(window, "context_tokens"), "16384")
    type_text(qtbot, _field(window, "batch"), "6")
    type_text(qtbot, _field(window, "prompt_len"), "2048")
    _choose(qtbot, window, "kv_dtype", KVDtype.FP8)
    type_text(qtbot, _field(window, "gpu_memory_utilization"), "0.85")
    type_text(qtbot, _field(window, "block_size"), "32")
    _choose(qtbot, window, "target", "gpu:H100 80GB")
    solved(window)
    assert c.model.num_hidden_layers == 30 and c.weights.format is WeightFormat.INT8
    assert (c.workload.context_tokens, c.workload.batch, c.workload.prompt_len) == (
        16384,
        6,
        2048,
    )
    assert c.workload.kv_dtype is KVDtype.FP8
    assert c.runtime.gpu_memory_utilization == Fraction(85, 100) and c.runtime.block_size == 32
    assert c.runtime.non_torch_bytes == 139586437
    assert c.target.name == "H100 80GB"

    slug = _save_scenario(qtbot, window, monkeypatch, "Long plan")
    saved = _state(c)
    doc = json.loads((config_dir / "presets" / f"{slug}.json").read_text(encoding="utf-8"))
    assert doc["schema_version"] == 2 and doc["kind"] == "scenario"
    assert doc["model"]["num_hidden_layers"] == 30 and doc["weights"] == {"format": "int8"}
    assert doc["workload"] == {
        "context_tokens": 16384,
        "batch": 6,
        "kv_dtype": "fp8",
        "prompt_len": 2048,
    }
    assert doc["runtime"] == {
        "gpu_memory_utilization": "0.85",
        "block_size": 32,
        "engine": "vllm",
        "engine_version": "0.11.0",
        "non_torch_bytes": 139586437,
    }
    assert doc["target"] == {"gpu": "H100 80GB"}

    def change_everything():
        pick(qtbot, window.model_form.preset_box, "bundled:llama-3.1-8b")
        type_text(qtbot, _field(window, "context_tokens"), "4096")
        _choose(qtbot, window, "kv_dtype", KVDtype.FP16)
        _choose(qtbot, window, "engine", Engine.FORMULA)
        _choose(qtbot, window, "target", "gpu:RTX 4090")
        solved(window)
        assert _state(c)[0] != saved[0] and c.target != saved[1]

    change_everything()
    _select(qtbot, panel, slug)
    _click(qtbot, _button(panel, "Load"))
    solved(window)
    by_load = _state(c)
    assert by_load == saved[:3] + by_load[3:5] + saved[5:]
    assert by_load[3] == "Long plan" and by_load[4] == "Long plan (saved)"

    change_everything()
    pick(qtbot, window.model_form.preset_box, f"user:{slug}")  # the Model picker
    solved(window)
    assert _state(c) == by_load  # the workload, runtime and target too, not the model only
    assert window.model_form.preset_box.currentText().startswith("Long plan")


def test_a_scenario_saved_before_targets_loads_and_keeps_the_target(
    make_main_window, qtbot, config_dir
):
    presets = config_dir / "presets"
    presets.mkdir()
    old = {
        "schema_version": 1,
        "kind": "scenario",
        "name": "Old plan",
        "model": {**to_dict(find_model("llama-3.1-8b").model), "num_hidden_layers": 24},
        "workload": {"context_tokens": 12000, "batch": 3},
        "runtime": {"engine": "sglang"},
    }
    (presets / "old-plan.json").write_text(json.dumps(old), encoding="utf-8")
    window = make_main_window(show=True)
    c, panel = window.controller, window.presets_panel
    _choose(qtbot, window, "target", "gpu:H100 80GB")
    before = c.target
    _select(qtbot, panel, "old-plan")
    _click(qtbot, _button(panel, "Load"))
    shown = (c.model.num_hidden_layers, c.workload.context_tokens, c.workload.batch)
    assert shown == (24, 12000, 3)
    assert c.runtime.engine is Engine.SGLANG
    assert c.target == before  # what is assumed: the target chosen stays
    assert "saved without a target GPU" in window.statusBar().currentMessage()
    assert (presets / "old-plan.json").exists()  # read as it is, not moved aside or rewritten
    assert json.loads((presets / "old-plan.json").read_text())["schema_version"] == 1
