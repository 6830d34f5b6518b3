"""What the wheel and the sdist carry, their entry points, and the runtime dependencies (27.6).

The wheel and the sdist are built here with the project's own build backend (hatchling, a
test dependency: no network). The dependency check reads every import of the package with
``ast`` and maps each third-party module to its distribution through the installed metadata
(``importlib.metadata.packages_distributions``).
"""

import ast
import configparser
import re
import sys
import tarfile
import tomllib
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from hatchling.builders.sdist import SdistBuilder
from hatchling.builders.wheel import WheelBuilder

from vramdesk.core.store.bundled import gpu_catalog, license_file, presets_dir

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    builder = WheelBuilder(str(ROOT))
    wheel = Path(next(iter(builder.build(directory=str(out), versions=["standard"]))))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        return names, zf.read(meta).decode(), zf.read(entry_points).decode()


def test_wheel_contains_presets(wheel_names):
    names, _, _ = wheel_names
    assert "vramdesk/_data/presets/gpus/catalog.json" in names
    bundled = {
        f"vramdesk/_data/presets/{p.relative_to(ROOT / 'presets').as_posix()}"
        for p in (ROOT / "presets").rglob("*.json")
    }
    assert bundled <= names
    assert "vramdesk/core/estimate.py" in names and "vramdesk/cli/__init__.py" in names


def test_wheel_carries_licence_icons_and_desktop_entry(wheel_names):
    names, meta, _ = wheel_names
    assert "vramdesk/_data/LICENSE" in names  # where Help -> About points
    assert any(re.fullmatch(r"vramdesk-[^/]+\.dist-info/licenses/LICENSE", n) for n in names)
    assert "License-Expression: MIT" in meta.splitlines()
    assert "vramdesk/_data/resources/linux/vramdesk.desktop" in names
    for size in ICON_SIZES:
        assert f"vramdesk/_data/resources/icons/hicolor/{size}x{size}/apps/vramdesk.png" in names


def test_wheel_entry_points_console_and_gui(wheel_names):
    _, _, text = wheel_names
    points = configparser.ConfigParser()
    points.read_string(text)
    assert dict(points["console_scripts"]) == {"vramdesk": "vramdesk.cli:main"}
    # a gui-script: Windows starts it with pythonw, so no console window opens
    assert dict(points["gui_scripts"]) == {"vramdesk-gui": "vramdesk.cli:window_main"}
    import vramdesk.cli

    assert callable(vramdesk.cli.window_main)


def test_sdist_carries_licence_sources_tests_and_resources(tmp_path):
    builder = SdistBuilder(str(ROOT))
    sdist = Path(next(iter(builder.build(directory=str(tmp_path), versions=["standard"]))))
    with tarfile.open(sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    for wanted in (
        "LICENSE",
        "README.md",
        "pyproject.toml",
        "vramdesk/cli/__init__.py",
        "resources/linux/vramdesk.desktop",
        "resources/icons/hicolor/48x48/apps/vramdesk.png",
        "tools/make_icons.py",
        "tools/install.sh",
        "tests/test_packaging.py",
    ):
        assert wanted in names, wanted


def test_licence_file_is_the_mit_licence_of_the_vramdesk_authors():
    text = license_file().read_text(encoding="utf-8")
    assert license_file() == ROOT / "LICENSE"  # a source checkout
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 The vramdesk authors" in text
    assert PYPROJECT["project"]["license"] == "MIT"


def test_source_checkout_locator():
    assert presets_dir() == ROOT / "presets"
    assert any(g.name == "H100 80GB" and g.memory_mib == 81559 for g in gpu_catalog())


# ------------------------------------------------------------------ dependencies
def _distribution(requirement: str) -> str:
    """``PySide6-Essentials>=6.5,!=6.12.0`` -> ``pyside6-essentials`` (PEP 503 normalized)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0)
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_top_level(folder: Path) -> dict[str, str]:
    """Every top-level module the package imports (absolute imports) -> one file that does."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                out.setdefault(name.split(".")[0], path.relative_to(folder.parent).as_posix())
    return out


def _third_party(imports: dict[str, str]) -> dict[str, str]:
    return {
        m: where
        for m, where in imports.items()
        if m not in sys.stdlib_module_names and m not in ("vramdesk", "__future__")
    }


def test_runtime_dependencies_are_what_the_runtime_imports():
    imported = _third_party(_imported_top_level(ROOT / "vramdesk"))
    dists = packages_distributions()
    needed = {}
    for module, where in imported.items():
        assert module in dists, f"{module} (imported by {where}) is not installed"
        for dist in dists[module]:
            needed[_distribution(dist)] = where
    declared = {_distribution(r) for r in PYPROJECT["project"]["dependencies"]}
    missing = {d: w for d, w in needed.items() if d not in declared}
    assert missing == {}, "imported by the runtime but not in [project] dependencies"
    unused = declared - set(needed)
    assert unused == set(), "in [project] dependencies but imported by nothing in vramdesk/"


def test_test_only_packages_are_in_the_test_extra_alone():
    # the readers' tests write real files with gguf and safetensors and check the cache scanner
    # against huggingface_hub: none of them may be imported by the runtime
    runtime = set(_third_party(_imported_top_level(ROOT / "vramdesk")))
    for module in ("gguf", "safetensors", "huggingface_hub", "pytest", "hypothesis", "hatchling"):
        assert module not in runtime
    test_extra = {_distribution(r) for r in PYPROJECT["project"]["optional-dependencies"]["test"]}
    assert {"gguf", "safetensors", "huggingface-hub", "pytest", "hatchling"} <= test_extra
    declared = {_distribution(r) for r in PYPROJECT["project"]["dependencies"]}
    assert declared.isdisjoint(test_extra)
    # the dependency group (uv, pip 25.1's --group) lists the same packages as the extra
    group = {_distribution(r) for r in PYPROJECT["dependency-groups"]["test"]}
    assert group == test_extra


def test_the_import_scan_sees_imports_inside_functions(tmp_path):
    # the check above is only as good as this: a lazy import in a function body is found,
    # a relative one and the standard library are not third-party
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "import os\nfrom . import sibling\n\ndef f():\n    import numpy.linalg\n"
        "    from vramdesk.core import units\n"
    )
    assert _third_party(_imported_top_level(pkg)) == {"numpy": "pkg/m.py"}
