"""``vramdesk solve``: the reverse solver on a GPU budget."""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._options import (
    add_model_options,
    add_output_options,
    add_workload_options,
    output_format,
    positive_number,
)
from vramdesk.cli._parser import EXIT_OK, say, warn
from vramdesk.core.units import Unit


def add_parser(sub: Any) -> None:
    """Add ``solve`` to the subcommands ``sub``."""
    sol = sub.add_parser("solve", help="reverse solver on a GPU budget")
    add_model_options(sol)
    add_workload_options(sol)
    bud = sol.add_argument_group("budget (one of)")
    bud.add_argument("--vram-gib", type=positive_number, metavar="V", help="GPU memory in GiB")
    bud.add_argument(
        "--gpu",
        metavar="NAME",
        help="catalog GPU name (see 'vramdesk presets list --gpus'), or local[:INDEX] "
        "for a local GPU's free memory now (NVML; with --tp N, 'local' takes GPUs "
        "0..N-1 and the least free of them)",
    )
    add_output_options(sol)
    sol.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Solve on the budget given and print the answer in the format asked for."""
    import dataclasses

    from vramdesk.core.model.scenario import budget_from_args, scenario_from_args
    from vramdesk.core.present.views import catalog_fits
    from vramdesk.core.solve.solver import solve

    sc = scenario_from_args(vars(args))
    label, capacity = _local_budget(args, sc.runtime) or budget_from_args(
        {**vars(args), "engine": sc.runtime.engine.value}
    )
    from vramdesk.core.present.output import solve_output

    fmt = output_format(args)
    result = solve(sc.model, sc.weights, sc.workload, sc.runtime, capacity)
    extra = {"budget": label}
    if fmt == "json":
        extra["catalog_fits"] = [dataclasses.asdict(r) for r in catalog_fits(result.breakdown)]
    text = solve_output(sc, result, label, fmt, Unit.parse(args.units), extra)
    say(text.rstrip("\n"))
    return EXIT_OK


def _local_budget(args: argparse.Namespace, runtime: Any) -> tuple[str, int] | None:
    """The budget of ``--gpu local[:INDEX]``, or None when another option sets it.

    The free memory now, or for vLLM/SGLang the total (they ask for ``util x total`` and refuse
    to start when less is free: then a warning).
    """
    if args.gpu is None or args.vram_gib is not None:
        return None  # budget_from_args handles (and refuses) the rest
    from vramdesk.core.engines import profile_for
    from vramdesk.core.local.budget import engine_local_budget, local_gpu_budget

    tp = runtime.tensor_parallel_size
    if not profile_for(runtime.engine).budgets_from_cuda_total:
        return local_gpu_budget(args.gpu, tp)
    budget = engine_local_budget(args.gpu, tp, runtime.gpu_memory_utilization)
    if budget is None:
        return None
    label, total, warning = budget
    if warning:
        warn(f"warning: {warning}")
    return label, total
