r"""Text that is safe to print on a terminal: printable characters only (issue 22 item 7).

Names come from files and drivers we do not control (a GGUF's ``general.name``, a
config's ``_name_or_path``, a folder name, NVML's GPU name); a terminal escape code in one
could recolour, retitle or clear the user's terminal, and a newline in one could forge an
output line or make a one-line error two lines. Every character that is not printable
(``str.isprintable``: controls, format characters such as bidi overrides, separators other
than the space) is shown as its Python escape instead: ``\n``, ``\x1b``, ``\u202e``.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: object) -> str:
    r"""``str(text)`` on one line, every non-printable character escaped (``\n`` included)."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in s)


def printable_lines(text: str) -> str:
    r"""``text`` with its line breaks (``\n``, CSV's ``\r\n``) kept, all else printable."""
    if text.isprintable():
        return text
    return "\n".join(_line(line) for line in text.split("\n"))


def _line(line: str) -> str:
    if line.endswith("\r"):  # a CSV line ending: kept as it is
        return printable(line[:-1]) + "\r"
    return printable(line)


def printable_json(text: str) -> str:
    r"""JSON text with its non-printable characters as ``\uXXXX`` escapes: the same value.

    The layout's own line breaks are kept; the result is safe on a terminal.

    ``json.dumps`` escapes C0 controls but, with ``ensure_ascii=False``, leaves C1
    controls (``\x9b`` is a CSI on some terminals) and format characters as they are.
    """
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or ch == "\n":
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:  # a surrogate pair, as JSON spells characters beyond the BMP
            v = ord(ch) - 0x10000
            out.append(f"\\u{0xD800 + (v >> 10):04x}\\u{0xDC00 + (v & 0x3FF):04x}")
    return "".join(out)
