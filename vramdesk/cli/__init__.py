"""The ``vramdesk`` command line (SPEC §8): the same core the window uses.

``vramdesk`` alone opens the window; every subcommand runs without loading Qt. The parser is
built here from one module per subcommand (``estimate``, ``solve``, ``compare``, ``models``,
``gpus``, ``presets``, ``validate``, ``calibrate``, ``from-command``, ``install-desktop``), each
with ``add_parser(sub)`` and ``run(args)``; the options they share are in
:mod:`vramdesk.cli._options`. Only the subcommand given is imported and its parser built; the
top-level help lists the others from :data:`COMMANDS`.
A ``run`` imports its core modules inside itself, so that plain ``vramdesk`` (the window) and
``--help`` load none.
Bad input exits with status 2 and one line naming the field and the reason.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from vramdesk.cli._parser import EXIT_FAIL, EXIT_OK, EXIT_USAGE, Parser, VersionAction, warn
from vramdesk.core.errors import InputError, VramdeskError

#: Every subcommand, in the order the help lists them: its module (with ``add_parser(sub)``
#: and a handler) and the one-line help the top-level ``--help`` shows. Only the subcommand
#: given is imported and built (issue 24: building all ten parsers and importing their modules
#: was about a third of a one-estimate process); the others are listed by these lines alone,
#: which ``tests/cli/test_cli_startup.py`` checks against each module's own ``add_parser``.
COMMANDS: dict[str, tuple[str, str]] = {
    "estimate": ("estimate", "memory breakdown of one scenario (and its verdict on a target GPU)"),
    "solve": ("solve", "reverse solver on a GPU budget"),
    "gpus": ("gpus", "local NVIDIA GPUs through NVML"),
    "presets": ("presets", "bundled and saved presets"),
    "models": (
        "models",
        "models already on this machine (Hugging Face cache, Ollama, LM Studio, "
        "llama.cpp, --dir folders); offline, headers only",
    ),
    "compare": (
        "compare",
        "several models under one workload: weights, KV cache, activations, overhead, total, "
        "verdict",
    ),
    "validate": (
        "validate",
        "predictions vs real engine measurements (vramdesk-engine-case/1 JSON lines); exit 1 "
        "if a check fails",
    ),
    "calibrate": (
        "calibrate",
        "parse an engine's start-up log, compare with vramdesk, keep the measured overheads",
    ),
    "from-command": (
        "from_command",
        "read a pasted vllm/sglang/llama-server/ollama/docker launch command and size it",
    ),
    "install-desktop": (
        "install_desktop",
        "add the window to this user's application menu (Linux desktop entry and icons)",
    ),
}
#: Top-level options that take a value (the word after them is not the subcommand).
_VALUED = ("--config-dir",)

__all__ = ["EXIT_FAIL", "EXIT_OK", "EXIT_USAGE", "build_parser", "main", "window_main"]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every subcommand's, or only subcommand ``only``'s.

    With ``only``, the other subcommands are added as names with their help line
    (:data:`COMMANDS`) and no options, so the top-level help, the usage and the refusal of an
    unknown subcommand read exactly as with every parser built; ``only=None`` builds them all.
    """
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
    for name, (module, help_line) in COMMANDS.items():
        if only is None or name == only:
            # on first use: only the subcommand given loads its module (issue 24)
            importlib.import_module(f"vramdesk.cli.{module}").add_parser(sub)
        else:
            _listed_only(sub, name, help_line)
    return parser


def _listed_only(sub: Any, name: str, help_line: str) -> None:
    """Add subcommand ``name`` to ``sub`` as its help line, with no parser made for it.

    argparse lists a subcommand by its choice entry and keeps its parser aside; an empty
    parser costs its own gettext look-ups and help action, about 1.5 M instructions each
    (issue 24). In its place, :class:`_Unbuilt` builds the real one if argparse ever picks
    this name. An argparse without these parts gets a parser without options.
    """
    try:
        entry = sub._ChoicesPseudoAction(name, (), help_line)
        entries, parsers = sub._choices_actions, sub._name_parser_map
    except AttributeError:
        sub.add_parser(name, help=help_line)
        return
    entries.append(entry)
    parsers[name] = _Unbuilt(sub, name)


class _Unbuilt:
    """A subcommand's parser, built on first use (see :func:`_listed_only`)."""

    def __init__(self, sub: Any, name: str) -> None:
        self._sub, self._name = sub, name

    def __getattr__(self, attr: str) -> Any:
        # on first use: the subcommand argparse picked after all loads its module
        module = importlib.import_module(f"vramdesk.cli.{COMMANDS[self._name][0]}")
        parsers = self._sub._name_parser_map
        if parsers.get(self._name) is self:  # the real parser takes this one's place
            del parsers[self._name]
            self._sub._choices_actions[:] = [
                a for a in self._sub._choices_actions if a.dest != self._name
            ]
            module.add_parser(self._sub)
        return getattr(parsers[self._name], attr)


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is no top-level option), if any.

    The word after ``--config-dir`` is its value; ``--config-dir=DIR`` is one word. ``None``
    when the first such word is no subcommand (the parser then refuses it in its own words).
    """
    words = iter(argv)
    for word in words:
        if word in _VALUED:
            next(words, None)
        elif word == "--" or not word.startswith("-"):
            if word == "--":
                word = next(words, "")
            return word if word in COMMANDS else None
    return None


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
    own = argv is None  # the process's own command line: the process ends when this returns
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # the window: nothing to parse, so no parser is built (issue 11: start-up)
        return _run_gui([])
    if own:
        # the modules a command imports and its parser live until the process exits: the
        # cyclic GC is off while they are made, and what they are is frozen before the command
        # runs, so that no collection walks them again, nor the one at exit (issue 24: about
        # 8 % of one `vramdesk estimate`)
        gc.disable()
    # only the subcommand given is built (issue 24); with none (--help, --version) none is
    parser = build_parser(chosen_command(argv) or "")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage error (one line, already printed) or --help
        if own:
            gc.enable()
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.config_dir:
        os.environ["VRAMDESK_CONFIG_DIR"] = args.config_dir
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        return _run_gui([a for a in argv if a != args.config_dir and a != "--config-dir"])
    if own:
        gc.freeze()
        gc.enable()
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
    finally:
        if own:  # what is left lives until the exit a moment from now (see above)
            gc.freeze()
