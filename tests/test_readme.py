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
