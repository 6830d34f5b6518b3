"""The runtime form's "Language model only" box (vLLM ``--language-model-only``, issue 20)."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.conftest import DATA
from vramdesk.core.estimate import estimate
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.runtime import Engine


def test_the_box_shows_under_vllm_and_a_click_leaves_the_towers_out(make_main_window, solved):
    window = make_main_window(show=True)
    c = window.controller
    config = json.loads((DATA / "configs" / "oracle" / "qwen3.5-9b.json").read_text("utf-8"))
    imported = model_from_config(config)
    c.session.load(
        model=imported.model,
        weights=imported.weights,
        runtime=c.runtime.replace(engine=Engine.VLLM),
    )
    solved(window)
    box = window.forms[3].fields["language_model_only"]
    before = c.breakdown.weights.bytes
    box.setFocus()
    QTest.keyClick(box, Qt.Key.Key_Space)  # a check box toggles on Space, as a user would
    solved(window)
    assert c.runtime.language_model_only is True
    # the vision tower + merger, 456,010,480 parameters at 2 bytes (bf16), leave the weights
    assert before - c.breakdown.weights.bytes == 2 * 456_010_480
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)
