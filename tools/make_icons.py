"""Render the window's icon (``resources/icons/vramdesk.svg``) to the PNG sizes of a desktop entry.

The freedesktop icon theme spec wants PNGs in ``hicolor/<N>x<N>/apps/`` for the sizes menus and
docks ask for; the SVG stays the one source. Run after the SVG changes, then commit the PNGs:

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/make_icons.py

Each size is painted with QPainter through Qt's SVG renderer onto a transparent ARGB image
(antialiased), so the PNGs match what the window shows at that size.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "resources" / "icons" / "vramdesk.svg"
HICOLOR = ROOT / "resources" / "icons" / "hicolor"
#: The sizes of the hicolor theme that menus, docks and window lists ask for.
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def png_path(size: int) -> Path:
    """Where the ``size`` x ``size`` PNG lies in the repository."""
    return HICOLOR / f"{size}x{size}" / "apps" / "vramdesk.png"


def main() -> int:
    """Write one PNG per size of :data:`SIZES`; print each path."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # after QT_QPA_PLATFORM is set: no screen is needed to paint the icons
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"cannot read {SVG}", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        out = HICOLOR / f"{size}x{size}" / "apps" / "vramdesk.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(out), "PNG"):
            print(f"cannot write {out}", file=sys.stderr)
            return 1
        print(out)
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
