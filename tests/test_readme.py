"""The README's worked example is what the command line prints today."""

import shlex
from pathlib import Path

from vramdesk.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def test_worked_example_matches_the_cli(capsys):
    text = README.read_text(encoding="utf-8")
    start = text.index("$ vramdesk estimate --preset llama-3.1-70b")
    command, _, rest = text[start + 2 :].partition("\n")
    shown = rest[: rest.index("```")]
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == shown


def test_readme_names_the_debian_packages_the_window_needs():
    from vramdesk.gui.display import DEBIAN_PACKAGES, FRESH_MACHINE_PACKAGES

    text = README.read_text(encoding="utf-8")
    line = next(li for li in text.splitlines() if li.startswith("sudo apt install "))
    assert line.split()[3:] == list(FRESH_MACHINE_PACKAGES)
    # the xcb libraries Qt 6.5+ asks for by name are all among them
    for soname in ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"):
        assert DEBIAN_PACKAGES[soname] in FRESH_MACHINE_PACKAGES
