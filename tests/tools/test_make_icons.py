"""The committed PNG icons are the SVG painted at each hicolor size (tools/make_icons.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import make_icons  # noqa: E402


@pytest.mark.parametrize("size", make_icons.SIZES)
def test_png_is_the_svg_at_its_size(qapp, size):
    from PySide6.QtGui import QColor, QImage

    image = QImage(str(make_icons.png_path(size)))
    assert (image.width(), image.height()) == (size, size)
    # the SVG's viewBox is 64 units: its centre (32, 32) lies in the orange bar
    # (rect x 22..42, y 22..36, fill #E69F00), at every size
    centre = QColor(image.pixel(size // 2, size // 2))
    assert (centre.red(), centre.green(), centre.blue()) == (0xE6, 0x9F, 0x00)
    # the corner lies outside the rounded frame (rect 4..60, rx 8): transparent
    assert QColor.fromRgba(image.pixel(0, 0)).alpha() == 0
    # (20, 45) of 64 lies in the frame's light fill #f4f6f8, left of the blue bar
    light = QColor(image.pixel(size * 14 // 64, size * 45 // 64))
    assert (light.red(), light.green(), light.blue()) == (0xF4, 0xF6, 0xF8)


def test_regenerating_gives_the_committed_pixels(qapp, tmp_path, monkeypatch):
    from PySide6.QtGui import QImage

    monkeypatch.setattr(make_icons, "HICOLOR", tmp_path)
    assert make_icons.main() == 0
    for size in make_icons.SIZES:
        rel = Path(f"{size}x{size}") / "apps" / "vramdesk.png"
        fresh = QImage(str(tmp_path / rel))
        committed = QImage(str(ROOT / "resources" / "icons" / "hicolor" / rel))
        assert fresh.size() == committed.size()
        # within 2 of 255 per channel: another Qt may round an antialiased edge differently
        worst = max(
            abs(a - b)
            for y in range(size)
            for x in range(size)
            for a, b in zip(_rgba(fresh.pixel(x, y)), _rgba(committed.pixel(x, y)), strict=True)
        )
        assert worst <= 2, f"{rel}: run tools/make_icons.py and commit the PNGs"


def _rgba(pixel: int) -> tuple[int, int, int, int]:
    return (pixel >> 16) & 255, (pixel >> 8) & 255, pixel & 255, (pixel >> 24) & 255
