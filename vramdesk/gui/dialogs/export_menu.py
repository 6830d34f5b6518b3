"""The File menu's export and clipboard actions (SPEC §7: PNG/SVG, CSV/Markdown/JSON, clipboard)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu

from vramdesk.core.errors import VramdeskError

TEXT_FILTER = "CSV (*.csv);;Markdown (*.md);;JSON (*.json)"


def _exporting():  # noqa: ANN202 - the module
    """:mod:`vramdesk.gui.exporting`, imported on first use (not needed to start the window)."""
    # on first use: not on the window's start-up path (built or run after the first paint)
    from vramdesk.gui import exporting

    return exporting


class ExportMenu(QObject):
    """Export actions over the window's chart, breakdown and comparison."""

    def __init__(self, window: QMainWindow) -> None:
        # window: the main window, whose chart, controller, compare tab and show_message
        # the actions read (typed as its Qt base, so that this module does not import it)
        super().__init__(window)
        self.window = window

    def populate(self, menu: QMenu) -> None:
        """Add the export and copy actions to ``menu``."""
        menu.addAction(self.tr("Export chart (PNG/SVG)…"), self._ask_chart)
        menu.addAction(self.tr("Export breakdown (CSV/Markdown/JSON)…"), self._ask_breakdown)
        menu.addAction(self.tr("Export comparison (CSV/Markdown/JSON)…"), self._ask_comparison)
        menu.addAction(self.tr("Copy breakdown as Markdown"), lambda: self.copy_breakdown("md"))
        menu.addAction(self.tr("Copy comparison as Markdown"), lambda: self.copy_comparison("md"))

    # ------------------------------------------------------- testable actions
    def _guard(self, action, *args):  # noqa: ANN001, ANN202 - report failures, never raise
        try:
            result = action(*args)
        except (VramdeskError, OSError) as exc:
            self.window.show_message(str(exc))
            return None
        if isinstance(result, Path):
            self.window.show_message(self.tr("Saved {0}").format(result))
        return result

    def export_chart(self, path: Path) -> Path | None:
        """Write the breakdown chart to ``path`` (.png or .svg)."""
        chart = self.window.chart
        return self._guard(_exporting().export_plot, chart.plot, Path(path), chart.title_text())

    def export_breakdown(self, path: Path) -> Path | None:
        """Write the breakdown to ``path`` in the format its suffix names."""
        return self._guard(
            self._write,
            Path(path),
            lambda fmt: _exporting().breakdown_text(self.window.controller, fmt),
        )

    def export_comparison(self, path: Path) -> Path | None:
        """Write the compare tab's table to ``path`` in the format its suffix names."""
        rows = self.window.compare_tab.rows
        return self._guard(
            self._write,
            Path(path),
            lambda fmt: _exporting().comparison_text(self.window.controller, rows, fmt),
        )

    @staticmethod
    def _write(path: Path, render) -> Path:  # noqa: ANN001 - a format -> text callable
        return _exporting().write_text(path, render(_exporting().format_of(path)))

    def copy_breakdown(self, fmt: str) -> None:
        """Put the breakdown on the clipboard as ``fmt`` (csv, md, json)."""
        _exporting().copy_to_clipboard(_exporting().breakdown_text(self.window.controller, fmt))
        self.window.show_message(self.tr("Breakdown copied to the clipboard"))

    def copy_comparison(self, fmt: str) -> None:
        """Put the comparison on the clipboard as ``fmt``."""
        rows = self.window.compare_tab.rows
        _exporting().copy_to_clipboard(
            _exporting().comparison_text(self.window.controller, rows, fmt)
        )
        self.window.show_message(self.tr("Comparison copied to the clipboard"))

    # ----------------------------------------------------------------- dialogs
    def _ask_chart(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window, self.tr("Export chart"), "breakdown.png", "PNG (*.png);;SVG (*.svg)"
        )
        if path:
            self.export_chart(Path(path))

    def _ask_breakdown(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window, self.tr("Export breakdown"), "breakdown.csv", TEXT_FILTER
        )
        if path:
            self.export_breakdown(Path(path))

    def _ask_comparison(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window, self.tr("Export comparison"), "comparison.csv", TEXT_FILTER
        )
        if path:
            self.export_comparison(Path(path))
