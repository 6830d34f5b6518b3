"""The calibration dialog: paste a log, see measured vs predicted, save a runtime preset."""

import json

from tests.conftest import DATA
from tests.core.calibrate.test_logparse import (
    LLAMA8,
)  # the Llama-3.1-8B shape the log excerpts describe
from vramdesk.core import GIB, Engine, KVDtype, Runtime, WeightSpec, Workload
from vramdesk.core.errors import InputError
from vramdesk.gui.dialogs.calibrate import CalibrateDialog

LOGS = DATA / "engine-logs"


def _scenario():
    return LLAMA8, WeightSpec(), Workload(kv_dtype=KVDtype.BF16), Runtime()


def _column(dialog, col):
    return {
        dialog.table.item(r, 0).text(): dialog.table.item(r, col).text()
        for r in range(dialog.table.rowCount())
    }


def test_paste_compare_and_save(qtbot, config_dir):
    dialog = CalibrateDialog(None, _scenario)
    qtbot.addWidget(dialog)
    assert not dialog.save_button.isEnabled()
    dialog.set_log_text(
        (LOGS / "vllm-v1-0.11-memory-profile-debug.log").read_text(encoding="utf-8")
    )
    measured, predicted = _column(dialog, 1), _column(dialog, 2)
    assert dialog.table.rowCount() == 9
    assert measured["weights_bytes"] == "14.990 GiB"  # "model weights take 14.99GiB"
    # the prediction comes from the vLLM profile: params x 2 + the 32 MiB RoPE cache = 14.989 GiB
    assert predicted["weights_bytes"] == "14.989 GiB"
    assert predicted["gpu_total_bytes"] == "-"
    assert dialog.status.text() == "vllm: 9 figures"
    dialog.name_edit.setText("H100 vLLM")
    assert dialog.save_button.isEnabled()
    with qtbot.waitSignal(dialog.calibrationSaved, timeout=2000) as blocker:
        dialog.save_button.click()
    assert blocker.args == ["H100 vLLM"]
    saved = json.loads((config_dir / "presets" / "h100-vllm.json").read_text(encoding="utf-8"))
    assert saved["runtime"]["engine"] == Engine.VLLM.value
    assert saved["runtime"]["non_torch_bytes"] == round(0.14 * GIB)


def test_garbage_log_and_failing_scenario(qtbot):
    def broken():
        raise InputError("num_key_value_heads", "must be positive")

    dialog = CalibrateDialog(None, broken)
    qtbot.addWidget(dialog)
    dialog.load_file(str(LOGS / "garbage.log"))
    assert dialog.status.text().startswith("no figures found")
    assert dialog.table.rowCount() == 0
    dialog.name_edit.setText("x")
    assert not dialog.save_button.isEnabled()
    dialog.load_file(str(LOGS / "llamacpp-2023-gemma.log"))  # figures, no prediction column
    assert _column(dialog, 1)["kv_cache_bytes"] == "0.875 GiB"  # 896 MiB
    assert set(_column(dialog, 2).values()) == {"-"}
    dialog.load_file(str(LOGS / "missing.log"))
    assert "missing.log does not exist" in dialog.status.text()


def test_dialog_keeps_its_size_shows_whole_names_and_closes(qtbot):
    from PySide6.QtWidgets import QDialogButtonBox

    dialog = CalibrateDialog(None, _scenario)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.set_log_text(
        (LOGS / "vllm-v1-0.11-memory-profile-debug.log").read_text(encoding="utf-8")
    )
    qtbot.wait(10)
    width = dialog.width()
    table = dialog.table
    for r in range(table.rowCount()):
        for col in range(table.columnCount()):
            text = table.item(r, col).text()
            needed = table.fontMetrics().horizontalAdvance(text)
            assert needed <= table.columnWidth(col), (text, table.columnWidth(col))
    dialog.load_file(str(LOGS / ("missing-" + "x" * 300 + ".log")))  # a long error message
    qtbot.wait(10)
    assert "cannot read" in dialog.status.text()
    assert dialog.width() == width  # the message wraps; the dialog does not grow
    close = dialog.buttons.button(QDialogButtonBox.StandardButton.Close)
    assert close is not None
    close.click()
    assert not dialog.isVisible()


def test_a_log_of_another_model_says_so_and_offers_to_load_it(qtbot):
    """Issue 23 item 7: a Llama-3.1-8B log against a Qwen3-30B in the window."""
    # on first use: the bundled preset is read only by this test
    from vramdesk.core.store.bundled import bundled_model

    shown = {"model": bundled_model("qwen3-30b-a3b").model}
    loaded = []

    def loader(target):
        loaded.append(target)
        shown["model"] = bundled_model(target[1]).model
        return True

    dialog = CalibrateDialog(
        None, lambda: (shown["model"], WeightSpec(), Workload(), Runtime()), loader
    )
    qtbot.addWidget(dialog)
    dialog.load_file(str(LOGS / "vllm-v1-0.11-llama8b.log"))
    assert not dialog.model_warning.isHidden()
    assert dialog.model_warning.text() == (
        "This log is about meta-llama/Llama-3.1-8B-Instruct, not the model shown "
        "(Qwen3-30B-A3B): its differences compare two models."
    )
    assert not dialog.load_model_button.isHidden()
    assert _column(dialog, 3)["weights_bytes"] == "+279.44 %"
    dialog.load_model_button.click()
    assert loaded == [("preset", "llama-3.1-8b")]
    assert dialog.model_warning.isHidden() and dialog.load_model_button.isHidden()
    assert _column(dialog, 3)["weights_bytes"] == "-0.01 %"


def test_no_loader_no_button(qtbot):
    # on first use: the bundled preset is read only by this test
    from vramdesk.core.store.bundled import bundled_model

    model = bundled_model("qwen3-30b-a3b").model
    dialog = CalibrateDialog(None, lambda: (model, WeightSpec(), Workload(), Runtime()))
    qtbot.addWidget(dialog)
    dialog.load_file(str(LOGS / "vllm-v1-0.11-llama8b.log"))
    assert not dialog.model_warning.isHidden() and dialog.load_model_button.isHidden()
