"""``vramdesk validate``: predictions against real engine measurements."""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._parser import EXIT_FAIL, EXIT_OK, print_json, say


def add_parser(sub: Any) -> None:
    """Add ``validate`` to the subcommands ``sub``."""
    val = sub.add_parser(
        "validate",
        help="predictions vs real engine measurements "
        "(vramdesk-engine-case/1 JSON lines); exit 1 if a check fails",
    )
    val.add_argument("cases", metavar="CASES.jsonl", help="engine cases ('-': standard input)")
    val.add_argument("--json", action="store_true", help="one JSON object: cases and summary")
    val.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Validate every case; exit 1 when a checked figure is out of tolerance."""
    from vramdesk.core.calibrate.validate import format_report, read_cases, validate_cases

    report = validate_cases(read_cases(args.cases))
    if args.json:
        print_json(report)
    else:
        say(format_report(report))
    checks = report["summary"]["checks"]
    return EXIT_OK if checks["passed"] == checks["total"] else EXIT_FAIL
