"""``vramdesk install-desktop``: the menu entry and icons of the window, for this user (Linux).

Writes the freedesktop desktop entry (``resources/linux/vramdesk.desktop``, its ``Exec`` and
``TryExec`` set to this installation's ``vramdesk``) to ``<data>/applications/`` and the PNG
icons (``resources/icons/hicolor/<N>x<N>/apps/vramdesk.png``, made by
``tools/make_icons.py``) with the SVG to ``<data>/icons/hicolor/``, where ``<data>`` is
``--data-dir``, else ``$XDG_DATA_HOME``, else ``~/.local/share`` (the XDG Base Directory
spec, as ``platformdirs.user_data_dir`` reads it). Each file is written to a temporary file
beside it and renamed over the old one (``os.replace``), icons first and the entry last: a
menu never shows an entry whose icon is half written. ``--uninstall`` removes the same files.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from vramdesk.cli._parser import EXIT_OK, say
from vramdesk.core.errors import InputError

DESKTOP_NAME = "vramdesk.desktop"
ICON_NAME = "vramdesk"


def add_parser(sub: Any) -> None:
    """Add ``install-desktop`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "install-desktop",
        help="add the window to this user's application menu (Linux desktop entry and icons)",
    )
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="XDG data directory to install under (default: $XDG_DATA_HOME or ~/.local/share)",
    )
    p.add_argument("--uninstall", action="store_true", help="remove what install-desktop wrote")
    p.add_argument("--dry-run", action="store_true", help="print the files, write nothing")
    p.set_defaults(handler=run)


def data_dir(given: str | None) -> Path:
    """Where the entry and the icons go: ``given``, else the user's XDG data directory.

    Raises
    ------
    InputError
        ``data_dir``: no directory given on a system without freedesktop menus (Windows, macOS).
    """
    if given:
        return Path(given).expanduser()
    if sys.platform in ("win32", "darwin"):
        raise InputError(
            "data_dir",
            "desktop entries are for Linux desktops; on this system start the window with "
            "vramdesk-gui (or give --data-dir)",
            "unsupported",
        )
    # on first use: only this subcommand needs the XDG rules
    import platformdirs

    return Path(platformdirs.user_data_dir())


def exec_command() -> str:
    """The ``vramdesk`` beside the running Python (this installation), else plain ``vramdesk``."""
    here = Path(sys.executable).parent / "vramdesk"
    return str(here.absolute()) if here.is_file() else "vramdesk"


def quote_exec(program: str) -> str:
    r"""``program`` as one argument of a desktop entry's ``Exec`` key.

    The Desktop Entry spec ("The Exec key"): an argument with a space or a reserved
    character is put in double quotes, inside which ``"``, `````, ``$`` and ``\`` are
    escaped with a backslash; the key's value is a string, so each backslash is then
    written twice; a literal ``%`` is ``%%`` (field codes).
    """
    program = program.replace("%", "%%")
    reserved = set(" \t\n\"'\\><~|&;$*?#()`")
    if not any(c in reserved for c in program):
        return program
    inner = "".join("\\" + c if c in '"`$\\' else c for c in program)
    return ('"' + inner + '"').replace("\\", "\\\\")


def desktop_entry(template: str, program: str) -> str:
    """The entry ``template`` with ``Exec`` and ``TryExec`` naming ``program``."""
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = f"Exec={quote_exec(program)}"
        elif line.startswith("TryExec="):
            line = "TryExec=" + program.replace("\\", "\\\\")
        lines.append(line)
    return "\n".join(lines) + "\n"


def planned_files(data: Path) -> list[tuple[Path, Path | None]]:
    """``(target, source)`` pairs, icons first; the entry's source is None (it is generated)."""
    # on first use: only this subcommand reads the bundled resources
    from vramdesk.core.store.bundled import resources_dir

    icons = resources_dir() / "icons"
    out: list[tuple[Path, Path | None]] = []
    for png in sorted((icons / "hicolor").glob(f"*/apps/{ICON_NAME}.png")):
        rel = png.relative_to(icons)
        out.append((data / "icons" / rel, png))
    svg = data / "icons" / "hicolor" / "scalable" / "apps" / f"{ICON_NAME}.svg"
    out.append((svg, icons / f"{ICON_NAME}.svg"))
    out.append((data / "applications" / DESKTOP_NAME, None))
    return out


def write_atomic(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` through a temporary file in its folder and a rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    """Install (or remove) the desktop entry and icons; print each file."""
    # on first use: only this subcommand reads the bundled resources
    from vramdesk.core.store.bundled import resources_dir

    data = data_dir(args.data_dir)
    files = planned_files(data)
    if args.uninstall:
        for target, _source in reversed(files):  # the entry first: no entry without its icon
            if args.dry_run:
                say(f"would remove {target}")
            elif target.exists():
                target.unlink()
                say(f"removed {target}")
        return EXIT_OK
    program = exec_command()
    template = (resources_dir() / "linux" / DESKTOP_NAME).read_text(encoding="utf-8")
    for target, source in files:
        if args.dry_run:
            say(f"would write {target}")
            continue
        body = source.read_bytes() if source else desktop_entry(template, program).encode()
        write_atomic(target, body)
        say(f"wrote {target}")
    if not args.dry_run:
        say(f"vramdesk is in the application menu (Exec={quote_exec(program)})")
    return EXIT_OK
