"""The corner legend follows its plot area and survives the plot's deletion quietly."""

import html

import pyqtgraph as pg
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtWidgets import QApplication

from vramdesk.gui.chart.plotting import CornerLegend, escape_html, quiet_range_changes


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
