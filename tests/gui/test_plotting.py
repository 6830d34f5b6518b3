"""The corner legend follows its plot area and survives the plot's deletion quietly."""

import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from vramdesk.gui.plotting import CornerLegend


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
