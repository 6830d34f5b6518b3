"""A text the core refuses never reaches the estimate (typed with real key events).

While a field holds refused text, the figures are those of the value the field held
before the user started typing (never a half-typed prefix: ``1e4`` on the way to
``1e400`` is 10,000 parameters), the field is marked with the core's reason, and a
banner above the chart says which value the figures use. Marks and banner clear as soon
as the text is valid.
"""

from __future__ import annotations

from vramdesk.core.estimate import estimate
from vramdesk.gui.forms.number_edit import NumberEdit

from .keyboard import type_text

LLAMA_3_1_8B_PARAMS = 8_030_261_248  # the default preset's published count


def fields_of(window):
    return {n: w for form in window.forms for n, w in form.fields.items()}


def marked(window):
    return sorted(n for n, w in fields_of(window).items() if w.property("invalid"))


def test_far_too_large_params_keep_the_value_from_before_the_edit(make_main_window, qtbot):
    window = make_main_window(show=True)
    c = window.controller
    before = c.breakdown
    assert c.model.params == LLAMA_3_1_8B_PARAMS
    edit = fields_of(window)["params"]
    type_text(qtbot, edit, "1e400")  # passes through "1e4" = 10,000 parameters on the way
    assert c.model.params == LLAMA_3_1_8B_PARAMS  # not 10,000
    assert c.breakdown == before
    assert edit.text() == "1e400" and marked(window) == ["params"]
    assert "far too large" in edit.toolTip()
    banner = window.stale_banner
    assert banner.isVisibleTo(window)
    # the field as the window names it (its row label), not the config key
    label = window.form_column.label_for("params")
    assert label and label != "params" and f"{label} = 8,030,261,248" in banner.text()
    type_text(qtbot, edit, "70e9")
    assert c.model.params == 70 * 10**9 and c.problem is None
    assert marked(window) == [] and not banner.isVisibleTo(window)
    assert edit.text() == "70,000,000,000"


def test_far_too_many_live_tokens_keep_the_concurrency(make_main_window, qtbot):
    window = make_main_window(show=True)
    c = window.controller
    batch, before = c.workload.batch, c.breakdown
    type_text(qtbot, fields_of(window)["live_tokens"], "1e99")  # "1e9" is on the way
    assert c.workload.batch == batch and c.breakdown == before
    assert c.solve_result.breakdown == before
    assert marked(window) == ["live_tokens"]


def test_mark_clears_when_the_field_is_emptied_to_not_set(make_main_window, qtbot):
    window = make_main_window(show=True)
    edit = fields_of(window)["vocab_size"]
    type_text(qtbot, edit, "abc")
    assert marked(window) == ["vocab_size"] and "whole number" in edit.toolTip()
    strip = window.form_column.error_label  # every refusal, under the fields
    assert strip.isVisibleTo(window)
    type_text(qtbot, edit, "")  # empty = "not set": valid
    assert marked(window) == [] and not strip.isVisibleTo(window)
    assert window.controller.model.vocab_size is None


def test_a_valid_value_typed_through_invalid_prefixes_leaves_no_mark(make_main_window, qtbot):
    window = make_main_window(show=True)
    c = window.controller
    # hidden_size passes through 8, 81 and 819 on the way to 8192
    type_text(qtbot, fields_of(window)["hidden_size"], "8192")
    assert c.problem is None and marked(window) == []
    assert not window.form_column.error_label.isVisibleTo(window)
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)


def test_values_outside_the_range_are_refused_with_the_reason_not_rewritten(
    make_main_window, qtbot
):
    window = make_main_window(show=True)
    c = window.controller
    layers = fields_of(window)["num_hidden_layers"]
    type_text(qtbot, layers, "-5")
    assert layers.text() == "-5" and c.model.num_hidden_layers == 32
    assert "num_hidden_layers" in layers.toolTip() and "-5" in layers.toolTip()
    type_text(qtbot, layers, "99999999999")
    assert layers.text() == "99999999999" and c.model.num_hidden_layers == 32
    assert "at most 10,000" in layers.toolTip()  # INT_LIMITS["num_hidden_layers"] = (1, 10,000)


def test_two_fields_that_are_only_valid_together(make_main_window, qtbot):
    window = make_main_window(show=True)
    c = window.controller
    fields = fields_of(window)
    type_text(qtbot, fields["num_key_value_heads"], "64")  # 64 KV heads do not divide 32 heads
    assert c.model.num_key_value_heads == 8
    assert marked(window) == ["num_key_value_heads"]
    type_text(qtbot, fields["num_attention_heads"], "64")  # 64 divides 64: both accepted
    # head_dim stays derived: 4096 / 64 = 64
    assert (c.model.num_attention_heads, c.model.num_key_value_heads) == (64, 64)
    assert marked(window) == [] and c.problem is None


def test_a_valid_edit_elsewhere_applies_while_a_field_is_refused(make_main_window, qtbot):
    window = make_main_window(show=True)
    c = window.controller
    fields = fields_of(window)
    type_text(qtbot, fields["params"], "seven")
    type_text(qtbot, fields["context_tokens"], "4096")
    assert c.workload.context_tokens == 4096
    assert marked(window) == ["params"] and fields["params"].text() == "seven"
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)


def test_number_fields_are_line_edits_that_keep_their_text(make_main_window):
    window = make_main_window()
    assert isinstance(fields_of(window)["context_tokens"], NumberEdit)


def test_the_status_message_of_a_refusal_goes_when_it_is_fixed(make_main_window, qtbot):
    window = make_main_window(show=True)
    kv = fields_of(window)["num_key_value_heads"]
    type_text(qtbot, kv, "3")
    assert "divisor" in window.statusBar().currentMessage()
    type_text(qtbot, kv, "8")
    assert window.statusBar().currentMessage() == ""
