"""The corner legend follows its plot area, survives the plot's deletion quietly, and no legend
moves under a mouse drag (issue 22)."""

import html

import pyqtgraph as pg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtWidgets import QApplication

from tests.gui.mouse import NOT_ACCEPTED, drag_item
from vramdesk.gui.chart.plotting import (
    CornerLegend,
    FixedLegend,
    SteadyBars,
    escape_html,
    nice_top,
    quiet_range_changes,
    side_legend,
    still_axes,
)


@given(st.text(alphabet=st.sampled_from("&<>\"'a;#x1 重みキャッシュ"), max_size=40) | st.text())
def test_escape_html_is_html_escape_without_quotes(text):
    # the oracle is the standard library's (the window leaves it unimported at start-up)
    assert escape_html(text) == html.escape(text, quote=False)


def test_escape_html_examples():
    assert escape_html("KV cache & <state>") == "KV cache &amp; &lt;state&gt;"
    assert escape_html("&amp;") == "&amp;amp;"  # escaped once more, as html.escape does


def test_bottom_right_legend_follows_the_plot_area(qtbot):
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    pin = CornerLegend(plot, "bottom-right", (10, 30))
    pin.legend.addItem(plot.plot([0, 1], [0, 1]), "a fairly long legend entry")
    plot.resize(600, 400)
    plot.show()
    qtbot.waitExposed(plot)
    box, own = pin.vb.boundingRect(), pin.legend.boundingRect()
    assert pin.legend.pos().x() == box.width() - own.width() - 10
    assert pin.legend.pos().y() == box.height() - own.height() - 30
    plot.resize(900, 500)
    qtbot.wait(50)
    assert (
        pin.legend.pos().x()
        == pin.vb.boundingRect().width() - pin.legend.boundingRect().width() - 10
    )


def test_deleting_the_plot_raises_nothing_in_the_event_loop(qtbot):
    plot = pg.PlotWidget()
    pin = CornerLegend(plot, "top-left")
    pin.legend.addItem(plot.plot([0, 1], [0, 1]), "curve")
    plot.show()
    plot.deleteLater()
    QApplication.sendPostedEvents(None, 0)
    QApplication.processEvents()
    # a late call after the view is gone raises nothing (pytest-qt fails on event-loop errors)
    pin.place()


def test_a_range_change_rebuilds_the_axis_label_only_when_its_prefix_changes(qtbot):
    # issue 11: pyqtgraph rebuilt the left axis label (setHtml, a layout pass) on every range
    # change; the ticks must still be redrawn each time, the label only when the prefix moves

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    axis = plot.getAxis("left")
    axis.setLabel("memory per GPU (GiB)")
    quiet_range_changes(axis)
    built = []
    real = axis.label.setHtml
    axis.label.setHtml = lambda html: (built.append(html), real(html))
    for top in (10.0, 20.0, 35.5):
        axis.picture = "stale"
        axis.setRange(0, top)
        assert axis.picture is None  # the ticks are drawn again
    assert built == []
    axis.setRange(0, 0.5)  # below 1 pyqtgraph scales by milli: the label says so
    assert len(built) == 1 and axis.labelUnitPrefix == "m"
    axis.setRange(0, 30.0)
    assert len(built) == 2 and axis.labelUnitPrefix == ""


def test_still_axes_draw_again_only_when_their_range_or_extent_changes(qtbot):
    # issue 24: an axis with a grid covers the plot area, and pyqtgraph replayed its whole
    # drawing on every paint there and drew it anew on every setRange, even an unchanged one
    from PySide6.QtWidgets import QGraphicsItem

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.showGrid(x=True, y=True)
    still_axes(plot)
    plot.resize(400, 300)
    plot.setYRange(0, 10, padding=0)
    plot.disableAutoRange()
    plot.show()
    qtbot.waitExposed(plot)
    axis = plot.getAxis("left")
    assert axis.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache

    def painted_frame():
        """Paint now (not at some later turn of a loaded machine's event loop)."""
        QApplication.processEvents()
        plot.viewport().repaint()

    painted = []
    real = axis.paint
    axis.paint = lambda *a: (painted.append(1), real(*a))
    for _ in range(50):  # until the layout has settled: two frames with the same drawing
        painted_frame()
        drawn = axis.picture
        painted_frame()
        if drawn is not None and axis.picture is drawn:
            break
    axis.setRange(*plot.getViewBox().viewRange()[1])  # the same range again: kept
    assert axis.picture is drawn
    # a curve drawn over the grid: the axis's pixmap is reused, its paint is not called
    painted.clear()
    curve = plot.plot([0, 1], [2, 3])
    painted_frame()
    curve.setData([0, 1], [4, 5])
    painted_frame()
    assert painted == [] and axis.picture is drawn
    axis.setRange(0, 20)  # a new range: drawn again
    assert axis.picture is None
    painted_frame()
    assert painted != [] and axis.picture is not None
    drawn = axis.picture
    plot.resize(500, 300)  # the grid's extent grows with the plot area: drawn again
    qtbot.waitUntil(lambda: (painted_frame(), axis.picture is not drawn)[1], timeout=2000)


def _errors_during(monkeypatch) -> list[BaseException]:
    """Exceptions raised in Qt's event loop from now on (pyqtgraph prints some and goes on)."""
    import sys

    seen: list[BaseException] = []
    monkeypatch.setattr(sys, "excepthook", lambda _t, value, _tb: seen.append(value))
    return seen


def _settle(qtbot, items, rounds: int = 3) -> None:
    """Wait until the items' positions stay as they are for ``rounds`` turns of 30 ms."""
    still, last = 0, None
    for _ in range(100):
        now = [(item.pos().x(), item.pos().y()) for item in items]
        still = still + 1 if now == last else 0
        if still >= rounds:
            return
        last = now
        qtbot.wait(30)
    raise AssertionError(f"the legends kept moving: {last}")


@pytest.mark.qt_log_ignore(NOT_ACCEPTED)
@pytest.mark.parametrize("corner", ["top-left", "bottom-right"])
def test_dragging_a_corner_legend_raises_nothing_and_leaves_it_pinned(qtbot, monkeypatch, corner):
    # issue 22: a drag anchored the legend where it was dropped and that anchor and our
    # placement moved it back and forth without end (RecursionError per drag, then a segfault)
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    pin = CornerLegend(plot, corner, (30, 30))
    pin.legend.addItem(plot.plot([1, 2], [1, 2]), "a curve")
    plot.resize(600, 400)
    plot.show()
    qtbot.waitExposed(plot)
    pinned = pin.legend.pos()
    errors = _errors_during(monkeypatch)
    for by in ((120, 60), (-40, 200), (300, -10)):
        drag_item(plot, pin.legend, by)
        QApplication.processEvents()
    assert errors == []
    assert pin.legend.pos() == pinned  # it is not movable: it stays at its corner
    plot.resize(800, 500)  # and still follows the plot area, not a drop-point anchor
    QApplication.processEvents()
    box, own = pin.vb.boundingRect(), pin.legend.boundingRect()
    x = box.width() - own.width() - 30 if corner.endswith("right") else 30
    y = box.height() - own.height() - 30 if corner.startswith("bottom") else 30
    assert (pin.legend.pos().x(), pin.legend.pos().y()) == (x, y)


@pytest.mark.qt_log_ignore(NOT_ACCEPTED)
def test_dragging_the_side_legend_leaves_it_in_its_layout_cell(qtbot, monkeypatch):
    # the breakdown chart's legend is a cell of the plot's layout: a drag anchored it too, and
    # the anchor then moved it off the cell the layout gives it on every resize
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    legend = side_legend(plot)
    legend.addItem(plot.plot([1, 2], [1, 2]), "a bar")
    plot.resize(600, 400)
    plot.show()
    qtbot.waitExposed(plot)
    cell = legend.geometry()
    errors = _errors_during(monkeypatch)
    drag_item(plot, legend, (-150, 80))
    QApplication.processEvents()
    assert errors == []
    assert legend.geometry() == cell
    plot.resize(800, 500)
    QApplication.processEvents()
    layout = plot.getPlotItem().layout
    assert layout.itemAt(2, 3) is legend
    # beside the plot area, where the layout puts it, not where the drag dropped it
    assert legend.geometry().left() >= plot.getPlotItem().vb.geometry().right()
    assert legend.geometry().right() <= plot.getPlotItem().geometry().width()


@pytest.mark.qt_log_ignore(NOT_ACCEPTED)
def test_every_legend_of_the_window_stays_put_under_a_drag(make_main_window, qtbot, monkeypatch):
    # the kind: no legend of the window is both placed by us (or its layout) and movable
    window = make_main_window(show=True)
    qtbot.waitExposed(window)
    window.tabs.setCurrentWidget(window.kv_tab)
    qtbot.waitUntil(lambda: window.kv_tab.isVisible())
    QApplication.processEvents()
    plots = [w for w in window.findChildren(pg.PlotWidget) if w.isVisible()]
    legends = [(p, p.getPlotItem().legend) for p in plots if p.getPlotItem().legend is not None]
    assert {type(legend) for _p, legend in legends} == {FixedLegend}
    assert len(legends) >= 2  # the breakdown chart's and the KV-growth chart's
    _settle(qtbot, [legend for _p, legend in legends])  # the deferred first draws are done
    errors = _errors_during(monkeypatch)
    for plot, legend in legends:
        before = legend.pos()
        drag_item(plot, legend, (90, 45))
        QApplication.processEvents()
        assert legend.pos() == before
    assert errors == []


@pytest.mark.parametrize(
    ("value", "top"),
    [
        # hand-picked: the next of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10**k at or above
        (26.95, 30.0),
        (24.0, 25.0),
        (25.0, 25.0),  # already a step: kept
        (8.01, 10.0),
        (0.031, 0.04),
        (3.0, 3.0),  # 3 * 10**0 exactly, not 4 (float noise of 10**k * 3 is tolerated)
        (300.0, 300.0),
        (101.0, 120.0),
        (0.0, 1.0),
        (-5.0, 1.0),
    ],
)
def test_nice_top_rounds_up_to_a_step(value, top):
    assert nice_top(value) == pytest.approx(top, rel=1e-12)


@given(st.floats(min_value=1e-9, max_value=1e15, allow_nan=False))
def test_nice_top_is_at_most_a_third_above_and_never_below(value):
    top = nice_top(value)
    assert value * (1 - 1e-12) <= top <= value * 4 / 3 * (1 + 1e-12)
    assert nice_top(top) == pytest.approx(top)  # a step is its own top: the range stays put


def grid_plot(qtbot, fills):
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(900, 500)
    plot.setLogMode(x=True, y=True)
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.plot([1, 10, 100, 1000], [1, 100, 1000, 10000])
    if fills:
        still_axes(plot)  # which draws the grid as fills
    plot.show()
    qtbot.waitExposed(plot)
    QApplication.processEvents()
    return plot.grab().toImage(), plot.getViewBox().sceneBoundingRect()


def test_the_grid_drawn_as_fills_is_pyqtgraphs_grid(qtbot):
    # issue 24: 45 translucent grid lines took 12 ms through Qt's drawLine path; drawn as
    # 1-pixel fills they must be the same picture. Against pyqtgraph's own drawing of the
    # same plot: at most a line on a pixel edge lands one pixel over (a column or row of a
    # 900 x 500 image per such line), never a line lost or added
    (lines, area), (fills, _) = grid_plot(qtbot, False), grid_plot(qtbot, True)
    assert lines.size() == fills.size()
    w, h = lines.width(), lines.height()

    def lit(image, x, y):
        return image.pixel(x, y) != image.pixel(2, 2)  # the background's colour

    cols = {x for x in range(w) for y in (h // 3,) if lit(lines, x, y) != lit(fills, x, y)}
    rows = {y for y in range(h) for x in (w // 2 + 7,) if lit(lines, x, y) != lit(fills, x, y)}
    grid_cols = sum(lit(lines, x, h // 3) for x in range(w))
    assert grid_cols > 20  # the log grid is there: minor and major lines
    assert sum(lit(fills, x, h // 3) for x in range(w)) == pytest.approx(grid_cols, abs=2)
    assert len(cols) <= 4 and len(rows) <= 4
    # the lines end where pyqtgraph's end (its pens' square caps): outside the plot area,
    # over the axes' ticks and labels, not one pixel differs
    outside = [
        (x, y)
        for y in range(h)
        for x in range(w)
        if not area.contains(x + 0.5, y + 0.5) and lines.pixel(x, y) != fills.pixel(x, y)
    ]
    assert outside == []


def test_the_breakdown_axis_holds_still_while_the_total_moves_a_little(make_main_window, qtbot):
    # issue 24: the y range followed the total exactly and redrew the axis on every keystroke.
    # Llama-3.1-8B on the default RTX 4090 (24 GiB, below the total: the bar is the top item)
    window = make_main_window(show=True)
    window.resize(1366, 768)
    qtbot.waitExposed(window)
    c, chart = window.controller, window.chart
    c.set_field("context_tokens", 8192)
    QApplication.processEvents()
    top = chart.plot.viewRange()[1][1]
    assert top == pytest.approx(nice_top(top))  # a step of 1, 1.2, 1.5, 2, 2.5 ... x 10**k
    total = c.breakdown.total_bytes / 2**30  # the unit shown is GiB
    assert total < top <= nice_top(total * 2)  # above the bar, with room for its labels
    tops = {top}
    for context in range(8200, 8192 + 64 * 8 + 1, 8):  # 64 edits, the total up each time
        c.set_field("context_tokens", context)
        QApplication.processEvents()
        tops.add(chart.plot.viewRange()[1][1])
    assert c.breakdown.total_bytes / 2**30 > total
    assert len(tops) <= 2  # the range moved at most once (where the total crossed a step)
    # and the chart settles: no redraw feeds another (a range step that changed the axis's
    # width would resize the view and ask for a redraw again)
    count = chart.redraw_count
    for _ in range(20):
        QApplication.processEvents()
    assert chart.redraw_count == count


def test_steady_bars_answer_pyqtgraphs_bounding_rect_after_every_change(qtbot):
    # the oracle: pyqtgraph's own boundingRect, computed afresh on the same item
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    bars = SteadyBars(x=[0], height=[1.0], y0=[0], width=0.6, pen=pg.mkPen("w", width=1))
    plot.addItem(bars)
    plot.resize(400, 300)
    plot.show()
    qtbot.waitExposed(plot)

    def fresh():
        return pg.BarGraphItem.boundingRect(bars)

    assert bars.boundingRect() == fresh()
    bars.setOpts(x=[0], y0=[2.0], height=[5.0], width=0.6)  # the bars change
    assert bars.boundingRect() == fresh()
    before = bars.boundingRect()
    plot.setYRange(0, 100, padding=0)  # the view's transform changes: the padding with it
    plot.getPlotItem().vb.prepareForPaint()
    assert bars.boundingRect() == fresh()
    assert bars.boundingRect() != before
    plot.resize(200, 600)
    QApplication.processEvents()
    assert bars.boundingRect() == fresh()


def _axis_specs(axis):
    """pyqtgraph's draw specs of ``axis`` (ticks as (pen, p1, p2), texts as (rect, flags, s))."""
    from PySide6.QtGui import QImage, QPainter

    image = QImage(8, 8, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    try:
        return axis.generateDrawSpecs(painter)
    finally:
        painter.end()


def test_the_breakdown_axis_drops_only_pyqtgraphs_faint_third_tick_level(make_main_window):
    # issue 24: the third level (every 1 GiB under a 40 GiB top) was 32 of the axis's 41
    # ticks, unlabelled grid lines at a few per cent opacity, and nearly half of the cost of
    # each redraw of the axis. Against pyqtgraph's default drawing of the same axis: the
    # same labels at the same places, the same first two levels, and what is left out is
    # only the third level's lines, each at most 8 % opaque at this plot's height
    window = make_main_window(show=True, size=(1366, 768))
    axis = window.chart.plot.getAxis("left")
    ours = _axis_specs(axis)
    axis.setStyle(maxTickLevel=2, maxTextLevel=2)
    try:
        theirs = _axis_specs(axis)
        levels = axis.tickValues(*axis.range, axis.size().height())
    finally:
        axis.setStyle(maxTickLevel=1, maxTextLevel=1)
    assert len(levels) == 3 and len(levels[2][1]) > 20  # pyqtgraph offers a third level
    assert len(ours[1]) == len(levels[0][1]) + len(levels[1][1])
    texts = [(r.getRect(), s) for r, _flags, s in ours[2]]
    assert texts and texts == [(r.getRect(), s) for r, _flags, s in theirs[2]]

    def tick(spec):
        pen, p1, p2 = spec
        return (pen.color().rgba(), p1.x(), p1.y(), p2.x(), p2.y())

    kept = [tick(t) for t in ours[1]]
    assert kept == [tick(t) for t in theirs[1][: len(kept)]]  # pyqtgraph draws level by level
    dropped = theirs[1][len(kept) :]
    assert len(dropped) == len(levels[2][1])
    assert max(pen.color().alpha() for pen, _p1, _p2 in dropped) <= 0.08 * 255


@pytest.mark.parametrize("height", [200, 269, 600, 1000])
@pytest.mark.parametrize("top", [1.2, 3.0, 25.0, 80.0, 600.0, 15000.0])
def test_two_tick_levels_label_what_three_label(qtbot, top, height):
    # the breakdown chart's y axis (above) at the tops nice_top gives and at a low to a tall
    # plot: pyqtgraph's third level never got a label of its own, so no label is lost
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(450, height)
    plot.showGrid(y=True, alpha=0.25)
    still_axes(plot)
    plot.setYRange(0, top, padding=0)
    plot.show()
    qtbot.waitExposed(plot)
    axis = plot.getAxis("left")
    texts = {}
    for level in (2, 1):
        axis.setStyle(maxTickLevel=level, maxTextLevel=level)
        _axis_specs(axis)  # the axis widens for its texts first (a layout pass)
        QApplication.processEvents()
        texts[level] = [(r.getRect(), s) for r, _flags, s in _axis_specs(axis)[2]]
    assert texts[1] and texts[1] == texts[2]
