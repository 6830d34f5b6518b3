"""The speed panel: expected and ceiling tokens/s on the target GPU, in the solver's pane.

Every figure comes from :meth:`vramdesk.core.session.ScenarioSession.speed` (the same
:func:`vramdesk.core.speed.speed` the command line prints); this widget only formats it.
The tooltip is the command line's whole speed block: both formulas with the values
substituted, and every assumption. Behind another tab it computes nothing on an edit; it
catches up when shown (:mod:`vramdesk.gui.tabs.deferred`).
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.steady import SteadyHolder
from vramdesk.gui.tabs.deferred import WhenShown


class SpeedPanel(QWidget):
    """Decode and prefill, expected beside the ceiling, in two short lines (the rest: tooltip).

    Wrapped to the pane's width (the pane scrolls vertically, never sideways).
    """

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.summary = QLabel()
        self.summary.setObjectName("speed_summary")
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(SteadyHolder(self.summary))  # re-laid out only for another line
        # what the figures depend on when last shown: an edit emits both signals below, and a
        # target change only the second; the speed is computed once per change of either, and
        # only while the panel is shown (behind another tab: when it is next shown)
        self._shown_for: tuple[object, object] | None = None
        self.updates = WhenShown(self, self._show_speed)
        controller.breakdownChanged.connect(self.updates.request)
        controller.solveChanged.connect(self.updates.request)

    def refresh(self, *_args: object) -> None:
        """Show the speed of the controller's last breakdown on its target GPU, now."""
        self.updates.mark_fresh()
        self._show_speed()

    def _show_speed(self) -> None:
        key = (self.controller.breakdown, self.controller.target)
        if self._shown_for is not None and all(
            a is b or a == b for a, b in zip(key, self._shown_for, strict=True)
        ):
            return
        self._shown_for = key
        report = self.controller.speed()
        if report is None:
            text, tip = self.tr("Speed: pick a catalog GPU (its bandwidth and peak)."), ""
        elif not hasattr(report, "decode"):  # SpeedUnavailable: which fact is missing
            text, tip = report.lines()[0], ""
        else:
            text = self.tr(
                "Decode {0} / ceiling {2} tokens/s per sequence ({1} / {3} in all)\n"
                "Prefill {4} / ceiling {6} tokens/s; first token {5} s"
            ).format(
                f"{report.decode_tokens_per_s:,.1f}",
                f"{report.aggregate_decode_tokens_per_s:,.0f}",
                f"{report.decode_ceiling_tokens_per_s:,.1f}",
                f"{report.aggregate_ceiling_tokens_per_s:,.0f}",
                f"{report.prefill_tokens_per_s:,.0f}",
                f"{report.time_to_first_token_s:,.2f}",
                f"{report.prefill_ceiling_tokens_per_s:,.0f}",
            )
            tip = "\n".join(report.lines())
        if self.summary.text() != text:
            self.summary.setText(text)
        if self.summary.toolTip() != tip:
            self.summary.setToolTip(tip)
