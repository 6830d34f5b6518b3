"""``vramdesk estimate``: the memory breakdown of one scenario."""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._options import (
    add_model_options,
    add_output_options,
    add_workload_options,
    output_format,
)
from vramdesk.cli._parser import EXIT_OK, say
from vramdesk.core.units import Unit


def add_parser(sub: Any) -> None:
    """Add ``estimate`` to the subcommands ``sub``."""
    est = sub.add_parser("estimate", help="memory breakdown of one scenario")
    add_model_options(est)
    add_workload_options(est)
    est.add_argument(
        "--gpu",
        metavar="NAME",
        help="catalog GPU: add the speed block (decode and prefill ceilings and expected "
        "tokens/s, time to first token for --prompt-len, default the context)",
    )
    add_output_options(est)
    est.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the breakdown in the format asked for."""
    from vramdesk.core.estimate import estimate
    from vramdesk.core.model.scenario import export_target, scenario_from_args, with_saved_target
    from vramdesk.core.present.output import breakdown_output

    fmt = output_format(args)
    opts = with_saved_target(vars(args))  # a saved scenario's GPU, unless --gpu is given
    sc = scenario_from_args(opts)
    breakdown = estimate(sc.model, sc.weights, sc.workload, sc.runtime)
    speed = None
    if opts.get("gpu") is not None:
        # on first use: the speed model loads only for an estimate on a GPU (issue 24)
        from vramdesk.core.speed import speed_on

        speed = speed_on(sc, breakdown, opts["gpu"])
    target = export_target(opts, sc.runtime.engine)
    text = breakdown_output(sc, breakdown, fmt, Unit.parse(args.units), speed, target)
    say(text.rstrip("\n"))
    return EXIT_OK
