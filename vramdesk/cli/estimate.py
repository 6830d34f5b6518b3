"""``vramdesk estimate``: the memory breakdown of one scenario, and its verdict on a target."""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli import _grammar
from vramdesk.cli._options import (
    add_model_options,
    add_output_options,
    add_target_options,
    add_workload_options,
    output_format,
)
from vramdesk.cli._parser import EXIT_OK, say
from vramdesk.cli._speed_options import add_speed_constants_option, speed_constants
from vramdesk.core.units import Unit


def add_parser(sub: Any) -> None:
    """Add ``estimate`` to the subcommands ``sub``."""
    est = sub.add_parser(
        "estimate",
        help="memory breakdown of one scenario (and its verdict on a target GPU)",
        description="vramdesk estimate [MODEL] [WORKLOAD [TARGET]], or the same as flags "
        "(--preset, --workload or --context/--batch, --gpu). With a target: the headline "
        "verdict (fits / tight / does not fit), as 'vramdesk solve' and the window give it.",
    )
    _grammar.add_positionals(est, many=False)
    add_model_options(est)
    add_workload_options(est)
    add_target_options(
        est,
        "the headline verdict; a catalog GPU also the speed block (decode and prefill "
        "ceilings and expected tokens/s, time to first token for --prompt-len, default the "
        "context)",
    )
    add_speed_constants_option(est)
    add_output_options(est)
    est.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the breakdown (and the verdict on the target) in the format asked for."""
    from vramdesk.core.estimate import estimate
    from vramdesk.core.model.scenario import export_target, scenario_from_args, with_saved_target
    from vramdesk.core.present.output import breakdown_output

    fmt = output_format(args)
    models, opts = _grammar.split(args, many=False)
    opts = {**opts, "name": models[0] if models else None}
    opts = with_saved_target(opts)  # a saved scenario's target, unless one is typed
    sc = scenario_from_args(opts)
    target = _grammar.budget(opts, sc.runtime)
    verdict = None
    if target is not None:
        # on first use: the reverse solver only for an estimate with a target
        from vramdesk.core.solve.solver import solve

        label, capacity, _speed_gpu = target
        result = solve(sc.model, sc.weights, sc.workload, sc.runtime, capacity)
        verdict = (label, result)
        breakdown = result.breakdown  # the solve's forward estimate of these same inputs
    else:
        breakdown = estimate(sc.model, sc.weights, sc.workload, sc.runtime)
    constants, speed = speed_constants(args), None
    if target is not None and target[2] is not None:
        # on first use: the speed model loads only for an estimate on a GPU (issue 24)
        from vramdesk.core.speed import speed_on

        speed = speed_on(sc, breakdown, target[2], constants)
    exported = export_target(_grammar.saved_form(opts), sc.runtime.engine)
    unit = Unit.parse(args.units)
    text = breakdown_output(sc, breakdown, fmt, unit, speed, exported, verdict)
    say(text.rstrip("\n"))
    if target is not None and fmt == "table":
        # on first use: Ollama's own estimator only for an estimate with a target
        from vramdesk.core.engines.ollama import ollama_own_estimate

        own_line = ollama_own_estimate(sc.model, sc.weights, sc.workload, sc.runtime, target[1])[1]
        if own_line:
            say(own_line)
    return EXIT_OK
