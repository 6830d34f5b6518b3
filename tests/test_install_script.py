"""``tools/install.sh``, the README's one install command: what it installs and why (27.6).

* Its Debian package list is what Qt's xcb platform plugin needs: every shared library named
  in an ELF ``NEEDED`` entry of ``libqxcb.so`` and of the PySide6 libraries it pulls in
  (read from the files themselves, not from ``ldd``: a missing library is listed too) is
  mapped to a Debian package (:data:`vramdesk.gui.display.DEBIAN_PACKAGES`), and where the
  library is present, ``dpkg -S`` says it comes from that package.
* The GTK 3 platform theme (``libqgtk3.so``, the desktop's dark or light palette) needs
  ``libgtk-3.so.0``; the script installs libgtk-3-0 on the desktops Qt loads it for.
* ``--dry-run`` prints the commands and runs none; ``shellcheck`` finds nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from vramdesk.gui.display import DEBIAN_PACKAGES

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "install.sh"
#: The C and C++ runtimes (Debian's libc6, libstdc++6, libgcc-s1): every Python has them.
RUNTIME = re.compile(r"^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so\.|^ld-linux")
#: What the GTK 3 theme plugin links beyond the xcb plugin's libraries: GTK itself, and the
#: libraries libgtk-3-0 depends on (Debian 12's ``apt-cache depends libgtk-3-0``).
GTK_THEME_LIBS = {
    "libgtk-3.so.0": "libgtk-3-0",
    "libgdk-3.so.0": "libgtk-3-0",
    "libpangocairo-1.0.so.0": "libpangocairo-1.0-0",
    "libpango-1.0.so.0": "libpango-1.0-0",
    "libharfbuzz.so.0": "libharfbuzz0b",
    "libatk-1.0.so.0": "libatk1.0-0",
    "libcairo-gobject.so.2": "libcairo-gobject2",
    "libcairo.so.2": "libcairo2",
    "libgdk_pixbuf-2.0.so.0": "libgdk-pixbuf-2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
}


def _bash_array(name: str) -> list[str]:
    match = re.search(rf"^{name}=\(([^)]*)\)", SCRIPT.read_text(encoding="utf-8"), re.M)
    assert match, name
    return match.group(1).split()


# ------------------------------------------------------------------ ELF NEEDED
def elf_needed(path: Path) -> list[str]:
    """The ``DT_NEEDED`` sonames of a 64-bit little-endian ELF file (System V gABI).

    The program headers (``e_phoff`` at byte 0x20, ``e_phentsize``/``e_phnum`` at 0x36/0x38)
    give ``PT_DYNAMIC`` (2) and the ``PT_LOAD`` (1) segments; the dynamic section's
    ``DT_STRTAB`` (5) address is mapped to a file offset through the segment holding it, and
    each ``DT_NEEDED`` (1) value is an offset into that string table.
    """
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "ELF64 little-endian"
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic = [], None
    for i in range(phnum):
        p_type, _flags, offset, vaddr, _paddr, filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize
        )
        if p_type == 1:
            loads.append((vaddr, offset, filesz))
        elif p_type == 2:
            dynamic = (offset, filesz)
    assert dynamic is not None, f"{path} has no dynamic section"
    entries = []
    for at in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, value = struct.unpack_from("<qQ", data, at)
        if tag == 0:
            break
        entries.append((tag, value))
    strtab_addr = next(v for t, v in entries if t == 5)
    strtab = next(
        off + strtab_addr - va for va, off, size in loads if va <= strtab_addr < va + size
    )
    return [data[strtab + v : data.index(b"\0", strtab + v)].decode() for t, v in entries if t == 1]


def _qt_dirs() -> tuple[Path, Path]:
    from PySide6.QtCore import QLibraryInfo

    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    libs = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.LibrariesPath))
    return plugins, libs


def external_needed(start: Path, qt_libs: Path) -> set[str]:
    """Sonames outside Qt's own folder that ``start`` and the Qt libraries it needs name."""
    seen, pending, outside = set(), [start], set()
    while pending:
        for soname in elf_needed(pending.pop()):
            bundled = qt_libs / soname
            if bundled.is_file():
                if soname not in seen:
                    seen.add(soname)
                    pending.append(bundled)
            elif not RUNTIME.match(soname):
                outside.add(soname)
    return outside


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF, Debian")


@linux_only
def test_the_elf_reader_reads_a_known_file():
    # the checks below are only as good as this: Python's own interpreter links the C library,
    # and the xcb plugin's first entries are what `readelf -d libqxcb.so` prints (PySide6 6.11)
    assert "libc.so.6" in elf_needed(Path(os.path.realpath(sys.executable)))
    plugins, _ = _qt_dirs()
    plugin = plugins / "platforms" / "libqxcb.so"
    if plugin.is_file():
        assert elf_needed(plugin)[:2] == ["libQt6XcbQpa.so.6", "libQt6Gui.so.6"]
        assert elf_needed(plugin)[-1] == "libc.so.6"


@linux_only
def test_every_library_the_xcb_plugin_links_is_installed_by_the_script():
    plugins, libs = _qt_dirs()
    plugin = plugins / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        pytest.skip("this Qt has no xcb plugin")
    needed = external_needed(plugin, libs)
    assert "libxcb-cursor.so.0" in needed and "libEGL.so.1" in needed  # Qt 6.5+ (its docs)
    unmapped = sorted(needed - set(DEBIAN_PACKAGES))
    assert unmapped == [], "map each to its Debian package in vramdesk/gui/display.py"
    # the script installs exactly the packages of that map (no more, no fewer)
    assert _bash_array("XCB_PACKAGES") == sorted(set(DEBIAN_PACKAGES.values()))
    assert {DEBIAN_PACKAGES[s] for s in needed} <= set(_bash_array("XCB_PACKAGES"))


def _ldd_paths(path: Path) -> dict[str, str]:
    ldd = shutil.which("ldd")
    if ldd is None:
        return {}
    out = subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=30).stdout
    return dict(re.findall(r"^\s*(\S+)\s*=>\s*(/\S+)", out, re.M))


def _dpkg_owners(paths: list[str]) -> dict[str, str]:
    """``path -> package`` for each path dpkg knows, asked once (``dpkg -S`` is slow)."""
    candidates = {}
    for path in paths:
        for p in (path, os.path.realpath(path)):
            # merged /usr: a package may list /usr/lib/... where the loader found /lib/...
            for c in (p, p[4:] if p.startswith("/usr/") else "/usr" + p):
                candidates.setdefault(c, path)
    proc = subprocess.run(["dpkg", "-S", *candidates], capture_output=True, text=True)
    owners: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        package, _, file = line.partition(": ")
        if file in candidates:
            owners.setdefault(candidates[file], package.split(":")[0].split(",")[0].strip())
    return owners


@linux_only
@pytest.mark.skipif(shutil.which("dpkg") is None, reason="Debian's dpkg")
def test_the_map_names_the_package_dpkg_says_ships_each_present_library():
    plugins, libs = _qt_dirs()
    plugin = plugins / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        pytest.skip("this Qt has no xcb plugin")
    paths = _ldd_paths(plugin)
    present = {s: paths[s] for s in external_needed(plugin, libs) if s in paths}
    owners = _dpkg_owners(sorted(present.values()))
    checked = 0
    for soname, path in sorted(present.items()):
        owner = owners.get(path)
        if owner is None:
            continue  # not from a package (a container's own build); the static check holds
        # Ubuntu 24.04 and Debian 13 renamed some libraries for 64-bit time (libglib2.0-0t64)
        assert owner.removesuffix("t64") == DEBIAN_PACKAGES[soname], soname
        checked += 1
    if checked == 0:
        pytest.skip("none of the xcb plugin's libraries is installed from a package here")


@linux_only
def test_the_gtk_theme_plugin_needs_what_the_theme_list_installs():
    plugins, libs = _qt_dirs()
    plugin = plugins / "platformthemes" / "libqgtk3.so"
    if not plugin.is_file():
        pytest.skip("this Qt has no GTK 3 theme plugin")
    beyond_xcb = external_needed(plugin, libs) - set(DEBIAN_PACKAGES)
    assert "libgtk-3.so.0" in beyond_xcb
    assert sorted(beyond_xcb - set(GTK_THEME_LIBS)) == []
    assert _bash_array("THEME_PACKAGES") == ["libgtk-3-0"]


@pytest.mark.skipif(shutil.which("apt-cache") is None, reason="Debian's apt")
def test_libgtk_pulls_in_the_theme_plugins_other_libraries():
    proc = subprocess.run(
        ["apt-cache", "depends", "libgtk-3-0"], capture_output=True, text=True, timeout=60
    )
    depends = set(re.findall(r"^\s*Depends: (\S+)", proc.stdout, re.M))
    if not depends:
        pytest.skip("no apt package lists here (apt-get update not run)")
    depends = {d.removesuffix("t64") for d in depends}
    for soname, package in GTK_THEME_LIBS.items():
        if package != "libgtk-3-0":
            assert package in depends, soname


# ------------------------------------------------------------------ the script itself
def _fake_bin(tmp_path: Path, installed: set[str], uid: int) -> dict[str, str]:
    """A PATH where dpkg-query knows only ``installed`` and id says ``uid``; nothing else fake."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    listed = " ".join(sorted(installed))
    (bin_dir / "dpkg-query").write_text(
        "#!/bin/sh\nfor a; do last=$a; done\nfor p in "
        + (listed or "none-at-all")
        + '; do [ "$p" = "$last" ] && { printf installed; exit 0; }; done\nexit 1\n'
    )
    (bin_dir / "apt-get").write_text("#!/bin/sh\necho apt-get must not run >&2\nexit 9\n")
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("XDG_CURRENT_DESKTOP", "LANG", "LC_ALL", "LC_MESSAGES")
    }
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PYTHON"] = sys.executable  # a Python 3.11+ with venv
    return env


def _dry_run(env: dict[str, str], *args: str) -> list[str]:
    proc = subprocess.run(
        ["bash", str(SCRIPT), "--dry-run", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash")
def test_dry_run_on_a_fresh_gnome_desktop_installs_everything_then_opens(tmp_path):
    env = _fake_bin(tmp_path, installed=set(), uid=1000)
    env["XDG_CURRENT_DESKTOP"] = "ubuntu:GNOME"
    env["LANG"] = "ja_JP.UTF-8"
    lines = _dry_run(env)
    install = next(li for li in lines if " apt-get install " in li)
    assert install.startswith("sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y")
    packages = install.split("--no-install-recommends ")[1].split()
    assert packages == [*_bash_array("XCB_PACKAGES"), "libgtk-3-0", "fonts-noto-cjk"]
    assert "sudo apt-get update -qq" in lines
    assert lines[-4:] == [
        f"{sys.executable} -m venv .venv",
        ".venv/bin/pip install -q -e .",
        ".venv/bin/vramdesk install-desktop",
        ".venv/bin/vramdesk",
    ]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash")
def test_dry_run_installs_only_what_is_missing_and_no_gtk_on_kde(tmp_path):
    present = set(_bash_array("XCB_PACKAGES")) - {"libxcb-cursor0"}
    present.add("libglib2.0-0t64")  # Ubuntu 24.04's name counts as the old one
    present.discard("libglib2.0-0")
    env = _fake_bin(tmp_path, installed=present, uid=0)
    env["XDG_CURRENT_DESKTOP"] = "KDE"
    lines = _dry_run(env, "--no-open")
    install = next(li for li in lines if " apt-get install " in li)
    assert install.startswith("env DEBIAN_FRONTEND")  # root: no sudo
    assert install.split("--no-install-recommends ")[1].split() == ["libxcb-cursor0"]
    assert lines[-1] == ".venv/bin/vramdesk install-desktop"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash")
def test_dry_run_with_everything_present_runs_no_apt(tmp_path):
    everything = set(_bash_array("XCB_PACKAGES")) | {"libgtk-3-0"}
    env = _fake_bin(tmp_path, installed=everything, uid=1000)
    env["XDG_CURRENT_DESKTOP"] = "GNOME"
    lines = _dry_run(env, "--no-menu")
    assert not any("apt-get" in li for li in lines)
    assert ".venv/bin/vramdesk install-desktop" not in lines


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck")
def test_shellcheck_finds_nothing():
    proc = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash")
def test_dry_run_without_a_desktop_session_installs_no_gtk_and_does_not_fail(tmp_path):
    # XDG_CURRENT_DESKTOP is unset on a console or under ssh: the script runs under `set -u`
    # and failed there ("unbound variable", found by a fresh run of the README's command)
    env = _fake_bin(tmp_path, installed=set(), uid=1000)  # no desktop variables at all
    lines = _dry_run(env)
    install = next(li for li in lines if " apt-get install " in li)
    packages = install.split("--no-install-recommends ")[1].split()
    assert packages == _bash_array("XCB_PACKAGES")  # no GTK theme without a GTK desktop
    assert lines[-1] == ".venv/bin/vramdesk"
