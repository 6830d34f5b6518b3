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
from vramdesk.core.errors import InputError
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
    sol.add_argument(
        "--emit",
        choices=("vllm", "sglang", "llama-server", "ollama"),
        help="print the launch command that realizes the solved scenario (context, the "
        "solver's max concurrency, memory fraction, KV dtype, TP, -ngl, ...); the engine's "
        "accounting is used (--engine defaults to it)",
    )
    sol.add_argument(
        "--plan-offload",
        action="store_true",
        help="llama.cpp/Ollama: the largest -ngl that fits (max_n_gpu_layers in --json)",
    )
    sol.add_argument(
        "--speed-curve",
        action="store_true",
        help="with a catalog --gpu: decode tokens/s per sequence and in all against "
        "concurrency, expected and ceiling, with the memory limit (speed_curve in --json)",
    )
    sol.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Solve on the budget given and print the answer in the format asked for."""
    import dataclasses

    from vramdesk.core.model.scenario import budget_from_args, scenario_from_args, with_saved_target
    from vramdesk.core.present.views import catalog_fits
    from vramdesk.core.solve.solver import solve

    opts = with_saved_target(_emit_engine(args))  # a saved scenario's target, unless typed
    sc = scenario_from_args(opts)
    label, capacity = _local_budget(opts, sc.runtime) or budget_from_args(
        {**opts, "engine": sc.runtime.engine.value}
    )
    from vramdesk.core.present.output import solve_output

    fmt = output_format(args)
    result = solve(sc.model, sc.weights, sc.workload, sc.runtime, capacity)
    extra: dict[str, Any] = {"budget": label}
    if args.emit:
        command = launch_command(args, sc, result)
        if fmt != "json":
            say(command)
            return EXIT_OK
        extra["launch_command"] = command
    offload_line = None
    if args.plan_offload:
        from vramdesk.core.solve.offload import max_n_gpu_layers

        ngl = max_n_gpu_layers(sc.model, sc.weights, sc.workload, sc.runtime, capacity)
        extra["max_n_gpu_layers"] = ngl
        layers = sc.model.num_hidden_layers
        offload_line = (
            f"Largest -ngl that fits: {ngl} of {layers} layers"
            + (" (and the output matrix)" if ngl == layers + 1 else "")
            if ngl is not None
            else "Largest -ngl that fits: none (not even -ngl 0)"
        )
    if fmt == "json":
        extra["catalog_fits"] = [
            dataclasses.asdict(r) for r in catalog_fits(result.breakdown, sc.runtime)
        ]
    # on first use: the speed block loads only for a solve that reaches its output
    from vramdesk.core.speed import speed_on

    gpu_name = opts.get("gpu") if args.vram_gib is None else None
    speed = speed_on(sc, result.breakdown, gpu_name)
    curve = _speed_curve(gpu_name, sc, result) if args.speed_curve else None
    if curve is not None and fmt == "json":
        extra["speed_curve"] = curve.to_dict()
    levers = _lever_speeds(gpu_name, sc, result, speed)
    if levers and fmt == "json":
        extra["advice_speed"] = [lv.to_dict() for lv in levers]
    text = solve_output(sc, result, label, fmt, Unit.parse(args.units), extra, speed)
    say(text.rstrip("\n"))
    if levers and fmt == "table":
        say("  levers, expected decode of all sequences (as asked -> with the lever alone):")
        say("\n".join(f"    {lv.line()}" for lv in levers))
    if curve is not None and fmt == "table":
        say("\n" + "\n".join(curve.lines()))
    if offload_line and fmt == "table":
        say(offload_line)
    return EXIT_OK


def _emit_engine(args: argparse.Namespace) -> dict[str, Any]:
    """The options, with ``--engine`` set by ``--emit`` (refused when they disagree)."""
    opts = vars(args).copy()
    if not args.emit:
        return opts
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.model.emit import EMIT_ENGINES
    from vramdesk.core.model.runtime import Engine

    target = EMIT_ENGINES[args.emit]
    if args.engine and Engine.parse(args.engine) is not target:
        raise InputError(
            "emit",
            f"--emit {args.emit} realizes a {target.value} scenario; --engine is "
            f"{args.engine} (leave --engine out or make them agree)",
            "conflict",
        )
    opts["engine"] = target.value
    return opts


def launch_command(args: argparse.Namespace, sc: Any, result: Any) -> str:
    """``--emit``: the engine's command for the scenario at the solver's max concurrency."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.model.launch_scenario import model_ref, scenario_command

    ref = args.gguf or args.config or args.model or model_ref(args.emit, args.preset, sc.model.name)
    return scenario_command(args.emit, sc.workload, sc.runtime, result.max_concurrency, ref)


def _local_budget(opts: dict[str, Any], runtime: Any) -> tuple[str, int] | None:
    """The budget of ``--gpu local[:INDEX]`` (``opts``), or None when another option sets it.

    The free memory now; for vLLM the total (it asks for ``util x total`` and refuses to
    start when less is free: then a warning); for SGLang the least free memory of the chosen
    GPUs (``sglang_local_budget``). Every figure is one GPU's, the tightest rank's.
    """
    gpu = opts.get("gpu")
    if gpu is None or opts.get("vram_gib") is not None:
        return None  # budget_from_args handles (and refuses) the rest
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.engines import profile_for
    from vramdesk.core.local.budget import (
        engine_local_budget,
        local_gpu_budget,
        sglang_local_budget,
    )

    tp = runtime.tensor_parallel_size
    profile = profile_for(runtime.engine)
    if profile.budgets_from_free_memory:
        budget = sglang_local_budget(gpu, tp)
    elif not profile.budgets_from_cuda_total:
        return local_gpu_budget(gpu, tp)
    else:
        budget = engine_local_budget(gpu, tp, runtime.gpu_memory_utilization)
    if budget is None:
        return None
    label, total, warning = budget
    if warning:
        warn(f"warning: {warning}")
    return label, total


def _speed_curve(gpu_name: str | None, sc: Any, result: Any) -> Any:
    """``--speed-curve``: the speed chart's figures on the catalog GPU ``gpu_name``.

    Raises
    ------
    InputError
        ``speed_curve``: no catalog GPU named, or it lacks a speed fact.
    """
    if gpu_name is None or gpu_name.strip().lower().startswith("local"):
        raise InputError(
            "speed_curve", "--speed-curve needs a catalog --gpu (its bandwidth and peak)"
        )
    # on first use: the speed chart loads only when asked for
    from vramdesk.core.speed_chart import speed_chart
    from vramdesk.core.store.bundled import find_gpu

    chart = speed_chart(
        sc.model, sc.weights, sc.workload, sc.runtime, find_gpu(gpu_name), result.max_concurrency
    )
    if not hasattr(chart, "points"):
        raise InputError("speed_curve", chart.lines()[0])
    return chart


def _lever_speeds(gpu_name: str | None, sc: Any, result: Any, speed: Any) -> list:
    """What each advised lever costs or gains in speed, on the catalog GPU ``gpu_name``."""
    if not result.advice or not hasattr(speed, "decode"):  # no advice, or no speed figure
        return []
    if gpu_name is None or gpu_name.strip().lower().startswith("local"):
        return []
    # on first use: only a solve with advice and a speed block loads it
    from vramdesk.core.speed_levers import lever_speeds
    from vramdesk.core.store.bundled import find_gpu

    gpu = find_gpu(gpu_name)
    return lever_speeds(sc.model, sc.weights, sc.workload, sc.runtime, result.advice, gpu)
