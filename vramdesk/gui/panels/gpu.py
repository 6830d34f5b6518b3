"""The local GPU panel (SPEC §6): every GPU's memory, refreshed off the GUI thread.

One row per GPU: name, a used/total bar and a line "used / total · free" (GiB or GB).
A Refresh button, an Auto-refresh check box with its interval, and one message line
for what went wrong (no driver, no permission, a GPU that stopped answering): with no
GPU the panel says so in that line and the rest of the window works.

Threading follows STYLE "Threading for NVML": the query (``vramdesk.core.local.nvml.query_gpus``
by default) runs on the global thread pool through :mod:`vramdesk.gui.workers`; one
query at a time (a timer tick while one is in flight is skipped); results come back
through queued signals and only this GUI-thread code touches the widgets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from vramdesk.core.units import Unit, format_bytes, to_unit
from vramdesk.gui.core_text import tr_core
from vramdesk.gui.workers import Worker, run_in_thread

if TYPE_CHECKING:  # vramdesk.core.local.nvml is imported by the first query, after the first paint
    from vramdesk.core.local.gpu_info import GpuInfo, GpuProcess, NvmlSnapshot

#: Auto-refresh interval limits, seconds.
INTERVAL_S_RANGE = (1, 3600)


class _GpuRow:
    """The widgets of one GPU: a name label, a bar and a figures label."""

    def __init__(self, grid: QGridLayout, row: int) -> None:
        self.name = QLabel()
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.figures = QLabel()
        for col, widget in enumerate((self.name, self.bar, self.figures)):
            grid.addWidget(widget, row, col)

    def show(self, gpu: GpuInfo, text: str, details: str) -> None:
        self.name.setText(f"{gpu.index}: {gpu.name}")
        # QProgressBar holds a C int: clamp, so that no figure can overflow it
        total = min(max(1, round(to_unit(max(gpu.total_bytes, 0), Unit.MIB))), 2**31 - 1)
        self.bar.setRange(0, total)
        self.bar.setValue(min(max(0, round(to_unit(max(gpu.used_bytes, 0), Unit.MIB))), total))
        self.figures.setText(text)
        for widget in (self.name, self.bar, self.figures):
            widget.setToolTip(details)

    def delete(self) -> None:
        for widget in (self.name, self.bar, self.figures):
            widget.deleteLater()


class GpuPanel(QWidget):
    """Local GPUs through NVML, with on-demand and timed refresh.

    Parameters
    ----------
    parent : QWidget, optional
    query : callable, optional
        Returns an :class:`NvmlSnapshot` or raises; default (None)
        :func:`vramdesk.core.local.nvml.query_gpus` (injectable for tests).
    auto_refresh : bool
        Start with the timer on (default) or off.
    interval_ms : int
        Timer interval, milliseconds (default 2000).
    refresh_on_start : bool
        Query once as soon as the panel is built (default).

    Signals
    -------
    gpusChanged(object)
        After each query: the :class:`NvmlSnapshot`, or ``None`` when it failed.
    queryFailed(str)
        The one-line message of a failed query.
    """

    gpusChanged = Signal(object)
    queryFailed = Signal(str)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        query: Callable[[], NvmlSnapshot] | None = None,
        auto_refresh: bool = True,
        interval_ms: int = 2000,
        refresh_on_start: bool = True,
    ) -> None:
        super().__init__(parent)
        self._query = query
        self._cancel = threading.Event()
        self._worker: Worker | None = None
        self._snapshot: NvmlSnapshot | None = None
        self._unit = Unit.GIB
        self._rows: list[_GpuRow] = []
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._build()
        self.set_auto_refresh(auto_refresh, interval_ms)
        if refresh_on_start:
            self.refresh()

    def _build(self) -> None:
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.auto_check = QCheckBox(self.tr("Auto-refresh every"))
        self.interval_spin = QSpinBox()
        self.interval_spin.setRange(*INTERVAL_S_RANGE)
        self.interval_spin.setSuffix(self.tr(" s"))
        self.message_label = QLabel()
        self.driver_label = QLabel()
        # a long message (a Japanese NVML error is one unbroken line) wraps: the bottom docks
        # share the window's width, and their widest line set its minimum (issue 23, item 8)
        for label in (self.message_label, self.driver_label):
            label.setWordWrap(True)
        self._grid = QGridLayout()
        self._grid.setColumnStretch(1, 1)
        controls = QHBoxLayout()
        for widget in (self.refresh_button, self.auto_check, self.interval_spin):
            controls.addWidget(widget)
        controls.addStretch(1)
        layout = QVBoxLayout(self)
        for item in (controls, self._grid):
            layout.addLayout(item)
        layout.addWidget(self.driver_label)
        layout.addWidget(self.message_label)
        self.message_label.hide()
        self.refresh_button.clicked.connect(self._on_refresh_button_clicked)
        self.auto_check.toggled.connect(self._on_auto_check_toggled)
        self.interval_spin.valueChanged.connect(self._on_interval_spin_changed)

    # --- public API -------------------------------------------------------------------

    def refresh(self) -> bool:
        """Start a query unless one is in flight; ``True`` if one was started."""
        if self._worker is not None:
            return False
        self.refresh_button.setEnabled(False)
        query = self._query
        if query is None:  # the core's deadline, and a way to stop waiting at close
            # on first use: not on the window's start-up path (built or run after the first paint)
            from vramdesk.core.local.nvml import query_gpus

            query = partial(query_gpus, cancel=self._cancel)
        self._worker = run_in_thread(query, self._on_query_finished, self._on_query_errored)
        return True

    def is_querying(self) -> bool:
        """Whether a query is in flight."""
        return self._worker is not None

    def snapshot(self) -> NvmlSnapshot | None:
        """Return the last successful snapshot, or ``None`` (none yet, or the last query failed)."""
        return self._snapshot

    def set_auto_refresh(self, enabled: bool, interval_ms: int = 2000) -> None:
        """Switch the refresh timer on or off; ``interval_ms`` in milliseconds (>= 1 s)."""
        low, high = INTERVAL_S_RANGE
        with QSignalBlocker(self.auto_check), QSignalBlocker(self.interval_spin):
            self.auto_check.setChecked(enabled)
            self.interval_spin.setValue(min(max(round(interval_ms / 1000), low), high))
        self._timer.setInterval(max(interval_ms, low * 1000))
        if enabled:
            self._timer.start()
        else:
            self._timer.stop()

    def auto_refresh_enabled(self) -> bool:
        """Whether the refresh timer runs."""
        return self._timer.isActive()

    def set_unit(self, unit: Unit) -> None:
        """Show figures in ``unit`` (GiB by default, GB for the spec-sheet view)."""
        self._unit = unit
        self._show(self._snapshot)

    def shutdown(self, timeout_ms: int = 2000) -> bool:
        """Stop the timer and wait up to ``timeout_ms`` for a query in flight.

        The query's result is dropped. Returns ``True`` when no query is still running.
        """
        self._timer.stop()
        self._cancel.set()  # query_gpus stops waiting for a hung driver within 50 ms
        worker, self._worker = self._worker, None
        if worker is None:
            return True
        worker.abandon()
        return worker.wait(timeout_ms)

    # --- slots --------------------------------------------------------------------------

    def _on_timer_timeout(self) -> None:
        self.refresh()  # skipped while a query is in flight

    def _on_refresh_button_clicked(self) -> None:
        self.refresh()

    def _on_auto_check_toggled(self, checked: bool) -> None:
        self.set_auto_refresh(checked, self.interval_spin.value() * 1000)

    def _on_interval_spin_changed(self, seconds: int) -> None:
        self.set_auto_refresh(self.auto_check.isChecked(), seconds * 1000)

    def _on_query_finished(self, snapshot: NvmlSnapshot) -> None:
        self._query_done()
        self._snapshot = snapshot
        self._show(snapshot)
        self.message_label.hide()
        self.gpusChanged.emit(snapshot)

    def _on_query_errored(self, err: Exception) -> None:
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.core.local.gpu_info import GpuQueryError

        self._query_done()
        message = (
            tr_core(str(err))  # the core's message per kind, translated where it is the default
            if isinstance(err, GpuQueryError)
            else self.tr("Could not read the GPUs: {0}").format(err)
        )
        self._snapshot = None
        self._show(None)
        self.message_label.setText(message)
        self.message_label.show()
        self.gpusChanged.emit(None)
        self.queryFailed.emit(message)

    # --- display ------------------------------------------------------------------------

    def _query_done(self) -> None:
        self._worker = None
        self.refresh_button.setEnabled(True)

    def _show(self, snapshot: NvmlSnapshot | None) -> None:
        gpus = snapshot.gpus if snapshot else ()
        while len(self._rows) > len(gpus):
            self._rows.pop().delete()
        while len(self._rows) < len(gpus):
            self._rows.append(_GpuRow(self._grid, len(self._rows)))
        for row, gpu in zip(self._rows, gpus, strict=True):
            row.show(gpu, self.figures_text(gpu), self.details_text(gpu))
        self.driver_label.setText(self.driver_text(snapshot) if snapshot else "")
        self.driver_label.setVisible(snapshot is not None)

    def figures_text(self, gpu: GpuInfo) -> str:
        """Return a row's text, e.g. ``"1.30 GiB used of 23.99 GiB · 22.69 GiB free"``."""
        used, total, free = (
            format_bytes(b, self._unit) for b in (gpu.used_bytes, gpu.total_bytes, gpu.free_bytes)
        )
        return self.tr("{0} used of {1} · {2} free").format(used, total, free)

    def details_text(self, gpu: GpuInfo) -> str:
        """Return the row's tooltip: UUID, MIG instances, compute processes and notes."""
        fmt = self._unit
        lines = [gpu.uuid] if gpu.uuid else []
        lines += [
            self.tr("MIG {0}: {1} free of {2}").format(
                m.index, format_bytes(m.free_bytes, fmt), format_bytes(m.total_bytes, fmt)
            )
            for m in gpu.mig_instances
        ]
        lines += [self.process_text(p) for p in gpu.processes]
        return "\n".join(lines + [n for n in (gpu.mig_note, gpu.processes_note) if n])

    def process_text(self, process: GpuProcess) -> str:
        """Return ``"PID 5000 (python): 29.30 GiB"``, or "memory not reported" without a figure."""
        pid = f"PID {process.pid}" + (f" ({process.name})" if process.name else "")
        used = process.used_bytes
        return f"{pid}: " + (
            format_bytes(used, self._unit) if used is not None else self.tr("memory not reported")
        )

    def driver_text(self, snapshot: NvmlSnapshot) -> str:
        """``"Driver 550.54.15 · CUDA 12.4"`` (CUDA shown only when NVML reports it)."""
        # on first use: not on the window's start-up path (built or run after the first paint)
        from vramdesk.core.local.nvml import cuda_version_text

        text = self.tr("Driver {0}").format(snapshot.driver_version)
        cuda = cuda_version_text(snapshot.cuda_driver_version)
        return text + self.tr(" · CUDA {0}").format(cuda) if cuda else text
