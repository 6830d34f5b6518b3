"""``vramdesk gpus``: the local NVIDIA GPUs through NVML."""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._parser import EXIT_FAIL, EXIT_OK, print_json, say


def add_parser(sub: Any) -> None:
    """Add ``gpus`` to the subcommands ``sub``."""
    gpus = sub.add_parser("gpus", help="local NVIDIA GPUs through NVML")
    gpus.add_argument("--json", action="store_true", help="one JSON object, exact integer bytes")
    gpus.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """``vramdesk gpus``: one line per GPU; no readable GPU exits 1 with one line."""
    from vramdesk.core.local.gpu_info import GpuQueryError
    from vramdesk.core.local.nvml import gpus_text, query_gpus, snapshot_to_dict

    try:
        snapshot = query_gpus()
    except GpuQueryError as err:
        if not args.json:
            raise  # main() prints "vramdesk: <message>" and exits 1
        print_json({"error": err.to_dict()})
        return EXIT_FAIL
    if args.json:
        print_json(snapshot_to_dict(snapshot))
    else:
        say(gpus_text(snapshot))
    return EXIT_OK
