"""The fit advisor (core/solve/solver.py): the levers it offers, what each saves, their order."""

from __future__ import annotations

import math

from vramdesk.core import (
    Engine,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
    solve,
)
from vramdesk.core.store import bundled
from vramdesk.core.store.bundled import find_model
from vramdesk.core.store.lookup import resolve_model_preset
from vramdesk.core.units import GIB

LLAMA8_RESOLVED = resolve_model_preset("llama-3.1-8b")


def test_advisor_levers_for_8b_at_64_sequences_on_24_gib(llama8):
    # usable 6,058,559,078 B (above); a sequence of 8,192 tokens: 131,072 * 8,192 = 1 GiB
    # current need + weights = 64 GiB + 16,060,522,496 = 84,779,999,232
    # batch lever: 5 sequences (5 GiB <= usable < 6 GiB); saves 59 GiB = 63,350,767,616
    # context lever: 64 * ceil16(c) * 131,072 <= usable -> ceil16(c) <= 722.3 -> 720 tokens;
    #   saves 84,779,999,232 - (64 * 720 * 131,072 + 16,060,522,496) = 62,679,678,976
    wl = Workload(context_tokens=8192, batch=64)
    r = solve(llama8.model, llama8.weights, wl, Runtime(), 24 * GIB)
    levers = {a.lever: a for a in r.advice}
    assert (levers["batch"].value, levers["batch"].saves_bytes) == (5, 63_350_767_616)
    assert levers["batch"].action == "Cap concurrency at 5 sequences"
    ctx = levers["context_tokens"]
    assert (ctx.value, ctx.saves_bytes) == (720, 62_679_678_976)
    assert ctx.action == "Cap the context at 720 tokens"


def test_advisor_tp_lever_saves_the_difference_of_totals():
    # Llama-3.1-70B bf16, 8,192 x 1, formula profile, 80 GiB:
    #   TP 1: weights 141,107,412,992 + KV 327,680 * 8,192 = 2,684,354,560 -> 143,791,767,552
    #         * 1.15 -> + ceil(21,568,765,132.8) + 1 GiB = 166,434,274,509
    #   TP 2: 70,553,706,496 + 1,342,177,280 = 71,895,883,776 -> + 10,784,382,567 + 1 GiB
    #         = 83,754,008,167 (fits: usable 77,309,411,328 - 1 GiB - weights leaves 5.3 GiB)
    #   saves 166,434,274,509 - 83,754,008,167 = 82,680,266,342
    p70 = find_model("llama-3.1-70b")
    r = solve(p70.model, WeightSpec(WeightFormat.BF16), Workload(8192), Runtime(), 80 * GIB)
    assert r.min_gpus == 2
    tp = next(a for a in r.advice if a.lever == "tensor_parallel_size")
    assert (tp.value, tp.saves_bytes) == (2, 82_680_266_342)


def test_weight_lever_never_proposes_the_current_width(llama8):
    # already int8: the lever can only go down to int4 (4.25 bpw), never "quantize to int8"
    wl = Workload(context_tokens=8192, batch=64)
    r = solve(llama8.model, WeightSpec(WeightFormat.INT8), wl, Runtime(), 24 * GIB)
    weights = [a for a in r.advice if a.lever == "weights"]
    assert [a.value for a in weights] == ["int4 (g128, 4.25 bpw)"]


def test_weight_lever_absent_when_already_at_the_smallest_width(llama8):
    # int4 g128 is the smallest width the advisor proposes: no weights lever at all
    wl = Workload(context_tokens=8192, batch=64)
    r = solve(llama8.model, WeightSpec(WeightFormat.INT4), wl, Runtime(), 24 * GIB)
    assert not r.fits
    assert [a for a in r.advice if a.lever == "weights"] == []


def test_overhead_note_only_when_the_overhead_alone_is_too_much(llama8):
    # 24 GiB: usable 6,058,559,078 + weights > 0 -> no note, though weights > usable
    r = solve(llama8.model, llama8.weights, Workload(8192, 64), Runtime(), 24 * GIB)
    assert not any("fixed overhead alone" in n for n in r.notes)
    # 1 GiB: floor(0.9 GiB) - 1 GiB fixed < 0 -> the note
    r = solve(llama8.model, llama8.weights, Workload(8192), Runtime(), GIB)
    assert any("fixed overhead alone" in n for n in r.notes)


def test_min_gpus_text_names_the_largest_candidate():
    from vramdesk.core.solve.solver import min_gpus_text

    r = solve(find_model("llama-3.1-405b").model, WeightSpec(), Workload(8192), Runtime(), GIB)
    assert r.min_gpus is None
    assert min_gpus_text(r, Engine.FORMULA) == "none up to 64"


def test_advice_lists_fitting_levers_first(llama8):
    r = solve(llama8.model, llama8.weights, Workload(8192, 64), Runtime(), 24 * GIB)
    fits = [a.fits for a in r.advice]
    assert fits == sorted(fits, reverse=True) and fits[0] and not fits[-1]


def test_a_context_cap_of_one_token_is_offered_and_marked_enough():
    # Llama-3.1-8B bf16 at batch 8, unpaged, on a card sized so that exactly one token per
    # sequence fits: need(8, 1) = 131,072 B x 8 = 1,048,576 B; usable = floor(cap x 0.9) - 1 GiB
    # - weights.
    # cap = ceil((1 GiB + 16,060,522,496 + 1,048,576) / 0.9) makes usable >= 1,048,576 and
    # < 2,097,152 = need(8, 2), so the advisor's context lever is 1 token, and it is enough.
    target = GIB + 16_060_522_496 + 1_048_576
    cap = math.ceil(target * 10 / 9)
    rt = Runtime(block_size=None)
    r = solve(
        LLAMA8_RESOLVED.model,
        LLAMA8_RESOLVED.weights,
        Workload(context_tokens=8192, batch=8),
        rt,
        cap,
    )
    assert r.max_context == 1
    levers = {a.lever: a for a in r.advice}
    assert levers["context_tokens"].value == 1 and levers["context_tokens"].fits


def test_quantizing_weights_that_cannot_help_says_why():
    # Qwen2.5-32B bf16, 16 x 32,768 under SGLang on an H100: the KV cache alone
    # (2 x 8 x 128 x 2 x 64 x 524,288 = 128 GiB) exceeds what is left after the overhead, so even
    # int4 weights are not enough: reason "kv_alone", with need and room in the sentence
    preset = resolve_model_preset("qwen2.5-32b")
    capacity = bundled.find_gpu("H100 80GB").capacity_for(Engine.SGLANG)
    r = solve(
        preset.model,
        preset.weights,
        Workload(context_tokens=32768, batch=16),
        Runtime(engine=Engine.SGLANG),
        capacity,
    )
    weights = [a for a in r.advice if a.lever == "weights"][0]
    assert not weights.fits and weights.reason == "kv_alone"
    assert weights.need_bytes == 128 * GIB
    assert weights.room_bytes == r.usable_bytes + r.breakdown.weights.bytes < 128 * GIB
    assert "the KV cache and activations alone (128.00 GiB)" in weights.text


def test_a_kv_lever_the_engine_refuses_here_is_left_out_not_raised(llama8):
    # llama.cpp with flash attention off refuses a quantized V cache (src/llama-context.cpp),
    # so its compact q8_0 cache is no lever under these settings: the solve still answers
    # (found by a new-user test: solve exited 2 with the q8_0 refusal nobody asked for).
    # 131,072 x 4 fp16 tokens x 131,072 B = 64 GiB of cache cannot fit a 23.99 GiB card.
    rt = Runtime(engine=Engine.LLAMA_CPP, flash_attn=False)
    r = solve(llama8.model, llama8.weights, Workload(131_072, 4), rt, 24_564 * 2**20)
    assert not r.fits
    assert "kv_dtype" not in {a.lever for a in r.advice}
    assert {a.lever for a in r.advice} >= {"context_tokens", "weights"}
