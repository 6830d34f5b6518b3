"""Light and dark chart colours (WCAG contrast of chart text), and exports that stand alone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication

from vramdesk.gui.theme import (
    DARK,
    LIGHT,
    MIN_CONTRAST,
    contrast_ratio,
    relative_luminance,
    watcher,
)


@pytest.fixture
def scheme(qapp):
    """Switch the system scheme as the platform does: QStyleHints.colorSchemeChanged."""
    hints = QGuiApplication.styleHints()

    def switch(name):
        hints.colorSchemeChanged.emit(
            Qt.ColorScheme.Dark if name == "dark" else Qt.ColorScheme.Light
        )

    yield switch
    switch("light")


def test_wcag_formula_on_known_pairs():
    # WCAG 2.1: black on white is (1 + 0.05) / (0 + 0.05) = 21; a colour on itself is 1
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#777777") == pytest.approx(1.0)
    # #777777: channel 0x77/255 = 0.4667 -> ((0.4667 + 0.055) / 1.055) ** 2.4 = 0.1845;
    # (1.05) / (0.1845 + 0.05) = 4.48, the well-known "just below AA" grey on white
    assert relative_luminance("#777777") == pytest.approx(0.1845, abs=1e-4)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def _over(fg: QColor, bg: QColor) -> QColor:
    """``fg`` (with alpha) composited over the opaque ``bg``."""
    a = fg.alphaF()
    mix = [
        round(a * f + (1 - a) * b)
        for f, b in zip(
            (fg.red(), fg.green(), fg.blue()), (bg.red(), bg.green(), bg.blue()), strict=True
        )
    ]
    return QColor(*mix)


def _chart_texts(plot, extra):
    """(what, text colour, background colour) of every text drawn on ``plot``."""
    bg = plot.backgroundBrush().color()
    out = []
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        out.append((f"{name} ticks", axis.textPen().color(), bg))
        out.append((f"{name} label", QColor(axis.labelStyle["color"]), bg))
    legend = plot.getPlotItem().legend
    if legend is not None:
        box = _over(legend.brush().color(), bg)
        out += [(f"legend {label.text}", _drawn_colour(label), box) for _s, label in legend.items]
    out += [(what, QColor(item.color), bg) for what, item in extra]
    return out


def _drawn_colour(label) -> QColor:
    """The colour a legend label's text is drawn in (its document's first character).

    Not ``label.opts["color"]``: pyqtgraph stores a new colour there at once but renders it
    only at the label's next ``setText``, so a legend whose texts never change kept the old
    scheme's colour while its options said the new one.
    """
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(label.item.document())
    cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
    return cursor.charFormat().foreground().color()


@pytest.mark.parametrize("name", ["light", "dark"])
def test_chart_text_contrast_in_each_scheme(make_main_window, scheme, name):
    window = make_main_window()
    window.controller.set_local_snapshot(None)
    window.tabs.setCurrentWidget(window.speed_tab)  # its plot is built when first shown
    window.speed_tab.refresh()
    scheme(name)
    expected = {"light": LIGHT, "dark": DARK}[name]
    chart, kv, compare = window.chart, window.kv_tab, window.compare_tab
    assert watcher().theme == expected
    for plot in (chart.plot, kv.plot, compare.plot):
        assert plot.backgroundBrush().color() == QColor(expected.background)
    # the background really is light or dark
    assert (relative_luminance(chart.plot.backgroundBrush().color()) < 0.05) == (name == "dark")
    texts = _chart_texts(
        chart.plot,
        [
            ("total", chart.total_text),
            ("capacity label", chart.capacity_line.label),
            ("free label", chart.free_line.label),
        ],
    )
    texts += _chart_texts(kv.plot, [])
    # the compare plot names its capacity in the legend line above it (a QLabel in the
    # window's text colour; only the line's glyph is in the capacity colour): no label in it
    texts += _chart_texts(compare.plot, [])
    texts += _chart_texts(window.speed_tab.plot, [])  # its legend's texts never change
    assert len(texts) > 15
    low = [
        (what, fg.name(), bg.name(), round(contrast_ratio(fg, bg), 2))
        for what, fg, bg in texts
        if contrast_ratio(fg, bg) < MIN_CONTRAST
    ]
    assert low == []


def test_the_window_switches_at_run_time(make_main_window, scheme):
    window = make_main_window()
    plot = window.chart.plot
    scheme("dark")
    assert plot.backgroundBrush().color() == QColor(DARK.background)
    assert plot.getAxis("left").textPen().color() == QColor(DARK.foreground)
    scheme("light")
    assert plot.backgroundBrush().color() == QColor(LIGHT.background)
    assert window.chart.total_text.color == QColor(LIGHT.foreground)


def test_fits_rows_are_readable_in_any_scheme(make_main_window):
    table = make_main_window().fits_tab.table
    for r in range(table.rowCount()):
        item = table.item(r, 4)
        assert contrast_ratio(item.foreground().color(), item.background().color()) >= MIN_CONTRAST


def test_exported_chart_stands_alone(make_main_window, tmp_path, qtbot):
    from tests.gui.test_tabs import load_class

    window = make_main_window(show=True)
    window.resize(1366, 768)  # a plot tall enough that the legend keeps its full size
    load_class(window, "llama-3.1-8b")
    window.controller.set_field("context_tokens", 8192)
    chart = window.chart
    chart.redraw()
    # the y axis starts at exactly 0
    assert chart.plot.viewRange()[1][0] == 0
    # the legend is at the axes' font size
    axes_pt = chart.plot.getAxis("left").style.get("tickFont") or chart.plot.font()
    sizes = {float(label.opts["size"].removesuffix("pt")) for _s, label in chart.legend.items}
    assert sizes == {axes_pt.pointSizeF()}
    title = chart.title_text()
    c = window.controller
    for part in ("Llama-3.1-8B", c.weights.label(), "8,192 tokens", c.runtime.engine.value):
        assert part in title, part
    svg = window.exports.export_chart(tmp_path / "chart.svg")
    text = svg.read_text(encoding="utf-8")
    assert "Llama-3.1-8B" in text and "8,192 tokens" in text
    png = window.exports.export_chart(tmp_path / "chart.png")
    assert png.stat().st_size > 0
    # the title is for the file only: the window's chart has none afterwards
    assert not chart.plot.getPlotItem().titleLabel.isVisible()


#: Window backgrounds of common styles: Fusion light and dark, Windows 11, macOS dark.
WINDOWS = {"light": ("#ffffff", "#efefef", "#f3f3f3"), "dark": ("#353535", "#202020", "#1e1f22")}


@pytest.mark.parametrize("name", ["light", "dark"])
def test_coloured_labels_follow_the_scheme(make_main_window, scheme, name):
    from vramdesk.gui.theme import TEXT_COLOURS

    window = make_main_window()
    scheme(name)
    index = 0 if name == "light" else 1
    for role, colours in TEXT_COLOURS.items():
        for bg in WINDOWS[name]:
            assert contrast_ratio(colours[index], bg) >= MIN_CONTRAST, (role, name, bg)
    solved = window.solver_tab.values[next(iter(window.solver_tab.values))]
    assert TEXT_COLOURS["solved"][index] in solved.styleSheet()
    notes = window.figures.notes
    assert TEXT_COLOURS["note"][index] in notes.styleSheet()
