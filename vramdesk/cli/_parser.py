"""The parser's own parts: one-line usage errors, ``--version``, exit statuses, JSON."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from vramdesk.core.printable import printable, printable_json, printable_lines

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
#: argparse's name of an option with aliases: ``argument --context/--max-model-len/-c:``.
_ALIASED = re.compile(r"argument (-{1,2}[\w-]+)(?:/-{1,2}[\w-]+)+:")


def terminal_columns() -> int:
    """The columns ``shutil.get_terminal_size()`` gives: ``$COLUMNS``, else stdout's, else 80.

    Its rule, written out so that building a parser does not import ``shutil`` (with its
    compression modules, about 2 ms of a one-estimate process, issue 24): argparse sizes a
    formatter at every ``add_argument``.
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return columns


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter at the width argparse gives it (columns - 2)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (exit 2) instead of the usage block.

    Abbreviations are off: ``--kv-d`` must not silently mean ``--kv-dtype``, and with the
    engines' spellings as aliases (``--max-model-len``, ``-ngl``) a prefix is ambiguous.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print ``vramdesk: error: <message>`` on one line (:func:`printable`) and exit 2.

        An option with engine aliases is named by our spelling alone (``argument --context``,
        not ``argument --context/--max-model-len/...``). The prefix is the program's alone
        (``vramdesk: error:``, not ``vramdesk estimate: error:``): every refusal starts alike.
        """
        message = _ALIASED.sub(r"argument \1:", message)
        prog = self.prog.split()[0]
        self.exit(EXIT_USAGE, f"{printable(f'{prog}: error: {message}')}\n")


class VersionAction(argparse.Action):
    """``--version``: print ``vramdesk <version>`` and exit 0, as argparse's own action does.

    The version is read when asked, not when the parser is built: reading it imports
    ``importlib.metadata`` (about 25 ms), which no other command needs (issue 11).
    """

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show program's version number and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> NoReturn:
        # on first use: the package version only for --version (importlib.metadata, issue 11)
        import vramdesk

        try:  # as argparse's own action: output that cannot be written is dropped
            sys.stdout.write(f"{parser.prog} {vramdesk.__version__}\n")
            sys.stdout.flush()
        except OSError:
            pass
        parser.exit()


def print_json(data: Any) -> None:
    """One JSON document on stdout, every non-printable character escaped as JSON does."""
    say_json(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))


def say_json(text: str) -> None:
    r"""Print JSON text with non-printable characters as ``\uXXXX`` (the same value)."""
    print(printable_json(text))


def say(text: str) -> None:
    r"""Print command output: its lines kept, every other non-printable character escaped.

    Names from files and drivers (a GGUF's ``general.name``, NVML's GPU name) can hold
    terminal escape codes; they are shown as ``\x1b`` and never reach the terminal.
    """
    print(printable_lines(text))


def warn(text: str) -> None:
    """``vramdesk: <text>`` on stderr on exactly one line (newlines escaped)."""
    print(printable(f"vramdesk: {text}"), file=sys.stderr)
