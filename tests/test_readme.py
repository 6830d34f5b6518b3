"""The README's worked example: its figures derived by hand, and the CLI prints it today.

The figures are derived here from Llama-3.1-70B's published config.json, not read off the
program: a README that pasted a wrong figure fails even when the program agrees with it.
"""

import re
import shlex
from fractions import Fraction
from math import ceil
from pathlib import Path

from vramdesk.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
GIB = 2**30

# Llama-3.1-70B config.json
LAYERS, HIDDEN, HEADS, KV_HEADS, INTER, VOCAB = 80, 8192, 64, 8, 28_672, 128_256
HEAD_DIM = HIDDEN // HEADS  # 128
# linear parameters per layer: q and o (h x h each), k and v (h x 8 * 128 each), gated MLP
# (3 x h x intermediate) = 134,217,728 + 16,777,216 + 704,643,072 = 855,638,016
LINEAR = LAYERS * (2 * HIDDEN * HIDDEN + 2 * HIDDEN * KV_HEADS * HEAD_DIM + 3 * HIDDEN * INTER)
# untied embedding + lm_head, two RMSNorms per layer + the final one
SMALL = 2 * VOCAB * HIDDEN + (2 * LAYERS + 1) * HIDDEN
# int4 g128 with a 16-bit scale and zero: 4 + 32 / 128 = 4.25 bits; the rest 16-bit
WEIGHTS = ceil(Fraction(LINEAR) * Fraction(17, 4) / 8) + SMALL * 2
# 2 (K and V) x 8 KV heads (not the 64 query heads) x 128 x 2 bytes x 80 layers
PER_TOKEN = 2 * KV_HEADS * HEAD_DIM * 2 * LAYERS
KV = PER_TOKEN * 8192 * 16
OVERHEAD = ceil(Fraction(WEIGHTS + KV) * Fraction(15, 100)) + GIB
TOTAL = WEIGHTS + KV + OVERHEAD


def _example() -> tuple[str, str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("$ vramdesk estimate --preset llama-3.1-70b")
    command, _, rest = text[start + 2 :].partition("\n")
    return command, rest[: rest.index("```")]


def _bytes(shown: str, label: str) -> int:
    m = re.search(rf"^{re.escape(label)}\s+[\d.]+ GiB\s+([\d,]+) bytes$", shown, re.M)
    assert m, f"no {label} line in the README's example"
    return int(m.group(1).replace(",", ""))


def test_hand_derivation_gives_the_published_figures():
    # the published parameter count of Llama-3.1-70B (safetensors total): 70,553,706,496
    assert LINEAR == 68_451_041_280 and SMALL == 2_102_665_216
    assert LINEAR + SMALL == 70_553_706_496
    assert PER_TOKEN == 327_680 and KV == 40 * GIB


def test_readme_figures_are_the_hand_derived_ones():
    _, shown = _example()
    assert "70,553,706,496 params" in shown
    assert _bytes(shown, "Weights") == WEIGHTS == 40_569_946_112
    assert _bytes(shown, "KV cache") == KV
    assert _bytes(shown, "Activations") == 0  # no prompt length: no prefill modelled
    assert _bytes(shown, "Overhead (multiplier)") == OVERHEAD == 13_601_684_685
    assert _bytes(shown, "Total") == TOTAL == 97_121_303_757
    assert f"KV cache per token: {PER_TOKEN:,} bytes (320 KiB)" in shown
    assert f"= {LINEAR:,} * 4.25 / 8 + {SMALL:,} * 16 / 8" in shown
    assert f"= {WEIGHTS + KV:,} * (1.15 - 1) + {GIB:,}" in shown
    # the GiB column: bytes / 2**30 to two decimals
    for label, value in (("Weights", WEIGHTS), ("KV cache", KV), ("Total", TOTAL)):
        assert re.search(rf"^{re.escape(label)}\s+{value / GIB:.2f} GiB", shown, re.M), label


def test_readme_prose_check_by_hand():
    text = README.read_text(encoding="utf-8")
    prose = text[text.index("Check it by hand:") :][:600]
    flat = " ".join(prose.split())
    assert f"= {PER_TOKEN:,} bytes per token" in flat
    assert f"{LINEAR:,} linear parameters" in flat
    assert f"{(2 * LAYERS + 1) * HIDDEN:,} norm" in flat  # 1,318,912
    assert f"= {WEIGHTS:,} bytes" in flat


def test_worked_example_is_what_the_cli_prints(capsys):
    command, shown = _example()
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == shown


def test_readme_install_command_is_the_install_script():
    # one command installs the system libraries, the app and its menu entry, and opens it
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Install and open the app") : text.index("## Install and run")]
    first = section[section.index("```bash\n") + 8 :].split("\n", 1)[0]
    assert first == "tools/install.sh"
    script = (README.parent / first).read_text(encoding="utf-8")
    assert "apt-get install" in script and ".venv/bin/vramdesk install-desktop" in script
    assert script.rstrip().endswith("fi") and "exec .venv/bin/vramdesk" in script
    assert "sudo apt install" not in section  # no second step for the reader to notice


def test_readme_names_the_licences():
    text = README.read_text(encoding="utf-8")
    section = " ".join(text[text.index("## Licence") :].split("## Development")[0].split())
    assert "MIT" in section and "`LICENSE`" in section
    assert "Qt for Python" in section and "LGPL 3.0" in section
    assert "https://www.qt.io/licensing/" in section


def _console_examples(prefix: str) -> list[tuple[str, str]]:
    """``$ vramdesk PREFIX ...`` lines of the README and the text shown under each."""
    text = README.read_text(encoding="utf-8")
    out = []
    for block in text.split("```console\n")[1:]:
        body = block[: block.index("```")]
        for chunk in body.split("$ ")[1:]:
            command, _, shown = chunk.partition("\n")
            if command.startswith(f"vramdesk {prefix}"):
                out.append((command, shown))
    return out


def test_pasted_launch_commands_in_the_readme_are_what_the_cli_prints(capsys):
    examples = _console_examples("from-command") + [
        e for e in _console_examples("solve") if "--emit" in e[0]
    ]
    assert len(examples) == 3 and any("llama-server" in c for c, _ in examples)
    for command, shown in examples:
        assert main(shlex.split(command)[1:]) == 0
        printed = capsys.readouterr().out
        if shown.endswith("  …\n"):  # the catalog list after the solver's answer is elided
            shown = shown[: -len("  …\n")]
            printed = printed[: printed.index("\nEstimated total ") + 1]
        assert printed == shown, command


def test_readme_speed_block_is_what_the_cli_prints(capsys):
    # the worked example on an H200 (issue 25): the block the README shows after "..."
    text = README.read_text(encoding="utf-8")
    start = text.index("$ vramdesk estimate --preset llama-3.1-70b", text.index("### How fast?"))
    command, _, rest = text[start + 2 :].partition("\n")
    shown = rest[: rest.index("```")].removeprefix("...\n")
    assert main(shlex.split(command)[1:]) == 0
    out = capsys.readouterr().out
    # the breakdown, then the headline verdict on the H200 (issue 23, item 9), then the block
    assert shown.startswith("Verdict on H200 (143,771 MiB) = 140.40 GiB per GPU: Fits: ")
    assert out.endswith("\n" + shown) and "\n\nSpeed on H200 (4,800 GB/s" in shown
    # hand derivation (README prose): weights less the 16-bit input embedding, plus the KV
    read = WEIGHTS - VOCAB * HIDDEN * 2 + KV
    assert read == 81_418_272_768
    assert f"{1 / (read / 4.8e12):.1f}" == "59.0"
    assert "59.0" in shown
