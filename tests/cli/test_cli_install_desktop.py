"""``vramdesk install-desktop``: the menu entry and icons land under the XDG data dir (27.6)."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vramdesk.cli import install_desktop, main

ROOT = Path(__file__).resolve().parents[2]
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def _entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive in a desktop entry
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser["Desktop Entry"]


def test_installs_entry_and_every_icon_under_the_data_dir(tmp_path, capsys):
    data = tmp_path / "share"
    assert main(["install-desktop", "--data-dir", str(data)]) == 0
    for size in SIZES:
        installed = data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "vramdesk.png"
        source = ICONS / "hicolor" / f"{size}x{size}" / "apps" / "vramdesk.png"
        assert installed.read_bytes() == source.read_bytes()
    svg = data / "icons" / "hicolor" / "scalable" / "apps" / "vramdesk.svg"
    assert svg.read_bytes() == (ICONS / "vramdesk.svg").read_bytes()
    entry = _entry(data / "applications" / "vramdesk.desktop")
    # the venv's own console script, beside the interpreter running the tests
    here = str((Path(sys.executable).parent / "vramdesk").absolute())
    assert entry["Exec"] == install_desktop.quote_exec(here)
    assert entry["TryExec"] == here
    assert entry["Icon"] == "vramdesk" and entry["Type"] == "Application"
    assert entry["Terminal"] == "false"
    # nothing half-written is left beside the files
    assert not [p for p in data.rglob("*") if p.name.endswith(".tmp")]
    assert f"Exec={entry['Exec']}" in capsys.readouterr().out


def test_default_is_xdg_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform in ("win32", "darwin"):
        pytest.skip("desktop entries are for freedesktop systems")
    assert main(["install-desktop"]) == 0
    assert (tmp_path / "xdg" / "applications" / "vramdesk.desktop").is_file()


def test_dry_run_writes_nothing_and_uninstall_removes_all(tmp_path, capsys):
    data = tmp_path / "share"
    assert main(["install-desktop", "--data-dir", str(data), "--dry-run"]) == 0
    assert not data.exists()
    planned = capsys.readouterr().out.splitlines()
    assert len(planned) == len(SIZES) + 2  # the PNGs, the SVG and the entry
    assert main(["install-desktop", "--data-dir", str(data)]) == 0
    assert main(["install-desktop", "--data-dir", str(data), "--uninstall"]) == 0
    assert [p for p in data.rglob("*") if p.is_file()] == []


def test_a_failed_rename_keeps_the_old_entry(tmp_path, monkeypatch):
    target = tmp_path / "applications" / "vramdesk.desktop"
    install_desktop.write_atomic(target, b"old\n")

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        install_desktop.write_atomic(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["vramdesk.desktop"]


@pytest.mark.parametrize(
    ("program", "exec_value"),
    [
        ("/home/u/.venv/bin/vramdesk", "/home/u/.venv/bin/vramdesk"),
        # a space: the argument is quoted (Desktop Entry spec, "The Exec key")
        ("/home/u/my apps/vramdesk", '"/home/u/my apps/vramdesk"'),
        # "$" is escaped inside the quotes (\$), and the string's backslash is doubled (\\$)
        ("/opt/$x/vramdesk", '"/opt/\\\\$x/vramdesk"'),
        # a literal percent sign is %% (field codes start with %)
        ("/opt/100%/vramdesk", "/opt/100%%/vramdesk"),
    ],
)
def test_exec_quoting(program, exec_value):
    assert install_desktop.quote_exec(program) == exec_value


def test_refused_without_data_dir_where_there_are_no_desktop_entries(monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "win32")
    assert main(["install-desktop"]) == 2
    assert "vramdesk-gui" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils")
def test_installed_entry_validates(tmp_path):
    data = tmp_path / "share"
    assert main(["install-desktop", "--data-dir", str(data)]) == 0
    for path in (ROOT / "resources/linux/vramdesk.desktop", data / "applications/vramdesk.desktop"):
        proc = subprocess.run(
            ["desktop-file-validate", str(path)], capture_output=True, text=True, timeout=30
        )
        assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
