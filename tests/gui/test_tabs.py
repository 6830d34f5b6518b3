"""The solver, fits, KV-growth and compare tabs reproduce the source documents' figures."""

from __future__ import annotations

from fractions import Fraction

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests import seed_cases as sc
from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import KVDtype, WeightFormat
from vramdesk.core.model.runtime import Engine, OverheadForm
from vramdesk.core.present.views import SOURCE_GRID_BATCHES, SOURCE_GRID_CONTEXTS
from vramdesk.core.solve.sentence import LEVER_TITLES
from vramdesk.core.solve.solver import solve
from vramdesk.core.solve.verdict import TABLE_VERDICT, headline
from vramdesk.core.store.bundled import find_model
from vramdesk.core.units import Unit, format_bytes, to_unit


def load_class(window, slug):
    key = f"bundled:{slug}"
    box = window.model_form.preset_box
    index = box.findData(key)
    assert index >= 0, key
    box.setCurrentIndex(index)
    box.activated.emit(index)
    assert window.controller.model == find_model(slug).model


@pytest.mark.parametrize(
    "case_id", ["max-concurrency-80-8k", "max-concurrency-80-2k", "max-concurrency-80-8k-kvfp8"]
)
def test_solver_tab_reproduces_max_concurrency(make_main_window, solved, seed_figures, case_id):
    case = seed_figures[case_id]
    inputs = case["inputs"]
    window = make_main_window()
    c = window.controller
    load_class(window, "70b-class")
    assert (
        c.model.num_hidden_layers == inputs["layers"]
        and c.model.num_key_value_heads == inputs["kv_heads"]
    )
    c.set_field("format", WeightFormat.parse(sc.seed_format(inputs["weights"])))
    c.set_field("kv_dtype", KVDtype.parse(inputs["kv_dtype"]))
    c.set_field("context_tokens", inputs["context"])
    c.set_field("gpu_memory_utilization", inputs["util"])
    c.set_field("fixed_overhead_gib", inputs["fixed_gib"])
    c.set_field("custom_capacity", (inputs["vram_gib"], "GiB"))
    c.set_field("target", "custom")
    assert c.problem is None
    solved(window)
    text = window.solver_tab.values["max_concurrency"].text()
    assert text.startswith(f"{case['expected']:,} sequences of {inputs['context']:,} tokens")
    assert text.endswith(f"(exact {case['exact_ratio']:.4f})")
    assert round(float(c.solve_result.max_concurrency_exact), 4) == case["exact_ratio"]
    # the formula profile is no engine: no engine log lines are claimed for it
    assert not window.solver_tab.values["kv_tokens"].isVisibleTo(window.solver_tab)


@pytest.mark.parametrize("engine", [Engine.FORMULA, Engine.SGLANG, Engine.LLAMA_CPP, Engine.OLLAMA])
def test_engine_log_lines_appear_only_for_the_engine_that_prints_them(
    make_main_window, solved, engine
):
    window = make_main_window()
    window.controller.set_field("engine", engine)
    solved(window)
    tab = window.solver_tab
    assert not tab.values["kv_tokens"].isVisibleTo(tab)
    assert not tab.row_labels["kv_tokens"].isVisibleTo(tab)


def test_vllm_lines_are_the_vllm_profiles(make_main_window, solved):
    # Llama-3.1-8B bf16, 8,192 x 8 on an RTX 4090 under the vLLM profile: the profile predicts
    # 13,552 tokens and 1.65x (13,552 / 8,192 = 1.654), the figures the issue quotes for it,
    # not the formula's 46,128 tokens / 5.63x that used to be shown under every engine
    window = make_main_window()
    c = window.controller
    c.set_field("engine", Engine.VLLM)
    solved(window)
    tab = window.solver_tab
    assert tab.values["kv_tokens"].isVisibleTo(tab)
    lines = tab.values["kv_tokens"].text().splitlines()
    assert lines == c.solve_result.vllm_lines()
    assert lines == [
        "GPU KV cache size: 13,552 tokens",
        "Maximum concurrency for 8,192 tokens per request: 1.65x",
    ]


def test_solver_tab_lists_the_advisor_levers(make_main_window, solved):
    window = make_main_window()
    c = window.controller
    c.set_field("context_tokens", 131072)  # 7B-class fp16, 128k x 8 on an RTX 4090: does not fit
    solved(window)
    result = c.solve_result
    assert not result.fits and result.advice
    table = window.solver_tab.advice
    assert table.rowCount() == len(result.advice)
    for row, advice in enumerate(result.advice):
        assert table.item(row, 0).text() == LEVER_TITLES[advice.lever]  # a reader's name
        assert table.item(row, 3).text() == advice.text  # the CLI's sentence, word for word


def test_fits_tab_reproduces_the_fits_table(make_main_window, seed_figures):
    case = seed_figures["fits-table"]
    window = make_main_window()
    c = window.controller
    c.set_field("overhead", OverheadForm.WORKSPACE)
    c.set_field("workspace_fraction", 0.05)
    gpus = [f"Generic {cap} GiB" for cap in case["capacities"]]
    for label, expected in case["fits"].items():
        size, fmt = label.split()
        load_class(window, f"{size.lower()}-class")
        c.set_field("format", WeightFormat.parse(fmt))
        c.set_field("context_tokens", 4096)
        c.set_field("batch", 8)
        rows = {r.name: r for r in c.fits_rows()}
        # the source documents' yes/no is the forward question (the estimated total within the
        # card), which the tab shows as the headroom; its verdict is the headline's, which also
        # asks the engine's KV budget (capacity x 0.9 - reserved - weights): 70B int4 on 48 GiB
        # is within the card (headroom >= 0) but short of that budget, so "does not fit"
        assert [rows[g].headroom_bytes >= 0 for g in gpus] == expected, label
        verdicts = window.fits_tab.verdicts()
        for g in gpus:
            r = solve(c.model, c.weights, c.workload, c.runtime, rows[g].capacity_bytes)
            assert verdicts[g] == headline(r, c.workload.batch).state, (label, g)
        row = rows[gpus[-1]]
        assert row.total_bytes == estimate(c.model, c.weights, c.workload, c.runtime).total_bytes


@pytest.mark.parametrize(
    ("key", "slug"), [("7B_mha_32x32x128", "7b-class"), ("70B_gqa_80x8x128", "70b-class")]
)
def test_kv_growth_tab_reproduces_the_grid(make_main_window, seed_figures, key, slug):
    grid = seed_figures["kv-scaling-grid"][key]
    window = make_main_window()
    load_class(window, slug)
    window.kv_tab.refresh()
    shown = window.kv_tab.grid_bytes()
    for col, batch in enumerate(SOURCE_GRID_BATCHES):
        for row, ctx in enumerate(SOURCE_GRID_CONTEXTS):
            assert to_unit(shown[batch][row]) == grid[str(ctx)][col], (ctx, batch)
    table = window.kv_tab.table
    assert table.verticalHeaderItem(0).text() == f"{SOURCE_GRID_CONTEXTS[0]:,}"


def test_kv_growth_plot_draws_core_values_and_capacity(make_main_window, solved):
    window = make_main_window()
    c = window.controller
    solved(window)
    window.kv_tab.refresh()
    curve = window.kv_tab.curves[c.workload.batch]
    xs, ys = curve.getOriginalDataset()
    for ctx, y in zip(xs, ys, strict=True):
        wl = c.workload.replace(context_tokens=int(ctx))
        assert y == to_unit(estimate(c.model, c.weights, wl, c.runtime).kv_cache.bytes)
    # the line is the KV budget (room after weights and overhead), not the whole card
    cap_x, cap_y = window.kv_tab.capacity.getOriginalDataset()
    assert list(cap_y) == [to_unit(c.solve_result.kv_budget_bytes)] * 2
    assert c.solve_result.kv_budget_bytes < c.capacity_bytes() - c.breakdown.weights.bytes
    # the current workload is marked at its context and KV bytes
    px, py = window.kv_tab.current.getOriginalDataset()
    assert list(px) == [c.workload.context_tokens]
    assert list(py) == [to_unit(c.breakdown.kv_cache.bytes)]


def test_kv_growth_says_when_the_weights_alone_exceed_the_card(make_main_window, solved):
    # DeepSeek-V3 on one H100 80GB: the weights (627+ GiB) alone exceed the card, so there is
    # no KV budget to draw; the tab says so instead of looking "under capacity"
    window = make_main_window()
    c = window.controller
    load_class(window, "deepseek-v3")
    c.set_field("target", "gpu:H100 80GB")
    solved(window)
    window.kv_tab.refresh()
    assert window.kv_tab.capacity.getOriginalDataset()[1] is None or not len(
        window.kv_tab.capacity.getOriginalDataset()[1]
    )
    note = window.kv_tab.budget_note
    assert note.isVisibleTo(window.kv_tab)
    assert "the weights alone" in note.text() and "exceed the 79.65 GiB card" in note.text()


def test_compare_tab_estimates_each_preset_under_the_workload(make_main_window):
    window = make_main_window()
    c = window.controller
    c.set_field("context_tokens", 4096)
    tab = window.compare_tab
    tab.set_checked(["bundled:7b-class", "bundled:70b-class"])
    names = [r.name for r in tab.rows]
    assert names == [
        "This model: Llama-3.1-8B",  # the shown model always leads: the tab is never empty
        find_model("70b-class").name,
        find_model("7b-class").name,
    ]
    assert tab.rows[0].breakdown == c.breakdown
    for row in tab.rows[1:]:
        preset = [p for p in c.model_presets() if p.name == row.name][0]
        assert row.breakdown == estimate(preset.model, preset.weights, c.workload, c.runtime)
    assert tab.table.rowCount() == 3
    # one horizontal bar per model, its parts stacked: each bar ends at the model's total
    ends = _bar_ends(tab)
    assert ends == pytest.approx([to_unit(r.breakdown.total_bytes) for r in tab.rows])
    # bars are named by model (the y axis, whole names), and the target's capacity is drawn
    # (RTX 4090: 24,564 MiB)
    ticks = tab.plot.getAxis("left")._tickLevels[0]
    assert [t[1] for t in ticks] == names
    assert tab.capacity_line.isVisible() and tab.capacity_line.value() == to_unit(24_564 * 2**20)
    # the last column is the headline's answer for each model on the target
    header = [tab.table.horizontalHeaderItem(i).text() for i in range(tab.table.columnCount())]
    assert header[-1] == "Verdict" and header[-2] == "Total (GiB)"
    fits = [tab.table.item(r, len(header) - 1).text() for r in range(3)]
    # each row's answer is the headline the window would show with that model loaded: a
    # reverse solve on the target's capacity, read by solve.verdict.headline
    capacity = c.capacity_bytes()
    want = []
    for preset in (None, find_model("70b-class"), find_model("7b-class")):  # the rows' order
        model, weights = (c.model, c.weights) if preset is None else (preset.model, preset.weights)
        r = solve(model, weights, c.workload, c.runtime, capacity)
        want.append(TABLE_VERDICT[headline(r, c.workload.batch).state])
    assert fits == want
    # Llama-3.1-8B at 4,096 x 1 fits the 23.99 GiB card; 70B's 140 GB of fp16 weights do not
    assert fits[0] == "fits" and fits[1] == "does not fit"


def test_compare_tab_is_not_empty_with_nothing_ticked(make_main_window):
    window = make_main_window()
    tab = window.compare_tab
    tab.set_checked([])
    assert len(tab.rows) == 1 and tab.table.rowCount() == 1
    assert _bar_ends(tab) == pytest.approx([to_unit(window.controller.breakdown.total_bytes)])


def _bar_ends(tab):
    """Where each model's stacked bar ends (the last part's x0 + width), in the axis unit."""
    last = tab.bars["overhead"].opts
    return [x0 + width for x0, width in zip(last["x0"], last["width"], strict=True)]


def test_unit_toggle_switches_every_figure_to_gb(make_main_window):
    from vramdesk.core.units import GB, Unit  # GB = 10**9 bytes

    window = make_main_window()
    c = window.controller
    gb_action = [a for a in window.unit_actions if a.data() == "GB"][0]
    gb_action.trigger()
    assert c.unit is Unit.GB
    window.chart.redraw()
    weights = c.breakdown.weights.bytes
    assert window.chart.bars["weights"].opts["height"] == [float(Fraction(weights, GB))]
    assert window.figures.row_texts()[0][2].endswith(" GB")


def test_solver_tab_shows_one_headline_verdict_and_explains_the_total(make_main_window, solved):
    # Llama-3.1-8B int4 (g128, 16-bit embeddings), 30 x 4096 on an RTX 4090 (a user's case):
    # the engine-style KV budget (capacity x 0.9 - weights) has room, the forward total with
    # its 1.15 margin does not: one headline, "Tight", with the total explained beneath it
    window = make_main_window()
    c = window.controller
    load_class(window, "llama-3.1-8b")
    c.set_field("format", WeightFormat.INT4)
    c.set_field("context_tokens", 4096)
    c.set_field("batch", 30)
    solved(window)
    r = c.solve_result
    assert r.fits and not r.fits_total and r.breakdown.total_bytes > r.capacity_bytes
    view = window.headline  # one headline, above the chart (not repeated in the tab)
    assert view.state == "tight"
    budget = format_bytes(r.usable_bytes, c.unit)
    total_text = format_bytes(r.breakdown.total_bytes, c.unit)
    cap_text = format_bytes(r.capacity_bytes, c.unit)
    assert view.headline.text() == (
        f"Tight: 30 x 4,096 tokens fit the {budget} usable for KV cache and activations, but the "
        f"estimated total "
        f"{total_text} exceeds the {cap_text} card"
    )
    assert view.detail.text().startswith(f"Estimated total {total_text} vs capacity {cap_text}")
    form = window.solver_tab.layout().itemAt(0).layout()
    # each value sits in its SteadyHolder (vramdesk/gui/steady.py), the form's field
    fields = [v.parentWidget() for v in window.solver_tab.values.values()]
    labels = [form.labelForField(field).text() for field in fields]
    assert not any("Verdict" in label for label in labels)  # no second verdict row


def test_kv_growth_legend_has_one_entry_per_shown_curve_with_distinct_colours(
    make_main_window, solved
):
    window = make_main_window()
    c, tab = window.controller, window.kv_tab
    for batch in (4, 8, 5, 32, 6):  # 8 and 32 are grid concurrencies: no extra curve then
        c.set_field("batch", batch)
        solved(window)
        tab.refresh()
        shown = list(SOURCE_GRID_BATCHES) + ([] if batch in SOURCE_GRID_BATCHES else [batch])
        legend = tab.plot.getPlotItem().legend
        entries = [
            (lab.text, smp.item.opts["pen"] and smp.item.opts["pen"].color().name())
            for smp, lab in legend.items
        ]
        names = [name for name, _colour in entries]
        fixed = ["KV budget", "this workload"]
        assert sorted(names) == sorted(fixed + [f"{b} concurrent" for b in shown])
        colours = [colour for name, colour in entries if name not in fixed]
        assert len(set(colours)) == len(colours), entries
        items = tab.plot.getPlotItem().listDataItems()
        drawn = [item for item in items if item.getData()[0] is not None and len(item.getData()[0])]
        assert len(drawn) == len(shown) + 2  # the curves, the budget line, the current point


def test_compare_tab_names_parts_as_the_chart_does_and_fits_names(make_main_window):
    window = make_main_window()
    tab = window.compare_tab
    tab.set_checked(["bundled:7b-class", "bundled:70b-class"])
    legend = tab.legend.text()  # above the plot: it can cover no bar
    part_labels = [p.label for p in window.controller.breakdown.parts]  # the core's labels
    assert part_labels[:3] == ["Weights", "KV cache", "Activations"]
    # the capacity is named with its figure there, clear of the bars (RTX 4090: 24,564 MiB)
    for name in [*part_labels[:3], "Overhead", "capacity 23.99 GiB"]:
        assert name in legend
    header = [tab.table.horizontalHeaderItem(i).text() for i in range(tab.table.columnCount())]
    assert "KV cache (GiB)" in header and not any("_" in h for h in header)
    # wide enough for the longest name and its check box, up to 240 px: a longer name is elided
    # in its middle (whole in its tooltip), so the chart keeps its share of a 1280-px window
    assert tab.picker.minimumWidth() >= min(tab.picker.sizeHintForColumn(0) + 28, 240)
    assert tab.picker.textElideMode() is Qt.TextElideMode.ElideMiddle
    assert tab.picker.horizontalScrollBarPolicy() is Qt.ScrollBarPolicy.ScrollBarAlwaysOff


def test_chart_axis_and_figures_header_carry_the_unit(make_main_window):
    window = make_main_window()
    for label in ("GiB", "GB", "GiB"):
        window.controller.set_unit(Unit.parse(label))
        window.chart.redraw()
        axis = window.chart.plot.getAxis("left").labelText
        assert axis.endswith(f"({label})")
        assert window.figures.tree.headerItem().text(2) == f"Size ({label})"
        assert window.figures.tree.topLevelItem(0).text(2).endswith(f" {label}")


def test_the_tabs_behind_the_solver_are_built_when_first_shown(make_main_window, qtbot):
    # issue 11: nothing of the Fits, KV growth and Compare tabs is built (or imported) for the
    # first frame; a click on a tab builds it before it paints
    from PySide6.QtCore import Qt

    from vramdesk.gui.tabs.compare import CompareTab
    from vramdesk.gui.tabs.fits import FitsTab
    from vramdesk.gui.tabs.kv_growth import KvGrowthTab
    from vramdesk.gui.tabs.speed_chart import SpeedChartTab

    window = make_main_window(show=True)
    tabs = window.tabs
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    assert titles == ["Reverse solver", "Fits", "KV growth", "Speed", "Compare"]
    built = (FitsTab, KvGrowthTab, SpeedChartTab, CompareTab)
    assert not any(isinstance(tabs.widget(i), built) for i in (1, 2, 3, 4))
    bar = tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    assert isinstance(tabs.currentWidget(), FitsTab) and tabs.currentIndex() == 1
    assert tabs.currentWidget() is window.fits_tab and window.fits_tab.table.rowCount() > 0
    assert [tabs.tabText(i) for i in range(tabs.count())] == titles
    compare = window.compare_tab  # built on use, left behind the tab shown
    assert tabs.widget(4) is compare and tabs.currentIndex() == 1
    assert not isinstance(tabs.widget(2), KvGrowthTab)


def test_a_right_click_on_the_chart_opens_no_menu(make_main_window, qtbot):
    # a fixed view: no axis-range menu to pan or zoom it away from its figures (and pyqtgraph
    # builds none at start-up); the chart is exported from the File menu
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtWidgets import QApplication, QMenu

    window = make_main_window(show=True)
    view = window.chart.plot
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.RightButton, pos=QPoint(60, 60))
    QApplication.processEvents()
    assert not [m for m in QApplication.topLevelWidgets() if isinstance(m, QMenu) and m.isVisible()]
    assert view.getPlotItem().vb.menu is None


def test_vllm_budgets_from_cuda_total_on_catalog_gpus(make_main_window, solved):
    # vLLM sizes its budget from CUDA's total (H100 80GB: 81,085 MiB), not nvidia-smi's 81,559 MiB;
    # the window's solve must equal the CLI's for the same engine and GPU.
    from vramdesk.core import Engine, solve
    from vramdesk.core.store.bundled import find_gpu

    window = make_main_window()
    c = window.controller
    assert c.set_field("target", "gpu:H100 80GB")
    assert c.set_field("engine", Engine.VLLM)
    solved(window)
    gpu = find_gpu("H100 80GB")
    assert c.capacity_bytes() == gpu.capacity_for(Engine.VLLM) == gpu.cuda_total_mib * 2**20
    expected = solve(c.model, c.weights, c.workload, c.runtime, gpu.cuda_total_mib * 2**20)
    assert c.solve_result.kv_budget_bytes == expected.kv_budget_bytes
    row = next(r for r in c.fits_rows() if r.name == "H100 80GB")
    assert row.capacity_bytes == gpu.cuda_total_mib * 2**20


def test_mla_model_shows_no_per_head_width(make_main_window):
    # DeepSeek-V3 caches one latent row per token: hidden/heads = 7168/128 = 56 is no K/V width
    from vramdesk.core.store.bundled import find_model

    window = make_main_window()
    window.controller.load_model_preset(find_model("deepseek-v3"))
    d = window.controller.derived()
    assert d.head_dim is None and d.gqa_ratio is None and d.attention_kind == "MLA"


def test_solver_tab_says_llama_cpp_splits_layers(make_main_window, solved):
    from vramdesk.core import Engine

    window = make_main_window()
    assert window.controller.set_field("engine", Engine.LLAMA_CPP)
    solved(window)
    text = window.solver_tab.values["min_gpus"].text()
    assert text == "not computed (llama.cpp splits layers across GPUs rather than sharding heads)"


def test_unit_toggle_redraws_without_re_estimating(make_main_window, monkeypatch, qtbot):
    from vramdesk.core.present import views as core_views
    from vramdesk.core.units import Unit

    window = make_main_window()
    window.kv_tab.refresh()  # brought up to date (hidden, it computes nothing by itself)
    window.compare_tab.refresh()
    calls = {"kv_growth": 0, "compare": 0}
    for name in calls:
        real = getattr(core_views, name)

        def counted(*a, _real=real, _name=name, **k):
            calls[_name] += 1
            return _real(*a, **k)

        monkeypatch.setattr(core_views, name, counted)
    before = window.kv_tab.grid_bytes()
    window.controller.set_unit(Unit.GB)
    qtbot.wait(100)  # past any coalesced redraw
    assert calls == {"kv_growth": 0, "compare": 0}
    assert window.kv_tab.grid_bytes() == before
    assert window.kv_tab.table.item(0, 0).text().endswith("GB")


def test_hidden_tabs_do_no_work_on_edits_and_catch_up_when_shown(make_main_window, qtbot):
    # issue 11: the KV-growth and compare tabs re-ran their estimates on every edit even
    # behind another tab; now they refresh once, when shown, with the figures of that moment
    window = make_main_window(show=True)
    qtbot.waitExposed(window)
    window.tabs.setCurrentIndex(0)  # the reverse solver in front
    kv, compare = window.kv_tab.updates, window.compare_tab.updates
    qtbot.wait(50)
    before = (kv.refresh_count, compare.refresh_count)
    c = window.controller
    for batch in (3, 5, 7, 9):
        c.set_field("batch", batch)
    qtbot.wait(50)
    assert (kv.refresh_count, compare.refresh_count) == before  # hidden: nothing computed
    window.tabs.setCurrentWidget(window.kv_tab)
    assert kv.refresh_count == before[0] + 1  # shown: one refresh, before its paint
    assert window.kv_tab.batches()[-1] == 9 and 9 in window.kv_tab.curves
    c.set_field("batch", 10)
    qtbot.waitUntil(lambda: kv.refresh_count == before[0] + 2, timeout=2000)  # next turn
    assert compare.refresh_count == before[1]
    assert window.compare_tab.rows[0].breakdown == c.breakdown  # read: brought up to date


def test_kv_growth_context_axis_is_labelled_at_the_grid_contexts(make_main_window):
    from vramdesk.gui.tabs.kv_growth import context_ticks

    # positions are log10 of the context (pyqtgraph log mode); one label per power of four
    ticks = context_ticks(128, 131072)
    assert [t for _p, t in ticks] == ["128", "512", "2K", "8K", "32K", "128K"]
    assert ticks[2][0] == pytest.approx(3.3113, abs=1e-4)  # log10(2048)
    window = make_main_window()
    window.kv_tab.refresh()
    major, minor = window.kv_tab.plot.getAxis("bottom")._tickLevels
    assert "8K" in [t for _p, t in major] and minor == []


def test_figures_number_columns_fit_their_texts_and_keep_still(make_main_window, qtbot):
    # the bytes and size columns were ResizeToContents, re-measuring every row after each edit
    # (issue 11); they are now fitted when their widest text outgrows them or takes under 3/4
    window = make_main_window(show=True)
    qtbot.waitExposed(window)
    c, tree = window.controller, window.figures.tree
    metrics, header = tree.fontMetrics(), tree.header()

    def widths():
        QApplication.processEvents()
        return [header.sectionSize(col) for col in (1, 2)]

    def fits():
        rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        for col in (1, 2):
            for text in [tree.headerItem().text(col), *(row.text(col) for row in rows)]:
                assert header.sectionSize(col) >= metrics.horizontalAdvance(text), (col, text)

    c.set_field("context_tokens", 8192)
    fits()
    before = widths()
    c.set_field("context_tokens", 8191)  # the same number of digits: the columns keep still
    fits()
    assert widths() == before
    window.library.load_model_key("bundled:llama-3.1-405b")
    c.set_field("batch", 4096)  # hundreds of TB: more digits, the columns grow to fit
    fits()
    grown = widths()
    assert grown[0] > before[0]
    window.library.load_model_key("bundled:qwen2.5-0.5b")
    c.set_field("batch", 1)
    c.set_field("context_tokens", 1024)  # a third of the digits: fitted back down
    fits()
    assert widths()[0] < grown[0]
    # a larger font (the desktop's changed while the window is open): fitted again at once
    font = window.font()
    font.setPointSizeF(font.pointSizeF() * 1.5)
    window.setFont(font)
    QApplication.processEvents()
    metrics = tree.fontMetrics()
    fits()


@pytest.mark.parametrize(
    ("context", "gib", "shown"),
    [
        # Llama-3.1-8B bf16, formula engine: KV 2 * 8 * 128 * 2 * 32 = 131,072 B per token.
        # 131,072 tokens on 40 GiB: one sequence's KV is 16 GiB of the 40 * 0.9 - 1 - 14.96 =
        # 20.04 GiB usable, two are 32 GiB: 1 sequence (singular)
        (131_072, 40, "1 sequence of 131,072 tokens"),
        # 256 tokens on 141 GiB: 141 * 0.9 - 1 - 14.96 = 110.94 GiB / 32 MiB per sequence
        # = 3,550 sequences (thousands separator)
        (256, 141, "3,550 sequences of 256 tokens"),
    ],
)
def test_max_concurrency_is_written_as_the_cli_writes_it(
    make_main_window, solved, context, gib, shown
):
    window = make_main_window()
    c = window.controller
    load_class(window, "llama-3.1-8b")
    c.set_field("context_tokens", context)
    c.set_field("batch", 1)
    c.set_field("custom_capacity", (gib, "GiB"))
    c.set_field("target", "custom")
    solved(window)
    assert window.solver_tab.values["max_concurrency"].text().startswith(shown + " (exact ")


def test_a_context_edit_moves_only_the_kv_point_and_a_unit_change_redraws(make_main_window):
    # issue 24: the curves and grid do not depend on the typed context (they span their own
    # contexts), so such an edit sets none of their items again; only this workload's point
    window = make_main_window()
    c, tab = window.controller, window.kv_tab
    c.set_field("context_tokens", 4096)
    tab.refresh()
    curves_set = []
    for slot in tab.slots:
        real = slot.setData
        slot.setData = lambda *a, real=real, **k: (curves_set.append(1), real(*a, **k))
    first_cell = tab.table.item(0, 0)
    c.set_field("context_tokens", 8192)
    tab.refresh()
    assert curves_set == [] and tab.table.item(0, 0) is first_cell
    # the point: at the context typed, the KV cache of the breakdown (the estimate's own part)
    assert list(tab.current.xData) == [8192]
    c.set_unit(Unit.GB)
    c.set_field("context_tokens", 16384)
    tab.refresh()  # stale and in another unit: the grid is drawn in GB
    assert tab.table.item(0, 0).text().endswith("GB") and curves_set != []


def test_the_fits_headers_say_which_question_each_column_answers(make_main_window):
    # a headroom >= 0 beside "does not fit" (RTX 5090, Qwen3.5-9B under vLLM) read as a
    # contradiction: the headroom is the forward question, the verdict the engine's budget
    window = make_main_window()
    header = window.fits_tab.table.horizontalHeaderItem
    assert header(3).text() == "Headroom" and "less the estimated total" in header(3).toolTip()
    assert header(4).text() == "Verdict" and "usable memory" in header(4).toolTip()


def test_the_advice_column_keeps_most_of_the_table_at_1280x720(
    make_main_window, qtbot, monkeypatch, solved
):
    # a fresh user at 1280 x 720, 131,072 x 8 tokens: the Value column took most of the table
    # and the advice wrapped a word a line in about 60 px
    from PySide6.QtCore import QRect

    window = make_main_window()
    available = QRect(0, 27, 1280, 720 - 27)
    monkeypatch.setattr(window, "available_geometry", lambda: available)
    window.place_on(available, first=True)
    window.show()
    qtbot.waitExposed(window)
    c = window.controller
    c.set_field("context_tokens", 131072)
    c.set_field("batch", 8)
    solved(window)
    QApplication.processEvents()
    table = window.solver_tab.advice
    assert table.rowCount() >= 2
    view = table.viewport().width()
    others = sum(table.columnWidth(col) for col in range(3))
    assert others <= view * (0.22 + 0.26 + 0.16) + 3
    assert table.columnWidth(3) >= view * 0.3


def test_the_advice_rows_are_wrapped_to_their_new_texts_in_the_same_turn(
    make_main_window, qtbot, solved
):
    # issue 24: the rows were re-wrapped on the next turn of the event loop, so the table was
    # painted once with the new texts in the old heights and again in the new ones
    window = make_main_window(show=True, size=(1366, 768))
    c = window.controller
    table = window.solver_tab.advice
    seen = []  # at each solve shown, right after the tab's refresh: (heights, needed heights)
    rows = lambda: range(table.rowCount())  # noqa: E731
    c.solveChanged.connect(
        lambda *_a: seen.append(
            ([table.rowHeight(r) for r in rows()], [table.sizeHintForRow(r) for r in rows()])
        )
    )
    c.set_field("batch", 8)
    for context in (131072, 9000, 131072):
        c.set_field("context_tokens", context)
        solved(window)
    heights = [h for h, _need in seen[-3:]]
    assert all(h == need for h, need in seen[-3:]), seen
    assert heights[0] != heights[1]  # the texts took other heights: the check had work to do
