"""The window with per-layer models: the derived per-kind KV summary and the recurrent-state bar."""

from __future__ import annotations

import json

from tests.conftest import REFERENCE
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.present.views import comparison_table
from vramdesk.core.units import format_bytes


def _jamba():
    cfg = json.loads((REFERENCE.parent / "configs" / "jamba-v0.1.json").read_text())
    return model_from_config(cfg).model.replace(params=51_570_000_000)


def test_hybrid_model_shows_state_bar_and_kind_summary(make_main_window):
    window = make_main_window()
    c = window.controller
    assert c.load(model=_jamba(), weights=WeightSpec(), name="Jamba")
    window.chart.redraw()
    b = c.breakdown
    # Jamba: 28 Mamba layers, 16-bit state of 28 * (24,576 + 131,072) * 2 = 8,716,288 B per sequence
    assert b.state_bytes == 8_716_288 * c.workload.batch
    assert "state" in window.chart.bars
    assert window.chart.bars["state"].opts["height"] == [b.state_bytes / 2**30]
    text = window.model_form.fields["derived_kv_token"].text()
    assert "4 full: 16,384 B/token" in text and "28 recurrent: 0 B/token" in text
    header, _ = comparison_table(c.compare([("Jamba", c.model, c.weights)]))
    assert "state_bytes" in header
    # back to a uniform model: the state bar goes away
    uniform = c.model.replace(layer_types=None, conv_state_elements=0, ssm_state_elements=0)
    assert c.load(model=uniform, weights=WeightSpec(), name="uniform")
    window.chart.redraw()
    assert "state" not in window.chart.bars
    assert window.model_form.fields["derived_kv_token"].text().endswith(" MiB)")


def test_the_compare_tab_shows_a_hybrid_models_state_column(make_main_window):
    # found in review: the tab's header had the five plain parts while its rows carried a
    # recurrent-state column for a hybrid model, so filling the table raised on the extra cell
    window = make_main_window()
    c = window.controller
    assert c.load(model=_jamba(), weights=WeightSpec(), name="Jamba")
    tab = window.compare_tab
    tab.refresh()
    table = tab.table
    header = [table.horizontalHeaderItem(i).text() for i in range(table.columnCount())]
    assert header[2].startswith("KV cache") and header[3].startswith("Recurrent state")
    state = format_bytes(c.breakdown.state_bytes, c.unit)
    assert table.item(0, 3).text() == state
