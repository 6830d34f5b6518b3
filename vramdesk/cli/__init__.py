"""The ``vramdesk`` command line (SPEC §8): the same core the window uses.

``vramdesk`` alone opens the window; every subcommand runs without loading Qt. The parser is
built here from one module per subcommand (``estimate``, ``solve``, ``compare``, ``models``,
``gpus``, ``presets``, ``validate``, ``calibrate``, ``from-command``, ``install-desktop``), each
with ``add_parser(sub)`` and ``run(args)``; the options they share are in
:mod:`vramdesk.cli._options`.
A ``run`` imports its core modules inside itself, so that plain ``vramdesk`` (the window) and
``--help`` load none.
Bad input exits with status 2 and one line naming the field and the reason.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Sequence

from vramdesk.cli import (
    calibrate,
    compare,
    estimate,
    from_command,
    gpus,
    install_desktop,
    models,
    presets,
    solve,
    validate,
)
from vramdesk.cli._parser import EXIT_FAIL, EXIT_OK, EXIT_USAGE, Parser, VersionAction, warn
from vramdesk.core.errors import InputError, VramdeskError

__all__ = ["EXIT_FAIL", "EXIT_OK", "EXIT_USAGE", "build_parser", "main", "window_main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = Parser(
        prog="vramdesk",
        description="Will this LLM fit in GPU memory? Run without a command to open the window.",
    )
    parser.add_argument("--version", action=VersionAction, dest=argparse.SUPPRESS)
    parser.add_argument(
        "--config-dir",
        metavar="DIR",
        help="user presets and settings directory "
        "(default: $VRAMDESK_CONFIG_DIR or the platform's config dir)",
    )
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    modules = (
        estimate,
        solve,
        gpus,
        presets,
        models,
        compare,
        validate,
        calibrate,
        from_command,
        install_desktop,
    )
    for module in modules:
        module.add_parser(sub)
    return parser


def _run_gui(argv: Sequence[str]) -> int:
    # the window starts with the cyclic GC off, from before PySide6, pyqtgraph and numpy are
    # imported; vramdesk.gui.app.main turns it back on after the first paint
    gc.disable()
    try:
        # on first use: the window (PySide6, pyqtgraph) only for plain `vramdesk`
        from vramdesk.gui.app import main as gui_main

        return gui_main(list(argv))
    finally:
        gc.enable()


def window_main() -> int:
    """The ``vramdesk-gui`` entry (``[project.gui-scripts]``): always the window, no console.

    On Windows a gui-script runs under ``pythonw`` (no console window opens); its arguments go
    to Qt, never to a subcommand.
    """
    return _run_gui(sys.argv[1:])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    0 success; 1 a figure could not be produced (e.g. no GPU readable); 2 bad input (one line
    on stderr).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # the window: nothing to parse, so no parser is built (issue 11: start-up)
        return _run_gui([])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage error (one line, already printed) or --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.config_dir:
        os.environ["VRAMDESK_CONFIG_DIR"] = args.config_dir
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        return _run_gui([a for a in argv if a != args.config_dir and a != "--config-dir"])
    try:
        return handler(args)
    except InputError as exc:
        warn(f"error: {exc}")
        return EXIT_USAGE
    except VramdeskError as exc:
        warn(str(exc))
        return EXIT_FAIL
    except BrokenPipeError:  # output piped into head & co.: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAIL
    except OSError as exc:
        warn(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
        return EXIT_USAGE
