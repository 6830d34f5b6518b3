"""Regenerate ``MARKED`` in vramdesk/gui/core_text.py from the core's tables.

Run after a change adds or rewords a sentence, label, note or message the core hands the
window (``tests/gui/test_japanese.py`` fails until it is run):

    python tools/gen_core_text.py && tools/update_translations.sh

The strings come from :func:`tests.gui.core_strings.core_strings`, the same collection the
test checks; then ``update_translations.sh`` lists the new ones for lupdate to pick up.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.gui.core_strings import core_strings  # noqa: E402


def main() -> int:
    """Rewrite the MARKED list in place; print how many strings it holds."""
    path = ROOT / "vramdesk" / "gui" / "core_text.py"
    strings = core_strings()
    lines = "\n".join(f'    QT_TRANSLATE_NOOP("Core", {s!r}),' for s in strings)
    text = path.read_text(encoding="utf-8")
    text = re.sub(
        r"MARKED = \[\n.*?\n\]", lambda _m: "MARKED = [\n" + lines + "\n]", text, flags=re.S
    )
    path.write_text(text, encoding="utf-8")
    print(f"{len(strings)} strings marked in {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
