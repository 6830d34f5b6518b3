"""The speed tab draws the core's speed chart: its points, and the memory limit at the solver's.

The figures are :func:`vramdesk.core.speed_chart.speed_chart`'s, called here with the core's own
:func:`vramdesk.core.solve.solver.solve` for the limit (not through the window).
"""

from __future__ import annotations

import math

import pytest

from vramdesk.core.solve.solver import solve
from vramdesk.core.speed_chart import speed_chart
from vramdesk.core.store.bundled import bundled_model, find_gpu


def _shown(window, qtbot, solved, slug, target, context, batch):
    c = window.controller
    c.load_model_preset(bundled_model(slug))
    c.set_field("target", target)
    c.set_field("context_tokens", context)
    c.set_field("batch", batch)
    solved(window)
    window.tabs.setCurrentIndex(3)
    tab = window.speed_tab
    qtbot.waitUntil(lambda: tab.chart is not None, timeout=5000)
    tab.refresh()
    return c, tab


def test_the_plotted_points_are_the_core_functions(make_main_window, qtbot, solved):
    window = make_main_window(show=True)
    c, tab = _shown(window, qtbot, solved, "llama-3.1-8b", "gpu:H100 80GB", 256, 16)
    gpu = find_gpu("H100 80GB")
    capacity = gpu.capacity_for(c.runtime)
    limit = solve(c.model, c.weights, c.workload, c.runtime, capacity).max_concurrency
    core = speed_chart(c.model, c.weights, c.workload, c.runtime, gpu, limit)
    xs = [p.batch for p in core.points]
    expected = {
        "aggregate_expected": [p.aggregate_decode_tokens_per_s for p in core.points],
        "aggregate_ceiling": [p.aggregate_ceiling_tokens_per_s for p in core.points],
        "per_sequence_expected": [p.decode_tokens_per_s for p in core.points],
        "per_sequence_ceiling": [p.decode_ceiling_tokens_per_s for p in core.points],
    }
    for key, ys in expected.items():
        x, y = tab.curves[key].getOriginalDataset()
        assert list(x) == xs, key
        assert list(y) == pytest.approx(ys, rel=1e-12), key
    # the limit line at the solver's max concurrency (log axis: log10 of it), labelled with it
    assert tab.memory_line.isVisible()
    assert tab.memory_line.value() == pytest.approx(math.log10(limit))
    assert f"{limit:,} sequences" in tab.memory_line.label.format
    # 8B bf16 at 256 tokens turns compute bound at 847 sequences (tests/core/test_speed_chart.py)
    assert tab.compute_line.isVisible() and tab.compute_line.value() == pytest.approx(
        math.log10(847)
    )
    # the workload's marker on both expected curves, at its 16 sequences
    at = next(p for p in core.points if p.batch == 16)
    mx, my = tab.current.getOriginalDataset()
    assert list(mx) == [16, 16]
    assert list(my) == pytest.approx([at.aggregate_decode_tokens_per_s, at.decode_tokens_per_s])
    assert "Assumes: every sequence at its full 256-token context" in tab.assumptions.text()
    # the axes hold still between nearby edits (issue 24): the x range ends on the power of 4
    # at or above the last point, the y range on whole half-decades around every curve
    (x0, x1), (y0, y1) = tab.plot.getViewBox().viewRange()
    top = 4 ** math.ceil(math.log(xs[-1], 4))
    assert top >= xs[-1] > top / 4
    pad = 0.08 * math.log10(top)  # setXRange's padding of the log span
    assert (x0, x1) == pytest.approx((-pad, math.log10(top) + pad))
    values = [y for ys in expected.values() for y in ys]
    lo = math.floor(2 * math.log10(min(values))) / 2
    hi = math.ceil(2 * math.log10(max(values))) / 2
    pad = 0.08 * (hi - lo)
    assert (y0, y1) == pytest.approx((lo - pad, hi + pad))


def test_a_gpu_without_speed_facts_draws_nothing_and_says_why(make_main_window, qtbot, solved):
    window = make_main_window(show=True)
    c, tab = _shown(window, qtbot, solved, "llama-3.1-8b", "gpu:H100 80GB", 2048, 4)
    c.set_field("target", "gpu:Generic 80 GiB")
    solved(window)
    tab.refresh()
    assert tab.chart is None and "has no memory bandwidth" in tab.note.text()
    assert list(tab.curves["aggregate_expected"].getOriginalDataset()[0] or []) == []
    assert not tab.memory_line.isVisible()


@pytest.mark.parametrize(
    "scenario",
    [
        ("llama-3.1-8b", "gpu:H100 80GB", 256, 16),
        # a memory limit of 1 sequence: its line is the plot's left edge (fresh-user trial:
        # the label sat left of it, cut off)
        ("llama-3.1-8b", "gpu:L4", 32768, 1),
    ],
    ids=["h100", "limit-1"],
)
@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1366, 768)])
def test_nothing_of_the_chart_is_clipped(make_main_window, qtbot, solved, width, height, scenario):
    from PySide6.QtCore import QRect

    window = make_main_window()
    window.available_geometry = lambda: QRect(0, 0, width, height)
    window.place_on(QRect(0, 0, width, height), first=True)
    window.show()
    qtbot.waitExposed(window)
    _, tab = _shown(window, qtbot, solved, *scenario)
    qtbot.wait(50)
    # what is painted: pyqtgraph places the labels for the view's last size and range as it
    # paints (on a loaded machine no paint may have come within the wait; the chart no longer
    # sets unchanged items again on a refresh, which used to place them as a side effect)
    tab.plot.viewport().repaint()
    view = tab.plot.viewport().rect()
    for name, item in (
        ("legend", tab.legend),
        ("memory label", tab.memory_line.label),
        ("compute label", tab.compute_line.label),
    ):
        if not item.isVisible():  # no knee within the chart's reach, say
            continue
        shown = tab.plot.mapFromScene(item.sceneBoundingRect()).boundingRect()
        assert view.contains(shown), (name, shown, view)
    assert (
        tab.assumptions.isVisible()
        and tab.assumptions.height() >= tab.assumptions.heightForWidth(tab.assumptions.width())
    )


def test_one_edit_computes_the_shown_chart_once(make_main_window, qtbot, solved, monkeypatch):
    # issue 24: the chart was computed on breakdownChanged (with the last solve's memory
    # limit, a wasted sweep of estimates) and again on the solveChanged that follows
    from vramdesk.core import speed_chart as chart_module

    window = make_main_window(show=True)
    qtbot.waitExposed(window)
    c, tab = _shown(window, qtbot, solved, "llama-3.1-8b", "gpu:H100 80GB", 2048, 4)
    qtbot.wait(50)
    calls = []
    real = chart_module.speed_chart
    monkeypatch.setattr(chart_module, "speed_chart", lambda *a: calls.append(a[-1]) or real(*a))
    for context in (4096, 8192):
        c.set_field("context_tokens", context)
        solved(window)
        qtbot.waitUntil(lambda: tab.chart is not None and tab.chart.context == context)
        qtbot.wait(50)
    capacity = c.capacity_bytes()
    limit = solve(c.model, c.weights, c.workload, c.runtime, capacity).max_concurrency
    # once an edit, each time with the solve of that edit's inputs
    assert len(calls) == 2 and calls[-1] == limit == tab.chart.memory_limit


def test_a_memory_limit_past_the_reach_is_in_the_note_only(make_main_window, qtbot, solved):
    # Qwen2.5-0.5B on an H100 at 256 tokens holds 23,812 sequences (the solver's, below),
    # beyond the chart's 4,096: its line and shading were drawn at the plot's right edge
    window = make_main_window(show=True)
    c, tab = _shown(window, qtbot, solved, "qwen2.5-0.5b", "gpu:H100 80GB", 256, 1)
    capacity = find_gpu("H100 80GB").capacity_for(c.runtime)
    limit = solve(c.model, c.weights, c.workload, c.runtime, capacity).max_concurrency
    assert limit > tab.chart.points[-1].batch == 4096
    assert not tab.memory_line.isVisible() and not tab.past_memory.isVisible()
    assert f"memory holds {limit:,} sequences" in tab.note.text()


def test_the_tokens_axis_is_labelled_in_plain_digits():
    from vramdesk.gui.tabs.speed_chart import tokens_ticks

    decades, twos_fives, rest = tokens_ticks(0.5, 2.5)  # 3.16 .. 316 tokens/s
    # by hand: 10 and 100 inside; 5, 20, 50, 200 inside (2 = 0.30 and 500 = 2.70 are out)
    assert decades == [(1.0, "10"), (2.0, "100")]
    assert [t for _p, t in twos_fives] == ["5", "20", "50", "200"]
    assert [p for p, _t in twos_fives] == pytest.approx([math.log10(v) for v in (5, 20, 50, 200)])
    assert {t for _p, t in rest} == {""}  # grid lines only, unlabelled
    assert len(rest) == 5 + 6 + 1  # 4, 6, 7, 8, 9; 30, 40, 60, 70, 80, 90; 300 (3 < 3.16)
    big = tokens_ticks(3.0, 5.0)[0]
    assert [t for _p, t in big] == ["1,000", "10,000", "100,000"]
    assert [t for _p, t in tokens_ticks(-1.0, 0.0)[0]] == ["0.1", "1"]


def test_a_limit_of_one_sequence_is_said_in_the_singular(make_main_window, qtbot, solved):
    # fresh-user trial: "memory holds 1 sequences"; Llama-3.1-8B bf16 on an L4 (23,034 MiB)
    # at 32,768 tokens holds one sequence (the solver's, checked here)
    window = make_main_window(show=True)
    c, tab = _shown(window, qtbot, solved, "llama-3.1-8b", "gpu:L4", 32768, 1)
    assert c.solve_result.max_concurrency == 1
    assert tab.note.text().endswith("memory holds 1 sequence.")
    assert tab.memory_line.label.format == "memory limit\n1 sequence"


def test_the_concurrency_axis_ends_on_a_power_of_4():
    from vramdesk.gui.tabs.speed_chart import power_of_4_at_least

    # by hand: 4**0 = 1, 4**1 = 4, 4**2 = 16, 4**6 = 4,096 (the chart's reach), 4**7 = 16,384
    cases = {1: 1, 2: 4, 4: 4, 5: 16, 16: 16, 17: 64, 744: 1024, 4096: 4096, 4097: 16384}
    assert {n: power_of_4_at_least(n) for n in cases} == cases


def test_an_edit_that_moves_both_axes_changes_the_view_range_once(
    make_main_window, qtbot, solved, monkeypatch
):
    # issue 24: setXRange and then setYRange each re-mapped every curve, line and axis; an
    # edit that moves both (the untyped 1,638 tokens to 16,384 here: the memory limit
    # and with it the concurrency axis's end, and the tokens/s range) now changes it once
    window = make_main_window(show=True, size=(1366, 768))
    c, tab = _shown(window, qtbot, solved, "llama-3.1-8b", "gpu:RTX 4090", 1638, 1)
    view = tab.plot.getPlotItem().vb
    before = (tab._drawn["ticks"], tab._drawn["y_range"])  # noqa: SLF001 - what is drawn
    changes = []
    view.sigRangeChanged.connect(lambda *_a: changes.append(view.viewRange()))
    c.set_field("context_tokens", 16384)
    solved(window)
    qtbot.waitUntil(lambda: tab.chart is not None and tab.chart.context == 16384)
    after = (tab._drawn["ticks"], tab._drawn["y_range"])  # noqa: SLF001
    assert after[0] != before[0] and after[1] != before[1]  # both axes move
    assert len(changes) == 1
    x_top, (y_lo, y_hi) = after
    # the one change sets both: the padded log ranges (EDGE_PADDING of the span a side)
    (x0, x1), (y0, y1) = changes[0]
    span = math.log10(x_top)
    assert (x0, x1) == pytest.approx((-0.08 * span, 1.08 * span))
    assert (y0, y1) == pytest.approx((y_lo - 0.08 * (y_hi - y_lo), y_hi + 0.08 * (y_hi - y_lo)))
