"""Every form field drives the breakdown to exactly what the core computes for the same inputs."""

from __future__ import annotations

from fractions import Fraction

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit

from vramdesk.core.estimate import estimate
from vramdesk.core.limits import INT_LIMITS
from vramdesk.core.model.formats import KVDtype, WeightFormat
from vramdesk.core.model.runtime import Engine, OverheadForm
from vramdesk.core.present import views
from vramdesk.core.units import GIB, to_unit

from .keyboard import type_text


def form_of(widget):
    parent = widget.parentWidget()
    while not hasattr(parent, "choices"):
        parent = parent.parentWidget()
    return parent


def set_widget(qtbot, widget, value):
    """Edit a widget the way a user would end up: the widget emits its own change signal."""
    if isinstance(widget, QComboBox):
        widget.setCurrentIndex(form_of(widget).choices(widget.objectName()).index(value))
    elif isinstance(widget, QCheckBox):
        widget.setChecked(value)
    elif isinstance(widget, QLineEdit):  # number fields: typed with real key events
        type_text(qtbot, widget, value if isinstance(value, str) else f"{value:g}")
    else:
        raise TypeError(widget)


def all_fields(window):
    out = {}
    for form in window.forms:
        out.update(form._setters and {k: form.fields[k] for k in form._setters})
    return out


# (field, widget value, part, typed value): typed value is what the core input receives
EDITS = [
    ("num_hidden_layers", 40, "model", 40),
    ("hidden_size", 5120, "model", 5120),
    ("num_key_value_heads", 8, "model", 8),
    ("head_dim", 96, "model", 96),
    ("intermediate_size", 13824, "model", 13824),
    ("vocab_size", 32000, "model", 32000),
    ("params", "13e9", "model", 13 * 10**9),
    ("max_position_embeddings", 4096, "model", 4096),
    ("format", WeightFormat.INT4, "weights", WeightFormat.INT4),
    ("context_tokens", 4096, "workload", 4096),
    ("batch", 32, "workload", 32),
    ("prompt_len", 2048, "workload", 2048),
    ("kv_dtype", KVDtype.FP8, "workload", KVDtype.FP8),
    ("gpu_memory_utilization", 0.95, "runtime", Fraction(95, 100)),
    ("block_size", 32, "runtime", 32),
    ("shared_prefix_tokens", 1000, "runtime", 1000),
    ("overhead", OverheadForm.WORKSPACE, "runtime", OverheadForm.WORKSPACE),
    ("overhead_factor", 1.3, "runtime", Fraction(13, 10)),
    ("engine", Engine.VLLM, "runtime", Engine.VLLM),
]


def current_inputs(c):
    return {"model": c.model, "weights": c.weights, "workload": c.workload, "runtime": c.runtime}


@pytest.mark.parametrize(("field", "value", "part", "typed"), EDITS, ids=[e[0] for e in EDITS])
def test_each_field_gives_the_core_breakdown(make_main_window, qtbot, field, value, part, typed):
    window = make_main_window()
    c = window.controller
    expected_inputs = current_inputs(c)
    expected_inputs[part] = expected_inputs[part].replace(**{field: typed})
    expected = estimate(**expected_inputs)
    set_widget(qtbot, all_fields(window)[field], value)
    assert c.problem is None
    assert current_inputs(c)[part] == expected_inputs[part]
    assert c.breakdown == expected
    window.chart.redraw()
    for seg in views.stacked_segments(expected):
        assert window.chart.bars[seg.key].opts["height"] == [seg.height]
    shown = window.figures.row_texts()
    assert [row[1] for row in shown] == [f"{p.bytes:,}" for p in expected.parts] + [
        f"{expected.total_bytes:,}"
    ]


def test_fixed_overhead_and_custom_target(make_main_window, qtbot, solved):
    window = make_main_window()
    c = window.controller
    runtime_form, target_form = window.forms[3], window.forms[4]
    set_widget(qtbot, runtime_form.fields["fixed_overhead_gib"], 2.5)
    assert c.runtime.fixed_overhead_bytes == 5 * GIB // 2  # 2.5 GiB = 2,684,354,560 bytes
    set_widget(qtbot, target_form.custom_value, 48.0)  # switches the target to "custom"
    assert c.target.kind == "custom" and c.capacity_bytes() == 48 * GIB
    solved(window)
    assert c.solve_result.capacity_bytes == 48 * GIB
    window.chart.redraw()
    assert window.chart.capacity_line.value() == to_unit(48 * GIB)


def test_sliding_window_pattern_goes_through_core(make_main_window, qtbot):
    window = make_main_window()
    c = window.controller
    form = window.model_form
    set_widget(qtbot, form.fields["sliding_window"], 4096)
    set_widget(qtbot, form.fields["sliding_pattern"], "alternating")
    assert c.problem is None
    from vramdesk.core.model.spec import sliding_layer_pattern

    layers = c.model.num_hidden_layers
    assert c.model.layer_types == sliding_layer_pattern(layers, "alternating")
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)


def test_derived_values_come_from_the_core(make_main_window, qtbot):
    window = make_main_window()
    form = window.model_form
    set_widget(qtbot, form.fields["num_attention_heads"], 32)
    set_widget(qtbot, form.fields["num_key_value_heads"], 8)
    c = window.controller
    assert form.fields["derived_gqa"].text() == f"{c.model.gqa_ratio:g} (GQA)"
    assert form.fields["derived_head_dim"].text() == str(c.model.resolved_head_dim)
    assert (
        form.fields["derived_kv_token"].text().startswith(f"{c.breakdown.kv_bytes_per_token:,} B")
    )


def test_invalid_value_is_marked_and_chart_keeps_last_valid(make_main_window, qtbot):
    window = make_main_window()
    c = window.controller
    form = window.model_form
    set_widget(qtbot, form.fields["num_attention_heads"], 32)
    before = c.breakdown
    window.chart.redraw()
    heights = {k: bar.opts["height"] for k, bar in window.chart.bars.items()}
    emitted = []
    c.breakdownChanged.connect(emitted.append)
    set_widget(qtbot, form.fields["num_key_value_heads"], 5)
    kv = form.fields["num_key_value_heads"]
    assert kv.property("invalid") is True
    assert "must be a divisor of num_attention_heads (32)" in kv.toolTip()
    strip = window.form_column.error_label  # the column says every refusal under its fields
    assert strip.isVisibleTo(window) and "num_key_value_heads" in strip.text()
    assert c.breakdown is before and emitted == []
    window.chart.redraw()  # any redraw still draws the last valid result
    assert {k: bar.opts["height"] for k, bar in window.chart.bars.items()} == heights
    set_widget(qtbot, form.fields["num_key_value_heads"], 8)  # valid again: mark cleared
    assert not kv.property("invalid") and not strip.isVisibleTo(window)
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)


def test_unparsable_text_is_marked(make_main_window, qtbot):
    window = make_main_window()
    before = window.controller.breakdown
    edit = window.model_form.fields["params"]
    set_widget(qtbot, edit, "seven")
    assert edit.property("invalid") is True and "whole number" in edit.toolTip()
    assert window.controller.breakdown is before


def test_live_tokens_set_the_concurrency_through_the_core(make_main_window):
    window = make_main_window()
    c = window.controller
    c.set_field("context_tokens", 10000)
    edit = window.forms[2].fields["live_tokens"]
    edit.setText("50000")
    edit.textEdited.emit("50000")  # 100 requests x 500 tokens = 5 requests x 10,000 tokens
    assert c.workload.batch == views.batch_for_live_tokens(50000, 10000)
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)
    edit.editingFinished.emit()
    assert edit.text() == f"{c.workload.live_tokens:,}"


MORE_EDITS = [  # (steps as (field, widget value)), part, {field: typed value}
    (
        [("format", WeightFormat.INT4), ("group_size", 128)],
        "weights",
        {"format": WeightFormat.INT4, "group_size": 128},
    ),
    (
        [("format", WeightFormat.INT4), ("embeddings_unquantized", True)],
        "weights",
        {"format": WeightFormat.INT4, "embeddings_unquantized": True},
    ),
    (
        [("format", WeightFormat.INT4), ("group_size", 64), ("scale_bits", 32), ("zero_bits", 0)],
        "weights",
        {"format": WeightFormat.INT4, "group_size": 64, "scale_bits": 32, "zero_bits": 0},
    ),
    (
        [("prompt_len", 4096), ("chunk_tokens", 2048)],
        "workload",
        {"prompt_len": 4096, "chunk_tokens": 2048},
    ),
    (
        [("prompt_len", 1024), ("live_buffers", 6), ("all_logits", True)],
        "workload",
        {"prompt_len": 1024, "live_buffers": 6, "all_logits": True},
    ),
    (
        [("tensor_parallel_size", 2), ("pipeline_parallel_size", 2)],
        "runtime",
        {"tensor_parallel_size": 2, "pipeline_parallel_size": 2},
    ),
    (
        [("overhead", OverheadForm.WORKSPACE), ("workspace_fraction", 0.08)],
        "runtime",
        {"overhead": OverheadForm.WORKSPACE, "workspace_fraction": Fraction(8, 100)},
    ),
    (
        [("tie_word_embeddings", True), ("params", "")],
        "model",
        {"tie_word_embeddings": True, "params": None},
    ),
    (
        [("num_local_experts", 8), ("num_experts_per_tok", 2), ("moe_intermediate_size", 2048)],
        "model",
        {"num_local_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 2048},
    ),
    (
        [("n_shared_experts", 1), ("first_k_dense_replace", 1)],
        "model",
        {"n_shared_experts": 1, "first_k_dense_replace": 1},
    ),
]


@pytest.mark.parametrize(
    ("steps", "part", "typed"), MORE_EDITS, ids=[str(e[0][-1][0]) for e in MORE_EDITS]
)
def test_combined_edits_give_the_core_breakdown(make_main_window, qtbot, steps, part, typed):
    window = make_main_window()
    c = window.controller
    expected_inputs = current_inputs(c)
    expected_inputs[part] = expected_inputs[part].replace(**typed)
    fields = all_fields(window)
    for field, value in steps:
        set_widget(qtbot, fields[field], value)
    assert c.problem is None, c.problem
    assert current_inputs(c)[part] == expected_inputs[part]
    assert c.breakdown == estimate(**expected_inputs)


def test_engine_sliding_window_switch(make_main_window, qtbot):
    window = make_main_window()
    c = window.controller
    fields = all_fields(window)
    set_widget(qtbot, fields["sliding_window"], 1024)
    set_widget(qtbot, fields["sliding_pattern"], "alternating")
    capped = c.breakdown.kv_cache.bytes
    set_widget(qtbot, fields["sliding_window_exploited"], False)
    assert c.runtime.sliding_window_exploited is False
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)
    assert c.breakdown.kv_cache.bytes > capped  # every layer caches the whole 8192-token context


@pytest.mark.parametrize("typed", ["1e400", "1e99999999999999", "1e-99999999999999", "9" * 400])
def test_huge_typed_value_gives_a_short_message_and_keeps_the_layout(
    make_main_window, qtbot, typed
):
    window = make_main_window()
    window.form_column.set_open_sections(["model"])  # the width of the open section is kept
    form = window.model_form
    width = form.minimumSizeHint().width()
    edit = form.fields["params"]
    edit.setFocus()
    edit.setText(typed)
    edit.textEdited.emit(typed)
    assert window.controller.problem.field == "params"
    label = window.form_column.error_label
    assert label.isVisibleTo(window) and len(label.text()) <= 200
    assert "9" * 40 not in label.text()  # a 400-digit number is quoted by its ends
    assert form.minimumSizeHint().width() <= width


def test_long_unbroken_error_text_is_cut_and_wraps_full_text_in_tooltip(
    make_main_window, qtbot, monkeypatch
):
    from vramdesk.gui.forms import binding

    window = make_main_window()
    window.form_column.set_open_sections(["model"])  # the width of the open section is kept
    form = window.model_form
    width = form.minimumSizeHint().width()
    reason = "x" * 1000  # e.g. a core reason quoting a long value
    monkeypatch.setattr(binding, "reason_text", lambda _error: reason)
    type_text(qtbot, form.fields["params"], "seven")
    label = window.form_column.error_label
    assert len(label.text().replace("\u200b", "")) <= 200 and label.text().endswith("…")
    # led by the row's label, its config name after (a user finds the row, an engineer the key)
    assert label.toolTip() == f"{form.labels['params']} (params): {reason}"
    assert form.minimumSizeHint().width() <= width


def test_live_tokens_errors_mark_the_live_tokens_field(make_main_window):
    window = make_main_window()
    form = window.forms[2]
    edit, batch = form.fields["live_tokens"], form.fields["batch"]
    for typed, words in [("1e17", "must be at most"), ("", "is required")]:
        edit.setText(typed)
        edit.textEdited.emit(typed)
        assert window.controller.problem.field == "live_tokens", typed
        assert edit.property("invalid") is True and not batch.property("invalid")
        assert words in edit.toolTip() and "None" not in edit.toolTip()


def test_custom_capacity_limit_is_stated_in_the_unit_typed(make_main_window):
    window = make_main_window()
    c = window.controller
    c.set_field("custom_capacity", (1e30, "GiB"))
    # INT_LIMITS["budget_bytes"] is 2**60 bytes = 2**30 GiB = 1,073,741,824 GiB
    assert INT_LIMITS["budget_bytes"][1] == 2**60
    assert c.problem.field == "custom_capacity"
    assert c.problem.reason == "must be at most 1,073,741,824 GiB, got 1e+30 GiB"
    c.set_field("custom_capacity", (2e12, "MiB"))  # 2**60 B = 2**40 MiB = 1,099,511,627,776 MiB
    assert c.problem.reason == "must be at most 1,099,511,627,776 MiB, got 2,000,000,000,000 MiB"


def test_number_fields_state_their_range_and_keep_it_after_a_mark(make_main_window, qtbot):
    # the tooltip says what the field accepts; a refused value replaces it with the reason
    from vramdesk.core.limits import INT_LIMITS

    window = make_main_window()
    fields = {n: w for f in window.forms for n, w in f.fields.items()}
    lo, hi = INT_LIMITS["num_key_value_heads"]
    hint = f"a whole number from {lo:,} to {hi:,}"
    box = fields["num_key_value_heads"]
    assert box.toolTip() == hint
    type_text(qtbot, box, "7")  # not a divisor of 32 heads: marked with the reason
    assert "divisor" in box.toolTip()
    type_text(qtbot, box, "8")
    assert box.toolTip() == hint


def test_llamacpp_knobs_typed_in_the_runtime_form(make_main_window, qtbot):
    # issue 10.5: the llama.cpp knobs are fields of the window (objectName = field name),
    # enabled only for the engines that have them; typed with real key events
    from .keyboard import type_text

    window = make_main_window(show=True)
    c = window.controller
    runtime_form = window.forms[3]
    ngl = runtime_form.fields["n_gpu_layers"]
    assert ngl.objectName() == "n_gpu_layers"
    assert not ngl.isEnabled()  # the formula profile has no -ngl
    set_widget(qtbot, runtime_form.fields["engine"], Engine.LLAMA_CPP)
    assert ngl.isEnabled()
    assert not runtime_form.fields["gpu_memory_utilization"].isEnabled()
    type_text(qtbot, ngl, "20")
    type_text(qtbot, runtime_form.fields["n_ubatch"], "1024")
    assert (c.runtime.n_gpu_layers, c.runtime.n_ubatch) == (20, 1024)
    set_widget(qtbot, runtime_form.fields["flash_attn"], False)
    assert c.runtime.flash_attn is False
    assert c.problem is None
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)
