"""The headline verdict: one coloured answer to "will it fit?" with the other figure beneath.

The sentences come from :func:`vramdesk.core.solve.verdict.headline` (stable codes, filled
parameters); this widget only translates and colours them.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from vramdesk.core.solve.verdict import headline
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.core_text import sentence_text
from vramdesk.gui.steady import SteadyHolder

#: state -> (text colour, background): green, amber, red; readable on light themes.
STATE_COLOURS = {
    "fits": ("#14532d", "#dcfce7"),
    "tight": ("#713f12", "#fef3c7"),
    "no": ("#7f1d1d", "#fee2e2"),
}


class VerdictView(QWidget):
    """The headline verdict (bold, coloured by state) and the detail line beneath it."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.state = ""
        self.headline = QLabel()
        self.headline.setObjectName("verdict_headline")
        self.headline.setWordWrap(True)
        self.detail = QLabel()
        self.detail.setObjectName("verdict_detail")
        self.detail.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        # each edit sets both texts: the pane re-lays out only when one takes another line
        layout.addWidget(SteadyHolder(self.headline))
        layout.addWidget(SteadyHolder(self.detail))
        controller.solveChanged.connect(self.refresh)
        controller.unitChanged.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args: object) -> None:
        """Show the verdict of the controller's last solve (or say there is no capacity).

        A text or style is set only when it changes: ``setStyleSheet`` re-polishes the label
        and re-lays out its pane, which an edit that keeps the state must not pay.
        """
        c = self.controller
        result = c.solve_result
        if result is None:
            self.state = ""
            self._show(self.headline, self.tr("No capacity to check against: pick a GPU."), "")
            self._show(self.detail, "")
            return
        verdict = headline(result, c.workload.batch, c.unit)
        self.state = verdict.state
        fg, bg = STATE_COLOURS[verdict.state]
        style = (
            f"QLabel {{ color: {fg}; background: {bg}; font-weight: 700; padding: 4px 6px;"
            " border-radius: 3px; }"
        )
        self._show(self.headline, sentence_text(verdict.headline), style)
        self._show(self.detail, sentence_text(verdict.detail))

    @staticmethod
    def _show(label: QLabel, text: str, style: str | None = None) -> None:
        if label.text() != text:
            label.setText(text)
        if style is not None and label.styleSheet() != style:
            label.setStyleSheet(style)
