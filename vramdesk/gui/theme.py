"""Light and dark: the chart colours that follow the system colour scheme.

Qt (6.5+) reports the system scheme as ``QStyleHints.colorScheme()`` and announces a
switch with ``QStyleHints.colorSchemeChanged``; the platform then repaints native widgets
itself. pyqtgraph plots draw their own background, axes and text, so each chart takes a
:class:`ChartTheme` from :func:`follow` and is restyled on every switch.

Every text colour of a theme is chosen to keep a WCAG 2.x contrast ratio of at least
:data:`MIN_CONTRAST` (4.5:1, "AA" for normal text) against the background it is drawn on
(:func:`contrast_ratio`; W3C WCAG 2.1, "relative luminance" and "contrast ratio").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# PySide6 before pyqtgraph: pyqtgraph uses the Qt binding that is already imported.
# isort: off
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
import pyqtgraph as pg
# isort: on

#: WCAG 2.x AA contrast for normal text.
MIN_CONTRAST = 4.5


@dataclass(frozen=True, slots=True)
class ChartTheme:
    """The colours of a chart in one scheme (``#rrggbb``).

    Attributes
    ----------
    scheme : str
        ``"light"`` or ``"dark"``.
    background : str
        The plot's background.
    foreground : str
        Axes, tick labels, axis labels, titles, legend text, bar annotations.
    legend_background : str
        The legend box (drawn opaque enough that its text is read against it).
    capacity : str
        The capacity line and its label.
    free : str
        The local free-memory line and its label.
    marker : str
        The outline of the "this workload" marker (the KV-growth tab).
    """

    scheme: str
    background: str
    foreground: str
    legend_background: str
    capacity: str
    free: str
    marker: str


LIGHT = ChartTheme("light", "#ffffff", "#222222", "#ffffff", "#b03a2e", "#2c3e50", "#222222")
DARK = ChartTheme("dark", "#1e1f22", "#e6e6e6", "#2a2c30", "#ff8a80", "#9ecbff", "#e6e6e6")
THEMES = {"light": LIGHT, "dark": DARK}


def _channel(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: str | QColor) -> float:
    """WCAG 2.x relative luminance of an sRGB colour, 0 (black) to 1 (white)."""
    q = QColor(colour)
    r, g, b = (_channel(v) for v in (q.red(), q.green(), q.blue()))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str | QColor, b: str | QColor) -> float:
    """WCAG 2.x contrast ratio ``(L1 + 0.05) / (L2 + 0.05)``, 1 to 21 (lighter over darker)."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def system_scheme() -> str:
    """``"dark"`` or ``"light"``: ``QStyleHints.colorScheme()``, else the palette's window.

    Where the platform does not say (``Qt.ColorScheme.Unknown``: older desktops, the
    offscreen platform), a window colour darker than mid-grey means dark.
    """
    app = QGuiApplication.instance()
    if app is None:
        return "light"
    scheme = app.styleHints().colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return "dark"
    if scheme == Qt.ColorScheme.Light:
        return "light"
    window = app.palette().color(QPalette.ColorRole.Window)
    return "dark" if window.lightnessF() < 0.5 else "light"


class ThemeWatcher(QObject):
    """Holds the current chart theme and says when the system scheme switches."""

    themeChanged = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.theme = THEMES[system_scheme()]
        app = QGuiApplication.instance()
        if app is not None:
            app.styleHints().colorSchemeChanged.connect(self._on_hints_scheme_changed)

    def _on_hints_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        name = {Qt.ColorScheme.Dark: "dark", Qt.ColorScheme.Light: "light"}.get(scheme)
        self.set_scheme(name or system_scheme())

    def set_scheme(self, name: str) -> None:
        """Switch to ``name`` (``light``/``dark``) and tell every chart."""
        theme = THEMES[name]
        if theme != self.theme:
            self.theme = theme
            self.themeChanged.emit(theme)


_WATCHER: ThemeWatcher | None = None


def watcher() -> ThemeWatcher:
    """The application's one :class:`ThemeWatcher` (created on first use, owned by the app)."""
    global _WATCHER
    app = QGuiApplication.instance()
    if _WATCHER is None or _WATCHER.parent() is not app:
        _WATCHER = ThemeWatcher(app)
    return _WATCHER


def follow(apply: Callable[[ChartTheme], None]) -> ChartTheme:
    """Call ``apply`` with the current theme now and on every switch; returns the theme.

    ``apply`` should be a bound method of a QObject, so that the connection ends with it.
    """
    w = watcher()
    w.themeChanged.connect(apply)
    apply(w.theme)
    return w.theme


def style_plot(plot: pg.PlotWidget, theme: ChartTheme) -> None:
    """Background, shown axes, tick labels, axis labels and title of ``plot`` in ``theme``."""
    plot.setBackground(theme.background)
    item = plot.getPlotItem()
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        if not axis.isVisible():
            continue  # hidden (pyqtgraph's right and top by default): each setter re-renders
        axis.labelStyle = dict(axis.labelStyle)  # this axis's own; setTextPen sets its colour
        axis.setPen(theme.foreground)
        axis.setTextPen(theme.foreground)  # also redraws the axis label in the new colour
    title = item.titleLabel
    title.opts["color"] = theme.foreground
    if title.text:
        title.setText(title.text)


def style_legend(legend: pg.LegendItem, theme: ChartTheme) -> None:
    """Legend text and box in ``theme`` (the box nearly opaque, so text reads against it)."""
    legend.setLabelTextColor(theme.foreground)
    # pyqtgraph stores the colour on each label but renders it only at the label's next
    # setText: a legend whose texts never change kept its old colour (dark text on the dark
    # scheme's box in the speed and KV-growth legends)
    for _sample, label in legend.items:
        label.setText(label.text)
    bg = QColor(theme.legend_background)
    bg.setAlpha(235)
    legend.setBrush(pg.mkBrush(bg))
    legend.setPen(pg.mkPen(theme.foreground, width=0.5))


def axes_font_pt(plot: pg.PlotWidget) -> float:
    """The point size of ``plot``'s tick labels (its ``tickFont``, else the widget font)."""
    font = plot.getPlotItem().getAxis("left").style.get("tickFont") or plot.font()
    return font.pointSizeF()


def legend_font_to_axes(plot: pg.PlotWidget, legend: pg.LegendItem) -> None:
    """Set the legend's text to the axes' font size (pyqtgraph's default is a fixed 9pt)."""
    legend.setLabelTextSize(f"{axes_font_pt(plot):g}pt")


# ------------------------------------------------------------------ text outside the charts
#: Coloured text on the window's own background, per scheme: (light, dark). Each keeps
#: 4.5:1 against the light and dark window colours of the common styles (tests/gui).
TEXT_COLOURS = {
    "error": ("#b03a2e", "#ff8a80"),
    "warning": ("#7a4f00", "#f0c36d"),
    "note": ("#334155", "#cbd5e1"),
    "solved": ("#0b5394", "#8cc4ff"),
    "ok": ("#1e6b30", "#7ee2a0"),
}


class _Tint(QObject):
    """Keeps one label's text colour (a :data:`TEXT_COLOURS` role) in the current scheme."""

    def __init__(self, label: QObject, role: str, css: str) -> None:
        super().__init__(label)
        self.role, self.css = role, css
        watcher().themeChanged.connect(self.apply)

    def apply(self, theme: ChartTheme) -> None:
        light, dark = TEXT_COLOURS[self.role]
        colour = dark if theme.scheme == "dark" else light
        self.parent().setStyleSheet(f"QLabel {{ color: {colour}; {self.css} }}")


def tint(label: QObject, role: str, css: str = "") -> None:
    """Colour ``label``'s text by ``role`` in the current scheme, and again on every switch.

    ``role`` is a key of :data:`TEXT_COLOURS` (error, warning, note, solved, ok); ``css``
    adds declarations (``font-weight: 600;``).

    Calling it again on the same label changes its role (no new connection).
    """
    helper = label.findChild(_Tint)
    if helper is None:
        helper = _Tint(label, role, css)
    helper.role, helper.css = role, css
    helper.apply(watcher().theme)
