"""Typing into every number field with real key events (select all, type, Tab).

Each value crosses a group-separator position or has decimals; afterwards the field,
the controller and the figures table all hold the typed value, and the figures are what
the core computes for the same inputs.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightFormat
from vramdesk.core.model.runtime import Engine, OverheadForm
from vramdesk.core.units import GIB
from vramdesk.gui.forms.number_edit import NumberEdit

from .keyboard import type_text

# field -> (typed text, value the field shows after Tab, value the controller holds)
TYPED = {
    "num_hidden_layers": ("1234", "1,234", 1234),
    "hidden_size": ("12288", "12,288", 12288),
    "num_attention_heads": ("1024", "1,024", 1024),
    "num_key_value_heads": ("16", "16", 16),
    "head_dim": ("1024", "1,024", 1024),
    "intermediate_size": ("28672", "28,672", 28672),
    "vocab_size": ("151936", "151,936", 151936),
    "max_position_embeddings": ("131072", "131,072", 131072),
    "params": ("70553706496", "70,553,706,496", 70_553_706_496),
    "num_local_experts": ("1024", "1,024", 1024),
    "num_experts_per_tok": ("1000", "1,000", 1000),
    "moe_intermediate_size": ("14336", "14,336", 14336),
    "n_shared_experts": ("1000", "1,000", 1000),
    "first_k_dense_replace": ("1000", "1,000", 1000),
    "sliding_window": ("4096", "4,096", 4096),
    "group_size": ("1024", "1,024", 1024),
    "scale_bits": ("16", "16", 16),
    "zero_bits": ("4", "4", 4),
    "context_tokens": ("131072", "131,072", 131072),
    "batch": ("1234", "1,234", 1234),
    "prompt_len": ("4096", "4,096", 4096),
    "chunk_tokens": ("2048", "2,048", 2048),
    "live_buffers": ("1000", "1,000", 1000),
    "gpu_memory_utilization": ("0.875", "0.875", Fraction(875, 1000)),
    "block_size": ("1024", "1,024", 1024),
    "shared_prefix_tokens": ("1234", "1,234", 1234),
    "tensor_parallel_size": ("2", "2", 2),
    "pipeline_parallel_size": ("2", "2", 2),
    "overhead_factor": ("1.25", "1.25", Fraction(5, 4)),
    "fixed_overhead_gib": ("2.5", "2.5", None),  # checked in bytes below
    "workspace_fraction": ("0.075", "0.075", Fraction(75, 1000)),
    "live_tokens": ("1048576", "1,048,576", None),  # checked as batch below
    # llama.cpp knobs (typed with the engine set to llama.cpp: LLAMACPP_FIELDS)
    "n_gpu_layers": ("1000", "1,000", 1000),
    "n_ubatch": ("1024", "1,024", 1024),
    "n_parallel": ("1234", "1,234", 1234),
    "n_cpu_moe": ("1000", "1,000", 1000),
    # vLLM / SGLang parallel sizes (typed with that engine set: ENGINE_FIELDS)
    "data_parallel_size": ("4", "4", 4),
    "decode_context_parallel_size": ("2", "2", 2),
    "ep_size": ("2", "2", 2),
}
#: Fields only llama.cpp (and Ollama) have: the engine is switched first.
LLAMACPP_FIELDS = ("n_gpu_layers", "n_ubatch", "n_parallel", "n_cpu_moe")
#: Fields of one engine's option groups (core ENGINE_OPTION_GROUPS): that engine first.
ENGINE_FIELDS = {
    "data_parallel_size": Engine.VLLM,
    "decode_context_parallel_size": Engine.VLLM,
    "ep_size": Engine.SGLANG,
}

#: What a field needs set first to be editable or valid (typed the same way).
BEFORE = {
    "num_experts_per_tok": [("num_local_experts", "1024")],
    "moe_intermediate_size": [("num_local_experts", "8"), ("num_experts_per_tok", "2")],
    "n_shared_experts": [("num_local_experts", "8"), ("num_experts_per_tok", "2")],
    "first_k_dense_replace": [("num_hidden_layers", "1234")],
    "scale_bits": [("group_size", "128")],
    "zero_bits": [("group_size", "128")],
    # DCP and SGLang's EP are ranks of the TP group: TP 2 first
    "decode_context_parallel_size": [("tensor_parallel_size", "2")],
    "ep_size": [("tensor_parallel_size", "2")],
}


def number_fields(window):
    return {
        name: widget
        for form in window.forms
        for name, widget in form.fields.items()
        if isinstance(widget, NumberEdit)
    }


def test_every_number_field_is_covered(make_main_window):
    assert set(number_fields(make_main_window())) == set(TYPED)


@pytest.mark.parametrize("name", sorted(TYPED))
def test_typed_value_is_held_by_field_controller_and_figures(make_main_window, qtbot, name):
    window = make_main_window(show=True)
    c = window.controller
    fields = number_fields(window)
    if name == "workspace_fraction":
        c.set_field("overhead", OverheadForm.WORKSPACE)
    if name in LLAMACPP_FIELDS:
        c.set_field("engine", Engine.LLAMA_CPP)
    if name in ENGINE_FIELDS:
        c.set_field("engine", ENGINE_FIELDS[name])
    if name in ("group_size", "scale_bits", "zero_bits"):
        c.set_field("format", WeightFormat.INT4)
    for other, text in BEFORE.get(name, []):
        type_text(qtbot, fields[other], text)
    typed, shown, held = TYPED[name]
    edit = fields[name]
    type_text(qtbot, edit, typed)
    assert c.problem is None, c.problem
    assert edit.text() == shown
    assert not edit.property("invalid")
    if name == "fixed_overhead_gib":
        assert c.runtime.fixed_overhead_bytes == 5 * GIB // 2  # 2.5 GiB = 2,684,354,560 B
    elif name == "live_tokens":
        # 1,048,576 live tokens at 8,192 tokens per sequence = 128 sequences
        assert c.workload.batch == 128 and c.workload.live_tokens == 1_048_576
    else:
        assert c.value(name) == held
    expected = estimate(c.model, c.weights, c.workload, c.runtime)
    assert c.breakdown == expected
    totals = [row[1] for row in window.figures.row_texts()]
    assert totals[-1] == f"{expected.total_bytes:,}"


def test_custom_capacity_typed_with_decimals(make_main_window, qtbot, solved):
    window = make_main_window(show=True)
    c = window.controller
    target_form = window.forms[4]
    type_text(qtbot, target_form.custom_value, "23.5")
    assert target_form.custom_value.text() == "23.5"
    assert c.target.kind == "custom"
    assert c.target.custom_bytes == 47 * GIB // 2  # 23.5 GiB = 25,232,932,864 B, not 23 GiB
    solved(window)
    assert c.solve_result.capacity_bytes == 25_232_932_864


def test_up_and_down_keys_step_the_value(make_main_window, qtbot):
    from PySide6.QtCore import Qt

    window = make_main_window(show=True)
    c = window.controller
    edit = number_fields(window)["context_tokens"]
    type_text(qtbot, edit, "8191", finish=False)
    qtbot.keyClick(edit, Qt.Key.Key_Up)
    qtbot.keyClick(edit, Qt.Key.Key_Up)
    qtbot.keyClick(edit, Qt.Key.Key_Tab)
    assert c.workload.context_tokens == 8193 and edit.text() == "8,193"


def test_every_input_is_found_by_its_field_name(make_main_window):
    window = make_main_window()
    for form in window.forms:
        for name in form._setters:
            widget = form.fields[name]
            assert widget.objectName() == name
            assert window.findChild(type(widget), name) is not None


def test_parameter_count_source_is_visible_and_switchable(make_main_window, qtbot):
    # Llama-3.1-8B preset: 32 layers, published 8,030,261,248 parameters. Doubling the layers
    # with the count pinned to the checkpoint keeps the weights; switching to the shape adds
    # 32 more layers of 218,112,000 parameters each:
    #   attention 4096*4096*2 + 4096*1024*2 = 41,943,040; MLP 3 * 4096 * 14336 = 176,160,768;
    #   two RMSNorms 2 * 4096 = 8,192 -> 218,112,000 per layer
    # so the shape gives 8,030,261,248 + 32 * 218,112,000 = 15,009,845,248.
    window = make_main_window(show=True)
    c = window.controller
    form = window.model_form
    weights_before = c.breakdown.weights.bytes
    type_text(qtbot, form.fields["num_hidden_layers"], "64")
    assert c.model.params == 8_030_261_248 and c.breakdown.weights.bytes == weights_before
    box = form.fields["params_source"]
    assert box.currentText() == "the checkpoint: 8,030,261,248"
    assert box.itemText(1) == "the shape: 15,009,845,248"
    box.setCurrentIndex(1)  # a user's pick from the combo box emits the same signal
    assert c.params_source() == "shape" and c.model.params is None
    assert c.breakdown.params == 15_009_845_248
    assert c.breakdown.weights.bytes == 15_009_845_248 * 2  # bf16
    box.setCurrentIndex(0)
    assert c.model.params == 8_030_261_248


@pytest.mark.parametrize(
    ("name", "typed"),
    [("custom_value", "23.7"), ("custom_value", "80.123456789"), ("fixed_overhead_gib", "1.1")],
)
def test_values_stored_in_bytes_keep_the_typed_text(make_main_window, qtbot, name, typed):
    # 23.7 GiB = 25,447,681,228.8 B is held as 25,447,681,229 B; shown back as a float of those
    # bytes it would read 23.7000000001863, which is not what was typed
    window = make_main_window(show=True)
    target_form, runtime_form = window.forms[4], window.forms[3]
    edit = target_form.custom_value if name == "custom_value" else runtime_form.fields[name]
    type_text(qtbot, edit, typed)
    assert edit.text() == typed
    c = window.controller
    held = c.target.custom_bytes if name == "custom_value" else c.runtime.fixed_overhead_bytes
    assert held == round(Fraction(typed) * GIB)


@pytest.mark.parametrize(
    "typed,tokens",
    [
        ("8k", 8 * 1024),  # k is x 1,024 as in --context 8k and the chat-8k-x8 preset
        ("128K", 128 * 1024),
        ("12,288", 12288),
    ],
)
def test_context_takes_the_command_lines_token_grammar(make_main_window, qtbot, typed, tokens):
    window = make_main_window(show=True)
    c = window.controller
    c.set_field("context_tokens", 4096)  # not any of the typed values
    edit = window.form_column.essentials.fields["context_tokens"]
    type_text(qtbot, edit, typed)
    assert c.workload.context_tokens == tokens and c.problem is None
    assert edit.text() == f"{tokens:,}" and not edit.property("invalid")
    assert c.breakdown == estimate(c.model, c.weights, c.workload, c.runtime)


def test_context_refuses_what_the_command_line_refuses(make_main_window, qtbot):
    window = make_main_window(show=True)
    edit = window.form_column.essentials.fields["context_tokens"]
    type_text(qtbot, edit, "8m")  # only k is a token suffix
    assert edit.property("invalid") and "8192, 8,192 or 8k" in edit.toolTip()


def test_up_steps_a_context_typed_as_8k(make_main_window, qtbot):
    # the field still shows "8k" until it is committed; Up reads it as the token count
    # 8,192 (the CLI's grammar) and steps to 8,192 + the field's step
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = make_main_window(show=True)
    c = window.controller
    edit = window.form_column.essentials.fields["context_tokens"]
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, "8k")
    QTest.keyClick(edit, Qt.Key.Key_Up)
    assert edit.text() == f"{8192 + int(edit.step):,}"
    QTest.keyClick(edit, Qt.Key.Key_Tab)
    assert c.workload.context_tokens == 8192 + int(edit.step)
