"""``vramdesk models``: the models already on this machine (offline, headers only)."""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._parser import say, say_json, warn


def add_parser(sub: Any) -> None:
    """Add ``models`` to the subcommands ``sub``."""
    mod = sub.add_parser(
        "models",
        help="models already on this machine (Hugging Face cache, Ollama, LM Studio, "
        "llama.cpp, --dir folders); offline, headers only",
    )
    mod.add_argument(
        "--dir",
        action="append",
        default=[],
        metavar="DIR",
        help="another folder to look in (repeatable; also $VRAMDESK_MODEL_DIRS)",
    )
    mod.add_argument("--json", action="store_true", help="one JSON object, exact size_bytes")
    mod.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """``vramdesk models``: what is on this machine (problems on stderr)."""
    from vramdesk.core.local.discovery import discover, discovery_json, models_text

    found = discover(args.dir)
    if args.json:
        say_json(discovery_json(found))
        return 0
    for problem in found.problems:
        warn(f"warning: {problem}")
    say(models_text(found))
    return 0
