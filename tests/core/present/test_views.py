"""Derived views over the estimate (vramdesk.core.present.views): each is the core's own figure."""

from __future__ import annotations

import csv
import io
import json

import pytest

from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import OverheadForm, Runtime
from vramdesk.core.model.spec import ModelSpec, sliding_layer_pattern
from vramdesk.core.model.workload import Workload
from vramdesk.core.present import views
from vramdesk.core.solve.solver import solve
from vramdesk.core.solve.verdict import headline
from vramdesk.core.store.bundled import find_model, gpu_catalog
from vramdesk.core.units import GIB, Unit, to_unit

SEVEN = find_model("7b-class")


def test_stacked_segments_start_where_the_previous_ends():
    b = estimate(SEVEN.model, SEVEN.weights, Workload(4096, 8), Runtime())
    segs = views.stacked_segments(b)
    assert [s.key for s in segs] == ["weights", "kv_cache", "activations", "overhead"]
    assert segs[0].y0 == 0.0
    below = 0
    for seg, part in zip(segs, b.parts, strict=True):
        assert (
            seg.y0 == to_unit(below)
            and seg.height == to_unit(part.bytes)
            and seg.bytes == part.bytes
        )
        below += part.bytes
    assert below == b.total_bytes


def test_fits_table_gives_the_headline_answer_and_exact_headroom():
    b = estimate(SEVEN.model, SEVEN.weights, Workload(4096, 8), Runtime())
    gpus = [(g.name, g.memory_bytes) for g in gpu_catalog()]
    rows = views.fits_table(b, gpus, Runtime())
    assert [r.name for r in rows] == [g[0] for g in gpus]
    for row, (_name, cap) in zip(rows, gpus, strict=True):
        assert row.total_bytes == b.total_bytes
        assert row.headroom_bytes == cap - b.total_bytes  # the total within the card, exact
        # the verdict is the headline's for a reverse solve on that card
        r = solve(SEVEN.model, SEVEN.weights, Workload(4096, 8), Runtime(), cap)
        assert row.verdict == headline(r, 8).state and row.fits == (row.verdict != "no")
    # a 24 GiB card: 7B fp16 at 4,096 x 8 needs more (weights alone 7e9 * 2 B = 13.04 GiB, KV
    # 2 * 32 * 32 * 128 * 2 B * 32,768 tokens = 16 GiB; * 1.15 + 1 GiB = 34.4 GiB); 80 GiB holds it
    by_name = {r.name: r for r in rows}
    assert not by_name["Generic 24 GiB"].fits and by_name["Generic 80 GiB"].fits


def test_fits_table_reproduces_the_seed_case(seed_figures):
    case = seed_figures["fits-table"]
    runtime = Runtime(overhead=OverheadForm.WORKSPACE)  # workspace fraction 0.05 (default)
    gpus = [
        (
            f"Generic {c} GiB",
            next(g.memory_bytes for g in gpu_catalog() if g.name == f"Generic {c} GiB"),
        )
        for c in case["capacities"]
    ]
    for label, expected in case["fits"].items():
        size, fmt = label.split()
        preset = find_model(f"{size.lower()}-class")
        b = estimate(preset.model, WeightSpec(WeightFormat.parse(fmt)), Workload(4096, 8), runtime)
        # the source documents' yes/no is the forward question, the total within the card
        rows = views.fits_table(b, gpus, runtime)
        assert [r.headroom_bytes >= 0 for r in rows] == expected, label


def test_kv_growth_reproduces_the_source_grid(seed_figures):
    grid = seed_figures["kv-scaling-grid"]
    for key, slug in (("7B_mha_32x32x128", "7b-class"), ("70B_gqa_80x8x128", "70b-class")):
        p = find_model(slug)
        got = views.kv_growth(
            p.model,
            p.weights,
            Workload(),
            Runtime(),
            views.SOURCE_GRID_CONTEXTS,
            views.SOURCE_GRID_BATCHES,
        )
        for col, batch in enumerate(views.SOURCE_GRID_BATCHES):
            assert [to_unit(v) for v in got[batch]] == [
                grid[key][str(c)][col] for c in views.SOURCE_GRID_CONTEXTS
            ]


def test_kv_growth_caps_the_prompt_at_the_context():
    # prompt 4096 at context 2048 would be invalid; the grid caps it to the context
    got = views.kv_growth(
        SEVEN.model, SEVEN.weights, Workload(8192, 1, prompt_len=4096), Runtime(), [2048], [1]
    )
    # 7B MHA: 2 * 32 layers * 32 heads * 128 * 2 bytes = 524,288 B/token; x 2048 tokens = 1 GiB
    assert got == {1: [GIB]}


def test_growth_contexts_are_powers_of_two_up_to_the_limit():
    assert views.growth_contexts(4096) == [512, 1024, 2048, 4096]
    assert views.growth_contexts(3000) == [512, 1024, 2048, 3000]


def test_describe_layer_pattern_round_trips():
    base = ModelSpec(num_hidden_layers=12, num_key_value_heads=8, head_dim=128)
    assert views.describe_layer_pattern(base) == "none"
    assert views.describe_layer_pattern(base.replace(sliding_window=4096)) == "all"
    for name in ("alternating", "5:1", "3:1"):
        m = base.replace(sliding_window=4096, layer_types=sliding_layer_pattern(12, name))
        assert views.describe_layer_pattern(m) == name
    odd = ("full_attention",) * 11 + ("sliding_attention",)
    assert (
        views.describe_layer_pattern(base.replace(sliding_window=4096, layer_types=odd)) == "custom"
    )


def test_derived_values_are_the_core_properties():
    m = ModelSpec(
        num_hidden_layers=32,
        num_key_value_heads=8,
        hidden_size=4096,
        num_attention_heads=32,
        intermediate_size=14336,
        vocab_size=128256,
    )
    # Llama-3.1-8B's shape (config.json): head_dim 4,096 / 32 = 128, 32 / 8 = 4 query heads per
    # KV head (GQA), 8,030,261,248 parameters published on the model card's safetensors
    # total; per token 2 * 8 * 128 * 2 B * 32 layers = 131,072 B; 8,192 x 8 = 65,536 live tokens
    b = estimate(m, WeightSpec(), Workload(8192, 8), Runtime())
    d = views.derived_values(m, b, Workload(8192, 8))
    assert (d.head_dim, d.gqa_ratio, d.attention_kind) == (128, 4, "GQA")
    assert d.params == d.params_computed == 8_030_261_248
    assert d.kv_bytes_per_token == 131_072 and d.live_tokens == 65_536


def test_compare_reports_invalid_presets_instead_of_raising():
    seventy = find_model("70b-class")
    rows = views.compare(
        [("7B", SEVEN.model, SEVEN.weights), ("70B", seventy.model, seventy.weights)],
        Workload(4096, 8),
        Runtime(pipeline_parallel_size=40),
    )
    assert (
        rows[0].breakdown is None and "pipeline_parallel_size" in rows[0].error
    )  # 32 layers < PP 40
    assert rows[1].breakdown == estimate(
        seventy.model, seventy.weights, Workload(4096, 8), Runtime(pipeline_parallel_size=40)
    )


def test_exports_render_exact_bytes():
    b = estimate(SEVEN.model, SEVEN.weights, Workload(4096, 8), Runtime())
    header, rows = views.breakdown_table(b, Unit.GB)
    parsed = list(csv.reader(io.StringIO(views.to_csv(header, rows))))
    assert parsed[0] == header and [r[1] for r in parsed[1:]] == [str(p.bytes) for p in b.parts] + [
        str(b.total_bytes)
    ]
    # the GB column is a plain number: total bytes / 10**9 to 4 decimals, no unit in the cell
    assert parsed[0][2] == "GB" and parsed[-1][2] == f"{b.total_bytes / 10**9:.4f}"
    md = views.to_markdown(["a|b", "c"], [["x\ny", "1"]])
    assert md == "| a\\|b | c |\n|---|---|\n| x y | 1 |\n"
    assert json.loads(views.breakdown_json(b))["total_bytes"] == b.total_bytes
    rows_c = views.compare([("7B", SEVEN.model, SEVEN.weights)], Workload(4096, 8), Runtime())
    header_c, table = views.comparison_table(rows_c)
    assert table[0][header_c.index("total_bytes")] == str(b.total_bytes)
    # total_GiB: a number a spreadsheet reads, not "14.9575 GiB"
    assert table[0][header_c.index("total_GiB")] == f"{b.total_bytes / 2**30:.4f}"
    assert json.loads(views.comparison_json(rows_c))[0]["breakdown"]["total_bytes"] == b.total_bytes


def test_batch_for_live_tokens_rounds_up():
    import pytest

    from vramdesk.core.errors import InputError

    # SPEC §3.3: 100 requests x 500 tokens = 50,000 live tokens = 5 requests x 10,000 tokens
    assert views.batch_for_live_tokens(100 * 500, 10_000) == 5
    assert views.batch_for_live_tokens(50_001, 10_000) == 6  # one token more needs a 6th sequence
    with pytest.raises(InputError) as err:
        views.batch_for_live_tokens(0, 10_000)
    assert err.value.field == "live_tokens"


def test_compact_text_keeps_short_text_and_quotes_long_text_by_its_ends():
    assert views.compact_text("1e400") == "1e400"
    # 400 nines: 12 kept at each end, the length said
    assert views.compact_text("9" * 400) == "9" * 12 + "…" + "9" * 12 + " (400 characters)"
    assert views.shorten("abc", 3) == "abc" and views.shorten("abcd", 3) == "ab…"


def test_kv_grid_equals_the_kv_part_of_a_full_estimate_at_every_point():
    # issue 11: the formula profile's grid is computed from per-group costs, not a loop of
    # estimates; the oracle is that loop, point by point, over every bundled model and the
    # knobs that move the cached tokens (paging, a shared prefix, the window, TP, KV dtype)
    from vramdesk.core.model.formats import KVDtype
    from vramdesk.core.store.bundled import bundled_models

    contexts = [1, 100, 512, 4095, 4096, 4097, 32768, 131072]
    batches = [1, 3, 8, 32]
    runtimes = [
        Runtime(),
        Runtime(block_size=16, shared_prefix_tokens=1000),
        Runtime(sliding_window_exploited=False, shared_prefix_tokens=4096),
        Runtime(tensor_parallel_size=2, block_size=256),
    ]
    checked = 0
    for preset in bundled_models():
        for rt in runtimes:
            for kv in (KVDtype.FP16, KVDtype.Q4_0):
                wl = Workload(context_tokens=8192, batch=2, prompt_len=2048, kv_dtype=kv)
                try:
                    grid = views.kv_growth(preset.model, preset.weights, wl, rt, contexts, batches)
                except Exception as exc:  # noqa: BLE001 - the loop must refuse it alike
                    with pytest.raises(type(exc)):
                        _kv_loop(preset.model, preset.weights, wl, rt, contexts, batches)
                    continue
                assert grid == _kv_loop(preset.model, preset.weights, wl, rt, contexts, batches)
                checked += 1
    assert checked > 50


def _kv_loop(model, weights, wl, rt, contexts, batches):
    out = {}
    for b in batches:
        out[b] = []
        for c in contexts:
            w = wl.replace(context_tokens=c, batch=b, prompt_len=min(wl.prompt_len, c))
            r = rt.replace(shared_prefix_tokens=min(rt.shared_prefix_tokens, c))
            out[b].append(estimate(model, weights, w, r).kv_cache.bytes)
    return out


def test_formula_need_without_a_breakdown_equals_the_estimates_need():
    # issue 11: the solver asks the formula profile for its need without building the
    # breakdown's texts; the oracle is need_bytes of the full estimate at the same point
    from vramdesk.core.engines import profile_for
    from vramdesk.core.model.formats import KVDtype
    from vramdesk.core.store.bundled import bundled_models

    profile = profile_for(Runtime().engine)
    workloads = [
        Workload(context_tokens=1, batch=1),
        Workload(context_tokens=4097, batch=3, prompt_len=4000, kv_dtype=KVDtype.Q8_0),
        Workload(context_tokens=32768, batch=17, prompt_len=512, chunk_tokens=2048),
        Workload(context_tokens=8192, batch=64, prompt_len=8192, all_logits=True),
    ]
    runtimes = [
        Runtime(),
        Runtime(block_size=16, shared_prefix_tokens=1000),
        Runtime(tensor_parallel_size=2, sliding_window_exploited=False),
    ]
    from pathlib import Path

    from vramdesk.core.local.importers import load_model

    configs = sorted((Path(__file__).parents[2] / "data" / "configs").glob("*.json"))
    models = [(p.model, p.weights) for p in bundled_models()]
    models += [(m.model, m.weights) for m in map(load_model, configs)]  # hybrids, MoE, MLA
    assert any(m.conv_state_elements for m, _w in models)
    checked = 0
    for model, weights in models:
        for wl in workloads:
            for rt in runtimes:
                args = (model, weights, wl, rt)
                try:
                    want = profile.need_bytes(estimate(*args))
                except Exception as exc:  # noqa: BLE001 - refused alike
                    with pytest.raises(type(exc)):
                        profile.need_at(*args)
                    continue
                assert profile.need_at(*args) == want, (model.name, wl, rt)
                checked += 1
                for batch, ctx in ((1, 1), (2, 4096), (7, 5000), (64, 131072)):
                    point = profile.at_point(wl, rt, batch, ctx)
                    try:
                        want = profile.need_bytes(estimate(model, weights, *point))
                    except Exception as exc:  # noqa: BLE001 - refused alike
                        with pytest.raises(type(exc)):
                            profile.need_at_point(*args, batch, ctx)
                        continue
                    assert profile.need_at_point(*args, batch, ctx) == want, (batch, ctx)
    assert checked > 100


def test_to_unit_of_an_int_is_the_float_of_the_exact_quotient():
    # issue 11: to_unit divides ints directly (Python's int / int is correctly rounded); the
    # oracle is the float of the exact Fraction, over byte counts up to 2**80 in every unit
    import random
    from fractions import Fraction

    rng = random.Random(11)
    for unit in Unit:
        for _ in range(20_000):
            n = rng.randrange(0, 2 ** rng.randrange(1, 81))
            assert to_unit(n, unit) == float(Fraction(n, unit.size_bytes))


def test_verdict_without_a_breakdown_equals_the_estimates_figures():
    # issue 11: the fit advisor asks each profile for need, usable, KV and weights bytes of
    # an alternative (other KV dtype, weight format, TP size); the formula profile answers
    # without building the breakdown. Oracle: the same four figures read off the full
    # estimate, through need_bytes / usable_bytes, for every engine and both overhead forms
    from vramdesk.core.engines import profile_for
    from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
    from vramdesk.core.model.runtime import Engine, OverheadForm
    from vramdesk.core.store.bundled import bundled_models
    from vramdesk.core.units import GIB

    workloads = [
        Workload(context_tokens=1, batch=1),
        Workload(context_tokens=4097, batch=3, prompt_len=4000, kv_dtype=KVDtype.FP8),
        Workload(context_tokens=32768, batch=17, prompt_len=512, chunk_tokens=2048),
    ]
    runtimes = [
        Runtime(),
        Runtime(tensor_parallel_size=2, gpu_memory_utilization=0.87),
        Runtime(overhead=OverheadForm.WORKSPACE, block_size=16),
        Runtime(fixed_overhead_bytes=0, overhead_factor=1.3, tensor_parallel_size=4),
        Runtime(engine=Engine.VLLM),
    ]
    weights = [None, WeightSpec(WeightFormat.INT8), WeightSpec(WeightFormat.INT4, group_size=128)]
    checked = 0
    for preset in bundled_models():
        for wl in workloads:
            for rt in runtimes:
                profile = profile_for(rt.engine)
                for w in weights:
                    w = w or preset.weights
                    args = (preset.model, w, wl, rt)
                    for cap in (8 * GIB, 80 * GIB + 12345):
                        try:
                            b = estimate(*args)
                        except Exception as exc:  # noqa: BLE001 - refused alike
                            with pytest.raises(type(exc)):
                                profile.budget_check_at(*args, cap)
                            continue
                        want = (
                            profile.need_bytes(b),
                            profile.usable_bytes(b, cap, rt),
                            b.kv_cache.bytes,
                            b.weights.bytes,
                        )
                        assert tuple(profile.budget_check_at(*args, cap)) == want, (preset, wl, rt)
                        checked += 1
    assert checked > 200
