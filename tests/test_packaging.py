"""The built wheel carries the bundled presets and resources, and the locator finds them."""

import zipfile
from pathlib import Path

from hatchling.builders.wheel import WheelBuilder

from vramdesk.core.store.bundled import gpu_catalog, presets_dir

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_contains_presets(tmp_path):
    builder = WheelBuilder(str(ROOT))
    wheel = Path(next(iter(builder.build(directory=str(tmp_path), versions=["standard"]))))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "vramdesk/_data/presets/gpus/catalog.json" in names
    bundled = {
        f"vramdesk/_data/presets/{p.relative_to(ROOT / 'presets').as_posix()}"
        for p in (ROOT / "presets").rglob("*.json")
    }
    assert bundled <= names
    assert "vramdesk/core/estimate.py" in names and "vramdesk/cli/__init__.py" in names


def test_source_checkout_locator():
    assert presets_dir() == ROOT / "presets"
    assert any(g.name == "H100 80GB" and g.memory_mib == 81559 for g in gpu_catalog())
