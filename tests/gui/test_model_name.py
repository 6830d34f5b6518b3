"""The model keeps its name, and the breakdown's exports say what it is of (issue 23, item 4).

Only an edit of the model's own fields (layers, widths, heads, ...) marks it edited; the weight
format, KV dtype, engine and workload are not the model. Every edit here is a person's: keys
typed after select-all and then Tab, combo boxes stepped with the arrow keys.
"""

from __future__ import annotations

import json

from tests.export_parsing import read_csv, read_markdown
from tests.gui.keyboard import pick, type_text
from vramdesk.cli import main
from vramdesk.core.model.formats import KVDtype, WeightFormat
from vramdesk.core.model.runtime import Engine

#: Budgets from the GPU catalog's published figures (presets/gpus/catalog.json): the formula
#: profile budgets from nvidia-smi's total, vLLM from CUDA's total (vLLM's own log).
RTX_4090_NVIDIA_SMI = 24564 * 2**20
H100_CUDA_TOTAL = 81085 * 2**20


def _form_of(window, name):
    return next(f for f in (window.model_form, *window.forms) if name in f.fields)


def _choose(qtbot, window, name, value):
    form = _form_of(window, name)
    pick(qtbot, form.fields[name], value, lambda: form.choices(name))


def _type(qtbot, window, name, text):
    type_text(qtbot, _form_of(window, name).fields[name], text)


def test_format_kv_dtype_engine_and_workload_edits_keep_the_name(make_main_window, qtbot):
    window = make_main_window(show=True)
    c, box = window.controller, window.model_form.preset_box
    pick(qtbot, box, "bundled:llama-3.1-8b")
    shown = box.currentText()
    assert shown == "Llama-3.1-8B (bundled, read-only)"
    edits = [
        lambda: _choose(qtbot, window, "format", WeightFormat.INT4),
        lambda: _choose(qtbot, window, "format", WeightFormat.FP8),
        lambda: _choose(qtbot, window, "kv_dtype", KVDtype.FP8),
        lambda: _choose(qtbot, window, "engine", Engine.VLLM),
        lambda: _type(qtbot, window, "context_tokens", "32768"),
        lambda: _type(qtbot, window, "batch", "3"),
        lambda: _type(qtbot, window, "prompt_len", "4096"),
        lambda: _choose(qtbot, window, "engine", Engine.SGLANG),
    ]
    for edit in edits:
        edit()
        assert box.currentText() == shown
        assert box.currentData() == "bundled:llama-3.1-8b"
        assert c.preset_name == "Llama-3.1-8B" and not c.model_edited()
    assert c.weights.format is WeightFormat.FP8 and c.workload.kv_dtype is KVDtype.FP8
    assert (c.workload.context_tokens, c.workload.batch, c.runtime.engine) == (
        32768,
        3,
        Engine.SGLANG,
    )
    assert [box.itemText(i) for i in range(box.count())].count("Custom (edited)") == 0
    _type(qtbot, window, "num_hidden_layers", "30")  # the model itself: now it is edited
    assert box.currentText() == "Custom (edited)" and c.model_edited()
    _type(qtbot, window, "num_hidden_layers", "32")  # back to the preset's shape
    assert box.currentText() == shown


def test_an_imported_model_keeps_its_name_through_a_format_edit(make_main_window, qtbot):
    from tests.conftest import REFERENCE

    window = make_main_window(show=True)
    box = window.model_form.preset_box
    assert window.model_form.import_path(REFERENCE / "models" / "qwen2.5-7b" / "config.json")
    imported = box.currentText()
    assert imported.startswith("Imported: ")
    _choose(qtbot, window, "format", WeightFormat.INT8)
    _choose(qtbot, window, "kv_dtype", KVDtype.FP8)
    assert box.currentText() == imported


def _window_exports(window, tmp_path):
    ex = window.exports
    csv_text = ex.export_breakdown(tmp_path / "b.csv").read_bytes().decode("utf-8")
    md_text = ex.export_breakdown(tmp_path / "b.md").read_text(encoding="utf-8")
    data = json.loads(ex.export_breakdown(tmp_path / "b.json").read_text(encoding="utf-8"))
    return csv_text, md_text, data


def test_the_window_exports_carry_model_workload_engine_and_target(
    make_main_window, qtbot, tmp_path, solved
):
    window = make_main_window(show=True)
    c = window.controller
    pick(qtbot, window.model_form.preset_box, "bundled:llama-3.1-8b")
    _choose(qtbot, window, "format", WeightFormat.INT8)
    _type(qtbot, window, "context_tokens", "16384")
    _type(qtbot, window, "batch", "4")
    _type(qtbot, window, "prompt_len", "1024")
    _choose(qtbot, window, "kv_dtype", KVDtype.FP8)
    _choose(qtbot, window, "engine", Engine.VLLM)
    _choose(qtbot, window, "target", "gpu:H100 80GB")
    solved(window)
    csv_text, md_text, data = _window_exports(window, tmp_path)
    want = {
        "model": "Llama-3.1-8B",
        "weights": "int8",
        "context_tokens": "16384",
        "batch": "4",
        "prompt_len": "1024",
        "kv_dtype": "fp8",
        "engine": "vllm",
        "engine_version": "",  # none set
        "target_gpu": "H100 80GB",
        "budget_bytes": str(H100_CUDA_TOTAL),
    }
    facts, table = read_csv(csv_text)
    assert facts == want
    assert table[-1][:2] == ["Total", str(c.breakdown.total_bytes)]
    facts, table = read_markdown(md_text)
    assert facts == want and table[-1][:2] == ["Total", str(c.breakdown.total_bytes)]
    assert data["model"] == "Llama-3.1-8B" and data["weights"] == "int8"
    assert data["workload"] == {
        "context_tokens": 16384,
        "batch": 4,
        "prompt_len": 1024,
        "kv_dtype": "fp8",
    }
    assert (data["engine"], data["engine_version"]) == ("vllm", None)
    assert data["target"] == {"gpu": "H100 80GB", "budget_bytes": H100_CUDA_TOTAL}
    assert data["total_bytes"] == c.breakdown.total_bytes
    _choose(qtbot, window, "target", "custom")
    data = json.loads(window.exports.export_breakdown(tmp_path / "c.json").read_text())
    assert data["target"] == {"gpu": "custom", "budget_bytes": c.target.custom_bytes}


def test_the_window_exports_are_the_command_lines_text(make_main_window, tmp_path, capsys):
    window = make_main_window()  # Llama-3.1-8B, 8192 x 8, the formula profile, RTX 4090
    csv_text, md_text, _data = _window_exports(window, tmp_path)
    assert read_csv(csv_text)[0]["budget_bytes"] == str(RTX_4090_NVIDIA_SMI)
    args = ["estimate", "--preset", "llama-3.1-8b", "--context", "8192", "--batch", "8"]
    # the command line's estimate with a target adds one row the window's export has not:
    # its verdict (27.40 GiB of Llama-3.1-8B 8,192 x 8 does not fit the RTX 4090's 23.99 GiB)
    rows = {"csv": "verdict,does_not_fit\r\n", "markdown": "| verdict | does_not_fit |\n"}
    for fmt, text in (("csv", csv_text), ("markdown", md_text)):
        assert main([*args, "--gpu", "RTX 4090", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert out.count(rows[fmt]) == 1 and out.replace(rows[fmt], "") == text
